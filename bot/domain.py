"""Who decided what in Slack: the bridge's own facts, shared by the store, services and renderers.

They live apart from rendering so the store can keep them without depending on
how a message looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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
