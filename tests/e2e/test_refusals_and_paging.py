"""Novo's refusals (400, 404) reach the person clearly; long forms span pages."""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId, CallbackId
from bot.store import Store
from novo_dev.localslack.records import StoredView
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

ANSWER = ActionId.ANSWER_INPUT.value


async def _open_modal(loop: Loop, user: str, ts: str) -> StoredView:
    await loop.driver.click_message_button(user, CHANNEL, ts, ActionId.ANSWER)
    view: StoredView = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.QUESTION_MODAL), None
        ),
        message="question modal opened",
    )
    return view


def _first_options(loop: Loop, view: StoredView) -> dict[str, Any]:
    """Choose the first option of every choice on the modal's current page."""
    values: dict[str, Any] = {}
    for block in view.blocks:
        if block.get("type") == "input" and "options" in block["element"]:
            block_id = block["block_id"]
            values[block_id] = {
                ANSWER: loop.driver.selected_option(view.id, block_id, ANSWER, "o0")
            }
    return values


async def test_approval_that_no_longer_exists_says_so(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    await loop.fault(errorRate=1.0, status=404, routes="resolve")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.shows(ts, "no longer exists")
    assert ActionId.APPROVE not in loop.action_ids(ts)
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0ADA") if "no longer exists" in e.text],
        message="clicker told it no longer exists",
    )


async def test_answer_refused_by_novo_is_shown_on_the_form_and_can_be_sent_again(
    loop: Loop,
) -> None:
    question = {"id": "q_env", "prompt": "Which?", "options": [{"id": "a", "label": "A"}]}
    created = await loop.create("question", request={"title": "T", "questions": [question]})
    ts = await loop.posted(created["id"])
    view = await _open_modal(loop, "U0ADA", ts)
    await loop.fault(errorRate=1.0, status=400, routes="resolve")
    await loop.driver.submit_view("U0ADA", view.id, _first_options(loop, view))

    def form_shows_refusal() -> bool:
        shown = loop.slack.view(view.id)
        return shown.callback_id == CallbackId.QUESTION_MODAL and "refused" in str(shown.blocks)

    await wait_until(form_shows_refusal, message="the refusal shown on the form")
    assert (await loop.api_get(created["id"]))["status"] == "pending"
    assert ActionId.ANSWER in loop.action_ids(ts)  # the message still takes answers

    await loop.fault()
    await loop.driver.submit_view("U0ADA", view.id, _first_options(loop, view))

    async def answered() -> dict[str, Any] | None:
        record = await loop.api_get(created["id"])
        return record if record["status"] == "resolved" else None

    record = await wait_until(answered, message="the second try delivered")
    assert record["resolution"]["inputResponses"] == [{"requestId": "q_env", "optionId": "a"}]


async def test_a_form_too_long_for_one_modal_spans_pages(loop: Loop) -> None:
    questions = [
        {
            "id": f"q{i}",
            "prompt": f"Question {i}",
            "allowOther": True,
            "options": [{"id": f"q{i}-yes", "label": "Yes"}, {"id": f"q{i}-no", "label": "No"}],
        }
        for i in range(60)
    ]
    created = await loop.create("question", request={"title": "Long", "questions": questions})
    ts = await loop.posted(created["id"])
    view = await _open_modal(loop, "U0GRACE", ts)
    pages = 1
    while True:
        response = await loop.driver.submit_view("U0GRACE", view.id, _first_options(loop, view))
        ack = response.json() if response.content else {}
        next_view = ack.get("view") or {}
        if next_view.get("callback_id") != CallbackId.QUESTION_MODAL:
            break
        pages += 1
        view = loop.slack.view(view.id)
    assert pages >= 2

    async def answered() -> dict[str, Any] | None:
        record = await loop.api_get(created["id"])
        return record if record["status"] == "resolved" else None

    record = await wait_until(answered, message="the long form delivered")
    assert record["resolution"]["inputResponses"] == [
        {"requestId": f"q{i}", "optionId": f"q{i}-yes"} for i in range(60)
    ]


async def _two_page_form(loop: Loop) -> tuple[str, str]:
    questions = [
        {"id": f"q{i}", "prompt": f"Question {i}", "allowOther": True, "options": _yes_no(i)}
        for i in range(60)
    ]
    created = await loop.create("question", request={"title": "Long", "questions": questions})
    return created["id"], await loop.posted(created["id"])


def _yes_no(i: int) -> list[dict[str, str]]:
    return [{"id": f"q{i}-yes", "label": "Yes"}, {"id": f"q{i}-no", "label": "No"}]


async def _draft_after_page_one(loop: Loop, ts: str) -> str:
    view = await _open_modal(loop, "U0GRACE", ts)
    await loop.driver.submit_view("U0GRACE", view.id, _first_options(loop, view))
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    assert await store.load_draft(view.id), "page 1's answers are kept for page 2"
    return str(view.id)


async def test_a_closed_form_forgets_its_earlier_pages(loop: Loop) -> None:
    _, ts = await _two_page_form(loop)
    view_id = await _draft_after_page_one(loop, ts)
    closed = await loop.driver.close_view("U0GRACE", view_id)
    assert closed is not None and closed.status_code == 200  # the modal asked to be told
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    await wait_until(
        lambda: _no_draft(store, view_id), message="the abandoned form's draft dropped"
    )


async def test_a_form_whose_question_ended_forgets_its_earlier_pages(loop: Loop) -> None:
    interaction_id, ts = await _two_page_form(loop)
    view_id = await _draft_after_page_one(loop, ts)
    await loop.api_resolve(interaction_id, {"cancel": True, "reason": "no longer needed"})
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    await wait_until(
        lambda: _no_draft(store, view_id), message="the ended question's draft dropped"
    )


async def _no_draft(store: Store, view_id: str) -> bool:
    return await store.load_draft(view_id) is None
