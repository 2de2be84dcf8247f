"""The "View full input" modal: every character of the input, page by page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.ids import ActionId, CallbackId
from bot.slack.limits import SECTION_TEXT
from bot.slack.render.common import pretty_json
from bot.slack.render.context import MessageContext
from bot.slack.render.input_viewer import (
    SECTIONS_PER_PAGE,
    input_pieces,
    input_viewer_page_count,
    render_input_viewer,
)
from novo_dev.localslack.validation import assert_valid_view

from .conftest import NOW, MakeApproval
from .helpers import code_body, unescape


def all_pages(interaction: Interaction) -> list[dict[str, Any]]:
    count = input_viewer_page_count(interaction)
    return [render_input_viewer(interaction, page) for page in range(count)]


def shown_json(pages: list[dict[str, Any]]) -> str:
    """What the reader sees, unescaped, with the pages put end to end."""
    bodies = [
        code_body(b["text"]["text"])
        for view in pages
        for b in view["blocks"]
        if b["block_id"].startswith("novo_input_") and b["type"] == "section"
    ]
    return "".join(unescape(body) for body in bodies)


def test_small_input_is_one_page_without_buttons(approval: Interaction) -> None:
    assert input_viewer_page_count(approval) == 1
    view = render_input_viewer(approval, 0)
    assert_valid_view(view)
    assert view["callback_id"] == CallbackId.INPUT_VIEWER
    assert "submit" not in view and view["close"]["text"] == "Close"
    assert json.loads(view["private_metadata"]) == {"id": approval.id, "page": 0}
    assert [b["block_id"] for b in view["blocks"]] == [
        "novo_input_context",
        "novo_record",
        "novo_input_0",
    ]
    assert "page 1 of 1" in view["blocks"][0]["elements"][0]["text"]
    assert json.loads(shown_json([view])) == approval.input


def nasty_input() -> dict[str, Any]:
    rows = [
        {"n": n, "text": "<!channel> & ```` <@U1> " * 3, "emoji": "😀" * 20, "nul": "\x00"}
        for n in range(800)
    ]
    return {"rows": rows, "blob": "&`<>" * 20_000}


def test_pages_together_give_back_the_whole_json(make_approval: MakeApproval) -> None:
    interaction = make_approval(input=nasty_input())
    pages = all_pages(interaction)
    assert len(pages) > 1
    for view in pages:
        assert_valid_view(view)
    assert shown_json(pages) == pretty_json(interaction.input)


def test_pieces_are_exact_consecutive_substrings(make_approval: MakeApproval) -> None:
    value = nasty_input()
    pieces = input_pieces(value)
    assert "".join(pieces) == pretty_json(value)
    assert all(pieces)


def test_pieces_end_at_line_breaks_when_lines_fit(make_approval: MakeApproval) -> None:
    pieces = input_pieces({f"key{n}": "v" * 50 for n in range(2_000)})
    assert all(piece.endswith("\n") for piece in pieces[:-1])


def test_sections_fill_but_never_overflow(make_approval: MakeApproval) -> None:
    view = render_input_viewer(make_approval(input="`" * 100_000), 0)
    sections = [b for b in view["blocks"] if b["block_id"].startswith("novo_input_")]
    sections = [b for b in sections if b["type"] == "section"]
    assert len(sections) == SECTIONS_PER_PAGE
    lengths = [len(s["text"]["text"]) for s in sections]
    assert max(lengths) <= SECTION_TEXT
    assert min(lengths) > SECTION_TEXT - 10


def test_emoji_pages_stay_under_the_view_size(make_approval: MakeApproval) -> None:
    interaction = make_approval(input="😀" * 120_000)
    pages = all_pages(interaction)
    first = [b for b in pages[0]["blocks"] if b["block_id"].startswith("novo_input_")]
    assert len(first) < SECTIONS_PER_PAGE  # the byte budget, not the count, closed the page
    for view in pages:
        assert_valid_view(view)
    assert shown_json(pages) == pretty_json(interaction.input)


def test_buttons_lead_to_neighbouring_pages(make_approval: MakeApproval) -> None:
    interaction = make_approval(input=nasty_input())
    count = input_viewer_page_count(interaction)
    assert count >= 3

    def targets(page: int) -> dict[str, str]:
        view = render_input_viewer(interaction, page)
        actions = [b for b in view["blocks"] if b["type"] == "actions"]
        return {e["action_id"]: e["value"] for e in actions[0]["elements"]}

    assert targets(0) == {ActionId.INPUT_PAGE_NEXT: "1"}
    assert targets(1) == {ActionId.INPUT_PAGE_PREV: "0", ActionId.INPUT_PAGE_NEXT: "2"}
    assert targets(count - 1) == {ActionId.INPUT_PAGE_PREV: str(count - 2)}
    second = render_input_viewer(interaction, 1)
    assert f"page 2 of {count}" in second["blocks"][0]["elements"][0]["text"]
    assert json.loads(second["private_metadata"]) == {"id": interaction.id, "page": 1}


@pytest.mark.parametrize(("asked", "shown"), [(-1, 0), (-5, 0), (10_000, "last")])
def test_page_numbers_are_clamped(
    asked: int, shown: int | str, make_approval: MakeApproval
) -> None:
    interaction = make_approval(input=nasty_input())
    count = input_viewer_page_count(interaction)
    expected = count - 1 if shown == "last" else shown
    view = render_input_viewer(interaction, asked)
    assert json.loads(view["private_metadata"])["page"] == expected


@pytest.mark.parametrize("value", [None, 0, 3.5, "", [], {}, [1, "two", None], "x" * 5_000])
def test_any_json_value_is_viewable(value: Any, make_approval: MakeApproval) -> None:
    interaction = make_approval(input=value)
    pages = all_pages(interaction)
    for view in pages:
        assert_valid_view(view)
    assert shown_json(pages) == pretty_json(value)


def record_text(view: dict[str, Any]) -> str:
    (record,) = [b for b in view["blocks"] if b["block_id"] == "novo_record"]
    return str(record["text"]["text"])


def test_the_first_page_opens_with_the_whole_record(make_approval: MakeApproval) -> None:
    interaction = make_approval(
        run_id="run_wk1",
        worker_ref="wkr_builder",
        preview={"title": "Deploy **billing**", "estimatedRows": 1_200},
    )
    pages = all_pages(make_approval(input=nasty_input()))
    assert all("novo_record" not in str(view["blocks"]) for view in pages[1:])
    ctx = MessageContext(now=NOW, agent_names={"agt_deployer": "Release Bot"})
    text = record_text(render_input_viewer(interaction, 0, ctx=ctx))
    lines = text.split("\n")
    assert lines[0] == "*Deploy billing*"
    assert lines[1] == (
        "Agent *Release Bot* `agt_deployer` · Run `run_wk1` · Root run `run_7Q2`"
        " · Worker `wkr_builder` · Step 4 · Thread `thr_55A`"
    )
    assert lines[2].startswith("Tool `deploy_service` · Interaction `int_01HZX3` · Asked <!date^")
    assert lines[3:] == ["*Estimated rows*: 1,200", "*Tool input*"]


def test_a_question_shows_its_request_and_answers() -> None:
    request = {
        "title": "Which **region**?",
        "details": "See the _benchmarks_.",
        "questions": [{"id": "q1", "prompt": "Region", "options": [{"id": "eu", "label": "EU"}]}],
    }
    resolution = {"inputResponses": [{"requestId": "q1", "optionId": "eu"}]}
    interaction = Interaction.model_validate(
        {
            "id": "int_q",
            "runId": "run_1",
            "rootRunId": "run_1",
            "threadId": "thr_1",
            "agentId": "agt_1",
            "kind": "question",
            "status": "resolved",
            "stepNumber": 2,
            "toolName": "ask_question",
            "toolCallId": "call_1",
            "request": request,
            "resolution": resolution,
            "createdAt": NOW.isoformat(),
            "updatedAt": NOW.isoformat(),
        }
    )
    pages = all_pages(interaction)
    assert json.loads(shown_json(pages)) == {"request": request, "resolution": resolution}
    lines = record_text(pages[0]).split("\n")
    assert lines[0] == "*Which region?*"
    assert lines[3:] == ["See the _benchmarks_.", "*Request*"]
