"""How the bridge's log reads: one line per event, as text or as JSON, each tied to its interaction.

An operator chasing one stuck approval searches the log for its id, so every
line about an interaction carries it: as `interaction_id` in JSON, whether
the code passed it with `extra={"interaction_id": ...}` or only wrote it in
the message. JSON lines are what log pipelines (Loki, CloudWatch, Datadog)
index without a parsing rule; the stdlib formats them well enough that no
extra dependency is worth it.

Libraries that narrate every job run and every request (APScheduler, httpx)
stay below INFO, so an idle bridge logs nothing; `NOVO_SLACK_LOG_LEVEL=DEBUG`
(or `-v`) shows them.

Every line is passed through the redactor before it is written: a message,
an exception or an `extra` can quote what an agent or Novo wrote (a refused
answer, a URL with its password), and a log is kept and shipped as long as
Slack's history.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

from bot.redaction import redact_text

# An interaction id as Novo issues them, e.g. int_0000013d27c6e02a1385.
INTERACTION_ID = re.compile(r"\bint_[A-Za-z0-9]+")
# Libraries that narrate at INFO (migrations, every job run, every request): a failing
# start must print one line, and a running bridge's log should say what the bridge did.
CHATTY_LOGGERS = ("alembic", "apscheduler", "httpx", "slack_bolt", "slack_sdk")
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
# LogRecord's own attributes: whatever else a record carries came in through `extra=`.
_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class InteractionIdFilter(logging.Filter):
    """Give every record an `interaction_id`: the one passed in `extra`, else one in the text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "interaction_id", None):
            found = INTERACTION_ID.search(record.getMessage())
            record.interaction_id = found.group(0) if found else None
        return True


class CancelledWithoutTraceback(logging.Filter):
    """Work cut off at a bounded shutdown is expected, not a crash: one line, no traceback.

    APScheduler logs a cancelled job with `logger.exception`, whoever cancelled it.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            record.msg = f"{record.msg} (cancelled at shutdown)"
            record.exc_info = None
            record.exc_text = None
        return True


class SkippedRunsToDebug(logging.Filter):
    """APScheduler warns each time a job is still running when its next turn comes.

    A poll slower than its interval is already visible where it belongs (the
    poll-duration histogram, `/readyz`); a WARNING per interval would bury
    the log in the very incident it is about.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if "maximum number of running instances reached" in record.getMessage():
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, interaction_id, and any `extra`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": masked(record.getMessage()),
            "interaction_id": getattr(record, "interaction_id", None),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and key not in line:
                line[key] = masked(value) if isinstance(value, str) else value
        if record.exc_info:
            line["exception"] = masked(self.formatException(record.exc_info))
        elif record.exc_text:
            line["exception"] = masked(record.exc_text)
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """The classic line; an id given only in `extra` is appended so text logs carry it too."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        # the message and the traceback are masked, not the line's prefix: a logger named
        # `bot.slack.credentials` would read as a credential named for the first word
        shown = logging.makeLogRecord(vars(record))
        shown.msg, shown.args = masked(record.getMessage()), None
        if record.exc_info:
            shown.exc_text, shown.exc_info = masked(self.formatException(record.exc_info)), None
        elif record.exc_text:
            shown.exc_text = masked(record.exc_text)
        text = super().format(shown)
        interaction_id = getattr(record, "interaction_id", None)
        if interaction_id and interaction_id not in record.getMessage():
            first, newline, rest = text.partition("\n")
            text = f"{first} [{interaction_id}]{newline}{rest}"
        return text


def masked(line: str) -> str:
    """A formatted log line with every credential in it masked, as in Slack."""
    return redact_text(line)[0]


STATEMENT_LOGGERS = ("aiosqlite", "sqlalchemy.engine")
"""They log each SQL statement with its parameters at DEBUG: a stored record, whatever
an agent put in it, credentials too. Those lines never reach the bridge's log."""


class StatementsOutOfLogs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.DEBUG


def keep_statements_out_of_logs() -> None:
    """Drop the database drivers' DEBUG lines (`-v` included): see `STATEMENT_LOGGERS`."""
    for name in STATEMENT_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, StatementsOutOfLogs) for f in logger.filters):
            logger.addFilter(StatementsOutOfLogs())


def configure_logging(level: str = "INFO", fmt: str = "text", *, verbose: bool = False) -> None:
    """Set up the root logger on stderr; `verbose` (-v) means DEBUG whatever `level` says."""
    effective = logging.DEBUG if verbose else logging.getLevelNamesMapping()[level]
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(effective)  # also drops what a filter demoted below it
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(InteractionIdFilter())
    if not verbose:
        handler.addFilter(CancelledWithoutTraceback())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(effective)
    quiet = logging.WARNING if effective > logging.DEBUG else logging.NOTSET
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(quiet)
    keep_statements_out_of_logs()
    scheduler = logging.getLogger("apscheduler.scheduler")
    if not any(isinstance(f, SkippedRunsToDebug) for f in scheduler.filters):
        scheduler.addFilter(SkippedRunsToDebug())
