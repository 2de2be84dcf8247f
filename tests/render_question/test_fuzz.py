"""Random requests: every modal page and message is valid; any full answer passes the rules."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.novo import rules
from bot.novo.models import InputResponse, ResolveInteractionBody
from bot.slack.question_answers import ParsedSubmission, parse_submission
from bot.slack.render.context import MessageContext, SlackActor, SlackDecision
from bot.slack.render.question import render_question_message
from bot.slack.render.question_encoding import OTHER_VALUE
from bot.slack.render.question_modal import question_modal_page_count, render_question_modal
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view

from .conftest import NOW, Picks, input_blocks, make_interaction, slack_state

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TEXT = st.text(max_size=400)
IDS = st.text(min_size=1, max_size=220)
COUNTS = st.sampled_from([0, 1, 2, 5, 9, 10, 11, 60, 100, 101, 140])


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    question_count = draw(st.integers(0, 35))
    action_count = draw(st.integers(0, 12))
    ids = draw(
        st.lists(
            IDS,
            min_size=question_count + action_count,
            max_size=question_count + action_count,
            unique=True,
        )
    )
    questions = []
    for question_id in ids[:question_count]:
        count = draw(COUNTS)
        stem, label, description = draw(IDS), draw(st.text(max_size=90)), draw(st.none() | TEXT)
        opts = [
            {
                "id": f"{stem}{i}",
                "label": f"{label}{i}" if i % 3 else label,
                "description": description,
            }
            for i in range(count)
        ]
        no_options: list[Any] | None = draw(st.sampled_from([None, []]))
        questions.append(
            {
                "id": question_id,
                "prompt": draw(TEXT),
                "multiple": draw(st.booleans()),
                "options": opts or no_options,
                "multiline": draw(st.booleans()),
                "allowOther": draw(st.booleans()),
                "optional": draw(st.booleans()),
            }
        )
    actions = [
        {
            "id": action_id,
            "label": draw(TEXT),
            "style": draw(st.sampled_from([None, "danger", "primary", "odd"])),
        }
        for action_id in ids[question_count:]
    ]
    return {
        "title": draw(TEXT),
        "details": draw(st.none() | TEXT),
        "questions": questions,
        "actions": actions,
    }


def _picks(view: dict[str, Any], data: st.DataObject) -> Picks:
    """A complete, sensible answer to every input of a page, as a person could give it."""
    picks: Picks = {}
    for block_id, block in input_blocks(view).items():
        element = block["element"]
        if block_id.endswith("_other"):
            continue  # filled below when "Other…" is picked
        if element["type"] == "plain_text_input":
            text = data.draw(st.text(min_size=1, max_size=50).filter(str.strip))
            picks[block_id] = (
                data.draw(st.none() | st.just(text)) if block_id.endswith("_note") else text
            )
            continue
        offered = [o["value"] for o in element.get("options", [])] or ["o0"]
        if element["type"] in ("checkboxes", "multi_static_select", "multi_external_select"):
            picks[block_id] = data.draw(st.lists(st.sampled_from(offered), min_size=1, unique=True))
        else:
            picks[block_id] = data.draw(st.sampled_from(offered))
        chosen = picks[block_id]
        if OTHER_VALUE in (chosen if isinstance(chosen, list) else [chosen]):
            picks[f"{block_id}_other"] = "my own answer"
    return picks


@FUZZ
@given(request=requests(), data=st.data())
def test_every_page_is_valid_and_a_full_answer_passes_the_rules(
    request: dict[str, Any], data: st.DataObject
) -> None:
    interaction = make_interaction(request)
    assert interaction.request is not None
    answers: list[InputResponse] = []
    for page in range(question_modal_page_count(interaction.request)):
        view = render_question_modal(interaction, page, errors_note=data.draw(st.none() | TEXT))
        assert_valid_view(view)
        picks = _picks(view, data)
        result = parse_submission(interaction, page, slack_state(interaction, view, picks))
        assert isinstance(result, ParsedSubmission), result
        answers.extend(result.input_responses)
    if interaction.request.questions:
        rules.check_resolve_body(interaction, ResolveInteractionBody(input_responses=answers))


@FUZZ
@given(
    request=requests(),
    state=st.sampled_from(
        ["pending", "queued", "decided", "elsewhere", "expired", "dismissed", "gone"]
    ),
    note=st.none() | TEXT,
)
def test_every_message_is_valid(request: dict[str, Any], state: str, note: str | None) -> None:
    questions = request["questions"]
    resolution = {
        "inputResponses": [
            {"requestId": q["id"], "text": "an answer"}
            if not q["options"]
            else {
                "requestId": q["id"],
                "optionIds" if q["multiple"] else "optionId": [q["options"][0]["id"]]
                if q["multiple"]
                else q["options"][0]["id"],
            }
            for q in questions
        ]
        or [{"requestId": "unknown"}]
    }
    status = {
        "decided": "resolved",
        "elsewhere": "resolved",
        "expired": "cancelled",
        "dismissed": "cancelled",
    }.get(state, "pending")
    fields: dict[str, Any] = {}
    if status == "resolved":
        fields["resolution"] = resolution
    if state == "expired":
        fields["resolution"] = {"reason": "interaction_timeout"}
    if state == "dismissed":
        fields.update(resolution={"cancel": True}, reason=note)
    decision = SlackDecision(SlackActor("U0ANN", "Ann"), NOW, "Answered", note)
    ctx = MessageContext(
        now=NOW,
        decided_in_slack=decision if state == "decided" else None,
        queued=decision if state == "queued" else None,
        gone=state == "gone",
    )
    assert_valid_message(
        render_question_message(make_interaction(request, status=status, **fields), ctx)
    )
