"""Durable state of the bridge: which message shows which interaction, and decisions in flight."""

from bot.store.errors import StoreFileError, StoreLockedError, StoreOpenError
from bot.store.records import dump_record as stored_form
from bot.store.repository import Store
from bot.store.rows import (
    OpenDeadline,
    QueuedDecision,
    Snooze,
    StepGroup,
    TakenStep,
    TrackedInteraction,
    TrackedMessage,
    Vote,
)

__all__ = [
    "OpenDeadline",
    "QueuedDecision",
    "Snooze",
    "StepGroup",
    "Store",
    "StoreFileError",
    "StoreLockedError",
    "StoreOpenError",
    "TakenStep",
    "TrackedInteraction",
    "TrackedMessage",
    "Vote",
    "stored_form",
]
