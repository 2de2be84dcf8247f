"""What a reply in a question's thread answers, read from the reply's text.

A reply is one line of text, not a form, so it answers only what it can
answer unambiguously:

* the one question accepting free text, when no other question is required:
  the reply's text is the answer;
* the one single-choice question (the request's only question): a reply equal
  to an option's label or id selects it, case and surrounding whitespace
  ignored; `other: …` answers it with text when it allows "Other";
* an action's label, replied alone, chooses the action (before any of the above:
  "Skip" under a free-text question means the action, as its button would).

Anything else is no answer (None): the person is told what a reply can answer.
Slack sends message text with `&`, `<` and `>` escaped; they are read back here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.novo.models import InputResponse, Interaction, Question, QuestionAction, QuestionRequest

_OTHER = re.compile(r"^other\s*[:：\-–—]\s*(?P<text>.+)$", re.IGNORECASE | re.DOTALL)
_SLACK_ESCAPES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


@dataclass(frozen=True)
class ReplyTargets:
    """What a reply in this request's thread can answer."""

    free_text: Question | None = None
    single_choice: Question | None = None
    actions: tuple[QuestionAction, ...] = ()

    @property
    def any(self) -> bool:
        return self.free_text is not None or self.single_choice is not None or bool(self.actions)


@dataclass(frozen=True)
class ReplyAnswer:
    """The answer a reply stands for; `action` when it chose one."""

    response: InputResponse
    action: QuestionAction | None = None


def reply_targets(request: QuestionRequest | None) -> ReplyTargets:
    if request is None:
        return ReplyTargets()
    actions = tuple(a for a in request.actions if _fold(a.label or a.id))
    questions = request.questions
    free = [q for q in questions if not q.options]
    others_optional = len(free) == 1 and all(q.optional for q in questions if q is not free[0])
    single = (
        questions[0]
        if len(questions) == 1 and questions[0].options and not questions[0].multiple
        else None
    )
    return ReplyTargets(free[0] if others_optional else None, single, actions)


def accepts_replies(request: QuestionRequest | None) -> bool:
    """Whether a reply in the thread can answer this request at all (the message says so)."""
    return reply_targets(request).any


def parse_reply(interaction: Interaction, raw_text: str) -> ReplyAnswer | None:
    """The answer `raw_text` (a message event's text) stands for, or None."""
    targets = reply_targets(interaction.request)
    text = slack_text(raw_text).strip()
    if not text:
        return None
    folded = _fold(text)
    for action in targets.actions:
        if _fold(action.label or action.id) == folded:
            return ReplyAnswer(InputResponse(request_id=action.id), action)
    question = targets.single_choice
    if question is not None:
        for option in question.options or []:
            if folded in (_fold(option.id), _fold(option.label)):
                return ReplyAnswer(InputResponse(request_id=question.id, option_id=option.id))
        other = _OTHER.match(text)
        if question.allow_other and other is not None and other["text"].strip():
            return ReplyAnswer(InputResponse(request_id=question.id, text=other["text"].strip()))
    if targets.free_text is not None:
        return ReplyAnswer(InputResponse(request_id=targets.free_text.id, text=text))
    return None


def slack_text(raw: str) -> str:
    """A message event's text as the person typed it (Slack escapes `&`, `<`, `>`)."""
    for escaped, plain in _SLACK_ESCAPES:
        raw = raw.replace(escaped, plain)
    return raw


def _fold(value: str) -> str:
    return " ".join(value.split()).casefold()
