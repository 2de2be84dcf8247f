"""`novo-slack audit verify`: walk the audit chain, in the store or in an export, and
say whether it is intact or where it first breaks and how.

A break is named by the first event the chain cannot vouch for:

- **edited**: the event's content no longer gives its hash;
- **inserted**: an event stands where none was chained (the one after it links to
  the one before it);
- **out of order**: the event that should come here is further on;
- **missing**: what this event links to is not there (deleted, or rewritten and
  re-hashed).

The walk streams: it holds the last few hashes, not the whole trail. Tail
truncation (the newest events deleted) leaves a shorter chain that is still intact;
only a head hash kept elsewhere shows it (see docs/audit.md).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.store import Store
from bot.store.audit import AuditEntry
from bot.store.chain import Anchor, content_bytes, link_hash, utc_text

RECENT = 64
"""Accepted hashes kept to recognise an inserted event (the event after it links back)."""


@dataclass(frozen=True)
class ChainRow:
    """One event as the chain sees it, from the store or from an export line."""

    id: int
    at: str
    event: str
    interaction_id: str | None
    actor_id: str | None
    detail: Any
    prev_hash: str
    hash: str

    @property
    def intact(self) -> bool:
        """Its content gives its hash. Content the bridge never writes (NaN, a nesting
        JSON can't write back) gives none: it was not written by the bridge."""
        try:
            content = content_bytes(
                self.at, self.event, self.interaction_id, self.actor_id, self.detail
            )
        except (ValueError, RecursionError):
            return False
        return link_hash(self.prev_hash, content) == self.hash

    def named(self) -> str:
        when = self.at.replace("T", " ")[:19]
        return f"event #{self.id} ({when} UTC, {self.event})"


@dataclass(frozen=True)
class Verdict:
    count: int
    first: ChainRow | None
    head: str | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        if self.problem is not None:
            return self.problem
        if self.first is None:
            return "0 events, chain intact (nothing kept yet)"
        start = datetime.fromisoformat(self.first.at).strftime("%Y-%m-%d %H:%M UTC")
        return f"{self.count:,} events, chain intact from {start}"


class ExportError(ValueError):
    """A line of an export file that is not an audit event."""


def row_of(entry: AuditEntry) -> ChainRow:
    return ChainRow(
        entry.id,
        utc_text(entry.at),
        entry.event,
        entry.interaction_id,
        entry.actor_id,
        entry.detail,
        entry.prev_hash,
        entry.hash,
    )


class ChainWalk:
    """The verdict on rows fed in chain order. With `anchor` (the store's), the first
    event must follow it; without (an export), the first event is taken as the start.

    Fed one row at a time, so a store's pages and a file's lines stream through it.
    After a break it reads on only to tell "out of order" from "missing".
    """

    def __init__(self, anchor: Anchor | None = None) -> None:
        self._recent: deque[str] = deque(maxlen=RECENT)
        self._expected = anchor.prev_hash if anchor is not None else None
        self._last_id = anchor.after_id if anchor is not None else None
        self._count = 0
        self._first: ChainRow | None = None
        self._broken: ChainRow | None = None
        self._problem: str | None = None

    def feed(self, row: ChainRow) -> None:
        if self._problem is not None:
            return
        if self._broken is not None:  # looking for the event that should have come
            if row.prev_hash == self._expected:
                self._problem = (
                    f"{self._broken.named()}: out of order (event #{row.id} should come before it)"
                )
            return
        if not row.intact:
            self._problem = f"{row.named()}: edited (its content no longer matches its hash)"
        elif self._expected is not None and row.prev_hash != self._expected:
            self._problem = self._inserted(row)
            self._broken = row if self._problem is None else None
        else:
            self._expected, self._last_id = row.hash, row.id
            self._recent.append(row.hash)
            self._count += 1
            self._first = self._first or row

    def _inserted(self, row: ChainRow) -> str | None:
        if row.prev_hash not in self._recent:
            return None
        back = len(self._recent) - list(self._recent).index(row.prev_hash) - 1
        return f"{row.named()}: follows an earlier event, so the {back} before it are inserted"

    def verdict(self) -> Verdict:
        problem, row = self._problem, self._broken
        if problem is None and row is not None:
            last = self._last_id
            if last is not None and row.id > last + 1:
                gone = row.id - last - 1
                problem = f"{row.named()}: missing ({gone} event(s) before it are gone)"
            else:
                problem = f"{row.named()}: missing (the event it follows is gone or rewritten)"
        return Verdict(self._count, self._first, self._expected, problem)


def walk(rows: Iterable[ChainRow], anchor: Anchor | None = None) -> Verdict:
    chain = ChainWalk(anchor)
    for row in rows:
        chain.feed(row)
    return chain.verdict()


def parse_line(number: int, line: str) -> ChainRow:
    """An export line back into a row; ExportError naming the line otherwise."""
    try:
        data = json.loads(line)
        return ChainRow(
            int(data["id"]),
            utc_text(datetime.fromisoformat(data["at"])),
            str(data["event"]),
            _optional(data["interaction_id"]),
            _optional(data["actor_id"]),
            data["detail"],
            str(data["prev_hash"]),
            str(data["hash"]),
        )
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ExportError(f"line {number}: not an audit event with its chain fields") from exc


def _optional(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _file_rows(lines: Iterable[str]) -> Iterator[ChainRow]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield parse_line(number, line)


def verify_file(path: Path) -> Verdict:
    """Verify an export (`audit export --format jsonl`) without the store."""
    try:
        with path.open(encoding="utf-8") as lines:
            return walk(_file_rows(lines))
    except ExportError as exc:
        return Verdict(0, None, None, str(exc))
    except UnicodeDecodeError:
        return Verdict(0, None, None, f"{path}: not UTF-8 text")
    except OSError as exc:
        return Verdict(0, None, None, f"{path}: can't be read ({exc.strerror or exc})")


async def verify_store(target: Path | str, *, schema: str | None = None) -> Verdict:
    """Verify the store's chain from its recorded start; raises StoreOpenError."""
    store = await Store.open_reader(target, schema=schema)
    try:
        try:
            anchor = await store.audit_anchor()
        except LookupError as exc:
            return Verdict(0, None, None, f"{exc}: the chain's start can't be checked")
        chain = ChainWalk(anchor)
        async for page in store.audit_pages():
            for entry in page:
                chain.feed(row_of(entry))
        return chain.verdict()
    finally:
        await store.close()
