"""What became of a decision, as the service reports it to whoever presents it.

Services return these instead of talking to the user themselves, so one
presenter decides how each lands (ephemeral message, modal update, nothing).

`text` is mrkdwn, shown as it is: mentions we put in it work, and every
piece someone else wrote (Novo's error message, an agent's label, a reason)
is escaped once by whoever builds the text. `with_detail` does that for the
common shape "our words: their words".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.novo.models import Interaction
from bot.slack.render.common import escape_mrkdwn, truncate

DETAIL_CHARS = 500
"""Room for quoted text in an ephemeral line; a server's message can be any length."""


class OutcomeKind(StrEnum):
    DELIVERED = "delivered"  # Novo recorded our decision
    QUEUED = "queued"  # Novo unreachable; kept and retried
    CONFLICT = "conflict"  # someone decided differently first (409 or locally)
    IN_FLIGHT = "in_flight"  # another Slack decision is being delivered
    GONE = "gone"  # 404: the interaction no longer exists
    NOT_WAITING = "not_waiting"  # expired, cancelled or already resolved
    REJECTED = "rejected"  # the body was refused (400): nothing sent or recorded
    UNKNOWN = "unknown"  # the bridge never posted this interaction
    VOTED = "voted"  # an approval counted towards a quorum (or withdrawn): nothing sent yet
    REFUSED = "refused"  # the policy does not let this person decide it: nothing recorded


@dataclass(frozen=True)
class DecisionOutcome:
    kind: OutcomeKind
    text: str
    interaction: Interaction | None = None
    detail: str | None = None
    """The quoted text as it came (unescaped), for logs and for anyone who words it anew."""

    @classmethod
    def with_detail(
        cls, kind: OutcomeKind, lead: str, detail: str, interaction: Interaction | None = None
    ) -> DecisionOutcome:
        """'<lead>: <detail>', the detail (e.g. Novo's error message) escaped, cut to fit."""
        quoted = escape_mrkdwn(truncate(detail, DETAIL_CHARS))
        return cls(kind, f"{lead}: {quoted}", interaction, detail)

    @property
    def succeeded(self) -> bool:
        return self.kind is OutcomeKind.DELIVERED
