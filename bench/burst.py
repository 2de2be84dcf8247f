"""A burst of approvals against Slack's per-channel pace: posted once each, fast, no 429s.

One deploy pipeline can open a hundred approvals in a second. This opens
`--count` approvals spread over `--channels` channels, with the bridge's
`NOVO_SLACK_POST_RATE` and the local Slack's per-channel limit both at
`--rate` posts a second (the local Slack allows a burst of 5, as Slack's
"short bursts" do), and prints how long the posting took, the rate reached
per channel against the allowed one, how many 429s Slack answered, and
whether every interaction was posted exactly once.

The bridge routes every interaction to one channel until a policy file says
otherwise; to spread the burst, this bench routes by agent id (agent N to
channel N), which is what a policy rule per agent would do.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter

from bench.harness import running_rig
from bot.novo.models import Interaction
from bot.policy.live import LivePolicy
from bot.sync.routing import ChannelRouter
from tests.support import wait_until

SLACK_BURST = 5


class ByAgent(ChannelRouter):
    def __init__(self, channels: list[str]) -> None:
        super().__init__(LivePolicy(channels[0]))
        self._channels = channels

    def destinations_for(self, interaction: Interaction) -> tuple[str, ...]:
        index = int(interaction.agent_id.rsplit("_", 1)[-1])
        return (self._channels[index % len(self._channels)],)


async def measure(count: int, channels: int, rate: float) -> None:
    async with running_rig(3600.0, post_rate=rate) as rig:
        names = [f"C0BURST{n:02d}" for n in range(channels)]
        for name in names:
            rig.slack.add_channel(name, name.lower())
        assert rig.bridge.services is not None
        rig.bridge.services.engine._router = ByAgent(names)
        rig.slack.set_post_message_rate(int(rate), retry_after=1, burst=SLACK_BURST)
        await wait_until(lambda: rig.jobs.leading or None, timeout=10, message="leading")
        for n in range(count):
            await rig.create_approval(agentId=f"agt_{n % channels}", expiresInSeconds=3600)
        began = time.monotonic()
        await rig.jobs.poll()
        await rig.sent()
        took = time.monotonic() - began
        calls = rig.slack.calls("chat.postMessage")
        accepted = [c for c in calls if c.ok]
        limited = [c for c in calls if c.status == 429]
        ids = Counter(c.args["metadata"]["event_payload"]["interaction_id"] for c in accepted)
        per_channel = count / channels
        ideal = max(0.0, (per_channel - SLACK_BURST) / rate)
        rates = []
        for name in names:
            times = sorted(c.at for c in accepted if c.args.get("channel") == name)
            if len(times) > SLACK_BURST + 1:  # the steady pace, after the burst allowance
                rates.append((len(times) - SLACK_BURST - 1) / (times[-1] - times[SLACK_BURST]))
        reached = min(rates) if rates else float("nan")
        print(f"novo-slack burst: {count} approvals over {channels} channels at {rate:g}/s each")
        print(f"  posted (accepted)             {len(accepted):>8}")
        print(f"  posted more than once         {sum(1 for v in ids.values() if v > 1):>8}")
        print(f"  429 answers                   {len(limited):>8}")
        print(f"  poll to last post             {took:>8.2f} s   (ideal about {ideal:.2f} s)")
        print(
            f"  slowest channel's pace        {reached:>8.1f} /s (allowed {rate:g}/s,"
            f" {reached / rate:.2f} of it)"
        )


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
