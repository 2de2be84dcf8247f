"""Parsing a submitted form back into answers Novo accepts, and the errors a person sees."""

from __future__ import annotations

from typing import Any

import pytest

from bot.novo import rules
from bot.novo.errors import ResolveRuleError
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from bot.slack.ids import ActionId
from bot.slack.question_answers import (
    ERROR_OTHER_CONFLICT,
    ERROR_OTHER_EMPTY,
    ERROR_REQUIRED_CHOICE,
    ERROR_REQUIRED_TEXT,
    ERROR_STALE_OPTION,
    ParsedSubmission,
    parse_action_choice,
    parse_quick_option,
    parse_submission,
    summarize_answers,
)
from bot.slack.render.question_encoding import (
    action_choice_value,
    action_id_pattern,
    indexed_action_id,
    interaction_id_of_value,
    quick_option_value,
)
from bot.slack.render.question_modal import question_modal_page_count, render_question_modal

from .conftest import INTERACTION_ID, Picks, make_interaction, options, question, slack_state

ODD_IDS = ["a b/c?=&", "x" * 200, "|o1|", "Ünïcödé 🙂", "o3"]


def _submit(
    interaction: Interaction, picks: Picks, page: int = 0
) -> ParsedSubmission | dict[str, str]:
    view = render_question_modal(interaction, page)
    return parse_submission(interaction, page, slack_state(interaction, view, picks))


def _answers(interaction: Interaction, picks: Picks) -> list[InputResponse]:
    """Parse, then hold the result to the API's own rules: a body Novo would accept."""
    result = _submit(interaction, picks)
    assert isinstance(result, ParsedSubmission), result
    rules.check_resolve_body(
        interaction, ResolveInteractionBody(input_responses=result.input_responses)
    )
    return result.input_responses


def _one(**fields: Any) -> Interaction:
    return make_interaction({"title": "T", "questions": [question("q_a", **fields)]})


@pytest.mark.parametrize("count", [3, 50, 150])
def test_single_choice_sends_option_id(count: int) -> None:
    interaction = _one(options=options(count))
    assert _answers(interaction, {"q0": "o2"}) == [
        InputResponse(request_id="q_a", option_id="opt2")
    ]


@pytest.mark.parametrize("count", [3, 50, 150])
def test_multiple_choice_sends_option_ids(count: int) -> None:
    interaction = _one(options=options(count), multiple=True)
    answers = _answers(interaction, {"q0": ["o0", "o2"]})
    assert answers == [InputResponse(request_id="q_a", option_ids=["opt0", "opt2"])]


@pytest.mark.parametrize("count", [len(ODD_IDS), 150])
def test_odd_and_long_option_ids_round_trip_exactly(count: int) -> None:
    labelled = [
        {"id": ODD_IDS[i % len(ODD_IDS)] + str(i // len(ODD_IDS) or ""), "label": "same label"}
        for i in range(count)
    ]
    for multiple in (False, True):
        interaction = _one(options=labelled, multiple=multiple)
        for index, option in enumerate(labelled[: len(ODD_IDS)]):
            pick: str | list[str] = [f"o{index}"] if multiple else f"o{index}"
            (answer,) = _answers(interaction, {"q0": pick})
            assert (answer.option_ids or [answer.option_id or ""]) == [option["id"]]


def test_free_text_is_sent_trimmed() -> None:
    assert _answers(_one(), {"q0": "  Customer confirmed.\n"}) == [
        InputResponse(request_id="q_a", text="Customer confirmed.")
    ]


def test_multiline_question_with_options_sends_the_note_with_the_choice() -> None:
    interaction = _one(options=options(3), multiline=True)
    answers = _answers(interaction, {"q0": "o1", "q0_note": "because"})
    assert answers == [InputResponse(request_id="q_a", option_id="opt1", text="because")]


def test_text_never_sent_where_the_question_refuses_it() -> None:
    interaction = _one(options=options(3))
    assert _answers(interaction, {"q0": "o1"})[0].text is None


@pytest.mark.parametrize("multiple", [False, True])
def test_other_with_text_sends_the_text(multiple: bool) -> None:
    interaction = _one(options=options(3), allowOther=True, multiple=multiple)
    pick: str | list[str] = ["other"] if multiple else "other"
    assert _answers(interaction, {"q0": pick, "q0_other": "Next Tuesday"}) == [
        InputResponse(request_id="q_a", text="Next Tuesday")
    ]


def test_other_beside_options_on_a_multiple_choice_question() -> None:
    interaction = _one(options=options(3), allowOther=True, multiple=True)
    assert _answers(interaction, {"q0": ["o0", "other"], "q0_other": "and more"}) == [
        InputResponse(request_id="q_a", option_ids=["opt0"], text="and more")
    ]


@pytest.mark.parametrize("text", [None, "   "])
def test_other_without_text_is_an_error_on_the_other_box(text: str | None) -> None:
    interaction = _one(options=options(3), allowOther=True)
    assert _submit(interaction, {"q0": "other", "q0_other": text}) == {
        "q0_other": ERROR_OTHER_EMPTY
    }


def test_other_text_without_other_chosen_counts_as_other() -> None:
    multiple = _one(options=options(3), allowOther=True, multiple=True)
    assert _answers(multiple, {"q0": ["o1"], "q0_other": "also this"}) == [
        InputResponse(request_id="q_a", option_ids=["opt1"], text="also this")
    ]
    optional = _one(options=options(3), allowOther=True, optional=True)
    assert _answers(optional, {"q0_other": "mine"}) == [
        InputResponse(request_id="q_a", text="mine")
    ]


def test_other_text_beside_another_single_choice_is_ambiguous() -> None:
    interaction = _one(options=options(3), allowOther=True)
    assert _submit(interaction, {"q0": "o1", "q0_other": "or this?"}) == {
        "q0_other": ERROR_OTHER_CONFLICT
    }


def test_required_questions_left_empty_are_errors_on_their_blocks() -> None:
    interaction = make_interaction(
        {
            "title": "T",
            "questions": [
                question("q_text"),
                question("q_one", options=options(3)),
                question("q_many", options=options(30), multiple=True),
            ],
        }
    )
    assert _submit(interaction, {"q0": "  "}) == {
        "q0": ERROR_REQUIRED_TEXT,
        "q1": ERROR_REQUIRED_CHOICE,
        "q2": ERROR_REQUIRED_CHOICE,
    }


def test_optional_questions_left_blank_are_left_out() -> None:
    interaction = make_interaction(
        {
            "title": "T",
            "questions": [
                question("q_req", options=options(2)),
                question("q_opt_text", optional=True, multiline=True),
                question("q_opt_choice", optional=True, options=options(200), multiple=True),
            ],
        }
    )
    assert _answers(interaction, {"q0": "o1"}) == [
        InputResponse(request_id="q_req", option_id="opt1")
    ]


def test_a_value_the_request_does_not_have_is_refused() -> None:
    interaction = _one(options=options(3))
    state = {"q0": {ActionId.ANSWER_INPUT.value: {"selected_option": {"value": "o7"}}}}
    assert parse_submission(interaction, 0, state) == {"q0": ERROR_STALE_OPTION}
    other = {"q0": {ActionId.ANSWER_INPUT.value: {"selected_option": {"value": "other"}}}}
    assert parse_submission(interaction, 0, other) == {"q0": ERROR_STALE_OPTION}


def test_every_question_of_a_modal_answered_together_passes_the_rules() -> None:
    interaction = make_interaction(
        {
            "title": "Which environments should the migration run in?",
            "questions": [
                question("q_env", multiple=True, options=options(2)),
                question("q_window", allowOther=True, options=options(2)),
                question("q_notes", multiline=True, optional=True),
            ],
            "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
        }
    )
    answers = _answers(
        interaction, {"q0": ["o0", "o1"], "q1": "other", "q1_other": "Sunday", "q2": "ok"}
    )
    assert [a.request_id for a in answers] == ["q_env", "q_window", "q_notes"]


def test_pages_are_parsed_one_at_a_time_and_join_into_a_valid_body() -> None:
    labels = [{"id": f"id{i}", "label": "L" * 75, "description": "d"} for i in range(100)]
    questions = [question(f"q_{i}", prompt="P" * 300, options=labels) for i in range(40)]
    interaction = make_interaction({"title": "T", "questions": questions})
    assert interaction.request is not None
    pages = question_modal_page_count(interaction.request)
    assert pages > 1
    joined: list[InputResponse] = []
    for page in range(pages):
        view = render_question_modal(interaction, page)
        picks: Picks = {
            block["block_id"]: "o5" for block in view["blocks"] if block["type"] == "input"
        }
        result = parse_submission(interaction, page, slack_state(interaction, view, picks))
        assert isinstance(result, ParsedSubmission)
        joined.extend(result.input_responses)
    assert [a.request_id for a in joined] == [f"q_{i}" for i in range(40)]
    rules.check_resolve_body(interaction, ResolveInteractionBody(input_responses=joined))
    with pytest.raises(ResolveRuleError):
        rules.check_resolve_body(interaction, ResolveInteractionBody(input_responses=joined[:-1]))


def test_parsing_a_page_that_does_not_exist_is_an_error() -> None:
    with pytest.raises(ValueError, match="page 2"):
        parse_submission(_one(), 2, {})


def test_quick_option_value_maps_back_to_the_option() -> None:
    interaction = _one(options=[{"id": "a b/c?=&"}, {"id": "x" * 200}])
    value = quick_option_value(INTERACTION_ID, 1)
    assert interaction_id_of_value(value) == INTERACTION_ID
    answer = parse_quick_option(interaction, value)
    assert answer == InputResponse(request_id="q_a", option_id="x" * 200)
    rules.check_resolve_body(interaction, ResolveInteractionBody(input_responses=[answer]))


@pytest.mark.parametrize(
    "value",
    ["int_other|o0", f"{INTERACTION_ID}|o9", f"{INTERACTION_ID}|0", f"{INTERACTION_ID}", ""],
)
def test_quick_option_values_that_are_not_this_ones_are_refused(value: str) -> None:
    assert parse_quick_option(_one(options=options(2)), value) is None


def test_quick_option_refused_when_the_request_is_not_quick() -> None:
    value = quick_option_value(INTERACTION_ID, 0)
    assert parse_quick_option(_one(options=options(2), multiple=True), value) is None
    assert parse_quick_option(_one(options=options(6)), value) is None


def test_action_choice_maps_back_to_the_action() -> None:
    interaction = make_interaction(
        {"title": "T", "questions": [question()], "actions": [{"id": "a_go"}, {"id": "a skip/?"}]}
    )
    answer = parse_action_choice(interaction, action_choice_value(INTERACTION_ID, 1))
    assert answer == InputResponse(request_id="a skip/?")
    rules.check_resolve_body(interaction, ResolveInteractionBody(input_responses=[answer]))
    for bad in (
        "int_other|0",
        f"{INTERACTION_ID}|2",
        f"{INTERACTION_ID}|x",
        f"{INTERACTION_ID}|-1",
    ):
        assert parse_action_choice(interaction, bad) is None


def test_interaction_ids_holding_the_separator_survive() -> None:
    interaction = make_interaction(
        {"title": "T", "questions": [question(options=options(2))]}, id="int|odd"
    )
    assert parse_quick_option(interaction, quick_option_value("int|odd", 1)) is not None


def test_action_id_pattern_matches_the_indexed_ids_of_its_kind_only() -> None:
    quick = action_id_pattern(ActionId.QUICK_OPTION)
    assert quick.match(indexed_action_id(ActionId.QUICK_OPTION, 12))
    assert quick.match(ActionId.QUICK_OPTION.value)
    assert not quick.match(indexed_action_id(ActionId.QUESTION_ACTION, 1))
    assert not quick.match(ActionId.QUICK_OPTION.value + "x")
    assert not quick.match(ActionId.QUICK_OPTION.value + ":")


def test_summary_shows_labels_in_question_order() -> None:
    interaction = make_interaction(
        {
            "title": "T",
            "questions": [
                question(
                    "q_env",
                    prompt="Environments",
                    multiple=True,
                    options=[{"id": "s", "label": "Staging"}, {"id": "p", "label": "Production"}],
                ),
                question(
                    "q_win",
                    prompt="Window",
                    allowOther=True,
                    options=[{"id": "t", "label": "Tonight"}],
                ),
                question("q_why", prompt="", multiline=True),
            ],
            "actions": [{"id": "a_skip", "label": "Skip the migration"}],
        }
    )
    responses = [
        InputResponse(request_id="q_why", text="because"),
        InputResponse(request_id="q_win", text="Sunday"),
        InputResponse(request_id="q_env", option_ids=["p", "s"]),
        InputResponse(request_id="q_gone", option_id="zz"),
    ]
    assert summarize_answers(interaction, responses) == [
        ("Environments", "Production, Staging"),
        ("Window", "Other: Sunday"),
        ("q_why", "because"),
        ("q_gone", "zz"),
    ]
    assert summarize_answers(interaction, [InputResponse(request_id="a_skip")]) == [
        ("Action", "Skip the migration")
    ]
