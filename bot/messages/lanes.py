"""Paced send lanes: how messages reach Slack without tripping its rate limits.

Agents pause in bursts (one deploy pipeline can open a hundred approvals in
a second), and Slack allows about one `chat.postMessage` per second per
channel and about fifty `chat.update` a minute per workspace. Letting 429s
do the pacing stalls everything behind a `Retry-After`; so sends are paced
*before* Slack complains:

- one lane per channel (a DM is a channel), each with a worker of its own, so
  a busy channel never holds up another and a 429's wait (slack_sdk sleeps
  through `Retry-After` inside the call) pauses only its lane;
- posts are paced per lane by a token bucket (`post_rate` per second, with a
  small burst);
- updates share one workspace-wide bucket (`update_rate` per minute): an
  update that shows a decision or an ending never waits for it (nor for a
  cosmetic one), a countdown rewording waits its turn;
- within a lane: decisions and endings first, then new posts, then cosmetic
  updates;
- new posts take turns by flow (a step group's cards are one flow, any other
  interaction a flow of its own): each flow's next post waits behind at most
  one post of every other flow, so an approval arriving beside a group of 400
  cards is posted next, not after them; within a turn the soonest expiring
  goes first. (Start-time fair queueing: a post's turn is one past the later
  of its flow's last turn and the turn being sent now.)

Callers never wait on a lane: `submit` queues and returns. What is queued is
only a reminder to act; the truth stays in the store (a claimed post, a
message out of step), so a restart loses nothing: the next poll queues it
again. Work on one message is queued once (a second request is dropped, an
urgent one replaces a cosmetic one).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import IntEnum

from bot.metrics import LANE_DEPTH
from bot.outages import level

log = logging.getLogger(__name__)

POST_BURST = 3.0  # posts a quiet channel may send at once before pacing starts
UPDATE_BURST_SHARE = 0.1  # of a minute's update budget usable at once


class SendKind(IntEnum):
    """Lane order: lower goes first."""

    URGENT_UPDATE = 0  # shows a decision, an ending, a changed deadline
    POST = 1
    COSMETIC_UPDATE = 2  # a countdown rewording


Send = Callable[[], Awaitable[None]]


class TokenBucket:
    """`rate` tokens a second, at most `burst` saved up; may be overdrawn by urgent sends."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self._rate = rate
        self._burst = max(1.0, burst)
        self._clock = clock
        self._tokens = self._burst
        self._at = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now

    def wait_time(self) -> float:
        """Seconds until a whole token is there (0: now)."""
        self._refill()
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self._rate

    def take(self) -> None:
        self._refill()
        self._tokens -= 1.0


@dataclass(order=True)
class _Queued:
    kind: int
    turn: int  # posts: the flow's turn (see the module docstring); else 0
    order: float  # for posts: when it expires (epoch seconds); else arrival
    seq: int
    key: tuple[str, SendKind] = field(compare=False)
    send: Send = field(compare=False)
    dropped: bool = field(default=False, compare=False)


class _Lane:
    def __init__(self, channel: str, lanes: SendLanes) -> None:
        self.channel = channel
        self._lanes = lanes
        self._heap: list[_Queued] = []
        self._by_message: dict[str, _Queued] = {}
        self._arrived = asyncio.Event()
        self._turn = 0  # the turn of the post sent last
        self._flow_turns: dict[str, int] = {}  # each flow's latest turn given
        self.post_bucket = lanes.post_bucket(channel)
        self.worker: asyncio.Task[None] | None = None
        self._depth_shown = LANE_DEPTH.labels(channel)  # looked up once, set on every send

    def depth(self) -> int:
        return len(self._by_message)

    def waiting(self) -> list[str]:
        return list(self._by_message)

    def add(
        self, kind: SendKind, interaction_id: str, send: Send, order: float, flow: str | None
    ) -> None:
        queued = self._by_message.get(interaction_id)
        if queued is not None:
            if kind is SendKind.POST or queued.kind <= kind:
                return  # already queued, at least as soon
            queued.dropped = True  # an urgent update replaces a cosmetic one
        turn = 0
        if kind is SendKind.POST:
            key = flow or interaction_id
            turn = max(self._turn, self._flow_turns.get(key, 0)) + 1
            self._flow_turns[key] = turn
        item = _Queued(kind, turn, order, next(self._lanes.seq), (interaction_id, kind), send)
        self._by_message[interaction_id] = item
        heapq.heappush(self._heap, item)
        self._arrived.set()
        self._depth_shown.set(self.depth())

    def _top(self) -> _Queued | None:
        while self._heap and self._heap[0].dropped:
            heapq.heappop(self._heap)
        return self._heap[0] if self._heap else None

    async def run(self) -> None:
        """Send until the lane is empty, then end (a new item starts a new worker)."""
        while (item := self._top()) is not None:
            delay = self._delay(item)
            if delay > 0:
                self._arrived.clear()
                # a more urgent arrival may jump the queue while we wait
                try:
                    async with asyncio.timeout(delay):
                        await self._arrived.wait()
                except TimeoutError:
                    pass
                continue
            heapq.heappop(self._heap)
            if item.kind == SendKind.POST:
                self._turn = max(self._turn, item.turn)
                self._forget_flows()
            if self._by_message.get(item.key[0]) is item:
                del self._by_message[item.key[0]]
            self._depth_shown.set(self.depth())
            self._charge(item)
            try:
                await item.send()
            except Exception as exc:  # the store still says what is owed; the next poll
                # re-queues it. Slack or the store out of reach is their outage's to say.
                quiet = level(exc) < logging.WARNING
                log.log(
                    logging.DEBUG if quiet else logging.ERROR,
                    "send on lane %s for %s failed: %r",
                    self.channel,
                    item.key[0],
                    exc,
                    exc_info=not quiet,
                )

    def _forget_flows(self) -> None:
        """A flow whose turns are all behind the lane's needs no entry: its next post
        starts from the lane's turn anyway (keeps the map as small as what is queued)."""
        if len(self._flow_turns) > 2 * len(self._by_message) + 16:
            self._flow_turns = {f: t for f, t in self._flow_turns.items() if t > self._turn}

    def _delay(self, item: _Queued) -> float:
        if item.kind == SendKind.URGENT_UPDATE:
            return 0.0
        if item.kind == SendKind.POST:
            return self.post_bucket.wait_time()
        return self._lanes.update_bucket.wait_time()

    def _charge(self, item: _Queued) -> None:
        if item.kind == SendKind.POST:
            self.post_bucket.take()
        else:
            self._lanes.update_bucket.take()


class SendLanes:
    """Every lane of this process; `submit` never waits."""

    def __init__(
        self,
        post_rate: float,
        update_rate_per_minute: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.post_rate = post_rate
        self.clock = clock
        per_second = update_rate_per_minute / 60.0
        self.update_bucket = TokenBucket(
            per_second, update_rate_per_minute * UPDATE_BURST_SHARE, clock
        )
        self.seq = itertools.count()
        self._lanes: dict[str, _Lane] = {}
        # kept when a lane empties: a fresh full bucket would let a burst through again
        self._post_buckets: dict[str, TokenBucket] = {}
        self._closed = False

    def post_bucket(self, channel: str) -> TokenBucket:
        bucket = self._post_buckets.get(channel)
        if bucket is None:
            bucket = self._post_buckets[channel] = TokenBucket(
                self.post_rate, POST_BURST, self.clock
            )
        return bucket

    def submit(
        self,
        channel: str,
        kind: SendKind,
        interaction_id: str,
        send: Send,
        *,
        expires_at: float | None = None,
        flow: str | None = None,
    ) -> None:
        """Queue a send. A post's `flow` names what it takes turns as (a step group);
        without one it is a flow of its own."""
        if self._closed:
            return
        lane = self._lanes.get(channel)
        if lane is None:
            lane = self._lanes[channel] = _Lane(channel, self)
        order = expires_at if kind is SendKind.POST and expires_at is not None else time.time()
        lane.add(kind, interaction_id, send, order, flow)
        if lane.worker is None or lane.worker.done():
            lane.worker = asyncio.get_running_loop().create_task(self._work(lane))

    async def _work(self, lane: _Lane) -> None:
        try:
            await lane.run()
        finally:
            if lane.depth() == 0 and self._lanes.get(lane.channel) is lane:
                del self._lanes[lane.channel]

    def queued(self) -> set[tuple[str, str]]:
        """(channel, key) of everything queued and not yet sent: a poll need not build
        again what its lanes already have in hand."""
        lanes = self._lanes.values()
        return {(lane.channel, key) for lane in lanes for key in lane.waiting()}

    def depth(self, channel: str | None = None) -> int:
        lanes = self._lanes.values() if channel is None else [self._lanes.get(channel)]
        return sum(lane.depth() for lane in lanes if lane is not None)

    async def idle(self) -> None:
        """Return once every lane is empty (tests and benchmarks)."""
        while any(lane.worker and not lane.worker.done() for lane in list(self._lanes.values())):
            workers = [lane.worker for lane in self._lanes.values() if lane.worker]
            await asyncio.wait(workers)

    async def close(self, timeout: float) -> None:
        """Stop taking work; let sends under way finish within `timeout`, then cancel."""
        self._closed = True
        workers = [lane.worker for lane in self._lanes.values() if lane.worker]
        if not workers:
            return
        _, late = await asyncio.wait(workers, timeout=timeout)
        for worker in late:
            worker.cancel()
        if late:
            await asyncio.wait(late, timeout=1.0)
