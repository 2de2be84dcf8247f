"""Hostile agent text through the real bridge: posted once, shown clean, and nobody pinged.

The simulator's control API creates the interaction (its JSON escapes the lone
surrogate, as any JSON sender would), the bridge polls it and posts it, and
the assertions read what the local Slack recorded.
"""

from __future__ import annotations

import json
from typing import Any

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

from .helpers import HOSTILE, assert_clean, hostile_request, mrkdwn_of

LABEL = "<!channel> <https://evil.example|click> & co"


async def _create(loop: Loop, request: dict[str, Any]) -> str:
    body = json.dumps({"kind": "question", "request": request}).encode()  # ASCII: \ud800 escaped
    response = await loop.http.post(
        f"{loop.sim.url}/_sim/interactions",
        content=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text
    interaction_id: str = response.json()["id"]
    return interaction_id


def _posts_of(loop: Loop, interaction_id: str) -> list[Any]:
    return [
        call
        for call in loop.slack.calls("chat.postMessage")
        if ((call.args.get("metadata") or {}).get("event_payload") or {}).get("interaction_id")
        == interaction_id
    ]


async def _polls(loop: Loop) -> int:
    log = await loop.control.log()
    return sum(1 for r in log if r["method"] == "GET" and r["path"] == "/v1/interactions")


async def test_hostile_question_is_posted_once_and_shown_clean(loop: Loop) -> None:
    interaction_id = await _create(loop, hostile_request())
    ts = await loop.posted(interaction_id)
    seen = await _polls(loop)

    async def three_more_polls() -> bool:
        return await _polls(loop) >= seen + 3

    await wait_until(three_more_polls, message="three more polls after the post")
    posts = _posts_of(loop, interaction_id)
    assert len(posts) == 1, f"posted {len(posts)} times"
    assert posts[0].ok
    message = loop.slack.message(CHANNEL, ts)
    shown = {"text": message.text, "blocks": message.blocks, "metadata": message.metadata}
    assert_clean(shown)
    for text in [message.text, *mrkdwn_of(message.blocks)]:
        assert "<!channel>" not in text and "<https://evil" not in text


async def test_already_chose_is_told_with_the_label_escaped(loop: Loop) -> None:
    request = {
        "title": "Pick",
        "questions": [{"id": "q1", "prompt": HOSTILE}],
        "actions": [{"id": "a1", "label": LABEL}],
    }
    interaction_id = await _create(loop, request)
    ts = await loop.posted(interaction_id)
    stale = loop.slack.message(CHANNEL, ts).blocks
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, f"{ActionId.QUESTION_ACTION}:0")
    await loop.shows(ts, "<@U0ADA>")
    # a client still showing the old message sends the old button's click
    response = await loop.driver.click_stale_button(
        "U0GRACE", CHANNEL, ts, stale, f"{ActionId.QUESTION_ACTION}:0"
    )
    assert response.status_code == 200
    told = await wait_until(
        lambda: [e.text for e in loop.slack.ephemerals("U0GRACE") if "already" in e.text],
        message="the late clicker told who chose what",
    )
    assert "<@U0ADA> already chose" in told[0]
    assert "&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; co" in told[0]
    assert "<!channel>" not in told[0] and "<https://evil" not in told[0]
    assert_clean(told)
