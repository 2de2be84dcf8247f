"""The send lanes' promises, with real sends (coroutines that record when they ran)."""

from __future__ import annotations

import asyncio
import itertools
import time

from bot.messages.lanes import Send, SendKind, SendLanes
from tests.support import bounded

FAST = 1_000.0  # posts per second: no pacing in the way of an ordering test


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, float]] = []
        self.gate = asyncio.Event()
        self.gate.set()

    def send(self, channel: str, what: str, *, hold: bool = False) -> Send:
        async def run() -> None:
            if hold:
                await self.gate.wait()
            self.sent.append((channel, what, time.monotonic()))

        return run

    def order(self, channel: str) -> list[str]:
        return [what for c, what, _ in self.sent if c == channel]


async def test_decisions_and_endings_go_before_posts_and_posts_soonest_expiring_first() -> None:
    lanes = SendLanes(post_rate=FAST, update_rate_per_minute=6_000)
    rec = Recorder()
    rec.gate.clear()
    lanes.submit("C1", SendKind.POST, "first", rec.send("C1", "first", hold=True), expires_at=1)
    await asyncio.sleep(0)  # the worker takes "first" and waits on the gate
    lanes.submit("C1", SendKind.COSMETIC_UPDATE, "a", rec.send("C1", "countdown a"))
    lanes.submit("C1", SendKind.POST, "late", rec.send("C1", "post late"), expires_at=300)
    lanes.submit("C1", SendKind.POST, "soon", rec.send("C1", "post soon"), expires_at=60)
    lanes.submit("C1", SendKind.URGENT_UPDATE, "b", rec.send("C1", "decision b"))
    rec.gate.set()
    await bounded(lanes.idle(), 5)
    assert rec.order("C1") == ["first", "decision b", "post soon", "post late", "countdown a"]


async def test_one_message_is_queued_once_and_urgent_replaces_cosmetic() -> None:
    lanes = SendLanes(post_rate=FAST, update_rate_per_minute=6_000)
    rec = Recorder()
    rec.gate.clear()
    lanes.submit("C1", SendKind.POST, "x", rec.send("C1", "hold", hold=True))
    await asyncio.sleep(0)
    lanes.submit("C1", SendKind.COSMETIC_UPDATE, "m", rec.send("C1", "cosmetic m"))
    lanes.submit("C1", SendKind.COSMETIC_UPDATE, "m", rec.send("C1", "cosmetic m again"))
    lanes.submit("C1", SendKind.URGENT_UPDATE, "m", rec.send("C1", "urgent m"))
    lanes.submit("C1", SendKind.COSMETIC_UPDATE, "m", rec.send("C1", "cosmetic m late"))
    assert lanes.depth("C1") == 1
    assert lanes.queued() == {("C1", "m")}  # "x" is being sent: a poll may queue it again
    rec.gate.set()
    await bounded(lanes.idle(), 5)
    assert rec.order("C1") == ["hold", "urgent m"]


async def test_posts_are_paced_per_channel_and_a_busy_channel_holds_up_no_other() -> None:
    lanes = SendLanes(post_rate=20.0, update_rate_per_minute=6_000)
    rec = Recorder()
    began = time.monotonic()
    for n in range(13):  # 3 at once (the burst), then 10 at 20 a second: about 0.5 s
        lanes.submit("C_BUSY", SendKind.POST, f"p{n}", rec.send("C_BUSY", f"p{n}"))
    lanes.submit("C_QUIET", SendKind.POST, "q", rec.send("C_QUIET", "q"))
    await bounded(lanes.idle(), 5)
    busy = [at - began for c, _, at in rec.sent if c == "C_BUSY"]
    quiet = [at - began for c, _, at in rec.sent if c == "C_QUIET"]
    assert quiet[0] < busy[4]  # not behind the busy channel's queue
    assert busy[-1] >= 0.45  # paced: 10 posts beyond the burst at 20/s
    # never faster than Slack's bucket allows: in any stretch of time, at most the
    # burst plus the rate times its length (a late send may be followed at once by the
    # next, whose token had meanwhile come: that is within the limit, not beyond it)
    for i, j in itertools.combinations(range(len(busy)), 2):
        assert j - i + 1 <= 3 + 20.0 * (busy[j] - busy[i]) + 0.1, (i, j, busy)


async def test_a_countdown_waits_for_the_update_budget_but_a_decision_does_not() -> None:
    lanes = SendLanes(post_rate=FAST, update_rate_per_minute=60)  # 1 a second, burst of 6
    rec = Recorder()
    for n in range(6):  # spend the whole burst
        lanes.submit("C1", SendKind.COSMETIC_UPDATE, f"c{n}", rec.send("C1", f"c{n}"))
    await bounded(lanes.idle(), 5)
    began = time.monotonic()
    lanes.submit("C1", SendKind.COSMETIC_UPDATE, "late", rec.send("C1", "countdown"))
    lanes.submit("C2", SendKind.URGENT_UPDATE, "d", rec.send("C2", "decision"))
    await bounded(lanes.idle(), 5)
    at = {what: t - began for _, what, t in rec.sent if what in ("countdown", "decision")}
    assert at["countdown"] >= 0.5  # waited for a token
    assert at["decision"] < at["countdown"]  # and the decision did not


async def test_a_failing_send_does_not_stop_its_lane() -> None:
    lanes = SendLanes(post_rate=FAST, update_rate_per_minute=6_000)
    rec = Recorder()

    async def boom() -> None:
        raise RuntimeError("slack said no")

    lanes.submit("C1", SendKind.POST, "bad", boom)
    lanes.submit("C1", SendKind.POST, "good", rec.send("C1", "good"))
    await bounded(lanes.idle(), 5)
    assert rec.order("C1") == ["good"]


async def test_a_big_groups_cards_take_turns_with_other_posts() -> None:
    lanes = SendLanes(post_rate=FAST, update_rate_per_minute=6_000)
    rec = Recorder()
    rec.gate.clear()
    lanes.submit("C1", SendKind.POST, "hold", rec.send("C1", "hold", hold=True), expires_at=1)
    await asyncio.sleep(0)
    for n in range(40):  # one step's cards, all expiring before the newcomers
        lanes.submit(
            "C1", SendKind.POST, f"card{n}", rec.send("C1", f"card{n}"), expires_at=60, flow="g"
        )
    lanes.submit("C1", SendKind.POST, "other", rec.send("C1", "other"), expires_at=3600)
    lanes.submit("C1", SendKind.POST, "another", rec.send("C1", "another"), expires_at=7200)
    rec.gate.set()
    await bounded(lanes.idle(), 5)
    order = rec.order("C1")
    # each newcomer waits behind at most one card; the cards keep their own order
    assert order[:5] == ["hold", "card0", "other", "another", "card1"]
    assert [w for w in order if w.startswith("card")] == [f"card{n}" for n in range(40)]
