"""How `GET /v1/interactions` picks and pages records: filters, order and cursors.

Cursors name a position (createdAt, id) rather than an offset, so records
resolved or created between two page requests never shift a page.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import datetime

from pydantic import AwareDatetime, TypeAdapter, ValidationError

from bot.novo.models import Interaction, InteractionKind, InteractionStatus
from novo_dev.sim.errors import invalid_request

_CURSOR = TypeAdapter(tuple[AwareDatetime, str])


@dataclass(frozen=True)
class ListFilter:
    """`GET /v1/interactions` filters; all given ones must match (AND)."""

    run_id: str | None = None
    status: InteractionStatus | None = None
    kind: InteractionKind | None = None

    def matches(self, item: Interaction) -> bool:
        if self.run_id is not None and self.run_id not in (item.run_id, item.root_run_id):
            return False
        if self.status is not None and item.status != self.status:
            return False
        return self.kind is None or item.kind == self.kind


def sort_key(item: Interaction) -> tuple[datetime, str]:
    """The list order, oldest first; the id breaks ties between equal timestamps."""
    return (item.created_at, item.id)


def encode_cursor(item: Interaction) -> str:
    """The position after `item`, not an offset, so resolving records between pages is safe."""
    raw = _CURSOR.dump_json((item.created_at, item.id))
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.b64decode(padded.encode("ascii"), altchars=b"-_", validate=True)
        return _CURSOR.validate_json(raw)
    except (UnicodeError, binascii.Error, ValidationError):
        raise invalid_request("cursor is not one this server issued") from None
