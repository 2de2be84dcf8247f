"""The resolve-body rules of the API doc (Part 1 and Part 2), in one place.

Both the client (to refuse a bad body before it is sent) and the simulator (to
answer 400) call these functions, so the bridge and its stand-in can never
disagree about what a valid answer is. A deployment whose server differs
changes this module only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.novo.errors import ResolveRuleError
from bot.novo.models import (
    APPROVE_OPTION,
    DENY_OPTION,
    Decision,
    Interaction,
    ResolveInteractionBody,
)

MAX_REASON_CHARS = 2_000
MAX_BATCH_ITEMS = 20
PAGE_LIMIT_DEFAULT = 20
PAGE_LIMIT_MAX = 100


def _invalid(message: str) -> ResolveRuleError:
    return ResolveRuleError("invalid_body", message)


def check_body_shape(body: ResolveInteractionBody) -> None:
    """Rules that hold whatever the interaction: one of answers/cancel, unique ids, reason size."""
    has_answers = bool(body.input_responses)
    if body.input_responses is not None and not body.input_responses:
        raise _invalid("inputResponses must not be empty")
    if body.cancel is False:
        raise _invalid("cancel, when present, must be true")
    if has_answers == bool(body.cancel):
        raise _invalid("exactly one of inputResponses (non-empty) or cancel: true is required")
    if body.reason is not None and len(body.reason) > MAX_REASON_CHARS:
        raise _invalid(f"reason is longer than {MAX_REASON_CHARS} characters")
    seen: set[str] = set()
    for entry in body.input_responses or []:
        if not entry.request_id:
            raise _invalid("requestId must be a non-empty string")
        if entry.request_id in seen:
            raise _invalid(f"requestId {entry.request_id!r} appears more than once")
        seen.add(entry.request_id)


def check_resolve_body(interaction: Interaction, body: ResolveInteractionBody) -> None:
    """Every rule of the doc for resolving this interaction with this body."""
    check_body_shape(body)
    if body.cancel:
        return
    if interaction.kind == "approval_request":
        _check_approval(interaction, body)
    else:
        _check_question(interaction, body)


def _check_approval(interaction: Interaction, body: ResolveInteractionBody) -> None:
    entries = body.input_responses or []
    if len(entries) != 1:
        raise _invalid("an approval takes exactly one inputResponses entry")
    entry = entries[0]
    if entry.request_id != interaction.id:
        raise _invalid("an approval's requestId must be the interaction's own id")
    if entry.option_ids is not None or entry.text is not None:
        raise _invalid("an approval takes optionId only: no optionIds, no text")
    if entry.option_id not in (APPROVE_OPTION, DENY_OPTION):
        raise _invalid("an approval's optionId must be 'approve' or 'deny'")


def _check_question(interaction: Interaction, body: ResolveInteractionBody) -> None:
    request = interaction.request
    entries = body.input_responses or []
    if request is None:
        raise ResolveRuleError("unknown_question_id", "Unknown questionId: this question has none")
    chose_action = False
    answered: set[str] = set()
    for entry in entries:
        action = request.action(entry.request_id)
        if action is not None:
            if entry.option_id is not None or entry.option_ids is not None or entry.text:
                raise _invalid(f"action {entry.request_id!r} takes no option and no text")
            chose_action = True
            continue
        question = request.question(entry.request_id)
        if question is None:
            raise ResolveRuleError(
                "unknown_question_id", f"Unknown questionId: {entry.request_id!r}"
            )
        answered.add(question.id)
        valid_ids = {o.id for o in question.options or []}
        if entry.option_ids is not None:
            if not question.multiple:
                raise _invalid(f"question {question.id!r} is single-choice: use optionId")
            if entry.option_id is not None:
                raise _invalid(f"question {question.id!r}: give optionId or optionIds, not both")
            if len(set(entry.option_ids)) != len(entry.option_ids):
                raise _invalid(f"question {question.id!r}: an option is selected twice")
            unknown = [o for o in entry.option_ids if o not in valid_ids]
            if unknown:
                raise _invalid(f"question {question.id!r} has no option {unknown[0]!r}")
        if entry.option_id is not None and entry.option_id not in valid_ids:
            raise _invalid(f"question {question.id!r} has no option {entry.option_id!r}")
        if entry.text is not None and not question.accepts_text:
            raise _invalid(f"question {question.id!r} does not accept free-form text")
        if entry.option_id is None and not entry.option_ids and not entry.text:
            raise _invalid(f"question {question.id!r}: the entry selects nothing")
    if chose_action:
        if len(entries) > 1:
            raise _invalid("an action cannot be combined with other answers")
        return
    missing = [q.id for q in request.questions if not q.optional and q.id not in answered]
    if missing:
        raise _invalid(f"question {missing[0]!r} is not optional and was not answered")


@dataclass(frozen=True)
class Outcome:
    """What idempotency compares: approvals by decision, questions by answers, cancel as cancel."""

    kind: Literal["cancel", "decision", "answers"]
    value: object = None


def outcome_of(interaction: Interaction, body: ResolveInteractionBody) -> Outcome:
    """The outcome a (valid) body asks for."""
    if body.cancel:
        return Outcome("cancel")
    entries = body.input_responses or []
    if interaction.kind == "approval_request":
        return Outcome("decision", decision_for(entries[0].option_id))
    answers = frozenset(
        (
            e.request_id,
            e.option_id,
            frozenset(e.option_ids) if e.option_ids is not None else None,
            e.text,
        )
        for e in entries
    )
    return Outcome("answers", answers)


def recorded_outcome(interaction: Interaction) -> Outcome | None:
    """The outcome an already finalized interaction carries, None while pending."""
    if interaction.is_pending:
        return None
    body = interaction.resolution_body()
    if interaction.status == "cancelled" or body is None or not body.input_responses:
        return Outcome("cancel")
    return outcome_of(interaction, body)


def decision_for(option_id: str | None) -> Decision:
    return "allow" if option_id == APPROVE_OPTION else "deny"
