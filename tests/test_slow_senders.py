"""Slow senders and slow readers (SECURITY.md) through a real `doorapp serve`: hundreds of connections from
one address that each drip a byte at a time never keep a door's /ping and check-ins out, in one process or
several; a request that has not arrived whole by its deadline is answered 408, logged, and its connection
closed; connections that pipeline big answers and never read them neither hold the threads nor stay open
past the send deadline."""

import json
import select
import socket
import time
from pathlib import Path
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
    assert [line for line in door.log if line.rstrip().endswith("] - GET /ping 408")]  # the access log


BUNDLE = b"GET /static/swagger-ui/swagger-ui-bundle.js HTTP/1.1\r\nHost: door\r\n\r\n"  # 1.7 MB


def reader(url):
    """A connection with a small receive buffer, as a client that reads slowly or not at all has."""
    address = urlsplit(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((address.hostname, address.port))
    return sock


def received(sock, limit=10**9):
    """Everything the server sends until it closes the connection (or `limit` bytes)."""
    answer = b""
    try:
        while len(answer) < limit and (chunk := sock.recv(65536)):
            answer += chunk
    except ConnectionResetError:
        pass
    return answer


@pytest.mark.parametrize("workers", ["1", "2"])
def test_clients_that_never_read_what_they_asked_for_never_keep_the_door_out(data_dir, workers):
    folder, headers, checkin = data_dir
    settings = {"DOOR_SECRET_KEY": SECRET, "DOOR_REQUEST_TIMEOUT": "30"}
    command = (DOORAPP, "serve", "--workers", workers, "--port", "0", "--data-dir", folder)
    with served(*command, env=settings) as door:
        # more than each process has threads (8), whichever process the kernel hands each one to
        stuck = [reader(door.url) for _ in range(24 * int(workers))]
        try:
            for sock in stuck:
                sock.sendall(BUNDLE * 20)  # 34 MB of answers asked for in one packet, never read
            time.sleep(1)
            for n in range(1, 6):
                assert requests.get(f"{door.url}/ping", timeout=5).json() == {"ping": "pong"}
                checked_in = requests.post(door.url + checkin(n), json={}, headers=headers, timeout=5)
                assert checked_in.status_code == 200, checked_in.text
        finally:
            for sock in stuck:
                sock.close()
        assert door.stop() == 0
    assert not [line for line in door.log if "Traceback" in line]


def test_an_answer_not_read_by_the_send_deadline_closes_its_connection(data_dir):
    folder, _, _ = data_dir
    settings = {"DOOR_SECRET_KEY": SECRET, "DOOR_REQUEST_TIMEOUT": "2"}
    size = (Path(__file__).parents[1] / "doorapp/static/swagger-ui/swagger-ui-bundle.js").stat().st_size
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", folder, env=settings) as door:
        with reader(door.url) as slow:
            slow.sendall(BUNDLE * 3)
            time.sleep(5)  # reads nothing past the deadline
            got = received(slow)  # what the buffers held, then the server's close
        assert 0 < len(got) < 3 * size
        with reader(door.url) as prompt:  # one that reads gets every answer, whole
            prompt.sendall(BUNDLE * 3)
            assert len(received(prompt, 3 * size)) >= 3 * size
        assert door.stop() == 0


def test_pipelined_requests_past_the_cap_are_refused_and_the_connection_closed(data_dir):
    folder, _, _ = data_dir
    with served(
        DOORAPP, "serve", "--port", "0", "--data-dir", folder, env={"DOOR_SECRET_KEY": SECRET}
    ) as door:
        with reader(door.url) as eager:
            eager.sendall(b"GET /ping HTTP/1.1\r\nHost: door\r\n\r\n" * 50)
            answers = received(eager).split(b"HTTP/1.1 ")[1:]
        # 8 wait at most; one or two more may have been answered while the packet was being read
        assert 8 <= len(answers) - 1 <= 12 and {a[:3] for a in answers[:-1]} == {b"200"}
        assert answers[-1][:3] == b"429"
        assert json.loads(answers[-1].partition(b"\r\n\r\n")[2])["code"] == "rate_limited"
        assert door.stop() == 0
