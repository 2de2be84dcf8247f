"""Who decided what in Slack: the bridge's own facts, shared by the store, services and renderers.

They live apart from rendering so the store can keep them without depending on
how a message looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal


@dataclass(frozen=True)
class SlackActor:
    """Who clicked: `team_id` is the workspace the payload says they belong to (a
    shared channel brings in people of other workspaces); None when unknown."""

    user_id: str
    display_name: str
    team_id: str | None = None


@dataclass(frozen=True)
class SlackMessageRef:
    """A Slack message by where it is: a thread reply a decision was given in."""

    channel: str
    ts: str


@dataclass(frozen=True)
class SlackDecision:
    """A decision taken in Slack, as the bridge recorded it.

    `verb` is what to say ("Approved", "Denied", "Answered", "Dismissed",
    "Chose “Skip the migration”"); `note` is the person's own words, if any; `via`
    how it was given when not by a button or a form ("replying in the thread");
    `reply` the person's message that gave it, marked ✅ once Novo took it.
    """

    actor: SlackActor
    at: datetime
    verb: str
    note: str | None = None
    via: str | None = None
    reply: SlackMessageRef | None = None


@dataclass(frozen=True)
class Approval:
    """One approver of a decision that met a quorum, with the words they gave with it.

    A quorum decision is sealed with its approvals when the quorum is met, so the
    reason Novo receives names exactly these people and carries every note.
    """

    actor: SlackActor
    note: str | None = None


AllowanceScope = Literal["run", "tool"]
AllowanceEnd = Literal["revoked", "expired", "policy", "refused"]


@dataclass(frozen=True)
class Allowance:
    """A standing approval: `granted_by` approved one interaction and allowed the same
    agent's same tool (`run` scope: in the same root run too) until `until`.

    `interaction_id` is the granting interaction: its message shows the allowance and
    its thread gets the reports of each use. `ended` says why it stopped before
    `until` or at it (revoked, by `ended_by`; expired; the policy no longer allows it).
    """

    id: int
    rule: str
    scope: AllowanceScope
    agent_id: str
    tool_name: str
    root_run_id: str | None
    granted_by: SlackActor
    granted_at: datetime
    until: datetime
    interaction_id: str
    ended: AllowanceEnd | None = None
    ended_by: str | None = None
    ended_at: datetime | None = None

    def in_force(self, now: datetime) -> bool:
        return self.ended is None and now < self.until

    def covers(self, agent_id: str, tool_name: str | None, root_run_id: str) -> bool:
        """Whether a pending approval of this agent, tool and root run is within its scope."""
        if agent_id != self.agent_id or tool_name != self.tool_name:
            return False
        return self.scope == "tool" or root_run_id == self.root_run_id


@dataclass(frozen=True)
class AllowanceUse:
    """One interaction an allowance approved, as its thread report names it."""

    interaction_id: str
    allowance_id: int
    run_id: str
    step_number: int
    tool_name: str
    used_at: datetime
