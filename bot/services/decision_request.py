"""What every way of deciding hands `DecisionPath`: who decides what, how, by which means.

A way of deciding (a button, a modal, a form, Approve all, a standing approval, a
thread reply's *Send*) only builds one of these from its own input; the sequence
that follows (authority, freshness, the write, the ack, telling) is the path's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.domain import Allowance, AllowanceScope, SlackActor, SlackMessageRef
from bot.novo.models import Interaction, ResolveInteractionBody
from bot.outcomes import DecisionOutcome
from bot.store.writes import Written


class Means(StrEnum):
    """How a decision was given: what its trail and its delivery make of it."""

    BUTTON = "button"  # Approve, an action button, a quick option, Dismiss, the allow menu
    MODAL = "modal"  # the deny and note modals
    FORM = "form"  # a question's form
    APPROVE_ALL = "approve_all"  # a step group's Approve all / Deny all
    QUORUM = "quorum"  # the decision a vote sealed (named in its `clicked` event)
    ALLOWANCE = "allowance"  # a standing approval, used by the poll
    THREAD_REPLY = "thread_reply"  # a thread reply's *Send*


@dataclass(frozen=True)
class DecisionRequest:
    """One decision as a way of deciding asks for it.

    `verb` and `body`: the outcome as people read it and as Novo receives it;
    `version`: of the message the decider acted on, where it carries one (a step
    group's, already matched by the group service); `reply`: the thread reply that
    gave it (marked ✅ once Novo took it); `standing`: an allowance asked for with
    this approval; `allowance`: the allowance deciding (its granter is the decider)
    and `seen` the interaction as the poll read it (not tracked yet: its use tracks
    it)."""

    decider: SlackActor
    interaction_id: str
    verb: str
    body: ResolveInteractionBody
    means: Means
    note: str | None = None
    version: str | None = None
    reply: SlackMessageRef | None = None
    standing: AllowanceScope | None = None
    allowance: Allowance | None = None
    seen: Interaction | None = None


@dataclass(frozen=True)
class Decided:
    """What came of a request: the outcome to tell, and what was written (None when
    nothing was)."""

    outcome: DecisionOutcome
    written: Written | None = None
