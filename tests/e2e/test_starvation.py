"""One slow thing never starves the rest, and shutdown never waits on it.

Polling, redelivering queued decisions and refreshing messages run as
independent jobs: a listing that never ends (a server handing out fresh
cursors forever) or that takes 30 s must not keep a queued decision from
being delivered, and `Bridge.stop()` returns within 10 s regardless.
"""

from __future__ import annotations

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import bounded, wait_until


async def _queue_a_decision(loop: Loop) -> str:
    """An approval clicked while Novo refuses resolves: the decision waits in the outbox."""
    created = await loop.create("approval_request", expiresInSeconds=600)
    ts = await loop.shown(created["id"])
    await loop.fault(routes="resolve", errorRate=1.0, status=503)
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(
        lambda: loop.slack.ephemerals("U0ADA"), message="the clicker told it is queued"
    )
    return str(created["id"])


async def _resolved_in_novo(loop: Loop, interaction_id: str) -> None:
    async def resolved() -> bool:
        return bool((await loop.api_get(interaction_id))["status"] == "resolved")

    await wait_until(resolved, message=f"{interaction_id} resolved in Novo")


async def _stops_in_time(loop: Loop) -> None:
    """The listing never ends by itself: a stop that waited on it would never return, so the
    wait's generous bound tells the two apart."""
    await bounded(loop.bridge.stop())


async def test_endless_cursors_neither_starve_redelivery_nor_block_stop(loop: Loop) -> None:
    interaction_id = await _queue_a_decision(loop)
    # resolves work again, but every listing now claims one more page, forever
    await loop.fault(routes="list", endlessCursors=True)
    await _resolved_in_novo(loop, interaction_id)

    async def a_poll_gave_up() -> bool:
        return await loop.metric('novo_slack_polls_total{result="failed"}') >= 1

    await wait_until(a_poll_gave_up, message="a poll abandoned at the page cap")
    await _stops_in_time(loop)


async def test_a_30_second_listing_neither_starves_redelivery_nor_blocks_stop(
    loop: Loop,
) -> None:
    interaction_id = await _queue_a_decision(loop)
    await loop.fault(routes="list", latencyMs=30_000)
    await _resolved_in_novo(loop, interaction_id)
    await _stops_in_time(loop)
