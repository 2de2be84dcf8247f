"""What became of a click, as facts: the services say what happened, rendering words it.

A service returns a `DecisionOutcome`: its `kind` (what the presenter, the
metrics and a batch's tally go by) and a `fact` saying what happened in the
terms of the case (who decided first, where the count of approvals stands,
what Novo said, why the policy refuses). Nothing here is words for people:
`bot.slack.render.outcomes` alone turns a fact into what someone reads, so the
same fact reads the same in an ephemeral note, a modal and a group's summary.

This module sits low (beside `bot.domain`), so the renderer may read it
without depending on the services that produce it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from bot.domain import Allowance, SlackDecision
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
    VOTED = "voted"  # an approval counted towards a quorum (or withdrawn): nothing sent yet
    REFUSED = "refused"  # the policy does not let this person decide it: nothing recorded


class Notice(StrEnum):
    """Something to tell that needs no facts of its own."""

    QUEUED = "queued"  # Novo did not answer; the decision is kept and retried
    GONE = "gone"  # Novo no longer has the interaction
    UNKNOWN = "unknown"  # the bridge never posted it
    NOT_SAVED = "not_saved"  # the store failed or was too slow: nothing sent
    SLACK_SLOW = "slack_slow"  # Slack did not say who may decide in time: nothing sent
    DECIDED_FIRST = "decided_first"  # a 409, and Novo could not be re-read
    OTHER_ON_ITS_WAY = "other_on_its_way"  # an item of a batch already has a decision queued
    ONE_ON_ITS_WAY = "one_on_its_way"  # a quorum sealed; the interaction can't be re-read
    CHOICE_GONE = "choice_gone"  # the button's choice is not in the record any more
    SEALED = "sealed"  # the approval to withdraw was already sent
    NO_VOTE = "no_vote"  # nothing of theirs to withdraw
    ENDED_NO_VOTE = "ended_no_vote"  # nothing to withdraw: it ended
    WITHDRAWN = "withdrawn"  # their approval is taken back
    FORM_DAMAGED = "form_damaged"  # a submission's metadata can't be read
    FORM_TOO_LARGE = "form_too_large"  # Slack refuses to show the form
    GROUP_UNKNOWN = "group_unknown"  # the bridge no longer knows the step group
    GROUP_CHANGED = "group_changed"  # the group's message changed since it was clicked
    GROUP_NONE_MINE = "group_none_mine"  # items wait, none of them this person's to decide
    GROUP_NONE_WAITING = "group_none_waiting"  # nothing in the group waits any more
    STANDING_NOT_OFFERED = "standing_not_offered"  # the rule allows no standing approval here
    ALLOWANCE_ENDED = "allowance_ended"  # the allowance to revoke has already ended
    ALLOWANCE_NOT_YOURS = "allowance_not_yours"  # neither its granter nor a decider of its rule
    ALLOWANCE_REVOKED = "allowance_revoked"  # revoked: it approves nothing more


class RefusalKind(StrEnum):
    GUEST = "guest"  # the rule keeps it to full members
    EXTERNAL = "external"  # the person belongs to another workspace
    UNCHECKED = "unchecked"  # Slack could not say who they are (refused: fail closed)
    NOT_A_DECIDER = "not_a_decider"  # the rule names other deciders


@dataclass(frozen=True)
class Refusal:
    """Why the policy does not let someone decide: nothing was recorded or opened.

    For `NOT_A_DECIDER`, `users` and `groups` are the rule's deciders (ids), so
    the person can be told whom to ask.
    """

    why: RefusalKind
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Delivered:
    verb: str  # "Approved", "Chose “Skip”", …


@dataclass(frozen=True)
class Ended:
    """The interaction no longer waits: how it ended, from the record.

    `lost_race`: this person's decision was not applied because another came first.
    """

    final: Interaction
    decided_in_slack: SlackDecision | None
    lost_race: bool = False


@dataclass(frozen=True)
class InFlight:
    """Someone else's decision is being delivered; `by` their user id, when known."""

    by: str | None


@dataclass(frozen=True)
class BadAnswer:
    """The answer was refused, nothing recorded: by our own check of the record
    before sending, or by Novo (a 400). `message` as it came, unescaped."""

    message: str
    by_novo: bool


@dataclass(frozen=True)
class Tally:
    """An approval towards a quorum: `standing` approvals of `quorum` needed;
    `counted` False when this person had already approved."""

    standing: int
    quorum: int
    counted: bool


@dataclass(frozen=True)
class Granted:
    """The approval went, and the standing approval it granted holds."""

    allowance: Allowance


@dataclass(frozen=True)
class NotGranted:
    """The approval did not go (`why`), so the standing approval asked for with it was
    ended before it took effect."""

    why: Notice | Ended | BadAnswer


Fact = Notice | Refusal | Delivered | Ended | InFlight | BadAnswer | Tally | Granted | NotGranted


@dataclass(frozen=True)
class DecisionOutcome:
    kind: OutcomeKind
    fact: Fact
    interaction: Interaction | None = None

    @property
    def detail(self) -> str | None:
        """The quoted text as it came (Novo's message), for logs."""
        return self.fact.message if isinstance(self.fact, BadAnswer) else None

    @property
    def succeeded(self) -> bool:
        return self.kind is OutcomeKind.DELIVERED


class ItemFate(StrEnum):
    """What became of one item of an Approve all / Deny all, for the group's summary."""

    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"  # before the click
    CANCELLED = "cancelled"
    APPROVED_IN_SLACK = "approved_in_slack"
    DENIED_IN_SLACK = "denied_in_slack"
    DECIDED_IN_SLACK = "decided_in_slack"
    APPROVED_ELSEWHERE = "approved_elsewhere"
    DENIED_ELSEWHERE = "denied_elsewhere"
    DECIDED_ELSEWHERE = "decided_elsewhere"
    NOT_YOURS = "not_yours"
    TAKEN = "taken"  # someone else's decision was on its way
    COUNTED = "counted"  # a vote towards its quorum
    HAD_YOUR_VOTE = "had_your_vote"
    QUEUED = "queued"  # Novo did not answer: sent later
    GONE = "gone"
    UNCHECKED = "unchecked"  # Slack could not re-check the other voters
    FAILED = "failed"


@dataclass(frozen=True)
class GroupOutcome:
    """What one Approve all / Deny all came to, item by item (in the order first met)."""

    actor_id: str
    approve: bool
    fates: Counter[ItemFate] = field(default_factory=Counter)
    arrived_later: int = 0
    """Items waiting that the clicked message did not offer: the clicker should look."""

    @property
    def decided(self) -> int:
        return self.fates[ItemFate.APPROVED] + self.fates[ItemFate.DENIED]
