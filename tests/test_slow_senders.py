"""Slow senders (issue 26, item 2; SECURITY.md) through a real `doorapp serve`: hundreds of connections from
one address that each drip a byte at a time never keep a door's /ping and check-ins out, in one process or
several; a request that has not arrived whole by its deadline is answered 408 and its connection closed."""

import json
import select
import socket
import time
from urllib.parse import urlsplit

import pytest
import requests
from helpers import DOORAPP, SECRET, auth, next_week, served

from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import Guest, Meetup, MeetupGuest, Org, User

SLOW = 250  # connections that never finish their request, from 127.0.0.1 like the door's own
LIMIT = 100  # DOOR_CONNECTIONS of each process: the slow ones alone are more than it


@pytest.fixture
def data_dir(tmp_path):
    """A data folder with a meetup of 20 guests and a site admin; (the folder, the admin's headers, the
    check-in URL of guest `n`)."""
    folder = tmp_path / "data"
    create_app(Config(data_dir=folder, secret_key=SECRET))
    org = Org.create(name="Night Owls", slug="night-owls")
    meetup = Meetup.create(org=org, name="m", date=next_week(), platform_url="https://x/y/m")
    for n in range(1, 21):
        MeetupGuest.create(meetup=meetup, guest=Guest.create(platform_user_id=n, username=f"guest{n}"))
    headers = auth(User.create(username="sam", password_hash="x", is_approved=True, role="SITE_ADMIN"))
    db.close()
    return folder, headers, lambda n: f"/organizations/{org.id}/meetups/{meetup.id}/guests/{n}/checkin"


def connect(url):
    address = urlsplit(url)
    return socket.create_connection((address.hostname, address.port), timeout=10)


def drip(sockets):
    """One more byte of a header that never ends on each socket; how many the server has closed."""
    closed = 0
    for sock in sockets:
        try:
            sock.send(b"X")
        except OSError:
            closed += 1
    return closed


@pytest.mark.parametrize("workers", ["1", "2"])
def test_hundreds_of_slow_senders_never_keep_the_door_out(data_dir, workers):
    folder, headers, checkin = data_dir
    settings = {"DOOR_SECRET_KEY": SECRET, "DOOR_CONNECTIONS": str(LIMIT)}
    command = (DOORAPP, "serve", "--workers", workers, "--port", "0", "--data-dir", folder)
    with served(*command, env=settings) as door:
        slow = []
        try:
            for _ in range(SLOW):
                slow.append(connect(door.url))
                slow[-1].sendall(b"POST /ping HTTP/1.1\r\nHost: door\r\nX-Slow: ")
            for n in range(1, 11):  # ten rounds: a byte on every slow socket, then a phone's requests
                drip(slow)
                assert requests.get(f"{door.url}/ping", timeout=5).json() == {"ping": "pong"}
                checked_in = requests.post(door.url + checkin(n), json={}, headers=headers, timeout=5)
                assert checked_in.status_code == 200, checked_in.text
                time.sleep(0.2)
            # each process holds at most LIMIT: every slow connection past that was closed for a newcomer
            assert drip(slow) >= SLOW - LIMIT * int(workers)
        finally:
            for sock in slow:
                sock.close()
        assert door.stop() == 0
    assert not [line for line in door.log if "Traceback" in line]
    said = [line for line in door.log if "as many as DOOR_CONNECTIONS allows" in line]
    assert 1 <= len(said) <= int(workers)  # once per process, not once per connection closed


def test_a_request_still_arriving_at_its_deadline_is_408_and_closed(data_dir):
    folder, _, _ = data_dir
    settings = {"DOOR_SECRET_KEY": SECRET, "DOOR_REQUEST_TIMEOUT": "2"}
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", folder, env=settings) as door:
        with connect(door.url) as late, connect(door.url) as prompt:
            late.sendall(b"GET /ping HTTP/1.1\r\nHost: door\r\n")
            prompt.sendall(b"GET /ping HTTP/1.1\r\nHost: door\r\n")
            time.sleep(1)  # within the deadline: the whole request is served
            prompt.sendall(b"\r\n")
            assert prompt.recv(65536).startswith(b"HTTP/1.1 200")
            for _ in range(20):  # a byte every quarter second, never idle and never whole, until answered
                if select.select([late], [], [], 0.25)[0]:
                    break
                late.sendall(b"X")
            answer = b""
            while chunk := late.recv(65536):  # then the server closes it
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.split()[1] == b"408" and b"Content-Type: application/problem+json" in head
        assert json.loads(body)["code"] == "request_timeout"
        assert door.stop() == 0
