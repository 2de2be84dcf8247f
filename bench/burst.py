"""A burst of approvals against Slack's per-channel pace: posted once each, fast, no 429s.

One deploy pipeline can open a hundred approvals in a second. This opens
`--count` approvals spread over `--channels` channels (agent N's go to
channel N by a policy rule per agent), with the bridge's
`NOVO_SLACK_POST_RATE` and the local Slack's per-channel limit both at
`--rate` posts a second (the local Slack allows a burst of 5, as Slack's
"short bursts" do), then starts the bridge in a process of its own and
prints how long the posting took, the pace reached by all channels together
and by the slowest one against the allowed one, how many 429s Slack
answered, whether every interaction was posted exactly once, and how many
posts the bridge made per CPU-second it used while posting.

Then, in the same run and against the same local Slack, the floor (`bench.floor`): the
same number of cards built as dicts, sent with slack_sdk's async client over one
keep-alive session and recorded as one SQLite row each, in a process of its own at the
same pace; it prints the floor's posts per CPU-second and the bridge's cost against it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bench.lanes_rig import SLACK_BURST, accepted_ids, channel_names, cpu_seconds, lane_stage
from tests.support import wait_until


async def measure(count: int, channels: int, rate: float) -> None:
    names = channel_names(channels)
    async with lane_stage(count, channels, rate) as stage:
        slack = stage.slack
        async with stage.bridge() as bridge:
            await wait_until(lambda: accepted_ids(slack) or None, timeout=180, message="first post")
            cpu_at_first = cpu_seconds(bridge.pid)
            await wait_until(
                lambda: len(accepted_ids(slack)) >= count or None,
                timeout=count / rate + 120,
                message=f"{count} posts",
            )
            cpu = cpu_seconds(bridge.pid) - cpu_at_first
            await asyncio.sleep(1.0)  # a second post of anything would show by now
        calls = slack.calls("chat.postMessage")
        accepted = [c for c in calls if c.ok]
        limited = [c for c in calls if c.status == 429]
        ids = accepted_ids(slack)
        span = accepted[-1].at - accepted[0].at
        per_channel = count / channels
        ideal = max(0.0, (per_channel - SLACK_BURST) / rate)
        overall = (len(accepted) - channels * SLACK_BURST) / span if span > 0 else float("nan")
        rates = []
        for name in names:
            times = sorted(c.at for c in accepted if c.args.get("channel") == name)
            if len(times) > SLACK_BURST + 1:  # the steady pace, after the burst allowance
                rates.append((len(times) - SLACK_BURST - 1) / (times[-1] - times[SLACK_BURST]))
        reached = min(rates) if rates else float("nan")
        allowed = rate * channels
        print(f"novo-slack burst: {count} approvals over {channels} channels at {rate:g}/s each")
        print(f"  posted (accepted)             {len(accepted):>8}")
        print(f"  posted more than once         {sum(1 for v in ids.values() if v > 1):>8}")
        print(f"  429 answers                   {len(limited):>8}")
        print(f"  first to last post            {span:>8.2f} s   (ideal about {ideal:.2f} s)")
        print(
            f"  all channels' pace            {overall:>8.1f} /s (allowed {allowed:g}/s,"
            f" {overall / allowed:.2f} of it)"
        )
        print(
            f"  slowest channel's pace        {reached:>8.1f} /s (allowed {rate:g}/s,"
            f" {reached / rate:.2f} of it)"
        )
        per_cpu = len(accepted) / cpu if cpu > 0 else float("nan")
        print(f"  bridge CPU while posting      {cpu:>8.2f} s   ({per_cpu:.0f} posts per CPU-s)")
        floor_posts, floor_cpu = await run_floor(slack.api_url, slack.bot_token, names, count, rate)
        floor_per_cpu = floor_posts / floor_cpu if floor_cpu > 0 else float("nan")
        print(
            f"  floor CPU while posting       {floor_cpu:>8.2f} s   ({floor_per_cpu:.0f} posts per"
            f" CPU-s, {floor_posts} accepted)"
        )
        print(f"  bridge's cost per post        {floor_per_cpu / per_cpu:>8.1f} x the floor's")


async def run_floor(
    api_url: str, token: str, channels: list[str], count: int, rate: float
) -> tuple[int, float]:
    """`bench.floor` in a process of its own (its CPU is its own, as the bridge's is)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bench.floor", "--api-url", api_url, "--token", token),
        *("--channels", ",".join(channels), "--count", str(count), "--rate", f"{rate:g}"),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"bench.floor exited {process.returncode}")
    figures = json.loads(out.decode().strip().splitlines()[-1])
    return int(figures["posts"]), float(figures["cpu_seconds"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--channels", type=int, default=10)
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args(argv)
    asyncio.run(measure(args.count, args.channels, args.rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
