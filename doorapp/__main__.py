"""The command line: doorapp serve | create-admin | backup | rotate-key | import (README: "Command line")."""

import argparse
import getpass
import logging
import os
import signal
import socket
import sys
import threading
import time
import webbrowser
from pathlib import Path

import peewee

from doorapp import __version__
from doorapp.config import Config, settings_help
from doorapp.paths import FROZEN, PROG

DATA = "a door-data folder beside this program" if FROZEN else "./door-data"
EXAMPLES = [
    ("serve", f"serve on http://127.0.0.1:8080/ with data in {DATA}"),
    ("serve --host 0.0.0.0", "let phones on the venue network in"),
    ("create-admin alice", "an approved SITE_ADMIN (asks for the password)"),
    ("backup backups/", "an online copy of the database, safe while serving"),
    ("rotate-key", "a new signing key: every session ends, on every machine"),
    (
        "import list.xls --org owls --name 'Owls #12' --date 2026-11-21T19:00",
        "a meetup from a guest list file",
    ),
]
EPILOG = (
    f"""settings (environment variables; flags override them):
{settings_help()}

examples:
"""
    + "\n".join(f"  {PROG + ' ' + example:<36}  {meaning}" for example, meaning in EXAMPLES)
    + "\n"
)


def parser():
    top = argparse.ArgumentParser(
        prog=PROG,
        description="Door: door management for meetups." + (" With no command: serve." if FROZEN else ""),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the web service",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host", help="address to listen on (DOOR_HOST; default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, help="port to listen on (DOOR_PORT; default 8080; 0 picks a free one)"
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="serve the port from N processes (default 1; more use more cores; not Windows)",
    )
    serve.add_argument("--launcher", help=argparse.SUPPRESS)  # ./dev's "./dev serve", for the Phones screen
    serve.add_argument(
        "--browser",
        action=argparse.BooleanOptionalAction,
        default=FROZEN,
        help="open the start page in the default browser when there is a desktop"
        f" (default: {'yes' if FROZEN else 'no'})",
    )
    admin = commands.add_parser(
        "create-admin",
        help="create an approved SITE_ADMIN account",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    admin.add_argument("username")
    admin.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input",
    )
    backup = commands.add_parser(
        "backup",
        help="copy the database while the service runs",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    backup.add_argument("dest", help="a file, or a folder to put a dated file in")
    rotate = commands.add_parser(
        "rotate-key", help="sign tokens with a new key: every session ends (or with DOOR_SECRET_KEY's)",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    from doorapp.imports.cli import add_arguments

    importer = commands.add_parser(
        "import", help="fill or update a meetup's list from a guest list file", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    add_arguments(importer)
    for command in (serve, admin, backup, rotate, importer):
        command.add_argument("--data-dir", help=f"data folder (DOOR_DATA_DIR; default {DATA})")
    return top


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if FROZEN and not argv:  # the organizer double-clicked the program
        argv = ["serve"]
    args = parser().parse_args(argv)
    if not args.command:
        parser().print_help()
        return 2
    config = Config.from_env(
        data_dir=args.data_dir and Path(args.data_dir),
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
    )
    from doorapp.db import db
    from doorapp.migrations import NewerDatabase

    try:
        commands = {
            "serve": serve,
            "create-admin": create_admin,
            "backup": backup,
            "rotate-key": rotate_key,
            "import": import_file,
        }
        return commands[args.command](config, args)
    except NewerDatabase as error:
        db.close()
        raise SystemExit(str(error)) from None
    except peewee.OperationalError as error:  # locked by another program past the busy timeout, or unreadable
        said = " ".join(str(error).split())  # psycopg's reasons span lines; the log wants one
        where = "the database DATABASE_URL names" if config.database_url else "its database"
        raise SystemExit(
            f"Door could not use {where} ({said}). If another program holds it (a backup, "
            f"a database browser), try again when it is done; nothing was changed."
        ) from None
    except OSError as error:  # the data folder: under a regular file, read-only, not ours
        if error.filename is None:
            raise
        raise SystemExit(
            f"Door cannot use {error.filename}: {error.strerror}. Choose a folder it can write with "
            f"--data-dir or DOOR_DATA_DIR."
        ) from None


def _app(config):
    """The app on a migrated database: an older one is backed up first; a newer one is refused, untouched
    (NewerDatabase, which main() says in one line)."""
    from doorapp.app import create_app

    return create_app(config, before_upgrade=backup_first(config))


def backup_first(config):
    """The hook that backs up an existing database before a migration changes it."""
    from doorapp.backup import before_upgrade

    return lambda: before_upgrade(config.database_path, config.data_dir)


def serve(config, args):
    from doorapp.backup import Checkpointer, Scheduler
    from doorapp.db import checkpoint_elsewhere
    from doorapp.privacy import Retention
    from doorapp.server import create_server, run

    if args.workers < 1 or args.workers > 1 and not hasattr(os, "fork"):
        raise SystemExit("--workers must be 1 or more, and more than 1 needs Linux or macOS.")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s[%(process)d] %(message)s"
    )
    app, stop = _app(config), threading.Event()
    checkpoint_elsewhere()
    server = create_server(app, config.host, config.port) if args.workers == 1 else listener(config)
    chores = [Retention()]  # its first pass runs as it starts, before anyone is answered
    if config.database_path:  # SQLite's own: PostgreSQL is backed up and checkpointed apart
        chores += [Scheduler(config.database_path, config.data_dir), Checkpointer(config.database_path)]
    for chore in chores:
        chore.start()
    stop_on_signals(stop if args.workers == 1 else None)  # the workers' parent waits in os.wait()
    try:
        welcome(app, config, server, args)
        run(server, stop) if args.workers == 1 else run_workers(config, server, args.workers)
    except KeyboardInterrupt:
        pass
    finally:
        if args.workers > 1:
            server.close()
        for chore in chores:
            chore.stop()
        logging.getLogger("doorapp").info("stopped")
    return 0


def listener(config):
    """The listening socket that the workers of `serve --workers` share (bound here, before any fork)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        config.host, config.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(1024)
    return sock


def run_workers(config, sock, count):
    """Serve the bound port from `count` forked processes, each with its own app, database connections and
    threads (the database decides every answer, so any of them may take any request); replace one that
    dies; SIGTERM or Ctrl-C here stops them all. This process serves nothing itself."""
    from doorapp.db import db

    db.close()
    if hasattr(db, "close_all"):
        db.close_all()  # a pooled PostgreSQL connection must not be shared with the children
    children = {}
    try:
        while True:
            while len(children) < count:
                pid = os.fork()
                if pid == 0:
                    os._exit(worker(config, sock))
                children[pid] = time.monotonic()
            pid, status = os.wait()
            if children.pop(pid, None) is not None:
                logging.getLogger("doorapp").warning(
                    "worker %s stopped (status %s); starting another", pid, status
                )
                time.sleep(1)  # a worker that cannot start must not spin
    finally:
        sock.close()  # the port stays open in the workers until each has stopped accepting
        for pid in children:
            os.kill(pid, signal.SIGTERM)
        for pid in children:
            os.waitpid(pid, 0)


def orphaned(parent):
    """Stop this worker (as SIGTERM does) once the process that started it is gone, even killed."""
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)


def worker(config, sock):
    """One worker process of run_workers: its app and server on the inherited socket; its exit status."""
    from doorapp.db import checkpoint_elsewhere
    from doorapp.server import create_server, run

    try:
        stop = threading.Event()
        stop_on_signals(stop)
        parent = os.getppid()
        threading.Thread(target=orphaned, args=(parent,), daemon=True).start()
        server = create_server(_app(config), sockets=[sock])
        checkpoint_elsewhere()
        run(server, stop)
        return 0
    except BaseException:  # noqa: BLE001 (a child must never return into the parent's code)
        logging.getLogger("doorapp").exception("worker failed")
        return 1


def stop_on_signals(stopping=None):
    """SIGTERM and Ctrl-C stop the service, once: they set `stopping` (a server's loop sees it and drains),
    or, without one, raise KeyboardInterrupt."""

    def stop(signum, frame):  # Ctrl-C reaches both the one-file launcher (which passes it on) and us
        for name in ("SIGTERM", "SIGINT"):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        if stopping is None:
            raise KeyboardInterrupt
        stopping.set()

    for name in ("SIGTERM", "SIGINT"):  # SIGINT too: a shell's `door &` starts us with it ignored
        signal.signal(getattr(signal, name), stop)


def welcome(app, config, server, args):
    """Print what to open (and the setup code on an empty database); open the browser when asked."""
    from doorapp.api import phone_access
    from doorapp.api.phones import lan_command, launcher
    from doorapp.api.setup import SHARED, issue_setup_code

    host, port = server.getsockname()[:2]
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    adapter = app.config["door.platform"]
    if adapter is not None and adapter.example_urls():
        print("Demo meetups to try (paste one into 'New meetup'):", flush=True)
        for example in adapter.example_urls():
            print(f"  {example}", flush=True)
    code = issue_setup_code()
    if code == SHARED:
        print(
            "Another Door started on this database moments ago printed the setup code: use that one, or "
            f"create the first site admin with `{PROG} create-admin NAME`.",
            flush=True,
        )
        code = None
    elif code:
        print(f"Setup code: {code}", flush=True)
        print("Open the address below and enter the setup code to create the first site admin.", flush=True)
    command = app.config["door.lan_command"] = lan_command(launcher(args.launcher), port, config.data_dir)
    print(phones_line(phone_access(config.host, port, config.public_url, command)), flush=True)
    # Last, so whoever reads the output (a person, a test) has everything above once this line is there.
    print(f"Door is running at {url}  (Ctrl-C stops it)", flush=True)
    if args.browser and has_desktop():
        # The code rides in the fragment, which the browser never sends: a double-clicked Door with no
        # terminal to read the code from still lands on a filled-in setup form.
        opened = f"{url}#/setup/{code}" if code else url
        threading.Thread(target=webbrowser.open, args=(opened,), daemon=True).start()


def has_desktop():
    """A browser window can be shown. Not a setting: without a desktop, webbrowser would start a text
    browser (lynx, w3m) in the very console that shows the setup code."""
    desktop = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    return sys.platform in ("win32", "darwin") or bool(desktop)


def phones_line(access):
    """What the Phones screen says, in one line."""
    if access["urls"]:
        return f"Phones open {access['urls'][0]}  (admins: the Phones screen shows its QR code)"
    if access["open_to_lan"]:
        return (
            f"Only this computer can open Door. To let phones on the venue network in, start it with "
            f"`{access['open_to_lan']['command']}` (or set {access['open_to_lan']['setting']})."
        )
    return (
        "Door listens on every address, but this computer has no network address yet: "
        "join the venue's network."
    )


def create_admin(config, args):
    from doorapp.api.setup import create_site_admin
    from doorapp.db import decided
    from doorapp.errors import ApiError

    _app(config)
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty():
        password = getpass.getpass("Password (15 to 128 characters): ")
        if getpass.getpass("Repeat it: ") != password:
            raise SystemExit("The passwords differ; nothing was created.")
    else:
        raise SystemExit("No terminal to ask for the password: use --password-stdin.")
    try:
        user = decided(lambda: create_site_admin(args.username, password))  # a name taken meanwhile: 409
    except ApiError as error:
        messages = [e["msg"] for e in error.extensions.get("errors", [])] or [error.detail]
        raise SystemExit(f"Could not create {args.username!r}: {' '.join(messages)}") from None
    print(f"Created site admin {user.username!r}.")
    return 0


def import_file(config, args):
    from doorapp.imports.cli import run

    return run(config, args, _app(config).config["door.platform"])


def rotate_key(config, args):
    from doorapp.app import prepare
    from doorapp.keys import rotate

    prepare(config, before_upgrade=backup_first(config))
    print(rotate(config))
    return 0


def backup(config, args):
    from doorapp.backup import backup as copy_database
    from doorapp.backup import dump

    path = config.database_path
    if path is None:
        print(f"Backed up to {dump(config.database_url, args.dest)} (pg_dump's format: pg_restore reads it)")
        return 0
    if not path.exists():
        raise SystemExit(f"There is no database at {path}; check DOOR_DATA_DIR or --data-dir.")
    print(f"Backed up to {copy_database(path, args.dest)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
