"""What a renderer needs besides the record, built from stored facts alone.

A card, a copy, an escalation and a step group's line all show one interaction with
the context built here: `message_context` is a pure function of what the store holds
(its record, its open decision, its messages, the steps taken, the allowances and the
votes) and of the policy's route for it, looked up once. The reads that gather those
facts are the publisher's (`bot.messages.reads` serves many renders with one read); a
group line passes only what the group read, so 400 members cost no route look-up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.domain import Allowance, SlackActor
from bot.policy.routes import Route
from bot.slack.render.allowance import StandingOffer
from bot.slack.render.context import MessageContext, Nudge, QuorumState
from bot.slack.render.quorum import people_text
from bot.store import QueuedDecision, TakenStep, TrackedInteraction, TrackedMessage
from bot.store.rows import Vote
from bot.store.schema import MessageKind, MessageState

ESCALATE_STEP = "escalate"
"""The name of the escalation step in the store."""


@dataclass(frozen=True)
class StoredFacts:
    """One interaction's facts besides its record, as the store holds them."""

    queued: QueuedDecision | None = None
    messages: Sequence[TrackedMessage] = ()
    steps: Sequence[TakenStep] = ()
    allowances: Sequence[Allowance] = ()
    votes: Sequence[Vote] = ()
    dropped_votes: Sequence[Vote] = ()


@dataclass(frozen=True)
class Wording:
    """What the policy file in force says about how every message reads."""

    agent_names: Mapping[str, str]
    run_link_template: str | None


def message_context(
    tracked: TrackedInteraction,
    facts: StoredFacts,
    *,
    now: datetime,
    wording: Wording,
    route: Route | None = None,
) -> MessageContext:
    """Everything a render shows besides the record. Without `route` (a step group's
    line) it says nothing of deciders, quorum or standing approvals."""
    queued = facts.queued
    return MessageContext(
        now=now,
        decided_in_slack=tracked.decided_in_slack,
        queued=queued.decision if queued and tracked.snapshot.is_pending else None,
        gone=tracked.gone,
        agent_names=wording.agent_names,
        run_link_template=wording.run_link_template,
        asked_in=tracked.channel,
        also_asked=tuple(m.channel for m in posted(facts.messages, MessageKind.COPY)),
        nudges=_nudges(facts.steps, facts.messages),
        quorum=_quorum(tracked, route, facts) if route is not None else None,
        deciders=_deciders(route) if route is not None else (),
        standing=_standing(tracked, route) if route is not None else None,
        allowances=tuple(facts.allowances),
    )


def wants_votes(tracked: TrackedInteraction, route: Route) -> bool:
    """Whether its context shows a quorum (so its votes must be read)."""
    return tracked.kind == "approval_request" and route.quorum > 1


def posted(messages: Sequence[TrackedMessage], kind: MessageKind) -> list[TrackedMessage]:
    """The messages of this kind that Slack shows (posted, with their ts)."""
    return [
        m
        for m in messages
        if m.purpose == kind and m.state == MessageState.POSTED and m.ts is not None
    ]


def _deciders(route: Route) -> tuple[str, ...]:
    """Who the policy in force lets decide it, users then groups; () when anyone may."""
    deciders = route.deciders
    return () if deciders.anyone else (*deciders.users, *deciders.groups)


def _standing(tracked: TrackedInteraction, route: Route) -> StandingOffer | None:
    """The standing approvals the policy in force offers on it (approvals only)."""
    if tracked.kind != "approval_request" or route.standing is None:
        return None
    return StandingOffer(tuple(route.standing.scopes), route.standing.max_seconds)


def _quorum(tracked: TrackedInteraction, route: Route, facts: StoredFacts) -> QuorumState | None:
    """Votes towards the rule's quorum, and who else may still approve."""
    if not wants_votes(tracked, route):
        return None
    voted = {v.user_id for v in facts.votes}
    deciders = route.deciders
    others = (
        ""
        if deciders.anyone
        else people_text([u for u in deciders.users if u not in voted], deciders.groups)
    )
    return QuorumState(
        needed=route.quorum,
        approvers=tuple(SlackActor(v.user_id, v.user_name) for v in facts.votes),
        others=others,
        dropped=tuple(
            (SlackActor(v.user_id, v.user_name), v.dropped_why or "") for v in facts.dropped_votes
        ),
    )


def _nudges(taken: Sequence[TakenStep], messages: Sequence[TrackedMessage]) -> tuple[Nudge, ...]:
    """The reminders and escalations sent (`taken`), an escalation naming where it went."""
    sent = [s for s in taken if s.sent]
    targets: tuple[str, ...] = ()
    if any(s.step == ESCALATE_STEP for s in sent):
        targets = tuple(m.channel for m in posted(messages, MessageKind.ESCALATION))
    return tuple(
        Nudge("escalate", s.taken_at, targets)
        if s.step == ESCALATE_STEP
        else Nudge("remind", s.taken_at)
        for s in sent
    )
