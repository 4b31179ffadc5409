"""Settings: one frozen Config, read from the environment by from_env(); nothing else reads os.environ."""

import os
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path

from doorapp.paths import default_data_dir


def _setting(env, help, default=None, default_factory=None):
    meta = {"env": env, "help": help}
    if default_factory:
        return field(default_factory=default_factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Config:
    data_dir: Path = _setting(
        "DOOR_DATA_DIR", "database, secret key, backups, logs", default_factory=default_data_dir
    )
    host: str = _setting("DOOR_HOST", "address to listen on; 0.0.0.0 serves the LAN", "127.0.0.1")
    port: int = _setting("DOOR_PORT", "port to listen on", 8080)
    database_url: str | None = _setting(
        "DATABASE_URL",
        "sqlite:///PATH (default <data dir>/door.db), or postgresql://USER:PASSWORD@HOST:PORT/NAME"
        " (needs the extra `postgres`)",
    )
    secret_key: str | None = _setting(
        "DOOR_SECRET_KEY",
        "HS256 signing key (>= 32 bytes), the same on every machine; by default Door makes one, kept by a"
        " PostgreSQL database or in <data dir>/secret.key",
    )
    access_token_expire_minutes: int = _setting(
        "ACCESS_TOKEN_EXPIRE_MINUTES", "token lifetime in minutes", 720
    )
    platform: str = _setting("PLATFORM", "external platform adapter: demo, rest or meetup", "demo")
    platform_api_url: str | None = _setting(
        "PLATFORM_API_URL", "the platform's API base URL (meetup: default https://api.meetup.com/gql-ext)"
    )
    platform_web_url: str | None = _setting(
        "PLATFORM_WEB_URL", "where the platform's event pages live (meetup: default https://www.meetup.com)"
    )
    platform_timeout: float = _setting("PLATFORM_TIMEOUT", "seconds before a platform call gives up", 10.0)
    meetup_token: str | None = _setting(
        "MEETUP_TOKEN", "PLATFORM=meetup: the OAuth access token of a Meetup Pro organizer (kept secret)"
    )
    public_url: str | None = _setting(
        "DOOR_PUBLIC_URL",
        "the address phones open, when a reverse proxy or a DNS name is in front of Door;"
        " shown on the Phones screen and by serve instead of this computer's own",
    )
    trusted_proxies: str = _setting(
        "DOOR_TRUSTED_PROXIES", "comma-separated addresses/CIDRs whose X-Forwarded-For is believed", ""
    )
    request_timeout: int = _setting(
        "DOOR_REQUEST_TIMEOUT",
        "seconds a request may take to arrive whole, from its first byte (then 408), and its answers to be"
        " read, from the first being ready (then the connection is reset)",
        30,
    )
    connections: int = _setting(
        "DOOR_CONNECTIONS",
        "connections each process holds at once; a new one past that closes the one waiting longest",
        1000,
    )

    @classmethod
    def from_env(cls, environ=os.environ, **overrides):
        """Defaults, overridden by the environment, overridden by `overrides` (command-line flags)."""
        values = {}
        for f in fields(cls):
            raw = environ.get(f.metadata["env"])
            if raw not in (None, ""):
                values[f.name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **{k: _convert(cls, k, v) for k, v in values.items()})

    @property
    def database_path(self) -> Path | None:
        """The SQLite file, or None when DATABASE_URL names another database."""
        if not self.database_url:
            return Path(self.data_dir) / "door.db"
        if self.database_url.startswith("sqlite:///"):
            return Path(self.database_url.removeprefix("sqlite:///"))
        return None


def _convert(cls, name, value):
    setting = {f.name: f for f in fields(cls)}[name]
    kind = setting.type
    try:
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
        if kind is Path:
            return Path(value)
    except ValueError:
        raise SystemExit(f"Setting {setting.metadata['env']} must be a number, not {value!r}.") from None
    return value


def _default(f):
    """A setting's default as text, or None when it has none to show."""
    if f.name == "data_dir":
        return "./door-data; the executable: door-data beside it"
    return None if f.default in (None, "", MISSING) else str(f.default)


def settings_help() -> str:
    """The settings table for --help, derived from Config."""
    return "\n".join(
        f"  {f.metadata['env']:<28} {f.metadata['help']}"
        + (f" (default {_default(f)})" if _default(f) else "")
        for f in fields(Config)
    )


def settings_markdown() -> str:
    """The README's settings table, derived from Config (a test keeps the README in step)."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for f in fields(Config):
        default = f"`{_default(f)}`" if _default(f) else "–"
        rows.append(f"| `{f.metadata['env']}` | {default} | {f.metadata['help']} |")
    return "\n".join(rows)
