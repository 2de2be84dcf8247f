"""A step group of hundreds of cards in one channel, and one unrelated approval beside it.

One agent step can pause on hundreds of tool calls at once: one group
message, and a card per call in its thread, posted at the channel's pace
(Slack allows about one post a second). An approval that has nothing to do
with that step, created a few seconds later in the same channel, must not
wait behind the whole group. This runs the bridge at production pace
(`--post-rate` 1/s per channel, `--poll-seconds` 2), creates `--siblings`
approvals of one step (found by one poll), then `--after` seconds later one
unrelated approval, and watches for `--watch` seconds. It prints when the
unrelated approval was posted, how many cards went out and at what pace,
and how long re-rendering the group message took (the store reads behind
it, per refresh).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from bench.harness import CHANNEL, Rig, running_rig
from tests.support import wait_until

GROUP_EVENT = "novo_step_group"


def _posted(rig: Rig) -> list[tuple[float, dict[str, Any]]]:
    """(when, metadata payload) of every post Slack accepted, oldest first."""
    found = []
    for call in rig.slack.calls("chat.postMessage"):
        metadata = call.args.get("metadata")
        if call.ok and isinstance(metadata, dict):
            found.append((call.at, metadata))
    return found


def _cards(rig: Rig, siblings: set[str]) -> list[float]:
    return [
        at
        for at, metadata in _posted(rig)
        if metadata.get("event_payload", {}).get("interaction_id") in siblings
    ]


async def _create_siblings(rig: Rig, count: int) -> set[str]:
    """`count` approvals of one step, created while listing fails, so one poll finds all."""
    await rig.control.faults(routes="list", errorRate=1.0, status=503)
    created = set()
    for n in range(count):
        created.add(
            await rig.create_approval(
                runId="run_big",
                stepNumber=3,
                agentId="agt_release",
                toolName=f"deploy_{n:04d}",
                expiresInSeconds=3600,
            )
        )
    await rig.control.faults()
    return created


async def measure(siblings: int, after: float, watch: float, post_rate: float, poll: float) -> None:
    async with running_rig(poll, post_rate=post_rate) as rig:
        await wait_until(lambda: rig.jobs.leading or None, timeout=10, message="leading")
        group = await _create_siblings(rig, siblings)
        listed_at = time.time()  # the next poll finds them all
        await asyncio.sleep(after)
        unrelated = await rig.create_approval(toolName="read_logs", expiresInSeconds=7200)
        created_at = time.time()

        def unrelated_posted() -> float | None:
            for at, metadata in _posted(rig):
                if metadata.get("event_payload", {}).get("interaction_id") == unrelated:
                    return at
            return None

        try:
            posted_at: float | None = await wait_until(
                unrelated_posted, timeout=watch, message="the unrelated approval posted"
            )
        except TimeoutError:
            posted_at = None
        remaining = watch - (time.time() - created_at)
        if remaining > 0:
            await asyncio.sleep(remaining)
        cards = _cards(rig, group)
        group_posts = [at for at, m in _posted(rig) if m.get("event_type") == GROUP_EVENT]
        updates = len([c for c in rig.slack.calls("chat.update") if c.ok])
        span = (cards[-1] - cards[0]) if len(cards) > 1 else float("nan")
        pace = (len(cards) - 1) / span if len(cards) > 1 else float("nan")
        print(
            f"novo-slack big group: {siblings} siblings, an unrelated approval {after:g}s later;"
            f" post rate {post_rate:g}/s per channel, poll every {poll:g}s, watched {watch:g}s"
        )
        if posted_at is None:
            print(f"  unrelated approval posted      not within {watch:.0f} s of its creation")
        else:
            print(
                f"  unrelated approval posted      {posted_at - created_at:>8.2f} s after creation"
            )
        if group_posts:
            print(f"  group message posted           {group_posts[0] - listed_at:>8.2f} s")
        print(f"  cards posted                   {len(cards):>8} of {siblings}")
        print(
            f"  cards' pace                    {pace:>8.2f} /s (the channel allows {post_rate:g}/s)"
        )
        print(f"  chat.update calls              {updates:>8}")
        print(f"  (channel {CHANNEL})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--siblings", type=int, default=400)
    parser.add_argument("--after", type=float, default=3.0)
    parser.add_argument("--watch", type=float, default=60.0)
    parser.add_argument("--post-rate", type=float, default=1.0)
    parser.add_argument("--poll-seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    asyncio.run(measure(args.siblings, args.after, args.watch, args.post_rate, args.poll_seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
