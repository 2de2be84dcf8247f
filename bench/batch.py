"""`python -m bench.batch`: Approve all on a step group, against one click per card.

For each size, `size` sibling approvals of one run's step are created while
the bridge can't list them (so one poll finds them all and they form one
group), posted, then approved: once with a single Approve all on the group
message, and once more, on a fresh group, with one Approve click per card.
Figures: the click's ack, the time until Novo has resolved every sibling,
and how many resolve calls Novo received. Timings are the clock of this
process around the servers' own answers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from bench.harness import API_KEY, CHANNEL, USER_ID, Rig, running_rig
from bot.slack.ids import ActionId
from novo_dev.localslack.records import StoredMessage
from tests.support import wait_until

SIZES = (20, 60, 100)
POST_RATE = 100.0  # posts a second per channel: the bench measures deciding, not posting
WITHIN_SECONDS = 120.0


async def _siblings(rig: Rig, run: str, size: int) -> list[str]:
    await rig.control.faults(routes="list", errorRate=1.0, status=503)
    ids = [
        await rig.create_approval(runId=run, stepNumber=1, toolName=f"deploy_{n:03d}")
        for n in range(size)
    ]
    await rig.control.faults()
    return ids


def _group(rig: Rig, run: str) -> StoredMessage | None:
    for message in rig.slack.messages(CHANNEL):
        payload = (message.metadata or {}).get("event_payload") or {}
        if str(payload.get("group_id", "")).startswith(f"{run}#"):
            return message
    return None


def _cards(rig: Rig, group: StoredMessage) -> list[StoredMessage]:
    return [m for m in rig.slack.replies(CHANNEL, group.ts) if m.metadata]


async def _resolve_calls(rig: Rig) -> int:
    return sum(
        1 for r in await rig.sim_log() if r["method"] == "POST" and r["path"].endswith("/resolve")
    )


def _offers_all(group: StoredMessage, size: int) -> bool:
    return any(
        element.get("action_id") == ActionId.APPROVE_ALL and f"({size})" in str(element)
        for block in group.blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    )


async def _ready(rig: Rig, run: str, size: int) -> StoredMessage:
    async def probe() -> StoredMessage | None:
        group = _group(rig, run)
        if group is None or len(_cards(rig, group)) < size:
            return None
        # the group offers Approve all only once every card is out, on its next re-render
        return group if _offers_all(rig.slack.message(CHANNEL, group.ts), size) else None

    group: StoredMessage = await wait_until(
        probe, timeout=WITHIN_SECONDS, message=f"{size} cards under the group"
    )
    return group


async def _all_resolved(rig: Rig, ids: list[str]) -> None:
    async def probe() -> bool | None:
        statuses = await asyncio.gather(*(_status(rig, i) for i in ids))
        return all(s == "resolved" for s in statuses) or None

    await wait_until(probe, timeout=WITHIN_SECONDS, message=f"{len(ids)} resolved")


async def _status(rig: Rig, interaction_id: str) -> Any:
    response = await rig.http.get(
        f"{rig.sim.url}/v1/interactions/{interaction_id}",
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    return response.json().get("status") if response.status_code == 200 else None


async def measure(size: int) -> list[str]:
    rows: list[str] = []
    async with running_rig(0.5, post_rate=POST_RATE) as rig:
        for way in ("approve all", "one click each"):
            run = f"run_{way.replace(' ', '_')}_{size}"
            ids = await _siblings(rig, run, size)
            group = await _ready(rig, run, size)
            await rig.clear_sim_log()
            started = time.perf_counter()
            if way == "approve all":
                response = await rig.driver.click_message_button(
                    USER_ID, CHANNEL, group.ts, ActionId.APPROVE_ALL
                )
                acked = time.perf_counter() - started
                assert response.status_code == 200
            else:
                acked = 0.0
                for card in _cards(rig, group):
                    begun = time.perf_counter()
                    response = await rig.driver.click_message_button(
                        USER_ID, CHANNEL, card.ts, ActionId.APPROVE
                    )
                    assert response.status_code == 200
                    acked = max(acked, time.perf_counter() - begun)
            await _all_resolved(rig, ids)
            total = time.perf_counter() - started
            calls = await _resolve_calls(rig)
            rows.append(
                f"{size:>5}  {way:<15} {acked * 1000:>9.1f} {total * 1000:>12.1f} {calls:>8}"
            )
    return rows


async def main(sizes: tuple[int, ...]) -> int:
    print(f"{'items':>5}  {'how':<15} {'ack ms':>9} {'all done ms':>12} {'calls':>8}")
    print("-" * 54)
    for size in sizes:
        for row in await measure(size):
            print(row, flush=True)
    print("(ack: the Approve all click's, or the slowest of the single clicks)")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    sys.exit(asyncio.run(main(tuple(parser.parse_args().sizes))))
