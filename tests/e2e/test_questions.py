"""Agent questions end to end: the modal built from the question, exact resolve bodies."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.slack.ids import ActionId, CallbackId
from bot.slack.render.question_encoding import action_id_pattern
from novo_dev.localslack.records import StoredView
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

ANSWER = ActionId.ANSWER_INPUT.value
OTHER = ActionId.OTHER_TEXT_INPUT.value


def _options(*ids: str) -> list[dict[str, str]]:
    return [{"id": i, "label": f"Label {i}"} for i in ids]


async def _question(loop: Loop, *questions: dict[str, Any], **extra: Any) -> tuple[str, str]:
    request = {"title": "The agent asks", "questions": list(questions), **extra}
    created = await loop.create("question", request=request)
    return created["id"], await loop.posted(created["id"])


async def _open_modal(loop: Loop, user: str, ts: str) -> StoredView:
    before = {v.id for v in loop.slack.views()}
    await loop.driver.click_message_button(user, CHANNEL, ts, ActionId.ANSWER)
    view: StoredView = await wait_until(
        lambda: next(
            (
                v
                for v in loop.slack.views()
                if v.id not in before and v.callback_id == CallbackId.QUESTION_MODAL
            ),
            None,
        ),
        message="question modal opened",
    )
    return view


async def _resolution(loop: Loop, interaction_id: str) -> dict[str, Any]:
    record = await loop.api_get_final(interaction_id)
    resolution: dict[str, Any] = record["resolution"]
    return resolution


def _text(value: str | None) -> dict[str, Any]:
    return {"type": "plain_text_input", "value": value}


async def _submit(
    loop: Loop, user: str, view: StoredView, values: dict[str, Any]
) -> dict[str, Any] | None:
    response = await loop.driver.submit_view(user, view.id, values)
    assert response.status_code == 200
    return response.json() if response.content else None


async def test_single_choice_radio_resolves_with_option_id(loop: Loop) -> None:
    q = {"id": "q_env", "prompt": "Which environment?", "options": _options("staging", "prod")}
    interaction_id, ts = await _question(loop, q)
    view = await _open_modal(loop, "U0ADA", ts)
    await _submit(
        loop,
        "U0ADA",
        view,
        {"q0": {ANSWER: loop.driver.selected_option(view.id, "q0", ANSWER, "o1")}},
    )
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "prod"}]
    assert resolution["reason"] == "Answered in Slack by U0ADA (Ada Lovelace)"
    await loop.shows(ts, "Answered", "<@U0ADA>", "Label prod")


async def test_static_select_and_multi_select_and_checkboxes(loop: Loop) -> None:
    many = [f"opt{i}" for i in range(40)]
    questions: list[dict[str, Any]] = [
        {"id": "q_one", "prompt": "Pick one", "options": _options(*many)},
        {
            "id": "q_few",
            "prompt": "Pick some",
            "multiple": True,
            "options": _options("a", "b", "c"),
        },
        {"id": "q_lots", "prompt": "Pick many", "multiple": True, "options": _options(*many)},
    ]
    interaction_id, ts = await _question(loop, *questions)
    view = await _open_modal(loop, "U0ADA", ts)
    types = {b["block_id"]: b["element"]["type"] for b in view.blocks if b["type"] == "input"}
    assert types == {"q0": "static_select", "q1": "checkboxes", "q2": "multi_static_select"}
    d = loop.driver
    await _submit(
        loop,
        "U0ADA",
        view,
        {
            "q0": {ANSWER: d.selected_option(view.id, "q0", ANSWER, "o39")},
            "q1": {ANSWER: d.selected_options(view.id, "q1", ANSWER, ["o0", "o2"])},
            "q2": {ANSWER: d.selected_options(view.id, "q2", ANSWER, ["o5", "o7", "o9"])},
        },
    )
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [
        {"requestId": "q_one", "optionId": "opt39"},
        {"requestId": "q_few", "optionIds": ["a", "c"]},
        {"requestId": "q_lots", "optionIds": ["opt5", "opt7", "opt9"]},
    ]


async def test_external_selects_search_more_than_a_hundred_options(loop: Loop) -> None:
    countries = [f"country_{i:03d}" for i in range(150)]
    questions: list[dict[str, Any]] = [
        {
            "id": "q_country",
            "prompt": "Country",
            "options": [{"id": c, "label": f"Land {c}"} for c in countries],
        },
        {
            "id": "q_many",
            "prompt": "Regions",
            "multiple": True,
            "options": [{"id": c, "label": f"Region {c}"} for c in countries],
        },
    ]
    interaction_id, ts = await _question(loop, *questions)
    view = await _open_modal(loop, "U0GRACE", ts)
    types = {b["block_id"]: b["element"]["type"] for b in view.blocks if b["type"] == "input"}
    assert types == {"q0": "external_select", "q1": "multi_external_select"}
    found = await loop.driver.load_options("U0GRACE", view.id, ANSWER, "q0", "country_14")
    options = found.json()["options"]
    labels = [o["text"]["text"] for o in options]
    assert "Land country_140" in labels and all(
        "country_14" in label for label in labels if "Other" not in label
    )
    chosen = next(o for o in options if o["text"]["text"] == "Land country_142")
    found_many = await loop.driver.load_options("U0GRACE", view.id, ANSWER, "q1", "COUNTRY_00")
    many = [
        o
        for o in found_many.json()["options"]
        if o["text"]["text"] in ("Region country_001", "Region country_007")
    ]
    await _submit(
        loop,
        "U0GRACE",
        view,
        {
            "q0": {ANSWER: {"type": "external_select", "selected_option": chosen}},
            "q1": {ANSWER: {"type": "multi_external_select", "selected_options": many}},
        },
    )
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [
        {"requestId": "q_country", "optionId": "country_142"},
        {"requestId": "q_many", "optionIds": ["country_001", "country_007"]},
    ]


async def test_free_text_single_and_multi_line_and_optional_blank(loop: Loop) -> None:
    questions: list[dict[str, Any]] = [
        {"id": "q_name", "prompt": "Customer name"},
        {"id": "q_notes", "prompt": "Notes", "multiline": True},
        {"id": "q_extra", "prompt": "Anything else?", "optional": True},
    ]
    interaction_id, ts = await _question(loop, *questions)
    view = await _open_modal(loop, "U0ADA", ts)
    multiline = {
        b["block_id"]: b["element"].get("multiline") for b in view.blocks if b["type"] == "input"
    }
    assert multiline["q1"] is True and not multiline["q0"]
    await _submit(
        loop,
        "U0ADA",
        view,
        {
            "q0": {ANSWER: _text("Ada Lovelace")},
            "q1": {ANSWER: _text("line one\nline two")},
            "q2": {ANSWER: _text(None)},
        },
    )
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [
        {"requestId": "q_name", "text": "Ada Lovelace"},
        {"requestId": "q_notes", "text": "line one\nline two"},
    ]


async def test_other_with_text_and_other_without_text(loop: Loop) -> None:
    q = {
        "id": "q_window",
        "prompt": "When?",
        "allowOther": True,
        "options": _options("tonight", "weekend"),
    }
    interaction_id, ts = await _question(loop, q)
    view = await _open_modal(loop, "U0ADA", ts)
    other = loop.driver.selected_option(view.id, "q0", ANSWER, "other")
    ack = await _submit(
        loop, "U0ADA", view, {"q0": {ANSWER: other}, "q0_other": {OTHER: _text(None)}}
    )
    assert ack is not None and ack["response_action"] == "errors"
    assert "q0_other" in ack["errors"]
    assert await loop.resolve_calls(interaction_id) == []  # nothing sent
    await _submit(
        loop, "U0ADA", view, {"q0": {ANSWER: other}, "q0_other": {OTHER: _text("Tuesday 6am")}}
    )
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_window", "text": "Tuesday 6am"}]


async def test_required_question_left_empty_is_an_inline_error(loop: Loop) -> None:
    q = {"id": "q_name", "prompt": "Name"}
    interaction_id, ts = await _question(loop, q)
    view = await _open_modal(loop, "U0ADA", ts)
    ack = await _submit(loop, "U0ADA", view, {"q0": {ANSWER: _text("   ")}})
    assert ack is not None and ack["response_action"] == "errors" and "q0" in ack["errors"]
    assert (await loop.api_get(interaction_id))["status"] == "pending"


async def test_action_button_and_dismiss(loop: Loop) -> None:
    q = {"id": "q_go", "prompt": "Go ahead?", "options": _options("yes", "no")}
    actions = [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}]
    interaction_id, ts = await _question(loop, q, actions=actions)
    action_ids = loop.action_ids(ts)
    skip = next(a for a in action_ids if action_id_pattern(ActionId.QUESTION_ACTION).match(a))
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, skip)
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "a_skip"}]
    await loop.shows(ts, "Skip the migration", "<@U0GRACE>")

    other_id, other_ts = await _question(loop, q)
    await loop.driver.click_message_button("U0ADA", CHANNEL, other_ts, ActionId.QUESTION_DISMISS)
    dismissed = await _resolution(loop, other_id)
    assert dismissed == {"cancel": True, "reason": "Dismissed in Slack by U0ADA (Ada Lovelace)"}
    await loop.shows(other_ts, "Dismissed", "<@U0ADA>")


async def test_quick_option_buttons_answer_from_the_message(loop: Loop) -> None:
    q = {"id": "q_ok", "prompt": "Proceed?", "options": _options("yes", "no")}
    interaction_id, ts = await _question(loop, q)
    quick = [a for a in loop.action_ids(ts) if action_id_pattern(ActionId.QUICK_OPTION).match(a)]
    assert len(quick) == 2
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, quick[1])
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_ok", "optionId": "no"}]


async def test_thirty_long_questions_and_odd_option_ids(loop: Loop) -> None:
    odd = ["a b/c?=&", "x" * 200]
    questions: list[dict[str, Any]] = [
        {
            "id": f"q{i}",
            "prompt": f"{i}: " + "why " * 75,
            "options": [{"id": o, "label": o} for o in odd],
        }
        for i in range(30)
    ]
    interaction_id, ts = await _question(loop, *questions)
    view = await _open_modal(loop, "U0ADA", ts)
    values = {
        f"q{i}": {ANSWER: loop.driver.selected_option(view.id, f"q{i}", ANSWER, f"o{i % 2}")}
        for i in range(30)
    }
    await _submit(loop, "U0ADA", view, values)
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [
        {"requestId": f"q{i}", "optionId": odd[i % 2]} for i in range(30)
    ]


async def test_submission_after_expiry_is_told_no_longer_waiting(loop: Loop) -> None:
    q = {"id": "q_name", "prompt": "Name"}
    created = await loop.create(
        "question", request={"title": "Quick", "questions": [q]}, expiresInSeconds=1.0
    )
    ts = await loop.posted(created["id"])
    view = await _open_modal(loop, "U0ADA", ts)
    await loop.shows(ts, "Expired")
    ack = await _submit(loop, "U0ADA", view, {"q0": {ANSWER: _text("too late")}})
    assert ack is not None and ack["response_action"] == "update"
    assert "no longer waiting" in str(ack["view"])
    assert await loop.resolve_calls(created["id"]) == []
    assert ActionId.ANSWER not in loop.action_ids(ts)  # the stale form's button is gone


async def test_two_people_answering_differently_one_wins_the_other_is_told(loop: Loop) -> None:
    q = {"id": "q_env", "prompt": "Which?", "options": _options("staging", "prod")}
    interaction_id, ts = await _question(loop, q)
    ada = await _open_modal(loop, "U0ADA", ts)
    grace = await _open_modal(loop, "U0GRACE", ts)
    d = loop.driver
    await asyncio.gather(
        _submit(
            loop, "U0ADA", ada, {"q0": {ANSWER: d.selected_option(ada.id, "q0", ANSWER, "o0")}}
        ),
        _submit(
            loop,
            "U0GRACE",
            grace,
            {"q0": {ANSWER: d.selected_option(grace.id, "q0", ANSWER, "o1")}},
        ),
    )
    resolution = await _resolution(loop, interaction_id)
    winner = "U0ADA" if "U0ADA" in resolution["reason"] else "U0GRACE"
    loser = "U0GRACE" if winner == "U0ADA" else "U0ADA"
    expected = "staging" if winner == "U0ADA" else "prod"
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": expected}]

    def loser_told() -> bool:
        said = [e.text for e in loop.slack.ephemerals(loser)]
        said += [str(v.payload) for v in loop.slack.views() if v.user_id == loser]
        return any("already" in s for s in said)

    await wait_until(loser_told, message="the second person told someone answered first")
    await loop.shows(ts, "Answered", f"<@{winner}>")


async def test_stale_answer_button_opens_a_notice_not_a_form(loop: Loop) -> None:
    q = {"id": "q_name", "prompt": "Name"}
    interaction_id, ts = await _question(loop, q)
    stale_blocks = loop.slack.message(CHANNEL, ts).blocks
    await loop.api_resolve(
        interaction_id, {"inputResponses": [{"requestId": "q_name", "text": "done by hand"}]}
    )
    await loop.shows(ts, "outside Slack")
    # a client still showing the old message sends the old button's click
    response = await loop.driver.click_stale_button(
        "U0ADA", CHANNEL, ts, stale_blocks, ActionId.ANSWER
    )
    assert response.status_code == 200
    notice = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.NOTICE_MODAL), None
        ),
        message="a notice opened instead of the form",
    )
    assert "no longer waiting" in str(notice.blocks)
    assert not [v for v in loop.slack.views() if v.callback_id == CallbackId.QUESTION_MODAL]


async def test_a_slow_name_lookup_and_a_slow_novo_still_send_the_submission(loop: Loop) -> None:
    """How soon Slack hears back from the submission is `bench.latency`'s figure."""
    q = {"id": "q_env", "prompt": "Which environment?", "options": _options("staging", "prod")}
    interaction_id, ts = await _question(loop, q)
    view = await _open_modal(loop, "U0GRACE", ts)
    loop.slack.delay_method("users.info", 2.9)  # a workspace having a bad day
    await loop.fault(routes="resolve", latencyMs=1_500)
    answer = await _submit(
        loop,
        "U0GRACE",
        view,
        {"q0": {ANSWER: loop.driver.selected_option(view.id, "q0", ANSWER, "o0")}},
    )
    assert answer is not None and answer["response_action"] == "update"
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "staging"}]
