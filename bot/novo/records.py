"""Reading a listing one record at a time.

A page is parsed record by record, never as a whole: one interaction with a
missing field or a malformed `expiresAt` must not hide the ninety-nine good
ones on its page, or stop every message from being posted and finalised.
What cannot be read becomes an `UnreadableRecord` that names its id (when it
has one) and why, so the bridge can skip it, say so once, and go on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bot.novo.models import Interaction

ID_SHOWN_CHARS = 80  # an id is echoed into logs and metrics: keep a hostile one short


@dataclass(frozen=True)
class UnreadableRecord:
    """A listed record the bridge could not parse."""

    id: str | None
    problem: str

    @property
    def key(self) -> str:
        """What logs, metrics and readiness call it: its id, or a stand-in."""
        return self.id or "<record without an id>"


ListedRecord = Interaction | UnreadableRecord


def parse_record(data: Any) -> ListedRecord:
    """One listed record as an `Interaction`, or why it is not one."""
    full_id = id_of(data)
    record_id = full_id[:ID_SHOWN_CHARS] if full_id else None  # echoed into logs and metrics
    try:
        return Interaction.from_wire(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return UnreadableRecord(record_id, f"{where}: {first['msg']}{more}")
    except (RecursionError, ValueError) as exc:
        return UnreadableRecord(record_id, f"unreadable: {type(exc).__name__}")


def id_of(data: Any) -> str | None:
    """A listed record's id, if it has a usable one."""
    if not isinstance(data, dict):
        return None
    value = data.get("id")
    return value if isinstance(value, str) and value else None
