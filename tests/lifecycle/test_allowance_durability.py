"""A standing approval's use is never applied without its audit event, even across kill -9.

Finding 6: killed while a poll used an allowance on many approvals, the bridge came
back, redelivered the uses it had queued, and Novo applied approvals the trail had no
`allowance_used` event for (the event was written after the use's transaction). Here
the bridge is killed each time the store shows a poll's uses under way; whatever Novo
ends up approving by the allowance must each have its event in the trail.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.slack.ids import ActionId, OverflowValue
from bot.store import Store
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import CHANNEL, SIGNING_SECRET, Bridge, World
from tests.lifecycle.test_click_durability import _record, _started, _ts_of
from tests.support import wait_until

STANDING = (
    "rules:\n"
    "  - name: deploys\n"
    "    match: {toolName: 'deploy_*'}\n"
    "    allow_standing: {max: 4h, scopes: [run, tool]}\n"
)
RUN = "run_K9"
ROUNDS = (12, 12, 12)  # approvals created together before each kill -9
STANDING_REASON = "Approved in Slack by standing approval of U0ADA"


async def _approval(world: World, step: int) -> str:
    created = await world.control.create(
        "approval_request",
        agentId="agt_deployer",
        toolName="deploy_status",
        runId=RUN,
        stepNumber=step,
        expiresInSeconds=3600,
    )
    return str(created["id"])


def _uses(db: Path) -> int:
    """How many uses the store has committed (read beside the running bridge)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as connection:
        return int(connection.execute("SELECT count(*) FROM allowance_uses").fetchone()[0])


async def _kill_during_uses(bridge: Bridge, db: Path, before: int) -> None:
    """SIGKILL the bridge the moment the store shows a use this poll made."""

    async def started() -> bool:
        return await asyncio.to_thread(_uses, db) > before

    await wait_until(started, message="a poll using the allowance")
    await bridge.kill()


async def test_every_approval_by_an_allowance_is_audited_across_kill_9(
    world: World, tmp_path: Path
) -> None:
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    policy = tmp_path / "policy.yml"
    policy.write_text(STANDING, encoding="utf-8")
    world.env["NOVO_SLACK_CONFIG"] = str(policy)
    db = tmp_path / "bridge.db"
    bridge, url = await _started(world)
    first = await _approval(world, 1)
    ts = await wait_until(lambda: _ts_of(world, first), message="the first approval posted")
    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        answer = await driver.choose_overflow(
            "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.ALLOW_FOR_RUN
        )
    assert answer.status_code == 200

    async def granted() -> bool:
        return bool((await _record(world, first))["status"] == "resolved")

    await wait_until(granted, message="the granting approval reached Novo")

    created: list[str] = []
    step = 2
    for size in ROUNDS:
        before = await asyncio.to_thread(_uses, db)
        batch = await asyncio.gather(*(_approval(world, step + n) for n in range(size)))
        step += size
        created += batch
        await _kill_during_uses(bridge, db, before)
        bridge, url = await _started(world)

    async def all_approved() -> bool:
        records = [await _record(world, i) for i in created]
        return all(r["status"] == "resolved" for r in records)

    await wait_until(all_approved, message="every later approval resolved in Novo")
    by_allowance = [
        i
        for i in created
        if str((await _record(world, i)).get("reason", "")).startswith(STANDING_REASON)
    ]
    await bridge.kill()
    async with await Store.open_reader(db) as store:
        used = {
            e.interaction_id for e in await store.audit_entries() if e.event == "allowance_used"
        }
    assert by_allowance, "no approval was taken by the allowance"
    missing = [i for i in by_allowance if i not in used]
    assert not missing, f"approved by the allowance with no allowance_used event: {missing}"
