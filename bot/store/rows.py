"""What the store hands out: plain frozen records, built from rows in one place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import RowMapping

from bot.domain import (
    Allowance,
    AllowanceEnd,
    AllowanceScope,
    Approval,
    SlackActor,
    SlackDecision,
    SlackMessageRef,
)
from bot.novo.models import Interaction, ResolveInteractionBody
from bot.store.records import load_record
from bot.store.schema import MessageKind, MessageState

DecisionState = Literal["queued", "delivered", "conflict", "rejected", "gone"]
Show = Callable[[Interaction], Interaction]
"""What turns a stored record into the copy that may be shown (`Store.show_with`)."""
SnoozeState = Literal["waiting", "sent", "dropped"]


@dataclass(frozen=True)
class TrackedMessage:
    """One Slack message about an interaction; (interaction_id, purpose, channel) names it.

    `version` goes up with every change of what it shows, so a writer can
    compare-and-set. `queued`: tracked, nothing sent yet; `posting`: its lane
    claimed it just before sending, so after a crash it may be in Slack, and if
    so it is newer than `after_ts` (the newest ts of ours in its channel at the
    claim) or, when there was none, than `claimed_at`.
    """

    interaction_id: str
    purpose: MessageKind
    channel: str
    state: MessageState
    ts: str | None
    rendered_hash: str | None
    synced: bool
    version: int
    claimed_at: datetime
    updated_at: datetime
    slack_channel: str | None = None
    after_ts: str | None = None

    @property
    def shown_in(self) -> str:
        """The channel to name when updating it: a DM's own id once Slack told us."""
        return self.slack_channel or self.channel


@dataclass(frozen=True)
class TrackedInteraction:
    """One interaction the bridge has (or is about to have) a Slack message for.

    `channel`, `ts`, `rendered_hash`, `state`, `claimed_at` and `slack_channel`
    are those of its primary message (purpose `channel`). `channel` is the
    destination as the policy named it (a channel, or a user for a DM): lanes
    and store keys use it; anything said to Slack about the message names
    `shown_in`.

    `snapshot` is the record as it may be shown: with the bridge's redaction
    wired (`Store.show_with`), credentials in it are masked, so whatever renders
    or logs it shows no secret. `raw` is Novo's record as received, for the one
    place allowed to show full values (a decider's own *View full input*).
    """

    id: str
    kind: str
    state: MessageState
    snapshot: Interaction
    channel: str
    ts: str | None
    rendered_hash: str | None
    gone: bool
    decided_in_slack: SlackDecision | None
    claimed_at: datetime | None = None
    slack_channel: str | None = None
    group_id: str | None = None
    raw: Interaction | None = None
    record_version: int = 0  # of the stored record: one more at every change of it
    after_ts: str | None = None  # of its primary: see `TrackedMessage`

    @property
    def shown_in(self) -> str:
        """The channel to name to Slack: a DM's own id (`D…`) once it was posted there."""
        return self.slack_channel or self.channel

    @property
    def record(self) -> Interaction:
        """Novo's record as received, never masked: show it to nobody but a decider."""
        return self.raw if self.raw is not None else self.snapshot

    @property
    def is_open(self) -> bool:
        """Still waiting on a human as far as the bridge last knew."""
        return self.snapshot.is_pending and not self.gone

    def waits_at(self, now: datetime) -> bool:
        """Open and not past its deadline by our clock at `now`: Novo may not have said
        yet that it lapsed, and a reminder or an escalation of it would come too late."""
        expires = self.snapshot.expires_at
        return self.is_open and (expires is None or now < expires)


@dataclass(frozen=True, slots=True)
class OpenDeadline:
    """An open, posted interaction as a countdown sees it (`Store.open_deadlines`)."""

    id: str
    channel: str
    expires_at: datetime | None


@dataclass(frozen=True)
class QueuedDecision:
    """A decision taken in Slack, kept until Novo has acknowledged it."""

    id: int
    interaction_id: str
    body: ResolveInteractionBody
    decision: SlackDecision
    state: DecisionState
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    response_view_id: str | None
    approvers: tuple[Approval, ...] = ()
    """The approvals a quorum decision was sealed with (empty for any other decision)."""
    standing_until: datetime | None = None
    """Set when a standing approval took this decision (its decider is the granter): until
    when the allowance held, which the reason names."""


@dataclass(frozen=True)
class TakenStep:
    """A reminder or escalation step taken for an interaction: sent, or skipped as too late."""

    step: str
    outcome: Literal["sent", "skipped"]
    taken_at: datetime
    link: str | None

    @property
    def sent(self) -> bool:
        return self.outcome == "sent"


@dataclass(frozen=True)
class Snooze:
    """A person's "Remind me" on an interaction: a DM due at `due_at`, sent at most once.

    While `waiting`, `due_at` is when it is next due: claiming it pushes
    `due_at` past a lease, so a claimer that dies before sending lets it fall
    due again. It turns `sent` just before the DM goes, `dropped` when the
    interaction ended first (or Slack refused the DM).
    """

    id: int
    interaction_id: str
    user_id: str
    due_at: datetime
    state: SnoozeState
    created_at: datetime
    done_at: datetime | None


def snooze(row: RowMapping) -> Snooze:
    return Snooze(
        id=int(row["id"]),
        interaction_id=row["interaction_id"],
        user_id=row["user_id"],
        due_at=row["due_at"],
        state=cast(SnoozeState, row["state"]),
        created_at=row["created_at"],
        done_at=row["done_at"],
    )


@dataclass(frozen=True)
class StepGroup:
    """Sibling approvals of one run's step, shown under one message in `channel`: the
    group, and where its message is (`state`, `ts`, what it shows, its claim)."""

    id: str
    root_run_id: str
    step_number: int
    channel: str
    agent_id: str
    state: MessageState
    ts: str | None
    rendered_hash: str | None
    outcome: str | None
    claimed_at: datetime
    after_ts: str | None = None


def step_group(row: RowMapping) -> StepGroup:
    return StepGroup(
        id=row["id"],
        root_run_id=row["root_run_id"],
        step_number=int(row["step_number"]),
        channel=row["channel"],
        agent_id=row["agent_id"],
        state=MessageState(row["state"]),
        ts=row["ts"],
        rendered_hash=row["rendered_hash"],
        outcome=row["outcome"],
        claimed_at=row["message_claimed_at"],
        after_ts=row["after_ts"],
    )


@dataclass(frozen=True)
class Vote:
    """One person's approval towards a quorum: standing, sealed into a decision, or
    dropped because its giver no longer qualifies (`dropped_why` says how)."""

    user_id: str
    user_name: str
    voted_at: datetime
    note: str | None = None
    sealed: bool = False
    dropped_why: str | None = None

    @property
    def approval(self) -> Approval:
        return Approval(SlackActor(self.user_id, self.user_name), self.note)


def vote(row: RowMapping) -> Vote:
    return Vote(
        user_id=row["user_id"],
        user_name=row["user_name"],
        voted_at=row["voted_at"],
        note=row["note"],
        sealed=row["sealed_at"] is not None,
        dropped_why=row["dropped_why"],
    )


def approvals_record(approvals: tuple[Approval, ...] | list[Approval]) -> list[dict[str, Any]]:
    """How a sealed quorum's approvers are kept on its decision (JSON)."""
    return [
        {"user_id": a.actor.user_id, "user_name": a.actor.display_name, "note": a.note}
        for a in approvals
    ]


def _approvals(text: str | None) -> tuple[Approval, ...]:
    if not text:
        return ()
    value = load_record(text)
    if not isinstance(value, list):
        return ()
    return tuple(
        Approval(SlackActor(str(a["user_id"]), str(a["user_name"])), a.get("note"))
        for a in value
        if isinstance(a, dict) and "user_id" in a and "user_name" in a
    )


def taken_step(row: RowMapping) -> TakenStep:
    return TakenStep(
        step=row["step"],
        outcome=cast(Literal["sent", "skipped"], row["outcome"]),
        taken_at=row["taken_at"],
        link=row["link"],
    )


def tracked(
    row: RowMapping, show: Show | None = None, parsed: Interaction | None = None
) -> TrackedInteraction:
    """The interaction of a row, shown as `show` makes it (the policy's redaction);
    `parsed`: its record already parsed (the row may then leave the stored text out)."""
    decided = None
    if row["decided_by_id"] and row["decided_at"] is not None:
        decided = SlackDecision(
            actor=SlackActor(row["decided_by_id"], row["decided_by_name"] or row["decided_by_id"]),
            at=row["decided_at"],
            verb=row["decided_verb"] or "Decided",
            note=row["decided_note"],
        )
    raw = parsed if parsed is not None else Interaction.from_wire(load_record(row["snapshot"]))
    return TrackedInteraction(
        id=row["id"],
        kind=row["kind"],
        state=MessageState(row["state"]),
        snapshot=show(raw) if show is not None else raw,
        raw=raw,
        channel=row["channel"],
        ts=row["ts"],
        rendered_hash=row["rendered_hash"],
        gone=bool(row["gone"]),
        decided_in_slack=decided,
        claimed_at=row["claimed_at"],
        slack_channel=row["slack_channel"],
        group_id=row["group_id"],
        record_version=int(row["record_version"]),
        after_ts=row["after_ts"],
    )


def message(row: RowMapping) -> TrackedMessage:
    return TrackedMessage(
        interaction_id=row["interaction_id"],
        purpose=MessageKind(row["purpose"]),
        channel=row["channel"],
        state=MessageState(row["state"]),
        ts=row["ts"],
        rendered_hash=row["rendered_hash"],
        synced=bool(row["synced"]),
        version=int(row["version"]),
        claimed_at=row["claimed_at"],
        updated_at=row["updated_at"],
        slack_channel=row["slack_channel"],
        after_ts=row["after_ts"],
    )


def queued(row: RowMapping) -> QueuedDecision:
    return QueuedDecision(
        id=int(row["id"]),
        interaction_id=row["interaction_id"],
        body=ResolveInteractionBody.model_validate(load_record(row["body"])),
        decision=SlackDecision(
            actor=SlackActor(row["actor_id"], row["actor_name"]),
            at=row["created_at"],
            verb=row["verb"],
            note=row["note"],
            via=row["via"],
            reply=(
                SlackMessageRef(row["reply_channel"], row["reply_ts"])
                if row["reply_channel"] and row["reply_ts"]
                else None
            ),
        ),
        state=cast(DecisionState, row["state"]),
        attempts=int(row["attempts"]),
        next_attempt_at=row["next_attempt_at"],
        last_error=row["last_error"],
        response_view_id=row["response_view_id"],
        approvers=_approvals(row["approvers"]),
        standing_until=row.get("standing_until"),
    )


def answers(text: str) -> list[dict[str, Any]]:
    value = load_record(text)
    return [dict(item) for item in value] if isinstance(value, list) else []


def allowance_of(row: RowMapping) -> Allowance:
    return Allowance(
        id=int(row["id"]),
        rule=row["rule"],
        scope=cast(AllowanceScope, row["scope"]),
        agent_id=row["agent_id"],
        tool_name=row["tool_name"],
        root_run_id=row["root_run_id"],
        granted_by=SlackActor(row["granted_by_id"], row["granted_by_name"]),
        granted_at=row["granted_at"],
        until=row["until"],
        interaction_id=row["interaction_id"],
        ended=cast(AllowanceEnd | None, row["ended"]),
        ended_by=row["ended_by_id"],
        ended_at=row["ended_at"],
    )
