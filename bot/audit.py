"""`novo-slack audit [export]`: the audit trail as CSV or JSON lines, for people and
spreadsheets, each event with its chain fields (`prev_hash`, `hash`), so a JSON lines
export of the whole trail verifies on its own (`audit verify --file`).

It reads the store beside a running bridge (no lock taken) in pages, so a
large trail streams rather than filling memory. Details are printed as the
bridge wrote them: ids, verbs, statuses, the body sent to Novo; never a token.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from bot.store import Store
from bot.store.audit import AuditEntry

_SPAN = re.compile(r"(\d+)\s*(m|h|d)")
_UNIT = {"m": "minutes", "h": "hours", "d": "days"}
CSV_FIELDS = ("id", "at", "event", "interaction_id", "actor_id", "detail", "prev_hash", "hash")
# A spreadsheet reads a cell starting with one of these as a formula (CSV injection):
# OWASP's rule is to prefix such a cell with a single quote, which shows it as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def parse_since(text: str) -> timedelta:
    """`30m`, `24h`, `7d`; ValueError otherwise."""
    match = _SPAN.fullmatch(text.strip())
    if match is None or int(match.group(1)) <= 0:
        raise ValueError(f"{text!r}: use a span such as 30m, 24h or 7d")
    return timedelta(**{_UNIT[match.group(2)]: int(match.group(1))})


def neutralised(cell: str) -> str:
    """A CSV cell no spreadsheet runs: ids come from Novo and may start with `=`."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def _row(entry: AuditEntry) -> dict[str, str]:
    return {
        "id": str(entry.id),
        "at": entry.at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "event": entry.event,
        "interaction_id": entry.interaction_id or "",
        "actor_id": entry.actor_id or "",
        "detail": json.dumps(entry.detail, ensure_ascii=False, sort_keys=True),
        "prev_hash": entry.prev_hash,
        "hash": entry.hash,
    }


class EntryWriter:
    """Entries in `fmt`: csv (a header, `detail` as JSON text) or jsonl (one object a line)."""

    def __init__(self, fmt: str, out: TextIO) -> None:
        self._out = out
        self._csv = csv.DictWriter(out, fieldnames=CSV_FIELDS) if fmt == "csv" else None
        if self._csv is not None:
            self._csv.writeheader()
        self.count = 0

    def write(self, entries: Iterable[AuditEntry]) -> None:
        for entry in entries:
            row = _row(entry)
            if self._csv is not None:
                self._csv.writerow({name: neutralised(value) for name, value in row.items()})
            else:
                line = json.dumps({**row, "detail": entry.detail}, ensure_ascii=False)
                self._out.write(line + "\n")
            self.count += 1


async def export_audit(
    target: Path | str,
    *,
    since: timedelta | None = None,
    interaction_id: str | None = None,
    fmt: str = "jsonl",
    out: TextIO | None = None,
    now: datetime | None = None,
    schema: str | None = None,
) -> int:
    """Print the trail; raises StoreOpenError (one line) when the store can't be read.

    The reads take no write lock (see `Store.open_reader`): a bridge writing
    meanwhile neither blocks the export nor is blocked by it. CSV cells that a
    spreadsheet would run as a formula are neutralised (JSON lines are as written).
    """
    store = await Store.open_reader(target, schema=schema)
    try:
        start = (now or datetime.now(UTC)) - since if since is not None else None
        writer = EntryWriter(fmt, out or sys.stdout)
        async for page in store.audit_pages(since=start, interaction_id=interaction_id):
            writer.write(page)
        return writer.count
    finally:
        await store.close()
