"""Liveness and health for monitors."""

import shutil

from doorapp import __version__
from doorapp.db import db


def test_ping_answers_pong_and_ignores_any_token(client):
    assert client.get("/ping").json == {"ping": "pong"}
    assert client.get("/ping", headers={"Authorization": "Bearer stale.token.here"}).json == {"ping": "pong"}


def test_health_reports_the_database(client):
    reply = client.get("/health", headers={"Authorization": "Bearer stale"})
    body = reply.json
    assert body["services"]["database"]["status"] == "healthy"
    assert isinstance(body["services"]["database"]["latency_ms"], float)
    assert body["status"] == "healthy" and body["version"] == __version__  # the demo platform is healthy
    assert body["services"]["platform"]["status"] == "healthy"
    assert set(body["services"]["platform"]) == {"status", "latency_ms", "message"}
    head = client.head("/health")
    assert head.status_int == 200 and head.body == b""


def test_a_lost_database_makes_health_503_and_other_routes_503_not_500(client, config, make_user, as_user):
    session = as_user(make_user("dana"))
    moved = config.data_dir.with_name("moved")
    shutil.move(config.data_dir, moved)
    db.close()  # the next request must open the file again, and cannot
    try:
        reply = client.get("/health", status=503)
        assert reply.json["status"] == "unhealthy"
        assert reply.json["services"]["database"]["status"] == "unhealthy"
        assert client.head("/health", status=503).body == b""
        problem = session.get("/auth/userinfo", status=503).json
        assert problem["code"] == "service_unavailable"
    finally:
        shutil.move(moved, config.data_dir)
    db.close()
    client.get("/health", status=200)
