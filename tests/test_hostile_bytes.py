"""Bytes a schema-based fuzzer and raw sockets send (issue 26, item 9), through a real `doorapp serve`: a
header that is not UTF-8, digits int() refuses, invalid percent-escapes; and a crash logged with the status
sent and answered with its X-Request-ID."""

import json
import socket
import sqlite3
from urllib.parse import urlsplit

import pytest
import requests
from helpers import DOORAPP, SECRET, auth, next_week, served

from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import Guest, Meetup, MeetupGuest, Org, User


@pytest.fixture
def door(tmp_path):
    """`doorapp serve` on a SQLite data folder with an org, a meetup with one guest, and a site admin;
    yields (the server, the admin's headers, the guest's check-in URL)."""
    data_dir = tmp_path / "data"
    create_app(Config(data_dir=data_dir, secret_key=SECRET))
    org = Org.create(name="Night Owls", slug="night-owls")
    meetup = Meetup.create(org=org, name="m", date=next_week(), platform_url="https://x/y/m")
    MeetupGuest.create(meetup=meetup, guest=Guest.create(platform_user_id=7, username="ann"))
    headers = auth(User.create(username="sam", password_hash="x", is_approved=True, role="SITE_ADMIN"))
    db.close()
    with served(
        DOORAPP, "serve", "--port", "0", "--data-dir", data_dir, env={"DOOR_SECRET_KEY": SECRET}
    ) as server:
        yield server, headers, f"/organizations/{org.id}/meetups/{meetup.id}/guests/7/checkin"


def raw(url, request, body=False):
    """Send bytes as they are; the status line and headers of the answer (and its body)."""
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    return (head.decode("latin-1"), content) if body else head.decode("latin-1")


HEADERS = ["X-Request-ID", "Authorization", "Idempotency-Key", "X-Forwarded-For", "If-None-Match"]


def test_header_bytes_that_are_no_utf8_never_make_a_500_on_any_route(door):
    server, headers, checkin = door
    token = headers["Authorization"].encode()
    paths = [b"/ping", b"/guests/", b"/auth/userinfo", checkin.encode(), checkin.rsplit("/", 3)[0].encode()]
    for path in paths:
        for name in [*HEADERS, "Accept-Encoding"]:
            value = b"Bearer \xff\xfe" if name == "Authorization" else b"\xff\xc3("
            auth_line = b"" if name == "Authorization" else b"Authorization: " + token + b"\r\n"
            method = b"POST" if path.endswith(b"checkin") else b"GET"
            head = raw(
                server.url,
                method
                + b" "
                + path
                + b" HTTP/1.1\r\nHost: door\r\n"
                + auth_line
                + name.encode()
                + b": "
                + value
                + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )
            status = int(head.split()[1])
            assert status < 500 and "X-Request-Id: " in head, (path, name, head)
    assert not [line for line in server.log if "Traceback" in line]


def test_digits_int_refuses_and_invalid_percent_escapes_are_4xx(door):
    server, headers, _ = door
    for limit in ("²", "①", "٣", "9" * 5000, "1_0", "+5"):
        reply = requests.get(f"{server.url}/guests/", params={"limit": limit}, headers=headers, timeout=10)
        assert reply.status_code == 422 and reply.json()["errors"][0]["loc"] == ["query", "limit"], limit
    for path in ("/organizations/%FF", "/organizations/%C3%28/meetups/", "/guests/by-username/%FF"):
        head = raw(server.url, f"GET {path} HTTP/1.1\r\nHost: door\r\nConnection: close\r\n\r\n".encode())
        assert head.startswith("HTTP/1.1 400"), (path, head)


def test_a_crash_is_logged_as_the_500_it_sent_and_keeps_its_request_id(door, tmp_path):
    """A fault Door has no rule for (the database refuses every audit event: a trigger) is a 500 whose
    answer carries the client's X-Request-ID and whose log line and traceback carry it too."""
    server, headers, checkin = door
    with sqlite3.connect(tmp_path / "data" / "door.db") as connection:
        connection.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON audit_event BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    connection.close()
    sent = {**headers, "X-Request-ID": "crash-report-42"}
    reply = requests.post(server.url + checkin, json={}, headers=sent, timeout=10)
    assert reply.status_code == 500 and reply.headers["X-Request-ID"] == "crash-report-42"
    assert reply.json()["code"] == "internal_error" and "refused" not in reply.text
    server.stop()
    log = "".join(server.log)
    assert f"crash-report-42 POST {checkin} 500" in log and " 200\n" not in log
    assert "request crash-report-42 failed" in log and "Traceback" in log


def test_a_door_time_past_the_calendars_edge_is_422_and_logged_as_such(door):
    server, headers, checkin = door
    body = {"door_time": "9999-12-31T23:59:59-01:00"}
    reply = requests.post(server.url + checkin, json=body, headers=headers, timeout=10)
    assert reply.status_code == 422 and reply.json()["errors"][0]["loc"] == ["body", "door_time"]
    server.stop()
    assert f"POST {checkin} 422" in "".join(server.log)


def test_a_path_out_of_the_static_folder_is_404_not_found(door):
    """Clients resolve `..` before sending; a raw socket does not, and Bottle's static_file answered 403
    `bad_request` for it."""
    server, _, _ = door
    assert raw(
        server.url, b"GET /static/app.js HTTP/1.1\r\nHost: door\r\nConnection: close\r\n\r\n"
    ).startswith("HTTP/1.1 200")
    for path in ("/static/..", "/static/../../data/door.db", "/static/%2e%2e/secret.key", "/static/core"):
        request = f"GET {path} HTTP/1.1\r\nHost: door\r\nConnection: close\r\n\r\n".encode()
        head, body = raw(server.url, request, body=True)
        assert head.startswith("HTTP/1.1 404") and json.loads(body)["code"] == "not_found", (path, head)
