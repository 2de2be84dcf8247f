"""Heavy requests never starve a click: type-ahead on a huge select and an Approve at once.

Fifteen people type into the searchable select of a 10,000-option question
(each sending Slack's `block_suggestion` for every keystroke, one after the
other as a client does); meanwhile someone else clicks Approve on an
unrelated approval: it is answered and applied while they type. How soon
(Slack's side — the driver — times the click from the moment it sends the
signed payload until the bridge's HTTP answer arrives) is printed here and
measured as a figure by `bench.forms` and `bench.latency`.

While the typing goes on, Novo's listing answers 503: the simulator runs in
this process and copies the 10,000-option record for every listing (some
half a second of this process's CPU each time, at the tests' 0.1 s poll),
which would be counted against the bridge. Production's Novo runs elsewhere.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.slack.ids import ActionId
from novo_dev.localslack.records import StoredView
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

ANSWER = ActionId.ANSWER_INPUT.value
OPTIONS = 10_000
TYPISTS = 15
WORD = "label 9"


async def _big_question(loop: Loop) -> str:
    options = [{"id": f"opt_{i}", "label": f"Label {i}"} for i in range(OPTIONS)]
    request = {
        "title": "Which customer?",
        "questions": [{"id": "q_customer", "prompt": "Customer", "options": options}],
    }
    created = await loop.create("question", request=request, expiresInSeconds=600)
    return await loop.posted(created["id"], timeout=30)


async def _type(
    loop: Loop,
    user: str,
    view: StoredView,
    stop: asyncio.Event,
    answered: list[str],
    found: list[int],
) -> None:
    """Keystroke after keystroke until told to stop; each answer noted in `answered`, the
    number of options it offered in `found`. An answer may offer none: the search stops at
    its time budget and a busy machine can spend it all waiting for a turn (how many it
    finds in time is a speed, not this test's verdict)."""
    while not stop.is_set():
        for length in range(1, len(WORD) + 1):
            response = await loop.driver.load_options(user, view.id, ANSWER, "q0", WORD[:length])
            assert response.status_code == 200
            found.append(len(response.json()["options"]))
            answered.append(user)
            if stop.is_set():
                break


async def test_fifteen_typing_in_a_huge_select_leave_an_approve_acked_and_applied(
    loop: Loop,
) -> None:
    ts = await _big_question(loop)
    typists = [f"U0TYPE{n:02d}" for n in range(TYPISTS)]
    for user in typists:
        loop.slack.add_user(user, user.lower(), f"Typist {user[-2:]}")
    views = [await loop.open_form(user, ts) for user in typists]
    approval = await loop.create("approval_request", expiresInSeconds=600)
    approval_ts = await loop.posted(approval["id"])
    await loop.fault(routes="list", errorRate=1.0, status=503)

    stop = asyncio.Event()
    answered: list[str] = []
    found: list[int] = []
    typing = [
        asyncio.ensure_future(_type(loop, user, view, stop, answered, found))
        for user, view in zip(typists, views, strict=True)
    ]
    try:
        # every typist has had answers: the click meets them all at work
        await wait_until(
            lambda: set(answered) == set(typists), timeout=30, message="every typist answered"
        )
        started = time.monotonic()
        response = await loop.driver.click_message_button(
            "U0ADA", CHANNEL, approval_ts, ActionId.APPROVE
        )
        acked = time.monotonic() - started
        typed = len(answered)
    finally:
        stop.set()
        await asyncio.gather(*typing)
    print(f"Approve answered {response.status_code} in {acked * 1000:.0f} ms ({typed} keystrokes)")
    assert response.status_code == 200
    assert max(found) > 0, "no keystroke's search found an option"
    record: dict[str, Any] = await loop.api_get_final(approval["id"])
    assert record["decision"] == "allow"
