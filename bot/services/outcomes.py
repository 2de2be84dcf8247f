"""What became of a decision, as the service reports it to whoever presents it.

Services return these instead of talking to the user themselves, so one
presenter decides how each lands (ephemeral message, modal update, nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.novo.models import Interaction


class OutcomeKind(StrEnum):
    DELIVERED = "delivered"  # Novo recorded our decision
    QUEUED = "queued"  # Novo unreachable; kept and retried
    CONFLICT = "conflict"  # someone decided differently first (409 or locally)
    IN_FLIGHT = "in_flight"  # another Slack decision is being delivered
    GONE = "gone"  # 404: the interaction no longer exists
    NOT_WAITING = "not_waiting"  # expired, cancelled or already resolved
    REJECTED = "rejected"  # the body was refused (400): nothing sent or recorded
    UNKNOWN = "unknown"  # the bridge never posted this interaction


@dataclass(frozen=True)
class DecisionOutcome:
    kind: OutcomeKind
    text: str
    interaction: Interaction | None = None

    @property
    def succeeded(self) -> bool:
        return self.kind is OutcomeKind.DELIVERED
