"""Every approval reaching Novo is one somebody meant, whatever races, changes or slowness.

Each test reproduces a way an approval nobody intended used to reach Novo: a vote
withdrawn after the quorum was met, an Approve all acting on calls that arrived
after the message was drawn, votes of people who no longer may decide, and clicks
applied after Slack had already shown them as failed. They judge by what Novo
received and what Slack showed the people involved.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx

from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop, hold_the_store
from tests.support import DEFAULT_TIMEOUT, bounded, wait_until

QUORUM_OF_TWO = """
rules:
  - name: prod-deploys
    match: {toolName: "deploy_*"}
    deciders: {users: [U0ADA, U0GRACE, U0LIN]}
    quorum: 2
"""

WITHOUT_ADA = QUORUM_OF_TWO.replace("U0ADA, ", "")


async def _deploy(loop: Loop, policy: str = QUORUM_OF_TWO) -> tuple[str, str]:
    await loop.use_policy(policy)
    loop.slack.add_user("U0LIN", "lin", "Lin Chen")
    created = await loop.create("approval_request", toolName="deploy_api")
    return created["id"], await loop.posted(created["id"])


async def _approve(loop: Loop, user: str, ts: str) -> httpx.Response:
    response = await loop.driver.click_message_button(user, CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    return response


async def _withdraw(
    loop: Loop, user: str, ts: str, seen: list[dict[str, Any]] | None = None
) -> None:
    """Withdraw from the message as `user` sees it (`seen`: blocks from before it changed)."""
    response = await loop.driver.choose_overflow(
        user,
        CHANNEL,
        ts,
        ActionId.APPROVAL_OVERFLOW,
        OverflowValue.WITHDRAW_APPROVAL,
        stale_blocks=seen,
    )
    assert response.status_code == 200


def _blocks(loop: Loop, ts: str) -> list[dict[str, Any]]:
    message = loop.slack.message(CHANNEL, ts)
    assert message is not None
    blocks: list[dict[str, Any]] = message.blocks
    return blocks


def _told_texts(loop: Loop, user: str) -> list[str]:
    return [e.text for e in loop.slack.ephemerals(user)]


async def _told(loop: Loop, user: str, needle: str, timeout: float = DEFAULT_TIMEOUT) -> None:
    await wait_until(
        lambda: any(needle in t for t in _told_texts(loop, user)),
        timeout=timeout,
        message=f"{user} told {needle!r}",
    )


async def test_withdraw_after_the_quorum_is_met_is_refused_and_the_reason_names_both(
    loop: Loop,
) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await _told(loop, "U0ADA", "counted: 1 of 2")
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0ADA> ✓")
    seen = _blocks(loop, ts)  # what Ada's screen still shows while Grace's approval is sent
    await loop.fault(errorRate=1.0, status=503, routes="resolve")  # Novo is down
    await _approve(loop, "U0GRACE", ts)
    await _told(loop, "U0GRACE", "Your decision is saved")
    await _withdraw(loop, "U0ADA", ts, seen)
    await _told(loop, "U0ADA", "The approval was already sent with your vote.")
    assert not any("withdrawn" in t for t in _told_texts(loop, "U0ADA"))
    await loop.fault()  # Novo is back: the queued decision goes out
    record = await loop.api_get_final(interaction_id)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace), U0GRACE (Grace Hopper)"


async def test_a_withdrawal_racing_the_completing_approval_never_sends_a_withdrawn_vote(
    loop: Loop,
) -> None:
    await loop.use_policy(QUORUM_OF_TWO)
    for round_ in range(4):
        created = await loop.create("approval_request", toolName=f"deploy_{round_}")
        interaction_id, ts = created["id"], await loop.posted(created["id"])
        before = len(_told_texts(loop, "U0ADA"))
        await _approve(loop, "U0ADA", ts)
        await wait_until(lambda b=before: len(_told_texts(loop, "U0ADA")) > b, message="counted")
        await loop.shows(ts, "Approvals: 1 of 2 — <@U0ADA> ✓")  # Withdraw is offered now
        seen = _blocks(loop, ts)
        told = len(_told_texts(loop, "U0ADA"))
        await asyncio.gather(_approve(loop, "U0GRACE", ts), _withdraw(loop, "U0ADA", ts, seen))
        answer = await wait_until(
            lambda t=told: next(iter(_told_texts(loop, "U0ADA")[t:]), None),
            message="Ada told how her withdrawal went",
        )
        if "withdrawn" in answer:
            await loop.shows(ts, "Approvals: 1 of 2 — <@U0GRACE> ✓")
            assert await loop.resolve_calls(interaction_id) == []
        else:
            assert "already sent with your vote" in answer
            record = await loop.api_get_final(interaction_id)
            assert record["reason"] == (
                "Approved in Slack by U0ADA (Ada Lovelace), U0GRACE (Grace Hopper)"
            )


async def test_every_note_given_with_a_vote_reaches_novo(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    response = await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.APPROVE_WITH_NOTE
    )
    assert response.status_code == 200
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.APPROVE_NOTE_MODAL),
            None,
        ),
        message="the note modal opened",
    )
    note = {ActionId.REASON_INPUT.value: {"type": "plain_text_input", "value": "after 18:00"}}
    await loop.driver.submit_view("U0ADA", view.id, {REASON_BLOCK_ID: note})
    await _told(loop, "U0ADA", "counted: 1 of 2")
    await _approve(loop, "U0GRACE", ts)
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == (
        "Approved in Slack by U0ADA (Ada Lovelace), U0GRACE (Grace Hopper): U0ADA: after 18:00"
    )


async def test_a_reload_that_removes_a_voter_drops_their_vote(loop: Loop) -> None:
    interaction_id, ts = await _deploy(loop)
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0ADA> ✓")
    await loop.use_policy(WITHOUT_ADA)
    await _approve(loop, "U0GRACE", ts)
    await loop.shows(
        ts,
        "Approvals: 1 of 2 — <@U0GRACE> ✓",
        "<@U0ADA>'s approval no longer counts: not a decider since the policy changed",
    )
    assert await loop.resolve_calls(interaction_id) == []
    await _approve(loop, "U0LIN", ts)
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == "Approved in Slack by U0GRACE (Grace Hopper), U0LIN (Lin Chen)"


async def test_a_voter_who_left_the_group_no_longer_counts(loop: Loop) -> None:
    loop.slack.add_user("U0LIN", "lin", "Lin Chen")
    loop.slack.add_usergroup("S0SRE", "sre", ["U0ADA", "U0GRACE", "U0LIN"])
    interaction_id, ts = await _deploy(
        loop,
        "rules:\n  - name: sre\n    match: {toolName: 'deploy_*'}\n"
        "    deciders: {groups: [S0SRE]}\n    quorum: 2\n",
    )
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2 — <@U0ADA> ✓")
    loop.slack.set_usergroup_members("S0SRE", ["U0GRACE", "U0LIN"])  # the cache still has Ada
    await _approve(loop, "U0GRACE", ts)
    await loop.shows(ts, "<@U0ADA>'s approval no longer counts")
    assert await loop.resolve_calls(interaction_id) == []


async def test_three_slow_group_lookups_are_asked_at_once(loop: Loop) -> None:
    for group in ("S0ONE", "S0TWO", "S0THREE"):
        loop.slack.add_usergroup(group, group.lower(), ["U0GRACE"] if group == "S0THREE" else [])
    interaction_id, ts = await _deploy(
        loop,
        "rules:\n  - name: groups\n    match: {toolName: 'deploy_*'}\n"
        "    deciders: {groups: [S0ONE, S0TWO, S0THREE]}\n",
    )
    # slow enough that look-ups asked one after another never overlap, and all three still
    # inside the time one may take: at once, Slack answers three at the same moment (how
    # soon Slack hears back is bench.latency's figure)
    loop.slack.delay_method("usergroups.users.list", 0.4)
    await _approve(loop, "U0GRACE", ts)
    assert loop.slack.peak_in_flight("usergroups.users.list") == 3
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == "Approved in Slack by U0GRACE (Grace Hopper)"


async def test_a_vote_whose_checks_outlast_the_deadline_is_not_recorded(loop: Loop) -> None:
    """The completing vote's fresh re-check pushes past 2.5 s: Slack hears back in time,
    the person is told nothing was sent, and the vote is not counted later."""
    loop.slack.add_user("U0LIN", "lin", "Lin Chen")
    loop.slack.add_usergroup("S0SRE", "sre", ["U0ADA", "U0GRACE", "U0LIN"])
    interaction_id, ts = await _deploy(
        loop,
        "rules:\n  - name: sre\n    match: {toolName: 'deploy_*'}\n"
        "    deciders: {groups: [S0SRE]}\n    quorum: 2\n",
    )
    await _approve(loop, "U0ADA", ts)
    await loop.shows(ts, "Approvals: 1 of 2")
    loop.slack.delay_method("usergroups.users.list", 1.4)
    loop.slack.delay_method("users.info", 1.4)
    await _approve(loop, "U0GRACE", ts)
    # the deadline refuses it ("Slack was slow to say who can decide; nothing was sent");
    # on a busy machine a lookup's own bound may refuse it first ("Slack couldn't confirm
    # who you are just now, so nothing was sent"): either way, nothing was sent
    await _told(loop, "U0GRACE", "nothing was sent")
    loop.slack.delay_method("usergroups.users.list", 0)
    loop.slack.delay_method("users.info", 0)
    await _approve(loop, "U0LIN", ts)
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace), U0LIN (Lin Chen)"


STEP = {"runId": "run_step", "stepNumber": 3}


async def _siblings(loop: Loop, count: int, start: int = 0) -> list[str]:
    return [
        (await loop.create("approval_request", toolName=f"tool_{n}", **STEP))["id"]
        for n in range(start, start + count)
    ]


def _group_ts(loop: Loop) -> str | None:
    for message in loop.slack.messages(CHANNEL):
        if (message.metadata or {}).get("event_type") == "novo_step_group":
            return message.ts
    return None


async def test_approve_all_acts_only_on_what_the_clicked_message_listed(loop: Loop) -> None:
    ids = await _siblings(loop, 3)
    group_ts = await wait_until(lambda: _group_ts(loop), message="the group posted")
    await loop.shows(group_ts, "Approve all (3)")
    seen = loop.slack.message(CHANNEL, group_ts)
    assert seen is not None
    seen_blocks: list[dict[str, Any]] = seen.blocks
    later = (await loop.create("approval_request", toolName="delete_all_backups", **STEP))["id"]
    await loop.shows(group_ts, "on 4 tool calls")
    response = await loop.driver.click_stale_button(
        "U0ADA", CHANNEL, group_ts, seen_blocks, ActionId.APPROVE_ALL
    )
    assert response.status_code == 200
    for interaction_id in ids:
        assert (await loop.api_get_final(interaction_id))["decision"] == "allow"
    await _told(loop, "U0ADA", "1 call arrived after you looked: review them first.")
    assert (await loop.api_get(later))["status"] == "pending"
    await loop.shows(group_ts, "Approve all (1)")


async def test_approve_all_is_offered_only_once_each_card_is_posted(loop: Loop) -> None:
    loop.slack.delay_method("chat.postMessage", 0.3)
    await _siblings(loop, 4)
    group_ts = await wait_until(lambda: _group_ts(loop), message="the group posted")
    first = loop.message_text(group_ts)
    assert "Approve all (" not in first and "still being posted" in first
    await loop.shows(group_ts, "Approve all (4)")


BIG_STEP = 40
"""Calls in the step: more than a lane sends at once and than a page of the group's card,
and few enough to post in seconds. `bench.approve_all` clicks a step of 200 and reports how
soon Slack hears back."""


async def test_approve_all_of_a_big_step_under_a_quorum_counts_every_vote(loop: Loop) -> None:
    await loop.use_policy(
        "rules:\n  - name: quorum\n    match: {toolName: 'tool_*'}\n"
        "    deciders: {users: [U0ADA, U0GRACE]}\n    quorum: 2\n"
    )
    ids = await _siblings(loop, BIG_STEP)
    group_ts = await wait_until(lambda: _group_ts(loop), message="the group posted")
    await loop.shows(group_ts, f"Approve all ({BIG_STEP})")
    response = await loop.driver.click_message_button(
        "U0ADA", CHANNEL, group_ts, ActionId.APPROVE_ALL
    )
    assert response.status_code == 200
    await loop.shows(group_ts, f"{BIG_STEP} counted towards a quorum")
    assert [i for i in ids if (await loop.api_get(i))["status"] != "pending"] == []
    response = await loop.driver.click_message_button(
        "U0GRACE", CHANNEL, group_ts, ActionId.APPROVE_ALL
    )
    assert response.status_code == 200
    for interaction_id in ids:
        record = await loop.api_get_final(interaction_id)
        assert record["decision"] == "allow", record
        assert (
            record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace), U0GRACE (Grace Hopper)"
        )


# ------------------------------------------------------------------ a store that stops


async def test_a_frozen_store_refuses_in_time_and_applies_nothing_later(
    engine_loop: tuple[Loop, str],
) -> None:
    loop, engine = engine_loop
    created = await loop.create("approval_request", toolName="deploy_api")
    interaction_id, ts = created["id"], await loop.posted(created["id"])
    held, done = asyncio.Event(), asyncio.Event()
    holder = asyncio.ensure_future(hold_the_store(loop, engine, held, done))
    await held.wait()
    try:
        # the store stays frozen until this block ends: a click that waited on it would
        # never be answered, so the wait's generous bound tells the two apart
        await bounded(_approve(loop, "U0ADA", ts))
        await _told(loop, "U0ADA", "This couldn't be saved, so nothing was sent.")
    finally:
        done.set()
        await holder
    # The store answers again: Grace's approval is the one that reaches Novo.
    await _approve(loop, "U0GRACE", ts)
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == "Approved in Slack by U0GRACE (Grace Hopper)"
    assert len(await loop.resolve_calls(interaction_id)) == 1


async def test_a_click_checked_while_another_is_delivered_is_not_sent_a_second_time(
    loop: Loop,
) -> None:
    """The same approval reaching two replicas, or two people: the second click's look-up
    in Slack outlasts the first one's delivery, and must not queue a decision of its own."""
    earlier = await loop.create("approval_request")  # Slack has told the bridge who Ada is
    await _approve(loop, "U0ADA", await loop.posted(earlier["id"]))
    await loop.api_get_final(earlier["id"])
    created = await loop.create("approval_request")
    interaction_id, ts = created["id"], await loop.posted(created["id"])
    await loop.fault(latencyMs=400, routes="resolve")  # Ada's decision takes a while to land
    await _approve(loop, "U0ADA", ts)  # acked: queued, its delivery under way
    loop.slack.delay_method("users.info", 1.2)  # Grace's check ends after it landed
    await _approve(loop, "U0GRACE", ts)
    loop.slack.delay_method("users.info", 0)
    record = await loop.api_get_final(interaction_id)
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"

    async def resolves() -> list[dict[str, Any]]:
        return await loop.resolve_calls(interaction_id)

    async def grace_answered() -> bool:  # told, or her decision went out too
        return bool(_told_texts(loop, "U0GRACE")) or len(await resolves()) > 1

    await wait_until(grace_answered, message="Grace's click answered")
    assert len(await resolves()) == 1, "the same approval was sent to Novo twice"
    assert _told_texts(loop, "U0GRACE") == ["It was already approved by <@U0ADA>."]
    await loop.shows(ts, "Approved")


async def test_a_poll_during_the_delivery_never_shows_a_slack_decision_as_taken_elsewhere(
    loop: Loop,
) -> None:
    """Novo has applied Ada's approval but its answer has not reached the bridge yet (a slow
    answer, a busy machine): a poll in that window sees the interaction ended. It must leave
    the message and the trail to the delivery, which knows who decided, instead of showing
    and recording an approval from outside Slack."""
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    await loop.fault(routes="resolve", hang=True, afterApply=True)
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)

    async def applied() -> bool:
        return bool((await loop.api_get(created["id"]))["status"] == "resolved")

    await wait_until(applied, message="Novo applied the approval; its answer is held")
    assert loop.bridge.jobs is not None
    for _ in range(3):  # polls that see it ended while its delivery is still under way
        await loop.bridge.jobs.poll()
    await loop.fault()  # the answer arrives
    await loop.shows(ts, "Approved", "Ada")
    updates = [c.args for c in loop.slack.calls("chat.update") if c.args.get("ts") == ts]
    shown = [json.dumps(args) for args in updates]
    assert not any("outside Slack" in text for text in shown), shown
    # every update that says approved credits Ada: while delivering, by the name her click
    # carried (on a busy machine a poll's refresh can land then), and after, by her
    # display name
    said = [str(args.get("text")) for args in updates]
    assert all(
        re.search(r"Approved by (ada|Ada Lovelace)\b", text) for text in said if "Approved" in text
    ), said
    ended = [e for e in await loop.trail(created["id"]) if e["event"] in ("ended", "resolved")]
    assert [e["event"] for e in ended] == ["resolved"], ended
