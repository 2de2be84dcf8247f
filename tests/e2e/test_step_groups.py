"""Step groups: one run's step paused on several tool calls is one entry in the channel.

The group message offers Approve all / Deny all; each card is a reply in its
thread; the batch goes through resolveBatch on the root run; the group
message is kept true like the cards.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import statements_run, wait_until


async def _siblings(loop: Loop, count: int, run: str, **fields: Any) -> list[str]:
    """`count` approvals of one step, created while the bridge can't list them, so one
    poll finds them all."""
    await loop.fault(routes="list", errorRate=1.0, status=503)
    ids = [
        (
            await loop.create(
                "approval_request",
                runId=run,
                stepNumber=3,
                agentId="agt_release",
                toolName=f"deploy_{n:02d}",
                **fields,
            )
        )["id"]
        for n in range(count)
    ]
    await loop.fault()
    return ids


def _group_message(loop: Loop) -> Any:
    for message in loop.slack.messages(CHANNEL):
        if (message.metadata or {}).get("event_type") == "novo_step_group":
            return message
    return None


async def _group(loop: Loop) -> Any:
    return await wait_until(lambda: _group_message(loop), message="the step group posted")


async def _cards_in_thread(loop: Loop, group_ts: str, count: int) -> list[Any]:
    def probe() -> list[Any] | None:
        replies = [m for m in loop.slack.replies(CHANNEL, group_ts) if m.metadata]
        return replies if len(replies) >= count else None

    cards: list[Any] = await wait_until(probe, message=f"{count} cards in the group's thread")
    return cards


async def test_siblings_form_one_group_and_approve_all_resolves_them_in_two_batches(
    loop: Loop,
) -> None:
    await loop.use_policy('agents:\n  agt_release: "Release bot"\n')
    ids = await _siblings(loop, 25, "run_big")
    group = await _group(loop)
    await loop.shows(group.ts, "Release bot* paused step 3 on 25 tool calls")
    await _cards_in_thread(loop, group.ts, 25)
    top_level = [m for m in loop.slack.messages(CHANNEL) if m.thread_ts in (None, m.ts)]
    assert len(top_level) == 1  # one entry in the channel for the step
    await loop.shows(group.ts, "Approve all (25)")  # offered once every card is in the thread

    denied_elsewhere = ids[7]
    response = await loop.api_resolve(
        denied_elsewhere,
        {"inputResponses": [{"requestId": denied_elsewhere, "optionId": "deny"}]},
    )
    assert response.status_code == 200
    await loop.driver.click_message_button("U0ADA", CHANNEL, group.ts, ActionId.APPROVE_ALL)
    await loop.shows(group.ts, "24 approved, 1 was already denied elsewhere")
    assert len(await loop.batch_calls("run_big")) == 2
    for interaction_id in ids:
        record = await loop.api_get_final(interaction_id)
        expected = "deny" if interaction_id == denied_elsewhere else "allow"
        assert record["decision"] == expected, interaction_id
        if expected == "allow":
            assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    assert ActionId.APPROVE_ALL not in loop.action_ids(group.ts)


async def test_deny_all_asks_one_reason_and_a_later_sibling_joins_the_thread(loop: Loop) -> None:
    ids = await _siblings(loop, 2, "run_small")
    group = await _group(loop)
    await _cards_in_thread(loop, group.ts, 2)
    later = await loop.create(
        "approval_request", runId="run_small", stepNumber=3, toolName="deploy_late"
    )
    await _cards_in_thread(loop, group.ts, 3)
    await loop.shows(group.ts, "on 3 tool calls", "Deny all (3)")  # once every card is in

    await loop.driver.click_message_button("U0GRACE", CHANNEL, group.ts, ActionId.DENY_ALL)
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.DENY_ALL_MODAL), None
        ),
        message="deny-all modal opened",
    )
    reason = {ActionId.REASON_INPUT.value: {"type": "plain_text_input", "value": "wrong branch"}}
    await loop.driver.submit_view("U0GRACE", view.id, {REASON_BLOCK_ID: reason})
    for interaction_id in [*ids, later["id"]]:
        record = await loop.api_get_final(interaction_id)
        assert record["decision"] == "deny"
        assert record["reason"] == "Denied in Slack by U0GRACE (Grace Hopper): wrong branch"
    await loop.shows(group.ts, "3 denied")
    assert len(await loop.batch_calls("run_small")) == 1


async def test_approve_all_includes_only_what_the_clicker_may_decide(loop: Loop) -> None:
    await loop.use_policy(
        "rules:\n  - name: prod\n    match: {toolName: 'deploy_00'}\n"
        "    deciders: {users: [U0GRACE]}\n"
    )
    ids = await _siblings(loop, 3, "run_mixed")
    group = await _group(loop)
    await loop.shows(group.ts, "Approve all (3)")
    await loop.driver.click_message_button("U0ADA", CHANNEL, group.ts, ActionId.APPROVE_ALL)
    await loop.shows(group.ts, "2 approved, 1 not yours to decide")
    assert (await loop.api_get(ids[0]))["status"] == "pending"
    for interaction_id in ids[1:]:
        assert (await loop.api_get_final(interaction_id))["decision"] == "allow"
    await loop.shows(group.ts, "Approve all (1)")


async def test_a_card_posted_just_before_a_crash_is_found_in_its_thread_not_reposted(
    loop: Loop,
) -> None:
    ids = await _siblings(loop, 3, "run_crash")
    group = await _group(loop)
    cards = await _cards_in_thread(loop, group.ts, 3)
    await loop.bridge.stop()
    # the crash window for a reply: the card is in the thread, the store never learned its ts
    lost = ids[1]
    with sqlite3.connect(loop.settings.db_path) as db:
        changed = db.execute(
            "UPDATE messages SET state = 'posting', ts = NULL"
            " WHERE interaction_id = ? AND purpose = 'channel'",
            (lost,),
        ).rowcount
    assert changed == 1
    # as in Slack, the channel's history lists the group message, never its replies
    client = AsyncWebClient(token=loop.slack.bot_token, base_url=loop.slack.api_url)
    history = await client.conversations_history(channel=CHANNEL, include_all_metadata=True)
    assert [m["ts"] for m in history["messages"]] == [group.ts]
    assert history["messages"][0]["reply_count"] == 3
    await loop.restart()

    async def found_again() -> bool:
        tracked = await loop.tracked(lost)
        return tracked is not None and tracked.ts is not None

    await wait_until(found_again, message="the card's ts recovered")
    tracked = await loop.tracked(lost)
    assert tracked is not None
    card = next(c for c in cards if c.metadata["event_payload"]["interaction_id"] == lost)
    assert tracked.ts == card.ts
    in_thread = [m for m in loop.slack.replies(CHANNEL, group.ts) if m.metadata]
    assert len(in_thread) == 3  # nothing posted twice
    looked = loop.slack.calls("conversations.replies")
    assert [c.args.get("ts") for c in looked] == [group.ts]


def _a_list_held(loop: Loop) -> Callable[[], Awaitable[bool]]:
    async def held() -> bool:
        return any(
            r["path"] == "/v1/interactions" and r["status"] is None
            for r in await loop.control.log()
        )

    return held


async def test_a_big_group_takes_turns_with_an_unrelated_approval(loop: Loop) -> None:
    await loop.restart(post_rate=10.0)
    ids = await _siblings(loop, 30, "run_wide", expiresInSeconds=600)
    group = await _group(loop)
    await _cards_in_thread(loop, group.ts, 3)  # the group's cards are going out
    unrelated = await loop.create("approval_request", toolName="read_logs", expiresInSeconds=3600)
    await loop.shown(unrelated["id"])
    await _cards_in_thread(loop, group.ts, 30)
    order = [
        c.args["metadata"]["event_payload"].get("interaction_id")
        for c in loop.slack.calls("chat.postMessage")
        if c.ok and isinstance(c.args.get("metadata"), dict)
    ]
    cards_after = [i for i in order[order.index(unrelated["id"]) :] if i in ids]
    # it waited behind at most a card or two, not behind the 27 still queued
    assert len(cards_after) >= 20, order

    # the group message of 30 members re-renders in a few store reads, not several each
    services = loop.bridge.services
    assert services is not None
    # the poll held in Novo's list, so that no read a render of its shares is the refresh's
    await loop.fault(routes="list", hang=True)
    await loop.control.clear_log()  # a list asked for after this is held
    await wait_until(_a_list_held(loop), message="the poll held in Novo's list")
    engine = services.store._engine.sync_engine
    with statements_run(engine) as statements:
        await services.publisher.groups.refresh(group.metadata["event_payload"]["group_id"])
    await loop.fault()
    reads = [s.sql for s in statements if s.is_read]
    shown = [" ".join(r.split())[:90] for r in reads]
    # all of its own reads were counted: the group, its members, their open decisions
    tables = {r.split("FROM ", 1)[1].split()[0] for r in reads if "FROM " in r}
    assert {"step_groups", "interactions", "decisions"} <= tables, shown
    # O(1) (three today), not several for each of the 30 members as before
    assert len(reads) <= 5, shown
