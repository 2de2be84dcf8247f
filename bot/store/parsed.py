"""Parsed records kept by (interaction id, the stored record's version).

Reading an interaction means parsing its stored record: JSON, then the API
model. For a question of 10,000 options that is some 35 ms of CPU, and
type-ahead asks for it on every keystroke of everyone typing, Home for every
open interaction on every render. The record only changes through a write
that also counts up the row's `record_version` (rows are never deleted), so a
record parsed once is good for as long as that version stays the same: a read
fetches the row without the record and takes the parsed one from here when
the versions agree.

A cache of parses, not state: every process keeps its own, any replica's
write changes the version, and a miss just parses again. Bounded by the number
of records and by the size of their stored text (a few huge forms cannot
hold the memory of thousands of small ones); the least recently used go
first. The parsed records are shared by every reader, so nothing may change
one in place (nothing does: changes are new records from Novo).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from bot.novo.models import Interaction

MAX_RECORDS = 2_000
MAX_TEXT_CHARS = 64 * 1024 * 1024
"""Stored text of the records kept, in all: a parse takes some 10 times that in memory."""


@dataclass(frozen=True)
class _Entry:
    stamp: int
    interaction: Interaction
    size: int


class ParsedRecords:
    def __init__(
        self, *, max_records: int = MAX_RECORDS, max_text_chars: int = MAX_TEXT_CHARS
    ) -> None:
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._max_records = max_records
        self._max_text = max_text_chars
        self._text = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, interaction_id: str, stamp: int) -> Interaction | None:
        """The record parsed at version `stamp` of the row; None if not kept or changed."""
        entry = self._entries.get(interaction_id)
        if entry is None or entry.stamp != stamp:
            self.misses += 1
            return None
        self._entries.move_to_end(interaction_id)
        self.hits += 1
        return entry.interaction

    def put(self, interaction_id: str, stamp: int, interaction: Interaction, size: int) -> None:
        """Keep a record parsed from `size` characters of stored text at version `stamp`."""
        self.forget(interaction_id)
        if size > self._max_text:
            return  # larger than the whole budget: parsed again each time
        self._entries[interaction_id] = _Entry(stamp, interaction, size)
        self._text += size
        while len(self._entries) > self._max_records or self._text > self._max_text:
            _, oldest = self._entries.popitem(last=False)
            self._text -= oldest.size

    def forget(self, interaction_id: str) -> None:
        entry = self._entries.pop(interaction_id, None)
        if entry is not None:
            self._text -= entry.size
