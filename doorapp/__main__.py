"""The command line: doorapp serve | create-admin | backup (DESIGN.md "Running it")."""

import argparse
import getpass
import logging
import signal
import sys
from pathlib import Path

from doorapp import __version__
from doorapp.config import Config, settings_help

EPILOG = f"""settings (environment variables; flags override them):
{settings_help()}

examples:
  doorapp serve                         serve on http://127.0.0.1:8080/ with data in ./door-data
  doorapp serve --host 0.0.0.0          let phones on the venue network in
  doorapp create-admin alice            an approved SITE_ADMIN (asks for the password)
  doorapp backup backups/               an online copy of the database, safe while serving
"""


def parser():
    top = argparse.ArgumentParser(prog="doorapp", description="Door: door management for meetups.",
                                  epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"doorapp {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser("serve", help="run the web service", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--host", help="address to listen on (DOOR_HOST; default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (DOOR_PORT; default 8080; 0 picks a free one)")
    admin = commands.add_parser("create-admin", help="create an approved SITE_ADMIN account", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    admin.add_argument("username")
    admin.add_argument("--password-stdin", action="store_true",
                       help="read the password from the first line of standard input")
    backup = commands.add_parser("backup", help="copy the database while the service runs", epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    backup.add_argument("dest", help="a file, or a folder to put a dated file in")
    for command in (serve, admin, backup):
        command.add_argument("--data-dir", help="data folder (DOOR_DATA_DIR; default ./door-data)")
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    if not args.command:
        parser().print_help()
        return 2
    config = Config.from_env(data_dir=args.data_dir and Path(args.data_dir),
                             host=getattr(args, "host", None), port=getattr(args, "port", None))
    return {"serve": serve, "create-admin": create_admin, "backup": backup}[args.command](config, args)


def _app(config):
    from doorapp.app import create_app
    from doorapp.migrations import NewerDatabase
    try:
        return create_app(config)
    except NewerDatabase as error:
        raise SystemExit(str(error)) from None


def serve(config, args):
    import waitress

    from doorapp.api.auth import issue_setup_code

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    app = _app(config)
    server = waitress.create_server(app, host=config.host, port=config.port, threads=8, ident="door")
    host, port = server.getsockname()[:2]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    print(f"Door is running at http://{shown}:{port}/  (Ctrl-C stops it)", flush=True)
    code = issue_setup_code()
    if code:
        print(f"Setup code: {code}", flush=True)
        print("Open the address above and enter the setup code to create the first site admin.", flush=True)
    adapter = app.config["door.platform"]
    if adapter is not None and adapter.example_urls():
        print("Demo meetups to try (paste one into 'New meetup'):", flush=True)
        for url in adapter.example_urls():
            print(f"  {url}", flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.task_dispatcher.shutdown(timeout=8)
        server.close()
        logging.getLogger("doorapp").info("stopped")
    return 0


def create_admin(config, args):
    from doorapp.api.auth import create_site_admin
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
        user = create_site_admin(args.username, password)
    except ApiError as error:
        messages = [e["msg"] for e in error.extensions.get("errors", [])] or [error.detail]
        raise SystemExit(f"Could not create {args.username!r}: {' '.join(messages)}") from None
    print(f"Created site admin {user.username!r}.")
    return 0


def backup(config, args):
    from doorapp.backup import backup as copy

    path = config.database_path
    if path is None or not path.exists():
        raise SystemExit(f"There is no database at {path}; check DOOR_DATA_DIR or --data-dir.")
    print(f"Backed up to {copy(path, args.dest)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
