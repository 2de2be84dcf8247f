"""What a reply in a question's thread answers, read from its text alone."""

from __future__ import annotations

from typing import Any

import pytest

from bot.novo.models import InputResponse
from bot.slack.render.thread_reply import reply_help_text
from bot.slack.thread_answers import accepts_replies, parse_reply, reply_targets
from tests.render_question.conftest import make_interaction, options, question

CHOICE = question("q_env", options=options(2))
FREE = question("q_why")
SKIP = {"id": "a_skip", "label": "Skip it"}


def _answer(text: str, *questions: dict[str, Any], **extra: Any) -> InputResponse | None:
    interaction = make_interaction({"title": "T", "questions": list(questions), **extra})
    answer = parse_reply(interaction, text)
    return answer.response if answer is not None else None


@pytest.mark.parametrize("text", ["Option 1", "  option 1 ", "OPT1", "option  1"])
def test_an_option_by_label_or_id(text: str) -> None:
    assert _answer(text, CHOICE) == InputResponse(request_id="q_env", option_id="opt1")


def test_other_only_where_allowed() -> None:
    allowed = {**CHOICE, "allowOther": True}
    assert _answer("other: blue", allowed) == InputResponse(request_id="q_env", text="blue")
    assert _answer("Other - blue", allowed) == InputResponse(request_id="q_env", text="blue")
    assert _answer("other: blue", CHOICE) is None
    assert _answer("other:", allowed) is None


def test_free_text_is_the_whole_reply_unescaped() -> None:
    assert _answer(" a &lt; b &amp;&amp; c ", FREE) == InputResponse(
        request_id="q_why", text="a < b && c"
    )
    assert _answer("   ", FREE) is None


def test_an_action_label_wins_over_free_text() -> None:
    assert _answer("skip IT", FREE, actions=[SKIP]) == InputResponse(request_id="a_skip")
    assert _answer("skip it now", FREE, actions=[SKIP]) == InputResponse(
        request_id="q_why", text="skip it now"
    )


def test_what_a_reply_cannot_answer() -> None:
    several = [FREE, CHOICE]
    assert _answer("opt1", *several) is None
    assert _answer("x", {**CHOICE, "multiple": True}) is None
    assert _answer("x", FREE, question("q_two")) is None
    # a free-text question with only optional others still takes a reply
    optional = {**CHOICE, "optional": True}
    assert _answer("why not", FREE, optional) == InputResponse(request_id="q_why", text="why not")
    request = make_interaction({"title": "T", "questions": several}).request
    assert not accepts_replies(request)
    assert "can't answer" in reply_help_text(reply_targets(request))


def test_the_help_names_each_way() -> None:
    request = make_interaction(
        {"title": "T", "questions": [{**CHOICE, "allowOther": True}], "actions": [SKIP]}
    ).request
    text = reply_help_text(reply_targets(request))
    assert "*Option 0*, *Option 1*" in text and "`other: …`" in text and "*Skip it*" in text
