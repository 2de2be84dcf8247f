"""Why the store could not be opened, each said in one line that names the setting.

    StoreOpenError        the database can't be used (corrupt, read-only, missing
     │                    directory, unreachable server, bad URL, …)
     └── StoreLockedError another process already owns this SQLite file

    StoreFileError        the SQLite file this process opened was deleted or
                          replaced under it (raised by every transaction after)

Both are raised by `Store.open` after everything it started (connections, the
SQLite thread, the file lock) has been let go, so a process that prints the
message and returns does exit.
"""

from __future__ import annotations

from sqlalchemy import exc as sa

from bot.outages import out_of_reach as outage_failure

SETTING = "NOVO_SLACK_DB"


class StoreOpenError(Exception):
    """The store named by `NOVO_SLACK_DB` can't be opened; `str()` is one line."""

    def __init__(self, where: str, cause: str) -> None:
        self.where = where
        self.cause = one_line(cause)
        super().__init__(f"{SETTING}: {where}: {self.cause}")


class StoreLockedError(StoreOpenError):
    """A second process tried to open a SQLite file one process already owns."""

    def __init__(self, where: str, pid: int | None) -> None:
        owner = f" (pid {pid})" if pid is not None else ""
        super().__init__(where, "")
        self.pid = pid
        self.args = (
            f"{SETTING}: {where} is in use by another novo-slack process{owner}; one process"
            " owns one SQLite file — use PostgreSQL for several replicas",
        )

    def __str__(self) -> str:
        return str(self.args[0])


class TooLate(Exception):
    """A change was rolled back because its caller's deadline (Slack's ack) had passed.

    Whoever asked has already told the person nothing was saved: committing it
    anyway would apply a decision they were told did not go through.
    """


class StoreFileError(Exception):
    """The SQLite file open in this process is no longer the one at its path.

    SQLite goes on writing to a deleted file (the kernel keeps the inode while
    it is open), so without this a decision would be "saved" where nobody can
    ever read it again. Every transaction refuses instead, naming the fix.
    """

    def __init__(self, where: str, what: str) -> None:
        self.where = where
        self.what = what
        super().__init__(
            f"{SETTING}: {where} {what} under the running bridge; nothing more is written"
            " to it: restore the file or restart the bridge"
        )


def one_line(text: str) -> str:
    """Text as one line, whatever a driver's message holds (newlines, a traceback's indent)."""
    return " ".join(text.split()) or "unknown error"


@outage_failure
def unreachable(exc: BaseException) -> bool:
    """A failure that is the database out of reach (no connection, a connection lost, no
    answer in time, the server shutting down), not a statement it refused: the store
    outage's to say (bot.outages), not each caller's."""
    if isinstance(exc, sa.DBAPIError):
        lost = exc.connection_invalidated or _connection_lost(exc.orig)
        return lost or isinstance(exc, sa.OperationalError | sa.InterfaceError)
    return isinstance(exc, sa.TimeoutError | TimeoutError | OSError)


def _connection_lost(error: BaseException | None) -> bool:
    """A driver's error (or what caused it) that PostgreSQL's SQLSTATE classes call a
    connection exception (08…) or the server going away (57P…): asyncpg's
    "connection was closed in the middle of operation" reaches SQLAlchemy as a plain
    DBAPIError, neither operational nor an interface error."""
    while error is not None:
        state = getattr(error, "sqlstate", None)
        if isinstance(state, str) and state.startswith(("08", "57P")):
            return True
        if isinstance(error, OSError | TimeoutError):
            return True
        error = error.__cause__
    return False


def cause(exc: BaseException) -> str:
    """Why the database failed, in the driver's words (SQLAlchemy's own add the statement
    and a link, which say nothing of it); the caller makes it one line."""
    if isinstance(exc, sa.DBAPIError) and exc.orig is not None:
        return str(exc.orig) or type(exc.orig).__name__
    if isinstance(exc, TimeoutError):
        return "no answer from the database server in time"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
