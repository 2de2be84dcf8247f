"""Standing approvals across two replicas on one PostgreSQL database: each use is
recorded once and approves once, even when the replica that took the uses is
killed with their approvals still queued and the other one takes over.

Judged by what Novo saw (one accepted resolve each, with the standing reason),
and what Slack saw (no message for any of them, each reported once in the thread).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.slack.ids import ActionId, OverflowValue
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import _LISTENING, CHANNEL, SIGNING_SECRET, World
from tests.replicas.conftest import POLL_SECONDS, USERS, Replica
from tests.replicas.test_three_replicas import (
    _create,
    _novo_record,
    _posted_ids,
    _resolves,
    _ts_of,
)
from tests.support import PROCESS_TIMEOUT, wait_until

STANDING = (
    "rules:\n"
    "  - name: deploys\n"
    "    match: {toolName: 'deploy_*'}\n"
    "    allow_standing: {max: 4h, scopes: [run, tool]}\n"
)
SAME = {"agentId": "agt_deployer", "toolName": "deploy_status", "runId": "run_7Q2"}
BURST = 6
REASON = re.compile(
    r"^Approved in Slack by standing approval of U0ADA \(.+\), until \d\d:\d\d UTC$"
)


async def _two(world: World, database_url: str, policy: Path) -> list[Replica]:
    for user in USERS:
        world.slack.add_user(*user)
    bridges = [
        await world.run(
            NOVO_SLACK_DB=database_url,
            NOVO_SLACK_POLL_SECONDS=str(POLL_SECONDS),
            NOVO_SLACK_CONFIG=str(policy),
        )
        for _ in range(2)
    ]
    members = []
    for index, bridge in enumerate(bridges):
        url = (await bridge.saw(_LISTENING.pattern, within=PROCESS_TIMEOUT)).group(1)
        driver = SlackDriver(url, SIGNING_SECRET, world.slack, http=world.http)
        members.append(Replica(f"replica-{'AB'[index]}", bridge, url, driver))
    return members


def _requests(log: list[dict[str, object]]) -> list[dict[str, Any]]:
    return [dict(entry) for entry in log]


def _holder(members: list[Replica]) -> Replica | None:
    best: tuple[float, Replica] | None = None
    for member in members:
        if member.alive:
            for at in member.takeovers():
                if best is None or at > best[0]:
                    best = (at, member)
    return best[1] if best else None


async def test_a_killed_replica_and_its_successor_apply_each_use_once(
    world: World, database_url: str, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(STANDING, encoding="utf-8")
    members = await _two(world, database_url, policy)
    try:
        holder = await wait_until(lambda: _holder(members), message="one replica polling")
        other = next(m for m in members if m is not holder)
        first = await _create(world, stepNumber=1, **SAME)
        ts = await wait_until(lambda: _ts_of(world, first), message="the first one posted")
        response = await other.driver.choose_overflow(
            "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.ALLOW_FOR_RUN
        )
        assert response.status_code == 200

        async def approved() -> bool:
            return bool((await _novo_record(world, first))["status"] == "resolved")

        await wait_until(approved, message="the granting approval resolved")

        await world.fault(routes="resolve", errorRate=1.0, status=503)
        ids = [await _create(world, stepNumber=10 + n, **SAME) for n in range(BURST)]

        async def refused_once() -> bool:
            log = _requests(await world.sim_log())
            return all(_resolves(log, i, 503) >= 1 for i in ids)

        # each use asks the decider gate and has a transaction of its own, in a replica
        # process: on a busy machine the burst's uses take a while
        await wait_until(refused_once, timeout=PROCESS_TIMEOUT, message="every use tried once")
        await holder.kill()
        await world.fault()

        async def all_resolved() -> bool:
            records = [await _novo_record(world, i) for i in ids]
            return all(r["status"] == "resolved" for r in records)

        await wait_until(all_resolved, timeout=PROCESS_TIMEOUT, message="every use approved")
        log = _requests(await world.sim_log())
        for interaction_id in ids:
            record = await _novo_record(world, interaction_id)
            assert record["decision"] == "allow"
            assert REASON.match(record["reason"]), record["reason"]
            assert _resolves(log, interaction_id, 200) == 1, f"{interaction_id} twice"
        assert not set(ids) & set(_posted_ids(world)), "an allowed one got a message"

        def replies() -> str:
            return "\n".join(r.text for r in world.slack.replies(CHANNEL, ts) if r.ts != ts)

        await wait_until(
            lambda: all(f"step {10 + n})" in replies() for n in range(BURST)),
            message="every use reported in the thread",
        )
        for n in range(BURST):
            assert replies().count(f"step {10 + n})") == 1, replies()
    finally:
        for member in members:
            await member.bridge.kill()
