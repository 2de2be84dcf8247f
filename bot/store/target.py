"""What `NOVO_SLACK_DB` names: a SQLite file, or a PostgreSQL database by URL.

A URL is told by its scheme (`postgresql://`, `postgres://`, or one naming a
driver); anything else is a file path. Wherever a target is shown, its password
is masked: the one in the URL's user part and any given as a query parameter
(`?password=…`, the form libpq and asyncpg also take). A query parameter is
shown only when it is one known to hold no secret; any other's value is masked,
since a deny-list of secret names misses the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from bot.store.errors import StoreOpenError

POSTGRES_SCHEMES = ("postgresql://", "postgres://", "postgresql+asyncpg://")
MASK = "***"
# Query parameters whose values say how to connect, never who may: shown as given.
SHOWN_PARAMETERS = frozenset(
    {
        "application_name",
        "connect_timeout",
        "host",
        "port",
        "prepared_statement_cache_size",
        "sslmode",
        "ssl",
        "target_session_attrs",
        "command_timeout",
    }
)


@dataclass(frozen=True)
class Target:
    url: URL
    shown: str
    path: Path | None = None
    """The SQLite file; None for PostgreSQL."""

    @property
    def is_sqlite(self) -> bool:
        return self.path is not None


def parse_target(target: Path | str) -> Target:
    text = str(target)
    if isinstance(target, str) and text.startswith(POSTGRES_SCHEMES):
        return _postgres(text)
    if isinstance(target, str) and "://" in text:
        raise StoreOpenError(_masked(text), "only a file path or a postgresql:// URL is understood")
    path = Path(text)
    url = URL.create("sqlite+aiosqlite", database=str(path))
    return Target(url=url, shown=str(path), path=path)


def _postgres(text: str) -> Target:
    try:
        url = make_url(text)
    except (ArgumentError, ValueError) as exc:
        raise StoreOpenError(_masked(text), f"not a valid URL ({exc})") from None
    url = url.set(drivername="postgresql+asyncpg")
    query = {
        key: value if key.lower() in SHOWN_PARAMETERS else MASK for key, value in url.query.items()
    }
    shown = (
        url.set(drivername="postgresql", query=query).render_as_string(hide_password=True)
    ).replace("%2A%2A%2A", MASK)
    return Target(url=url, shown=shown)


def _masked(text: str) -> str:
    """Hide a password in a URL too malformed to parse: its query is dropped whole."""
    scheme, sep, rest = text.partition("://")
    rest, question, _ = rest.partition("?")
    query = f"?{MASK}" if question else ""
    creds, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in creds:
        return f"{scheme}{sep}{rest}{query}"
    return f"{scheme}://{creds.split(':', 1)[0]}:{MASK}@{host}{query}"
