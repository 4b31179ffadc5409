"""Liveness and health for monitors."""

import os
import shutil
import time

import pytest
import requests
from helpers import DOORAPP, SECRET, auth, served

from doorapp import __version__
from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import User


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


# Root writes a read-only file anyway; a server without CAP_DAC_OVERRIDE is held to the file's mode as any
# other account is (running it as `nobody` would not do: the venv's Python may live in root's home).
AS_ITS_OWNER = (
    ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override"] if os.geteuid() == 0 else []
)


def health(url):
    return requests.get(f"{url}/health", timeout=10).json()


def wait_for(check, seconds=15):
    """check() once it is truthy, looking every 0.2 s for `seconds`; else the last value."""
    for _ in range(int(seconds / 0.2)):
        if value := check():
            return value
        time.sleep(0.2)
    return check()


@pytest.mark.parametrize("workers", ["1", "2"])  # 2: the checkpointer's process is not the one answering
def test_a_database_made_read_only_while_serving_is_degraded_health_and_one_warning(tmp_path, workers):
    data_dir = tmp_path / "data"
    create_app(Config(data_dir=data_dir, secret_key=SECRET))
    headers = auth(User.create(username="sam", password_hash="x", is_approved=True, role="SITE_ADMIN"))
    db.close()
    database = data_dir / "door.db"
    command = [*AS_ITS_OWNER, DOORAPP, "serve", "--workers", workers, "--port", "0", "--data-dir", data_dir]
    with served(*command, env={"DOOR_SECRET_KEY": SECRET}) as door:
        assert health(door.url)["status"] == "healthy"
        database.chmod(0o400)
        try:
            degraded = wait_for(lambda: (answer := health(door.url))["status"] == "degraded" and answer)
            time.sleep(3)  # three more failed checkpoints
            staff = requests.get(f"{door.url}/staff/", headers=headers, timeout=10)  # reads still answer
        finally:
            database.chmod(0o600)
        assert degraded["services"]["database"]["status"] == "degraded", degraded
        assert "can write its data folder" in degraded["services"]["database"]["message"]
        assert staff.status_code == 200
        healthy = wait_for(lambda: health(door.url)["status"] == "healthy")
        assert door.stop() == 0
    assert healthy
    warnings = [line for line in door.log if "checkpoint failed" in line]
    assert len(warnings) == 1 and "WARNING" in warnings[0], warnings
    assert [line for line in door.log if "checkpoints work again" in line]
