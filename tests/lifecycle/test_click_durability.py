"""An acknowledged click is never lost, even to `kill -9` right after the ack.

Slack shows a click as taken once it hears the ack, so the decision must be
in the store's outbox by then. The local Slack answers `users.info` 150 ms
late, as a real workspace can, because a name lookup between the ack and
the write is exactly the window that used to lose clicks.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import API_KEY, CHANNEL, SIGNING_SECRET, Bridge, World
from tests.support import wait_until

ROUNDS = (4, 4, 3, 1)  # clicks acked together before each kill -9
SLOW_USERS_INFO_SECONDS = 0.15


async def _create(world: World) -> str:
    return str((await world.control.create(expiresInSeconds=600))["id"])


def _ts_of(world: World, interaction_id: str) -> str | None:
    for message in world.slack.messages(CHANNEL):
        payload = (message.metadata or {}).get("event_payload") or {}
        if payload.get("interaction_id") == interaction_id:
            return message.ts
    return None


async def _record(world: World, interaction_id: str) -> dict[str, Any]:
    response = await world.http.get(
        f"{world.sim.url}/v1/interactions/{interaction_id}",
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    record: dict[str, Any] = response.json()
    return record


async def _started(world: World) -> tuple[Bridge, str]:
    bridge = await world.run()
    url = await bridge.url()
    await bridge.saw("bridge started")
    return bridge, url


async def test_every_acked_click_reaches_novo_once_across_kill_9(world: World) -> None:
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    world.slack.delay_method("users.info", SLOW_USERS_INFO_SECONDS)
    ids = [await _create(world) for _ in range(sum(ROUNDS))]
    bridge, url = await _started(world)
    shown = {i: await wait_until(lambda i=i: _ts_of(world, i), message=f"{i} posted") for i in ids}
    acked: list[str] = []
    pending = list(ids)
    for size in ROUNDS:
        batch, pending = pending[:size], pending[size:]
        async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
            answers = await asyncio.gather(
                *(
                    driver.click_message_button("U0ADA", CHANNEL, shown[i], ActionId.APPROVE)
                    for i in batch
                )
            )
        await bridge.kill()  # SIGKILL the moment Slack has heard every ack
        acked += [i for i, answer in zip(batch, answers, strict=True) if answer.status_code == 200]
        bridge, url = await _started(world)
    assert len(acked) == len(ids)

    async def all_resolved() -> bool:
        records = [await _record(world, i) for i in acked]
        return all(r["status"] == "resolved" for r in records)

    await wait_until(all_resolved, message="every acked click resolved in Novo")
    for interaction_id in acked:
        record = await _record(world, interaction_id)
        assert record["decision"] == "allow"
        assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
        path = f"/v1/interactions/{interaction_id}/resolve"
        applied = [r for r in await world.sim_log() if r["path"] == path and r["status"] == 200]
        assert len(applied) == 1, f"{interaction_id} resolved {len(applied)} times"


async def test_a_decision_novo_took_before_a_kill_9_is_not_sent_again(world: World) -> None:
    """Novo applied the approval, but the bridge died before hearing so: its outbox still
    holds the decision. After the restart it looks at Novo before sending again, sees its own
    decision recorded there, and closes it, so Novo is asked once."""
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    interaction_id = await _create(world)
    bridge, url = await _started(world)
    ts = await wait_until(lambda: _ts_of(world, interaction_id), message="posted")
    await world.fault(routes="resolve", hang=True, afterApply=True)
    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        answer = await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert answer.status_code == 200

    async def applied() -> bool:
        return bool((await _record(world, interaction_id))["status"] == "resolved")

    await wait_until(applied, message="Novo applied the approval; its answer is held")
    await bridge.kill()
    await world.fault()  # the held answer goes to a process that is gone
    bridge, _ = await _started(world)
    await bridge.saw(rf"Approved {interaction_id} \(U0ADA\)")
    path = f"/v1/interactions/{interaction_id}/resolve"
    asked = [r for r in await world.sim_log() if r["path"] == path]
    assert len(asked) == 1, f"Novo was asked {len(asked)} times: {asked}"
    record = await _record(world, interaction_id)
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
