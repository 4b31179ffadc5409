"""/docs: Swagger UI from the vendored swagger-ui-dist, working with no internet."""

import re


def test_docs_page_loads_only_local_assets(client):
    page = client.get("/docs")
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(s.startswith("/") for s in sources), sources
    for source in sources:
        assert client.get(source).status_int == 200


def test_swagger_ui_is_vendored_with_its_license(client):
    assert "Apache License" in client.get("/static/swagger-ui/LICENSE").text
    assert "swagger-ui-dist" in client.get("/static/swagger-ui/VERSION").text


def test_docs_use_the_password_flow_against_the_token_endpoint(client):
    scheme = client.get("/openapi.json").json["components"]["securitySchemes"]["OAuth2PasswordBearer"]
    assert scheme["flows"]["password"]["tokenUrl"] == "/auth/token"
