"""What a hostile client, a reverse proxy or a local user could do to Door (issue 10), tried against real
`doorapp serve` processes: the server's own behaviour (waitress's settings, file modes) is the point, which
an in-process WSGI client would bypass."""

import os
import socket
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import requests

from helpers import DOORAPP, door_env, served
from tests.conftest import PASSWORD

WRONG = "not the password of anybody here"


def set_up(door):
    """The first site admin (olga) through the setup code `serve` printed; her bearer headers."""
    admin = {"code": door.setup_code, "username": "olga", "password": PASSWORD}
    requests.post(f"{door.url}/setup", json=admin, timeout=10).raise_for_status()
    return {"Authorization": f"Bearer {sign_in(door.url, 'olga').json()['access_token']}"}


def sign_in(url, username, password=PASSWORD, client=None):
    headers = {"X-Forwarded-For": client} if client else {}
    return requests.post(f"{url}/auth/token", data={"username": username, "password": password},
                         headers=headers, timeout=30)


def test_behind_a_trusted_proxy_one_clients_failures_never_lock_out_another(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path,
                env={"DOOR_TRUSTED_PROXIES": "127.0.0.1"}) as door:
        set_up(door)
        for n in range(12):  # a guesser behind the proxy, trying a different name each time
            assert sign_in(door.url, f"guess{n}", WRONG, client="203.0.113.7").status_code in (401, 429)
        assert sign_in(door.url, "guess99", WRONG, client="203.0.113.7").status_code == 429
        assert sign_in(door.url, "olga", client="198.51.100.20").status_code == 200  # another client


def test_without_trusted_proxies_a_forwarded_for_header_changes_nothing(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        set_up(door)
        for n in range(10):  # a new made-up address each time cannot dodge the limit
            sign_in(door.url, f"guess{n}", WRONG, client=f"203.0.113.{n}")
        assert sign_in(door.url, "olga", client="198.51.100.20").status_code == 429


def test_a_huge_upload_is_refused_as_its_headers_arrive_not_spooled(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        address = urlsplit(door.url)
        with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
            # 300 MiB announced, 64 KiB sent
            sock.sendall(b"POST /auth/register HTTP/1.1\r\nHost: door\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 314572800\r\n\r\n" + b"x" * 65536)
            answer = sock.recv(4096)  # no more is sent: an answer means Door did not wait for 300 MiB
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_parallel_wrong_passwords_get_no_more_guesses_than_the_limit(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        set_up(door)
        with ThreadPoolExecutor(max_workers=20) as pool:
            codes = list(pool.map(lambda _: sign_in(door.url, "olga", WRONG).status_code, range(40)))
        assert codes.count(401) <= 10 and set(codes) <= {401, 429}, codes
        assert sign_in(door.url, "olga").status_code == 429  # the user is locked for the window


def test_parallel_wrong_recovery_codes_count_no_more_than_five_and_the_code_is_then_spent(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path,
                env={"DOOR_TRUSTED_PROXIES": "127.0.0.1"}) as door:
        admin = set_up(door)
        account = {"username": "sam", "password": PASSWORD}
        user = requests.post(f"{door.url}/auth/register", json=account, timeout=30).json()
        code = requests.post(f"{door.url}/staff/{user['id']}/recovery-code", headers=admin, timeout=30) \
            .json()["code"]
        wrong = f"{(int(code) + 1) % 1000000:06d}"

        def guess(n):  # from 24 addresses, so that only the code's own limit holds them back
            return requests.post(f"{door.url}/auth/verify-recovery-code",
                                 json={"username": "sam", "code": wrong},
                                 headers={"X-Forwarded-For": f"203.0.113.{n}"}, timeout=30).status_code
        with ThreadPoolExecutor(max_workers=24) as pool:
            assert set(pool.map(guess, range(24))) == {400}
        reset = {"username": "sam", "code": code, "new_password": "a brand new password for sam"}
        refused = requests.post(f"{door.url}/auth/reset-password", json=reset, timeout=30,
                                headers={"X-Forwarded-For": "198.51.100.20"})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_recovery_code"
        assert sign_in(door.url, "sam", reset["new_password"]).status_code == 401  # unchanged


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_data_folder_its_database_and_backups_are_the_owners_alone(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)  # a folder made by hand beforehand is tightened at start
    os.chmod(data, 0o755)
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", data) as door:
        set_up(door)  # writes: the WAL file is there
        copy = subprocess.run([DOORAPP, "backup", f"{tmp_path}/copies/"], capture_output=True, text=True,
                              env=door_env(DOOR_DATA_DIR=str(data)), timeout=60)
        assert copy.returncode == 0, copy.stderr
        assert mode(data) == 0o700
        for name in ("door.db", "door.db-wal", "door.db-shm", "secret.key"):
            assert mode(data / name) == 0o600, name
        [backup] = (tmp_path / "copies").iterdir()
        assert mode(backup) == 0o600 and mode(tmp_path / "copies") == 0o700
