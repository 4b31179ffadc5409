"""A real OAuth 2.0 client library gets a token from a real server and uses it."""

from helpers import PASSWORD
from oauthlib.oauth2 import LegacyApplicationClient
from requests_oauthlib import OAuth2Session


def test_password_flow_with_requests_oauthlib(live_server, make_user, monkeypatch):
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # plain HTTP on 127.0.0.1
    make_user("dana")
    session = OAuth2Session(client=LegacyApplicationClient(client_id="door-cli"))
    token = session.fetch_token(
        token_url=f"{live_server}/auth/token",
        username="dana",
        password=PASSWORD,
        client_id="door-cli",
        include_client_id=True,
    )
    assert token["token_type"] == "bearer" and token["expires_in"] == 720 * 60
    reply = session.get(f"{live_server}/auth/userinfo")
    assert reply.status_code == 200 and reply.json()["username"] == "dana"
    assert "X-Request-ID" in reply.headers
