"""The question modal: one element per question shape, within Slack's limits, split into pages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.slack.ids import ActionId, CallbackId
from bot.slack.limits import (
    INPUT_LABEL,
    OPTION_DESCRIPTION,
    OPTION_TEXT,
    STATIC_SELECT_OPTIONS,
    VIEW_BYTES,
)
from bot.slack.render.question_layout import PAGE_RESERVED_BYTES, json_size, page_layout
from bot.slack.render.question_modal import (
    ModalRef,
    question_modal_page_count,
    render_question_modal,
    search_external_options,
)
from novo_dev.localslack.validation import assert_valid_view

from .conftest import INTERACTION_ID, input_blocks, make_interaction, options, question


def _modal(*questions: dict[str, Any], **request: Any) -> dict[str, Any]:
    view = render_question_modal(
        make_interaction({"title": "T", **request, "questions": questions})
    )
    assert_valid_view(view)
    return view


def _element(view: dict[str, Any], block_id: str = "q0") -> dict[str, Any]:
    element: dict[str, Any] = input_blocks(view)[block_id]["element"]
    return element


@pytest.mark.parametrize(
    ("count", "multiple", "allow_other", "expected"),
    [
        (2, False, False, "radio_buttons"),
        (10, False, False, "radio_buttons"),
        (10, False, True, "static_select"),  # "Other…" makes eleven
        (11, False, False, "static_select"),
        (100, False, False, "static_select"),
        (101, False, False, "external_select"),
        (100, False, True, "external_select"),
        (10, True, False, "checkboxes"),
        (11, True, False, "multi_static_select"),
        (100, True, False, "multi_static_select"),
        (101, True, False, "multi_external_select"),
    ],
)
def test_choice_widget_follows_option_count(
    count: int, multiple: bool, allow_other: bool, expected: str
) -> None:
    view = _modal(question(options=options(count), multiple=multiple, allowOther=allow_other))
    element = _element(view)
    assert element["type"] == expected
    assert element["action_id"] == ActionId.ANSWER_INPUT
    if expected.endswith("external_select"):
        assert "options" not in element
        assert element["min_query_length"] in (0, 1)
    else:
        values = [o["value"] for o in element["options"]]
        assert values[:count] == [f"o{i}" for i in range(count)]
        assert ("other" in values) is allow_other


def test_descriptions_shown_on_radio_and_checkboxes_only_and_cut() -> None:
    described = options(3, description="d" * 500)
    for multiple in (False, True):
        element = _element(_modal(question(options=described, multiple=multiple)))
        assert all(len(o["description"]["text"]) == OPTION_DESCRIPTION for o in element["options"])
    select = _element(_modal(question(options=options(20, description="shown nowhere"))))
    assert all("description" not in o for o in select["options"])


@pytest.mark.parametrize("multiline", [False, True])
def test_free_text_question_is_a_text_input(multiline: bool) -> None:
    element = _element(_modal(question(multiline=multiline)))
    assert element["type"] == "plain_text_input"
    assert element["multiline"] is multiline


def test_allow_other_adds_an_other_option_and_an_optional_text_block() -> None:
    view = _modal(question(options=options(3), allowOther=True))
    blocks = input_blocks(view)
    assert list(blocks) == ["q0", "q0_other"]
    assert blocks["q0"]["optional"] is False
    assert blocks["q0_other"]["optional"] is True
    assert blocks["q0_other"]["element"]["action_id"] == ActionId.OTHER_TEXT_INPUT
    assert blocks["q0"]["element"]["options"][-1]["text"]["text"] == "Other…"


def test_multiline_question_with_options_gets_a_note_box() -> None:
    blocks = input_blocks(_modal(question(options=options(3), multiline=True)))
    assert list(blocks) == ["q0", "q0_note"]
    assert blocks["q0_note"]["element"]["multiline"] is True


def test_optional_flag_reaches_the_input_block() -> None:
    view = _modal(question("q_a", optional=True), question("q_b", options=options(2)))
    blocks = input_blocks(view)
    assert blocks["q0"]["optional"] is True
    assert blocks["q1"]["optional"] is False


def test_view_envelope() -> None:
    view = _modal(question())
    assert view["callback_id"] == CallbackId.QUESTION_MODAL
    assert view["title"]["text"] == "Answer the agent"
    assert view["submit"]["text"] == "Send answer"
    assert view["close"]["text"] == "Cancel"
    assert json.loads(view["private_metadata"]) == {"id": INTERACTION_ID, "page": 0}
    assert ModalRef.decode(view["private_metadata"]) == ModalRef(INTERACTION_ID, 0)


@pytest.mark.parametrize(
    "raw", ["", "nope", "[]", '{"id": 3, "page": 0}', '{"id": "x", "page": -1}']
)
def test_foreign_metadata_is_refused(raw: str) -> None:
    assert ModalRef.decode(raw) is None


def test_long_agent_strings_are_cut_for_display() -> None:
    view = _modal(
        question(
            prompt="p" * 5_000,
            options=[{"id": "x", "label": "l" * 500, "description": "d" * 500}, {"id": "y"}],
        )
    )
    block = input_blocks(view)["q0"]
    assert len(block["label"]["text"]) == INPUT_LABEL
    first, second = block["element"]["options"]
    assert len(first["text"]["text"]) == OPTION_TEXT
    assert second["text"]["text"] == "y"  # no label: the id stands in


def test_title_and_details_are_escaped() -> None:
    view = _modal(
        question(), title="<!channel> *now*", details="ping <@U123> and <https://evil|click> @here"
    )
    texts = [b["text"]["text"] for b in view["blocks"] if b["type"] == "section"]
    joined = "\n".join(texts)
    assert "&lt;!channel&gt;" in joined and "<!channel>" not in joined
    assert "<@U123>" not in joined and "<https://evil" not in joined
    assert "@here" not in joined


def test_errors_note_is_shown_escaped() -> None:
    interaction = make_interaction({"title": "T", "questions": [question()]})
    view = render_question_modal(interaction, errors_note="Novo said <!here> no" + "!" * 3_000)
    assert_valid_view(view)
    notes = [b["text"]["text"] for b in view["blocks"] if b["type"] == "section"]
    assert any(n.startswith("⚠️ Novo said &lt;!here&gt; no") for n in notes)


def test_several_questions_share_one_modal() -> None:
    view = _modal(
        question("q_a", options=options(3), multiple=True),
        question("q_b", options=options(4), allowOther=True),
        question("q_c", multiline=True, optional=True),
    )
    assert list(input_blocks(view)) == ["q0", "q1", "q1_other", "q2"]


def test_thirty_long_questions_fit_one_page() -> None:
    questions = [question(f"q{i}", prompt="x" * 300, options=options(8)) for i in range(30)]
    request = {"title": "T", "questions": questions}
    assert question_modal_page_count(make_interaction(request).request or pytest.fail()) == 1
    view = _modal(*questions)
    assert len(input_blocks(view)) == 30
    assert all(len(b["label"]["text"]) == 300 for b in input_blocks(view).values())


def test_a_request_too_big_for_one_view_is_split_into_valid_pages() -> None:
    labels = [{"id": f"o{i}", "label": "🙂" * 75, "description": "d"} for i in range(100)]
    questions = [question(f"q{i}", prompt="🙂" * 300, options=labels) for i in range(40)]
    interaction = make_interaction(
        {"title": "🙂" * 300, "details": "🙂" * 5_000, "questions": questions}
    )
    assert interaction.request is not None
    count = question_modal_page_count(interaction.request)
    assert count > 1
    seen: list[str] = []
    for page in range(count):
        view = render_question_modal(interaction, page, errors_note="🙂" * 1_000)
        assert_valid_view(view)
        assert len(json.dumps(view).encode()) <= VIEW_BYTES
        assert json.loads(view["private_metadata"])["page"] == page
        assert view["submit"]["text"] == ("Send answer" if page == count - 1 else "Next")
        assert any(f"Page {page + 1} of {count}" in json.dumps(b) for b in view["blocks"])
        seen.extend(block_id for block_id in input_blocks(view))
    assert seen == [f"q{i}" for i in range(40)]


def test_a_page_keeps_within_its_reserve_whatever_the_header_holds() -> None:
    """The page layout trusts question_layout.PAGE_RESERVED_BYTES for everything but questions."""
    interaction = make_interaction(
        {"title": "\U0001f600" * 10_000, "details": "\U0001f600" * 10_000, "questions": []}
    )
    view = render_question_modal(interaction, 0, errors_note="\U0001f600" * 10_000)
    assert json_size(view) <= PAGE_RESERVED_BYTES


def test_more_than_a_hundred_blocks_of_questions_are_split() -> None:
    questions = [question(f"q{i}", options=options(2), allowOther=True) for i in range(60)]
    interaction = make_interaction({"title": "T", "questions": questions})
    assert interaction.request is not None
    pages = page_layout(interaction.request)
    assert len(pages) == 2
    for page in range(2):
        assert_valid_view(render_question_modal(interaction, page))


def test_page_out_of_range_is_an_error() -> None:
    with pytest.raises(ValueError, match="page 1"):
        render_question_modal(make_interaction({"title": "T", "questions": [question()]}), 1)


def test_a_request_without_questions_renders_without_submit() -> None:
    view = render_question_modal(make_interaction({"title": "T", "actions": [{"id": "a"}]}))
    assert_valid_view(view)
    assert "submit" not in view
    assert not input_blocks(view)


def test_external_search_matches_labels_case_insensitively() -> None:
    labels = [{"id": f"id{i}", "label": f"Region {i:03d}"} for i in range(300)]
    labels[7]["label"] = "Frankfurt (eu-central-1)"
    interaction = make_interaction({"title": "T", "questions": [question(options=labels)]})
    found = search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", "FRANKFURT")
    assert found == [
        {
            "text": {"type": "plain_text", "text": "Frankfurt (eu-central-1)", "emoji": True},
            "value": "o7",
        }
    ]
    assert (
        len(search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", ""))
        == STATIC_SELECT_OPTIONS
    )
    assert [
        o["value"]
        for o in search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", "region 29")
    ] == [f"o{i}" for i in range(290, 300)]
    assert (
        search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", "nothing like it") == []
    )


def test_external_search_always_offers_other_last() -> None:
    labels = options(200)
    interaction = make_interaction(
        {"title": "T", "questions": [question(options=labels, allowOther=True, multiple=True)]}
    )
    everything = search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", "")
    assert len(everything) == STATIC_SELECT_OPTIONS
    assert everything[-1]["value"] == "other"
    assert [
        o["value"] for o in search_external_options(interaction, ActionId.ANSWER_INPUT, "q0", "zzz")
    ] == ["other"]


@pytest.mark.parametrize(
    ("action_id", "block_id"),
    [("other_action", "q0"), (ActionId.ANSWER_INPUT, "q9"), (ActionId.ANSWER_INPUT, "q0_other")],
)
def test_external_search_ignores_foreign_blocks(action_id: str, block_id: str) -> None:
    interaction = make_interaction({"title": "T", "questions": [question(options=options(200))]})
    assert search_external_options(interaction, action_id, block_id, "") == []
