"""Keys, settings and folders Door cannot use (issue 26, item 5): each stops `doorapp serve` with one clear
line naming the file or setting, a non-zero exit, no traceback and no secret."""

import os
import stat
import subprocess

import pytest
from helpers import DOORAPP, door_env


def start(*args, **settings):
    return subprocess.run(
        [DOORAPP, "serve", "--port", "0", *map(str, args)],
        capture_output=True,
        text=True,
        env=door_env(**settings),
        timeout=60,
    )


def one_clear_line(started, *words):
    lines = [line for line in started.stderr.splitlines() if line.strip()]
    assert started.returncode != 0 and len(lines) == 1, started.stderr
    assert "Traceback" not in started.stderr and all(word in lines[0] for word in words), lines


@pytest.mark.parametrize(
    "key",
    [b"short\n", b"\x00" * 64, bytes(range(256)) * 2, b"", b"a" * 63 + b"=", "é".encode() * 40],
    ids=["short", "nul-bytes", "random-bytes", "empty", "not-url-safe", "not-ascii"],
)
def test_a_signing_key_not_of_the_form_door_writes_stops_it_in_one_line(tmp_path, key):
    data = tmp_path / "data"
    data.mkdir()
    (data / "secret.key").write_bytes(key)
    one_clear_line(start("--data-dir", data), str(data / "secret.key"), "Delete the file")


def test_the_key_door_writes_is_of_its_own_form_and_leaves_no_draft(tmp_path):
    from doorapp.keys import KEY_FORM, write_key

    write_key(tmp_path / "secret.key")
    write_key(tmp_path / "secret.key")  # a second writer keeps the first key
    assert KEY_FORM.fullmatch((tmp_path / "secret.key").read_text())
    assert os.listdir(tmp_path) == ["secret.key"]
    assert stat.S_IMODE((tmp_path / "secret.key").stat().st_mode) == 0o600


@pytest.mark.parametrize("password", ["pa#ss", "pa/ss", "pa?ss", "p@s#s/w?rd"])
def test_a_database_url_whose_password_holds_url_characters_never_prints_it(tmp_path, password):
    """Unencoded, such a password is no URL at all: refused in one line naming DATABASE_URL, the
    password never shown; percent-encoded, Door reaches the server (here: nobody listens)."""
    url = f"postgresql://door:{password}@127.0.0.1:1/door"
    started = start("--data-dir", tmp_path, DATABASE_URL=url)
    assert password not in started.stderr and "Traceback" not in started.stderr
    one_clear_line(started, "DATABASE_URL")


def test_a_data_folder_that_cannot_be_made_or_written_stops_door_in_one_line(tmp_path):
    regular = tmp_path / "a-file"
    regular.write_text("")
    one_clear_line(start("--data-dir", regular / "data"), str(regular / "data"))
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.geteuid() != 0:  # root writes anywhere
        one_clear_line(start("--data-dir", locked / "data"), str(locked / "data"))
