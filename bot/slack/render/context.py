"""What the bridge knows beyond the API record, handed to every renderer.

The API echoes a reason without saying who gave it, so who decided in Slack,
when, and a decision still waiting to be delivered live here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypedDict

from bot.domain import Allowance, SlackActor, SlackDecision
from bot.slack.render.allowance import StandingOffer
from bot.slack.render.targets import slack_target

__all__ = [
    "MessageContext",
    "Nudge",
    "QuorumState",
    "RenderedMessage",
    "SlackActor",
    "SlackDecision",
]


@dataclass(frozen=True)
class QuorumState:
    """How far an approval with a quorum has come: who approved, how many are needed.

    `others` is mrkdwn naming who else may approve (mentions of users and user
    groups from the policy), empty when anyone may.
    """

    needed: int
    approvers: tuple[SlackActor, ...] = ()
    others: str = ""
    dropped: tuple[tuple[SlackActor, str], ...] = ()
    """Votes that no longer count, each with why (its giver may no longer decide)."""


@dataclass(frozen=True)
class Nudge:
    """A reminder or escalation the bridge sent before the interaction ended.

    `to` holds Slack ids (channels, users, user groups) an escalation went to;
    a reminder went to the interaction's own thread and has none.
    """

    kind: Literal["remind", "escalate"]
    at: datetime
    to: tuple[str, ...] = ()


@dataclass(frozen=True)
class MessageContext:
    """Everything a message render needs besides the interaction.

    `now` is passed in (renderers never read the clock) so the countdown is
    testable. `queued` is a decision taken in Slack that Novo has not yet
    acknowledged (it was unreachable); `gone` means Novo answered 404.

    `agent_names` (agent id → the name people know it by) and
    `run_link_template` (e.g. ``https://novo.example.com/runs/{runId}``, whose
    ``{field}`` placeholders are the interaction's wire fields) come from the
    operator's configuration; without them messages show agent ids and
    unlinked runs.

    `asked_in` (the channel the interaction was posted to) and `nudges` (the
    reminders and escalations sent) are what the store recorded; an expired
    message words its ending from them. `quorum` is set for an approval whose
    rule needs more than one approver.
    """

    now: datetime
    decided_in_slack: SlackDecision | None = None
    queued: SlackDecision | None = None
    gone: bool = False
    agent_names: Mapping[str, str] = field(default_factory=dict)
    run_link_template: str | None = None
    asked_in: str | None = None
    nudges: tuple[Nudge, ...] = ()
    quorum: QuorumState | None = None
    also_asked: tuple[str, ...] = ()
    """Further places it was asked: the other people of a `dm:` route, each with a copy."""
    deciders: tuple[str, ...] = ()
    """Who the policy let decide, as Slack ids (users, then user groups); empty: anyone."""
    standing: StandingOffer | None = None
    """The standing approvals its rule lets a decider grant (none: not offered)."""
    allowances: tuple[Allowance, ...] = ()
    """Allowances granted on this message, in force or ended (it shows each)."""

    @property
    def asked_where(self) -> str | None:
        """Every place it was asked, as mentions (`<#C…>`, `<@U…>, <@U…>`); None if unknown."""
        if self.asked_in is None:
            return None
        return ", ".join(slack_target(place) for place in (self.asked_in, *self.also_asked))

    @property
    def asked_whom(self) -> str | None:
        """Who could decide, as mentions (`<@U…>, <!subteam^S…>`); None when anyone could."""
        return ", ".join(slack_target(who) for who in self.deciders) or None


class RenderedMessage(TypedDict):
    text: str
    blocks: list[dict[str, Any]]
    metadata: dict[str, Any]
