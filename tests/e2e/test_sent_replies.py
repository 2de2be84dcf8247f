"""A thread reply whose answer was sent, edited or deleted afterwards (finding 7).

The answer is what *Send* named and Novo took; an edit or a deletion changes nothing
in Novo. The author is told, only them, that the answer stays as sent, and the ✅
stays only while the reply still says the answer sent.
"""

from __future__ import annotations

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_questions import _question
from tests.e2e.test_thread_replies import CHECK_MARK, ENVIRONMENT, _checked, _resolution, _send
from tests.support import wait_until

KEPT = "your answer stays as it was sent: “Staging”"


def _kept(loop: Loop, user: str) -> list[str]:
    return [e.text for e in loop.slack.ephemerals(user) if "stays as it was sent" in e.text]


async def _unchecked(loop: Loop, reply_ts: str) -> None:
    await wait_until(
        lambda: CHECK_MARK not in loop.slack.message(CHANNEL, reply_ts).reactions,
        message="the ✅ taken off the reply",
    )


async def test_an_edited_reply_keeps_its_answer_and_loses_its_check_mark(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "staging")
    await _send(loop, "U0GRACE", "Staging")
    assert (await _resolution(loop, interaction_id))["inputResponses"] == [
        {"requestId": "q_env", "optionId": "staging"}
    ]
    await _checked(loop, reply.message.ts)

    edited = await loop.driver.edit_message("U0GRACE", CHANNEL, reply.message.ts, "prod")
    assert edited.status_code == 200
    told = await wait_until(lambda: _kept(loop, "U0GRACE"), message="Grace told")
    assert told == [f"You edited your reply, but {KEPT}."]
    await _unchecked(loop, reply.message.ts)
    told_to = {e.user for e in loop.slack.ephemerals() if "stays as it was sent" in e.text}
    assert told_to == {"U0GRACE"}  # only the author
    assert len(await loop.resolve_calls(interaction_id)) == 1  # nothing sent again
    assert not [e for e in loop.slack.ephemerals("U0GRACE") if "Production" in e.text]

    await loop.driver.edit_message("U0GRACE", CHANNEL, reply.message.ts, "Staging")
    await _checked(loop, reply.message.ts)  # it says the answer sent again
    assert len(_kept(loop, "U0GRACE")) == 1


async def test_a_deleted_reply_keeps_its_answer_and_its_author_is_told(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "staging")
    await _send(loop, "U0GRACE", "Staging")
    await _resolution(loop, interaction_id)
    await _checked(loop, reply.message.ts)

    assert (
        await loop.driver.delete_message("U0GRACE", CHANNEL, reply.message.ts)
    ).status_code == 200
    told = await wait_until(lambda: _kept(loop, "U0GRACE"), message="Grace told")
    assert told == [f"You deleted your reply, but {KEPT}."]
    assert len(await loop.resolve_calls(interaction_id)) == 1


async def test_edits_of_replies_that_sent_nothing_are_ignored(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    chatter = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "which one again?")
    await loop.driver.edit_message("U0GRACE", CHANNEL, chatter.message.ts, "staging?")
    offered = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "staging")
    await _send(loop, "U0GRACE", "Staging")
    await _resolution(loop, interaction_id)
    await _checked(loop, offered.message.ts)
    await loop.driver.delete_message("U0GRACE", CHANNEL, chatter.message.ts)
    await loop.driver.edit_message("U0GRACE", CHANNEL, offered.message.ts, "Staging")
    await _checked(loop, offered.message.ts)
    assert _kept(loop, "U0GRACE") == []
    assert not [
        e
        for e in loop.slack.ephemerals("U0GRACE")
        if ActionId.SEND_REPLY in str(e.blocks) and "staging?" in e.text
    ]
