"""A crash in the middle of a burst: what the restart costs in history walks, and duplicates.

For one channel and for `--channels` channels, `--count` approvals are
opened, the bridge (`novo-slack run`, a process of its own) starts posting
them at `--rate` a second per channel, and is killed with `kill -9` once
`--kill-after` of them are in Slack. A new bridge is started on the same
store; once every approval is in Slack this prints how many claims the
crash left in doubt and in how many channels, the `conversations.history`
and `conversations.replies` calls the restart made (Slack allows about 50 a
minute of each, fewer for some apps), and how many approvals were posted
more than once.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from pathlib import Path

from bench.lanes_rig import accepted_ids, lane_stage
from tests.support import wait_until

LOOKS = ("conversations.history", "conversations.replies")


def _in_doubt(db: Path) -> dict[str, int]:
    """Claims left `posting` by the crash, by channel (read straight from the file)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT channel, count(*) FROM messages WHERE state = 'posting' GROUP BY channel"
        ).fetchall()
    return {str(channel): int(n) for channel, n in rows}


async def scenario(count: int, channels: int, rate: float, kill_after: float) -> None:
    async with lane_stage(count, channels, rate) as stage:
        slack = stage.slack
        async with stage.bridge() as first:
            await wait_until(
                lambda: len(accepted_ids(slack)) >= count * kill_after or None,
                timeout=count / rate + 120,
                message="the burst under way",
            )
            first.kill()
            await first.process.wait()
        before = len(accepted_ids(slack))
        doubt = _in_doubt(stage.db)
        looks_before = {m: len(slack.calls(m)) for m in LOOKS}
        began = time.monotonic()
        async with stage.bridge():
            await wait_until(
                lambda: len(accepted_ids(slack)) >= count or None,
                timeout=count / rate + 120,
                message=f"all {count} posted after the restart",
            )
            took = time.monotonic() - began
            await asyncio.sleep(2.0)  # a second post of anything would show by now
        looks = {m: len(slack.calls(m)) - looks_before[m] for m in LOOKS}
        twice = sum(1 for n in accepted_ids(slack).values() if n > 1)
        walks = sum(looks.values())
        per = walks / len(doubt) if doubt else 0.0
        print(f"  {channels:>3} channel(s), killed after {before} of {count} posted")
        print(
            f"      claims in doubt             {sum(doubt.values()):>6} in {len(doubt)} channel(s)"
        )
        print(f"      conversations.history       {looks['conversations.history']:>6}")
        print(f"      conversations.replies       {looks['conversations.replies']:>6}")
        print(f"      looks per channel in doubt  {per:>6.1f}")
        print(f"      posted more than once       {twice:>6}")
        print(f"      restart to all posted       {took:>6.1f} s")


async def measure(count: int, channels: int, rate: float, kill_after: float) -> None:
    print(f"novo-slack restart: kill -9 during a burst of {count} at {rate:g}/s per channel")
    for lanes in dict.fromkeys((1, channels)):
        await scenario(count, lanes, rate, kill_after)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--channels", type=int, default=10)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--kill-after", type=float, default=0.4, help="share posted at the kill")
    args = parser.parse_args(argv)
    asyncio.run(measure(args.count, args.channels, args.rate, args.kill_after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
