"""JSON for records kept as received: any text survives, and storing never fails.

`ensure_ascii` escapes NUL, bidi controls and lone surrogates, so the stored
text is plain ASCII that both engines accept (PostgreSQL refuses a raw NUL)
and that loads back to the very same strings. A value JSON can't hold — nested
deeper than the encoder's recursion limit, or not JSON at all — is kept with
the offending part replaced by a note saying so, rather than losing the record.
A model pydantic refuses to serialise whole (nesting beyond its depth limit)
is taken field by field, the refused field as the value it holds.
"""

from __future__ import annotations

import json
import logging
import math
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bot.novo.models import NovoModel, Timestamp

log = logging.getLogger(__name__)

MAX_DEPTH = 200
TOO_DEEP = f"(not kept: nested deeper than {MAX_DEPTH} levels)"


def dump_record(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (RecursionError, ValueError, TypeError) as exc:
        log.warning("record kept in part: %s", type(exc).__name__)
        return json.dumps(_storable(value, 0), ensure_ascii=True, allow_nan=False)


def wire_record(model: NovoModel) -> Any:
    """The model's wire form; field by field if the whole can't be serialised (too deep)."""
    try:
        return model.to_wire()
    except (ValueError, RecursionError) as exc:
        log.warning("record serialised field by field: %s", exc)
    record: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        try:
            record.update(model.model_dump(mode="json", by_alias=True, include={name}))
        except (ValueError, RecursionError):
            record[field.alias or name] = getattr(model, name)
    record.update(model.model_extra or {})
    return record


def load_record(text: str) -> Any:
    return json.loads(text)


_EXPIRY: TypeAdapter[Timestamp | None] = TypeAdapter(Timestamp | None)


def stored_expiry(text: str) -> datetime | None:
    """The `expiresAt` of a stored record, read as the API model reads it, without
    building the model; None where the record has none or none that reads as a time
    (the model refuses such a record, so nothing counts down on it anyway)."""
    try:
        record = json.loads(text)
        value = record.get("expiresAt") if isinstance(record, dict) else None
        return _EXPIRY.validate_python(value)
    except (ValueError, ValidationError):
        return None


def _storable(value: Any, depth: int) -> Any:
    if isinstance(value, dict | list) and depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {str(k): _storable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(v, depth + 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)
