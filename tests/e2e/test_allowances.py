"""Standing approvals ("allowances") end to end: granted from an approval's overflow,
used by the poll on later matching approvals, reported in the granting message's
thread, and stopped by a revoke, an expiry or a policy reload.

Judged by what Slack and Novo saw: which interactions got a message, which were
resolved and with what reason, what the granting message's thread says.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.slack.ids import ActionId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop, hold_the_store, open_loop
from tests.replicas.conftest import fresh_database
from tests.support import wait_until

ADA = "U0ADA"
GRACE = "U0GRACE"
AGENT = "agt_deployer"
TOOL = "deploy_status"
RUN = "run_7Q2"

STANDING = (
    "rules:\n"
    "  - name: deploys\n"
    "    match: {toolName: 'deploy_*'}\n"
    "    allow_standing: {max: 4h, scopes: [run, tool]}\n"
)
WITHOUT_STANDING = "rules:\n  - name: deploys\n    match: {toolName: 'deploy_*'}\n"
STANDING_REASON = re.compile(
    r"^Approved in Slack by standing approval of U0ADA \(Ada Lovelace\), until \d\d:\d\d UTC$"
)


async def _approval(
    loop: Loop, *, step: int, agent: str = AGENT, tool: str = TOOL, run: str = RUN
) -> str:
    created: dict[str, Any] = await loop.create(
        "approval_request",
        agentId=agent,
        toolName=tool,
        runId=run,
        stepNumber=step,
        expiresInSeconds=3600,
    )
    return str(created["id"])


async def _grant(loop: Loop, value: OverflowValue = OverflowValue.ALLOW_FOR_RUN) -> str:
    """A first approval, posted, approved by Ada with an allowance; its message's ts."""
    first = await _approval(loop, step=1)
    ts = await loop.shown(first)
    response = await loop.driver.choose_overflow(
        ADA, CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, value
    )
    assert response.status_code == 200
    record = await loop.api_get_final(first)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    await loop.shows(ts, "🔓", "<@U0ADA> allowed")
    return ts


async def _approved_without_a_message(loop: Loop, interaction_id: str) -> dict[str, Any]:
    record = await loop.api_get_final(interaction_id)
    assert record["decision"] == "allow"
    assert STANDING_REASON.match(record["reason"]), record["reason"]
    assert interaction_id not in loop.posted_ids()
    return record


async def _reported(loop: Loop, ts: str, *needles: str) -> str:
    def probe() -> str | None:
        for reply in loop.slack.replies(CHANNEL, ts):
            if reply.ts != ts and all(n in reply.text for n in needles):
                return reply.text
        return None

    found: str = await wait_until(probe, message=f"a reply in {ts} with {needles}")
    return found


def _reports(loop: Loop, ts: str) -> list[str]:
    return [r.text for r in loop.slack.replies(CHANNEL, ts) if r.ts != ts and "✅" in r.text]


async def test_the_runs_next_matching_approval_is_approved_and_reported_while_others_post(
    loop: Loop,
) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    same = await _approval(loop, step=5)
    other_tool = await _approval(loop, step=6, tool="deploy_rollback")
    other_agent = await _approval(loop, step=7, agent="agt_other")
    other_run = await _approval(loop, step=8, run="run_OTHER")
    await _approved_without_a_message(loop, same)
    reply = await _reported(loop, ts, TOOL, "step 5", "<@U0ADA>")
    assert reply.startswith("✅")
    for posted in (other_tool, other_agent, other_run):
        await loop.shown(posted)
        assert (await loop.api_get(posted))["status"] == "pending"
    assert await loop.metric("novo_slack_allowances_used_total", rule="deploys") == 1


async def test_a_tool_allowance_covers_another_run_of_the_agent(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop, OverflowValue.ALLOW_FOR_HOUR)
    later = await _approval(loop, step=2, run="run_LATER")
    await _approved_without_a_message(loop, later)
    await _reported(loop, ts, TOOL)


async def test_several_in_one_poll_are_one_reply(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    await loop.fault(routes="list", errorRate=1.0, status=503)
    ids = [await _approval(loop, step=step) for step in (11, 12, 13)]
    await loop.fault()
    for interaction_id in ids:
        await _approved_without_a_message(loop, interaction_id)
    reply = await _reported(loop, ts, "step 11", "step 12", "step 13")
    assert reply.count(TOOL) == 3
    assert len(_reports(loop, ts)) == 1


async def test_a_revoke_from_app_home_stops_the_next_one(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    await loop.driver.open_home(GRACE)  # anyone who may decide under the rule may revoke
    home = await wait_until(
        lambda: (
            view
            if (view := loop.slack.home_view(GRACE)) is not None
            and "Allowances in your team's rules" in str(view.blocks)
            else None
        ),
        message="Grace's Home listing the allowance",
    )
    response = await loop.driver.click_view_button(GRACE, home.id, ActionId.REVOKE_ALLOWANCE)
    assert response.status_code == 200
    await loop.shows(ts, "revoked by <@U0GRACE>")
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert (await loop.api_get(after))["status"] == "pending"
    assert await loop.resolve_calls(after) == []


async def test_the_granter_revokes_from_the_granting_message(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    await loop.driver.click_message_button(ADA, CHANNEL, ts, ActionId.REVOKE_ALLOWANCE)
    await loop.shows(ts, "revoked by <@U0ADA>")
    assert ActionId.REVOKE_ALLOWANCE not in str(loop.slack.message(CHANNEL, ts).blocks)
    after = await _approval(loop, step=5)
    await loop.shown(after)


async def test_an_expired_allowance_stops(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    loop.clock.forward(timedelta(hours=4, minutes=1))
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert await loop.resolve_calls(after) == []
    await loop.shows(ts, "expired")


async def test_a_policy_reload_without_allow_standing_stops_it(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    assert loop.settings.config_path is not None
    loop.settings.config_path.write_text(WITHOUT_STANDING, encoding="utf-8")
    assert loop.bridge.reload_policy()
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert await loop.resolve_calls(after) == []
    await loop.shows(ts, "ended: the policy no longer allows it")


async def test_not_offered_without_allow_standing_nor_with_a_quorum(loop: Loop) -> None:
    first = await _approval(loop, step=1)
    ts = await loop.shown(first)
    assert OverflowValue.ALLOW_FOR_RUN not in str(loop.slack.message(CHANNEL, ts).blocks)
    await loop.use_policy(STANDING + "    deciders: {users: [U0ADA, U0GRACE]}\n    quorum: 2\n")
    second = await _approval(loop, step=2)
    ts = await loop.shown(second)
    assert OverflowValue.ALLOW_FOR_RUN not in str(loop.slack.message(CHANNEL, ts).blocks)


async def test_a_restart_does_not_apply_one_use_twice(loop: Loop) -> None:
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    await loop.fault(routes="resolve", errorRate=1.0, status=503)
    later = await _approval(loop, step=5)

    async def used() -> bool:
        events = await _audit(loop, "allowance_used")
        return any(e.interaction_id == later for e in events)

    await wait_until(used, message="the use recorded")
    await loop.restart()
    await loop.fault()
    await _approved_without_a_message(loop, later)
    await _reported(loop, ts, TOOL, "step 5")
    uses = [e for e in await _audit(loop, "allowance_used") if e.interaction_id == later]
    assert len(uses) == 1
    accepted = [c for c in await loop.resolve_calls(later) if c["status"] == 200]
    assert len(accepted) == 1
    assert len(_reports(loop, ts)) == 1


async def _audit(loop: Loop, event: str) -> list[Any]:
    assert loop.bridge.services is not None
    return [e for e in await loop.bridge.services.store.audit_entries() if e.event == event]


async def test_an_approval_novo_refused_grants_nothing(loop: Loop) -> None:
    """Finding: the grant's approval met a 409 (denied elsewhere first), Ada was told so,
    and the allowance still approved the run's next deploy in her name."""
    await loop.use_policy(STANDING)
    first = await _approval(loop, step=1)
    ts = await loop.shown(first)
    await loop.fault(routes=["list", "get"], errorRate=1.0, status=503)  # the bridge can't see it
    denied = await loop.api_resolve(first, _deny(first))
    assert denied.status_code == 200
    response = await loop.driver.choose_overflow(
        ADA, CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.ALLOW_FOR_RUN
    )
    assert response.status_code == 200
    told = await wait_until(
        lambda: [e.text for e in loop.slack.ephemerals(ADA) if "not granted" in e.text],
        message="Ada told the standing approval was not granted",
    )
    assert "differently first" in told[-1]
    # the deny elsewhere, then the bridge's approval
    assert [c["status"] for c in await loop.resolve_calls(first)] == [200, 409]
    await loop.fault()
    await loop.shows(ts, "was not granted")
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert (await loop.api_get(after))["status"] == "pending"
    assert await loop.resolve_calls(after) == []
    assert [e.event for e in await _audit(loop, "allowance_refused")] == ["allowance_refused"]


async def test_a_granter_no_longer_a_decider_approves_nothing_more(loop: Loop) -> None:
    """Finding: after a reload took Ada off the rule's deciders her click was refused, yet
    her allowance kept approving in her name."""
    await loop.use_policy(STANDING + "    deciders: {users: [U0ADA, U0GRACE]}\n")
    ts = await _grant(loop)
    assert loop.settings.config_path is not None
    loop.settings.config_path.write_text(
        STANDING + "    deciders: {users: [U0GRACE]}\n", encoding="utf-8"
    )
    assert loop.bridge.reload_policy()
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert (await loop.api_get(after))["status"] == "pending"
    assert await loop.resolve_calls(after) == []
    assert _reports(loop, ts) == []


async def test_a_lowered_max_shortens_an_allowance_granted_before(loop: Loop) -> None:
    """Finding: lowering a rule's `max` left allowances granted under the old one in force."""
    await loop.use_policy(STANDING)
    await _grant(loop)
    assert loop.settings.config_path is not None
    loop.settings.config_path.write_text(STANDING.replace("4h", "1h"), encoding="utf-8")
    assert loop.bridge.reload_policy()
    loop.clock.forward(timedelta(hours=1, minutes=1))
    after = await _approval(loop, step=5)
    await loop.shown(after)
    assert await loop.resolve_calls(after) == []


async def test_no_use_is_queued_once_a_revoke_is_acknowledged(
    engine_loop: tuple[Loop, str],
) -> None:
    """Finding: a revoke was confirmed while a poll was using the allowance, and most of
    the batch was approved after it. Every use is counted once the person is told it is
    revoked: none may come after that (SQLite's one writer; PostgreSQL's row lock)."""
    loop, _ = engine_loop
    await loop.use_policy(STANDING)
    ts = await _grant(loop)
    await loop.fault(routes="list", errorRate=1.0, status=503)
    batch = [await _approval(loop, step=step) for step in range(10, 70)]
    await loop.fault()
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    (allowance,) = await store.allowances_granted_on(await _first_interaction(loop, ts))

    async def some_used() -> bool:
        return bool(await store.allowance_uses_of(allowance.id))

    await wait_until(some_used, message="the poll using the allowance")
    response = await loop.driver.click_message_button(ADA, CHANNEL, ts, ActionId.REVOKE_ALLOWANCE)
    assert response.status_code == 200
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals(ADA) if e.text.startswith("Revoked")],
        message="Ada told the allowance is revoked",
    )
    at_revoke = len(await store.allowance_uses_of(allowance.id))
    assert at_revoke < len(batch), "the poll was over before the revoke: nothing was tested"

    async def approved() -> set[str]:
        calls = await loop.control.log()
        resolved = {
            c["path"].split("/")[3]
            for c in calls
            if c["method"] == "POST" and c["path"].endswith("/resolve") and c["status"] == 200
        }
        return resolved & set(batch)

    # a poll delivers the approvals it queued once it has gone through all its new ones
    await wait_until(approved, message="the poll's uses delivered")
    uses = {u.interaction_id for u in await store.allowance_uses_of(allowance.id)}
    assert len(uses) == at_revoke
    assert await wait_until(lambda: _same(approved, uses), message="each use delivered")


async def _same(found: Callable[[], Awaitable[set[str]]], expected: set[str]) -> bool:
    return await found() == expected


async def test_a_grant_the_store_could_not_save_in_time_sends_nothing(tmp_path: Path) -> None:
    """Finding: with the allowances table locked by another session, the approval was
    committed inside the ack deadline and the allowance write outside it; Ada was told
    nothing was sent, and the approval went out anyway."""
    async with fresh_database() as url, open_loop(tmp_path, url) as loop:
        await loop.use_policy(STANDING)
        first = await _approval(loop, step=1)
        ts = await loop.shown(first)
        held, done = asyncio.Event(), asyncio.Event()
        holder = asyncio.ensure_future(hold_the_store(loop, url, held, done, "allowances"))
        await held.wait()
        try:
            response = await loop.driver.choose_overflow(
                ADA, CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.ALLOW_FOR_RUN
            )
            assert response.status_code == 200
            await wait_until(
                lambda: [e for e in loop.slack.ephemerals(ADA) if "nothing was sent" in e.text],
                message="Ada told nothing was sent",
            )
        finally:
            done.set()
            await holder
        await loop.driver.click_message_button(GRACE, CHANNEL, ts, ActionId.APPROVE)
        record = await loop.api_get_final(first)
        assert record["reason"] == "Approved in Slack by U0GRACE (Grace Hopper)"
        assert len(await loop.resolve_calls(first)) == 1
        assert loop.bridge.services is not None
        assert await loop.bridge.services.store.allowances_granted_on(first) == []


async def _first_interaction(loop: Loop, ts: str) -> str:
    message = loop.slack.message(CHANNEL, ts)
    assert message is not None and message.metadata is not None
    return str(message.metadata["event_payload"]["interaction_id"])


def _deny(interaction_id: str) -> dict[str, Any]:
    return {
        "inputResponses": [{"requestId": interaction_id, "optionId": "deny"}],
        "reason": "denied elsewhere",
    }
