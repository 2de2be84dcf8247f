"""Durable state of the bridge: which message shows which interaction, and decisions in flight."""

from bot.store.errors import StoreLockedError, StoreOpenError
from bot.store.records import dump_record as stored_form
from bot.store.repository import Store
from bot.store.rows import QueuedDecision, TakenStep, TrackedInteraction, TrackedMessage

__all__ = [
    "QueuedDecision",
    "Store",
    "StoreLockedError",
    "StoreOpenError",
    "TakenStep",
    "TrackedInteraction",
    "TrackedMessage",
    "stored_form",
]
