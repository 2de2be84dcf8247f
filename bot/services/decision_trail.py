"""The audit events of a decision's write: the one place they are made.

They are written in the write's own transaction (`Store.write_decisions`), made
from what it did: a vote cast (and the stale votes it dropped), a decision queued
(`clicked`), an allowance granted with it, a standing approval's use. A decision's
`clicked` event says who decided what, under which rule, and what they saw when
they did (`shown`, from the request Slack signed).
"""

from __future__ import annotations

from typing import Any

from bot.clock import Clock
from bot.domain import SlackDecision
from bot.services.decision_request import DecisionRequest, Means
from bot.services.shown import decision_facts, shown_now, stood_in
from bot.store.audit import AuditEvent
from bot.store.votes import VoteRequest
from bot.store.writes import Written


def decision_trail(
    request: DecisionRequest,
    decision: SlackDecision,
    rule: str | None,
    vote: VoteRequest | None,
    clock: Clock,
    written: Written,
) -> list[AuditEvent]:
    now = clock()
    interaction_id, user_id = request.interaction_id, request.decider.user_id
    events = [
        AuditEvent("vote_dropped", now, interaction_id, voter, {"why": why})
        for voter, why in (vote.drop.items() if vote is not None else ())
    ]
    ballot = written.ballot
    if ballot is not None and ballot.counted and vote is not None:
        detail: dict[str, Any] = {"tally": f"{len(ballot.standing)} of {vote.quorum}"}
        if request.means is Means.APPROVE_ALL:
            detail["via"] = "approve all"
        shown = shown_now()
        detail["shown"] = shown.detail() if shown is not None else None
        events.append(AuditEvent("voted", now, interaction_id, user_id, detail))
    if written.queued is None:
        return events
    if request.allowance is not None:
        used = {"allowance": request.allowance.id, "shown": stood_in(request.allowance).detail()}
        return [*events, AuditEvent("allowance_used", now, interaction_id, user_id, used)]
    clicked: dict[str, Any] = {"verb": request.verb}
    if request.means is Means.APPROVE_ALL:
        clicked["via"] = "batch"
        clicked["version"] = request.version  # of the group message clicked
    elif ballot is not None:
        clicked["via"] = Means.QUORUM.value
    facts = {**clicked, **decision_facts(decision, rule)}
    events.append(AuditEvent("clicked", now, interaction_id, user_id, facts))
    if written.allowance is not None:
        allowance = written.allowance
        granted = {
            "allowance": allowance.id,
            "rule": allowance.rule,
            "scope": allowance.scope,
            "until": allowance.until.isoformat(),
        }
        events.append(AuditEvent("allowance_granted", now, interaction_id, user_id, granted))
    return events
