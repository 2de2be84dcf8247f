"""Answering a question by replying in its message's thread, judged by what Slack and Novo saw.

A reply arrives as Slack's Events API delivers it (a signed `event_callback`
POST, or an `events_api` envelope in Socket Mode); the answer goes through the
outbox as a form submission does, and the reply gets a ✅ once Novo took it.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from pydantic import SecretStr

from bot.slack.ids import ActionId, CallbackId
from novo_dev.localslack.records import StoredEphemeral
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_deciders import ONLY_ADA
from tests.e2e.test_questions import _question
from tests.support import DEFAULT_TIMEOUT, wait_until

HINT = "💬 Or reply in this thread"
REASON = "Answered in Slack by U0GRACE (Grace Hopper), replying in the thread"
CHECK_MARK = "white_check_mark"

FREE_TEXT = {"id": "q_why", "prompt": "Why deploy now?"}
ENVIRONMENT = {
    "id": "q_env",
    "prompt": "Which environment?",
    "options": [{"id": "staging", "label": "Staging"}, {"id": "prod", "label": "Production"}],
}


async def _resolution(
    loop: Loop, interaction_id: str, timeout: float = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    record = await loop.api_get_final(interaction_id, timeout=timeout)
    resolution: dict[str, Any] = record["resolution"]
    return resolution


async def _checked(loop: Loop, reply_ts: str) -> None:
    await wait_until(
        lambda: CHECK_MARK in loop.slack.message(CHANNEL, reply_ts).reactions,
        message="✅ on the reply",
    )


async def _told(loop: Loop, user: str, count: int) -> list[str]:
    told: list[str] = await wait_until(
        lambda: (
            [e.text for e in loop.slack.ephemerals(user)]
            if len(loop.slack.ephemerals(user)) >= count
            else None
        ),
        message=f"{user} told {count} time(s)",
    )
    return told


def _offers(loop: Loop, user: str) -> list[StoredEphemeral]:
    return [e for e in loop.slack.ephemerals(user) if ActionId.SEND_REPLY in str(e.blocks)]


async def _send(loop: Loop, user: str, words: str) -> str:
    """Press *Send* on the offer to `user` naming `words` as the answer; the offer's text.
    A reply alone decides nothing: this click does."""
    offer: StoredEphemeral = await wait_until(
        lambda: next((e for e in _offers(loop, user) if f"“{words}”" in e.text), None),
        message=f"{user} offered to send {words!r}",
    )
    response = await loop.driver.click_ephemeral_button(offer, ActionId.SEND_REPLY)
    assert response.status_code == 200
    return offer.text


async def test_a_reply_answers_a_free_text_question(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, FREE_TEXT)
    assert HINT in loop.message_text(ts)

    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "  Tests are green.  ")
    assert reply.response is not None and reply.response.status_code == 200
    offer = await _send(loop, "U0GRACE", "Tests are green.")
    assert offer == "Send “Tests are green.” as your answer to “Why deploy now?”?"

    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_why", "text": "Tests are green."}]
    assert resolution["reason"] == REASON
    await _checked(loop, reply.message.ts)
    shown = await loop.shows(ts, "Answered", "<@U0GRACE>", "Tests are green.")
    assert HINT not in shown
    assert len(await loop.resolve_calls(interaction_id)) == 1


async def test_a_reply_picks_a_single_choice_option_by_label_or_id(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    assert HINT in loop.message_text(ts)
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "  PRODUCTION ")
    await _send(loop, "U0GRACE", "Production")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "prod"}]
    assert resolution["reason"] == REASON
    await _checked(loop, reply.message.ts)
    await loop.shows(ts, "Answered", "<@U0GRACE>", "Production")

    by_id, by_id_ts = await _question(loop, ENVIRONMENT)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, by_id_ts, "staging")
    await _send(loop, "U0GRACE", "Staging")
    resolution = await _resolution(loop, by_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "staging"}]


async def test_an_action_label_chooses_the_action_and_other_answers_allow_other(
    loop: Loop,
) -> None:
    actions = [{"id": "a_skip", "label": "Skip the migration"}]
    interaction_id, ts = await _question(loop, ENVIRONMENT, actions=actions)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "skip the migration")
    await _send(loop, "U0GRACE", "Skip the migration")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "a_skip"}]
    assert resolution["reason"] == (
        "Chose “Skip the migration” in Slack by U0GRACE (Grace Hopper), replying in the thread"
    )

    other = {**ENVIRONMENT, "allowOther": True}
    other_id, other_ts = await _question(loop, other)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, other_ts, "Other: the canary pool")
    await _send(loop, "U0GRACE", "the canary pool")
    resolution = await _resolution(loop, other_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "text": "the canary pool"}]


async def test_anything_else_is_told_what_a_reply_can_answer_with_the_form(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "which one is safer?")
    (told,) = await _told(loop, "U0GRACE", 1)
    assert "Staging" in told and "Production" in told
    (ephemeral,) = loop.slack.ephemerals("U0GRACE")
    assert ephemeral.thread_ts == ts
    await loop.driver.click_ephemeral_button(ephemeral, ActionId.ANSWER)
    await wait_until(
        lambda: any(
            v.user_id == "U0GRACE" and v.callback_id == CallbackId.QUESTION_MODAL
            for v in loop.slack.views()
        ),
        message="the form opened from the ephemeral",
    )
    assert await loop.resolve_calls(interaction_id) == []


async def test_two_questions_get_no_hint_and_a_reply_decides_nothing(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, FREE_TEXT, ENVIRONMENT)
    assert HINT not in loop.message_text(ts)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "prod")
    await _told(loop, "U0GRACE", 1)
    assert await loop.resolve_calls(interaction_id) == []


async def test_a_non_deciders_reply_decides_nothing_and_is_told_only_to_them(loop: Loop) -> None:
    await loop.use_policy(ONLY_ADA)
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "prod")
    (told,) = await _told(loop, "U0GRACE", 1)
    assert "Only <@U0ADA> can decide this." in told
    assert loop.slack.ephemerals("U0GRACE")[0].thread_ts == ts
    assert await loop.resolve_calls(interaction_id) == []
    assert CHECK_MARK not in loop.slack.message(CHANNEL, reply.message.ts).reactions
    assert loop.bridge.services is not None
    entries = await loop.bridge.services.store.audit_entries(interaction_id=interaction_id)
    assert [(e.event, e.actor_id) for e in entries if e.event == "refused"] == [
        ("refused", "U0GRACE")
    ]

    assert _offers(loop, "U0GRACE") == []  # no offer to someone who may not decide
    ada = await loop.driver.reply_in_thread("U0ADA", CHANNEL, ts, "staging")
    await _send(loop, "U0ADA", "Staging")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "staging"}]
    await _checked(loop, ada.message.ts)
    assert len(await loop.resolve_calls(interaction_id)) == 1


async def test_bots_replies_and_edits_decide_nothing(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    await loop.driver.reply_in_thread("U0OTHERBOT", CHANNEL, ts, "prod", bot_id="B0OTHER")
    await loop.driver.edit_reply("U0GRACE", CHANNEL, ts, "prod")
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "staging")
    await _send(loop, "U0GRACE", "Staging")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "staging"}]
    assert len(await loop.resolve_calls(interaction_id)) == 1
    # the bot's reply was not even looked at: nobody asked Slack about it or told it anything
    asked = [
        c for c in loop.slack.calls() if "U0OTHERBOT" in (c.args.get("user"), c.args.get("users"))
    ]
    assert asked == []


async def test_a_retried_or_repeated_event_decides_once(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "prod", deliver=False)
    answers = await asyncio.gather(
        loop.driver.send_event_payload(reply.payload),
        loop.driver.send_event_payload(reply.payload, retry_num=1),
        loop.driver.send_event_payload(reply.payload, retry_num=2),
    )
    assert [a.status_code for a in answers] == [200, 200, 200]
    await _send(loop, "U0GRACE", "Production")
    await _resolution(loop, interaction_id)
    assert len(_offers(loop, "U0GRACE")) == 1  # one offer for the three deliveries
    await _checked(loop, reply.message.ts)

    # a later reply, once it is answered, is told so; the repeats were told nothing
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "staging")
    told = await _told(loop, "U0GRACE", 2)
    assert "already answered" in told[-1]
    assert len(await loop.resolve_calls(interaction_id)) == 1
    assert loop.slack.message(CHANNEL, reply.message.ts).reactions.count(CHECK_MARK) == 1


async def test_replies_in_other_threads_are_ignored(loop: Loop) -> None:
    unrelated = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, None, "prod")
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, unrelated.message.ts, "prod")
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "prod")
    await _send(loop, "U0GRACE", "Production")
    await _resolution(loop, interaction_id)
    assert len(loop.slack.ephemerals("U0GRACE")) == 1  # the offer, for the question's thread


async def test_a_reply_answers_over_socket_mode(loop: Loop) -> None:
    loop.slack.serve_socket()
    await loop.restart(slack_app_token=SecretStr(loop.slack.app_token))
    await wait_until(lambda: loop.slack.socket_connections >= 1, message="Socket Mode connected")
    interaction_id, ts = await _question(loop, FREE_TEXT)
    message, ack = await loop.driver.reply_in_thread_over_socket("U0GRACE", CHANNEL, ts, "Ship it")
    assert ack.payload is None
    (offer,) = await wait_until(lambda: _offers(loop, "U0GRACE"), message="Grace's offer")
    await loop.driver.click_ephemeral_button_over_socket(offer, ActionId.SEND_REPLY)
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_why", "text": "Ship it"}]
    assert resolution["reason"] == REASON
    await _checked(loop, message.ts)


async def test_a_reply_in_a_dm_answers_a_question_sent_there(loop: Loop) -> None:
    await loop.use_policy("rules:\n  - name: to-grace\n    match: {}\n    dm: [U0GRACE]\n")
    created = await loop.create("question", request={"title": "Q", "questions": [ENVIRONMENT]})
    dm = loop.slack.channel_id("U0GRACE")

    def in_dm() -> str | None:
        return next(
            (
                m.ts
                for m in loop.slack.messages(dm)
                if ((m.metadata or {}).get("event_payload") or {}).get("interaction_id")
                == created["id"]
            ),
            None,
        )

    ts: str = await wait_until(in_dm, message="the question in Grace's DM")
    await loop.posted(created["id"])  # as the other tests: the bridge has recorded where it is
    assert HINT in loop.message_text_in(dm, ts)
    reply = await loop.driver.reply_in_thread("U0GRACE", dm, ts, "staging")
    assert reply.payload["event"]["channel_type"] == "im"
    await _send(loop, "U0GRACE", "Staging")
    resolution = await _resolution(loop, created["id"])
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "staging"}]
    await wait_until(
        lambda: CHECK_MARK in loop.slack.message(dm, reply.message.ts).reactions,
        message="✅ on the reply in the DM",
    )


async def test_a_reply_kept_through_a_novo_outage_gets_its_check_mark_when_delivered(
    loop: Loop,
) -> None:
    interaction_id, ts = await _question(loop, FREE_TEXT)
    await loop.fault(errorRate=1.0, status=503, routes="resolve")
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "Because it is Friday")
    await _send(loop, "U0GRACE", "Because it is Friday")
    told = await _told(loop, "U0GRACE", 2)
    assert "Couldn't reach Novo" in told[-1]
    assert CHECK_MARK not in loop.slack.message(CHANNEL, reply.message.ts).reactions
    await loop.fault()  # Novo is back: the outbox redelivers it
    resolution = await _resolution(loop, interaction_id)
    assert resolution["reason"] == REASON
    await _checked(loop, reply.message.ts)


async def test_a_shown_card_has_no_thread_to_reply_in(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, FREE_TEXT)
    assert HINT in loop.message_text(ts)
    await loop.driver.send_command("U0GRACE", "/novo", f"show {interaction_id}", channel=CHANNEL)
    card = await wait_until(
        lambda: next((e for e in loop.slack.ephemerals("U0GRACE") if e.blocks), None),
        message="the card shown to Grace",
    )
    assert "Why deploy now?" in str(card.blocks) and HINT not in str(card.blocks)


async def test_chatter_in_the_thread_is_never_sent_on_its_own(loop: Loop) -> None:
    """Finding: on a question with one free-text field, a decider writing to a colleague
    in the thread had that text sent to the agent as the answer."""
    interaction_id, ts = await _question(loop, FREE_TEXT)
    chatter = "<@U0ADA> do you know which customer this is? I'd say don't refund until we check"
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, chatter)
    (offer,) = await wait_until(lambda: _offers(loop, "U0GRACE"), message="Grace's offer")
    assert offer.thread_ts == ts
    assert "don't refund until we check” as your answer to “Why deploy now?”" in offer.text
    assert _offers(loop, "U0ADA") == []  # the offer goes to its author alone
    # Ada answers with the form meanwhile: the chatter never reached the agent
    await loop.driver.reply_in_thread("U0ADA", CHANNEL, ts, "Tests are green.")
    await _send(loop, "U0ADA", "Tests are green.")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_why", "text": "Tests are green."}]
    assert len(await loop.resolve_calls(interaction_id)) == 1


async def test_nobody_else_can_press_send_on_an_offer(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, ENVIRONMENT)
    await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "prod")
    (offer,) = await wait_until(lambda: _offers(loop, "U0GRACE"), message="Grace's offer")
    stolen = replace(offer, user="U0ADA")  # the same button, clicked by someone else
    response = await loop.driver.click_ephemeral_button(stolen, ActionId.SEND_REPLY)
    assert response.status_code == 200
    await wait_until(lambda: loop.slack.ephemerals("U0ADA"), message="Ada told")
    assert await loop.resolve_calls(interaction_id) == []
    await _send(loop, "U0GRACE", "Production")
    resolution = await _resolution(loop, interaction_id)
    assert resolution["inputResponses"] == [{"requestId": "q_env", "optionId": "prod"}]
