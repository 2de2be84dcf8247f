"""Durable state of the bridge: which message shows which interaction, and decisions in flight."""

from bot.store.repository import QueuedDecision, Store, TrackedInteraction

__all__ = ["QueuedDecision", "Store", "TrackedInteraction"]
