"""`python -m bench.poll_cost`: what one poll costs Novo and Slack when many approvals wait.

Creates `--pending` approvals in the simulator, has the bridge post them
all, then measures ONE steady-state poll (nothing new, nothing changed):
the Novo API requests it made, by route, its wall time, and the Slack
calls it made. The steady-state poll is what runs every interval for as
long as the approvals wait, so it sets the bridge's standing load on Novo.

The bridge runs with a poll interval of an hour and the polls are driven
here, so the scheduler never polls in the middle of a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections import Counter
from dataclasses import dataclass

from bench.harness import Rig, running_rig
from bot.sync.engine import LIST_PAGE_SIZE
from tests.support import wait_until

# The driven polls hold the jobs' lock for seconds, so the scheduler warns of each skipped
# redelivery tick; expected here, and it would bury the figures. Errors still show.
SCHEDULER_LOGGER = "apscheduler.scheduler"
DEFAULT_PENDING = 1000
DRIVEN_POLL_SECONDS = 3600.0  # the longest interval settings accept; polls are driven here
EXPIRES_IN_SECONDS = 86_400.0  # a day: nothing expires (or changes its countdown) during the run
FIRST_POLL_WITHIN_SECONDS = 30.0
UNPACED_POSTS_PER_SECOND = 100.0  # the most settings allow: this bench measures polling, not pacing
LIST_PATH = "/v1/interactions"


@dataclass(frozen=True)
class PollCost:
    pending: int
    create_seconds: float
    initial_poll_seconds: float
    first_to_last_post_seconds: float
    posts: int
    requests: Counter[str]
    slack_calls: Counter[str]
    steady_poll_seconds: float


def _route(method: str, path: str) -> str:
    """A request's route, ids left out, so requests group by what they asked."""
    if path == LIST_PATH:
        return f"{method} {LIST_PATH}"
    if path.endswith("/resolve"):
        return f"{method} {LIST_PATH}/{{id}}/resolve"
    if path.startswith(LIST_PATH + "/"):
        return f"{method} {LIST_PATH}/{{id}}"
    return f"{method} {path}"


async def _after_the_scheduled_first_poll(rig: Rig) -> None:
    """Let the poll the scheduler runs at start-up finish, so the driven polls are the only ones."""

    async def listed() -> bool | None:
        log = await rig.sim_log()
        return True if any(e["path"] == LIST_PATH and e["status"] for e in log) else None

    await wait_until(listed, timeout=FIRST_POLL_WITHIN_SECONDS, message="the start-up poll")
    await rig.jobs.idle()


async def measure(pending: int) -> PollCost:
    async with running_rig(DRIVEN_POLL_SECONDS, post_rate=UNPACED_POSTS_PER_SECOND) as rig:
        await _after_the_scheduled_first_poll(rig)

        _progress(f"creating {pending} pending approvals")
        began = time.monotonic()
        for _ in range(pending):
            await rig.create_approval(expiresInSeconds=EXPIRES_IN_SECONDS)
        create_seconds = time.monotonic() - began

        _progress(f"initial poll: posting {pending} messages")
        began = time.monotonic()
        await rig.jobs.poll()
        await rig.sent()
        initial_poll_seconds = time.monotonic() - began
        posts = [c for c in rig.slack.calls("chat.postMessage") if c.ok]
        if len(posts) != pending:
            raise RuntimeError(f"the initial poll posted {len(posts)} of {pending} messages")
        # a job queued behind the initial poll (a countdown refresh) runs now, not mid-measurement
        await rig.jobs.idle()

        _progress("steady-state poll")
        await rig.clear_sim_log()
        calls_before = len(rig.slack.calls())
        began = time.monotonic()
        await rig.jobs.poll()
        await rig.sent()
        steady_poll_seconds = time.monotonic() - began
        slack_calls = rig.slack.calls()[calls_before:]
        log = await rig.sim_log()
    return PollCost(
        pending=pending,
        create_seconds=create_seconds,
        initial_poll_seconds=initial_poll_seconds,
        first_to_last_post_seconds=posts[-1].at - posts[0].at,
        posts=len(posts),
        requests=Counter(f"{_route(e['method'], e['path'])} -> {e['status']}" for e in log),
        slack_calls=Counter(c.method for c in slack_calls),
        steady_poll_seconds=steady_poll_seconds,
    )


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def report(cost: PollCost) -> str:
    def row(label: str, value: str) -> str:
        return f"  {label:<44}{value:>12}"

    per_second = cost.posts / cost.initial_poll_seconds if cost.initial_poll_seconds else 0.0
    lines = [
        f"novo-slack poll cost: {cost.pending} pending approvals, list page size {LIST_PAGE_SIZE}",
        "",
        "posting them all (once)",
        row("created in the simulator (control API)", f"{cost.create_seconds:.2f} s"),
        row("poll that posted them, wall time", f"{cost.initial_poll_seconds:.2f} s"),
        row("first -> last chat.postMessage", f"{cost.first_to_last_post_seconds:.2f} s"),
        row("chat.postMessage accepted", str(cost.posts)),
        row("messages posted per second", f"{per_second:.1f}"),
        "",
        "one steady-state poll (every interval while they wait)",
        row("wall time", f"{cost.steady_poll_seconds * 1000:.1f} ms"),
        row("Novo API requests", str(cost.requests.total())),
        *(row(f"  {route}", str(n)) for route, n in sorted(cost.requests.items())),
        row("Slack API calls", str(cost.slack_calls.total())),
        *(row(f"  {method}", str(n)) for method, n in sorted(cost.slack_calls.items())),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.poll_cost", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--pending", type=int, default=DEFAULT_PENDING, help="approvals waiting in Novo"
    )
    args = parser.parse_args(argv)
    if args.pending < 1:
        parser.error("--pending must be at least 1")
    logging.getLogger(SCHEDULER_LOGGER).setLevel(logging.ERROR)
    began = time.monotonic()
    cost = asyncio.run(measure(args.pending))
    print(report(cost))
    print()
    print(f"run took {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
