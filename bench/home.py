"""`python -m bench.home`: many people opening the App Home tab at once, with much open.

`--open` approvals (default 300) wait, spread over four rules: two channels,
a rule whose interactions go to one person's DM, and the defaults. Then
`--people` different people (default 40) open their Home tab at the same
moment: each an `app_home_opened` event, signed and POSTed as Slack's
Events API sends them. Bolt acks an event before its listener runs, so what
a person waits for is the tab itself.

Figure, in milliseconds, per person: from the moment their event was sent
until the bridge's first `views.publish` for them after it reached Slack.
The bridge runs as production runs it, in its own process (`python -m bot
run`, default poll interval), and so does the simulator; between the bridge
and the local Slack sits `bench.relay`, which notes when each publish
arrives: the local Slack checks every view with slack_sdk's models, one after
another (some 75 ms for a full tab), which real Slack does not make anyone
queue for. Printed as n, median, p95 and max, then every raw value, and how
many were not served within the deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.forms import Stage, running_stage
from bench.harness import format_table
from tests.support import wait_until

DEFAULT_OPEN = 300
DEFAULT_PEOPLE = 40
POST_RATE = "100"  # posts a second per channel (the most settings allow): Home, not posting
POSTED_WITHIN_SECONDS = 120.0
SERVED_WITHIN_SECONDS = 180.0
WAIT_SECONDS = 0.05
STAGING = "C0STAGING"
HR_PERSON = "U0HR"
POLICY = f"""rules:
  - name: hr_cases
    match: {{toolName: "hr_*"}}
    dm: [{HR_PERSON}]
    deciders: {{users: [{HR_PERSON}]}}
  - name: staging
    match: {{toolName: "stage_*"}}
    channel: {STAGING}
  - name: prod-deploys
    match: {{toolName: "deploy_*"}}
    deciders: {{users: [U0P000, U0P001, U0P002]}}
"""
TOOLS = ("deploy_service", "stage_service", "hr_case", "run_report")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def _create(stage: Stage, count: int) -> None:
    for n in range(count):
        body = {
            "kind": "approval_request",
            "toolName": TOOLS[n % len(TOOLS)],
            "expiresInSeconds": 3600 + n,
        }
        async with stage.http.post(f"{stage.sim_url}/_sim/interactions", json=body) as response:
            if response.status != 201:
                raise RuntimeError(f"the simulator refused an approval: {await response.text()}")


async def _all_posted(stage: Stage, count: int) -> None:
    async def probe() -> bool | None:
        posted = [c for c in stage.slack.calls("chat.postMessage") if c.ok]
        return len(posted) >= count or None

    await wait_until(probe, timeout=POSTED_WITHIN_SECONDS, message=f"{count} posted")


async def _publishes(stage: Stage) -> dict[str, list[float]]:
    async with stage.http.get(f"{stage.relay_url}/_publishes") as response:
        publishes: dict[str, list[float]] = await response.json()
        return publishes


async def measure(open_count: int, people: int) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-home-") as tmp:
        policy = Path(tmp) / "policy.yml"
        policy.write_text(POLICY, encoding="utf-8")
        settings = {"NOVO_SLACK_CONFIG": str(policy), "NOVO_SLACK_POST_RATE": POST_RATE}
        async with running_stage(Path(tmp) / "bench.db", settings) as stage:
            users = [f"U0P{n:03d}" for n in range(people)]
            for user in [*users, HR_PERSON]:
                stage.slack.add_user(user, user.lower(), f"Person {user}")
            stage.slack.add_channel(STAGING, "staging")
            started = time.monotonic()
            await _create(stage, open_count)
            await _all_posted(stage, open_count)
            _progress(f"{open_count} posted in {time.monotonic() - started:.1f}s")
            _progress(f"{people} people open Home at once")
            sent_at: dict[str, float] = {}

            async def open_home(user: str) -> None:
                sent_at[user] = time.time()
                response = await stage.driver.open_home(user)
                if response.status_code != 200:
                    raise RuntimeError(f"the bridge answered an event with {response.status_code}")

            await asyncio.gather(*(open_home(u) for u in users))
            waits: dict[str, float] = {}

            async def probe() -> bool | None:
                for user, times in (await _publishes(stage)).items():
                    after = [t for t in times if user in sent_at and t >= sent_at[user]]
                    if user not in waits and after:
                        waits[user] = (min(after) - sent_at[user]) * 1000
                return len(waits) == len(users) or None

            try:
                await wait_until(
                    probe, timeout=SERVED_WITHIN_SECONDS, message="every tab published"
                )
            except TimeoutError as exc:
                _progress(str(exc))
            return list(waits.values()), len(users) - len(waits)


async def main(open_count: int, people: int) -> int:
    waits, unserved = await measure(open_count, people)
    print(f"{open_count} open interactions, {people} people opening Home at once")
    if waits:
        print(format_table([("open -> tab published", waits)]))
    print(f"not served within {SERVED_WITHIN_SECONDS:.0f} s: {unserved}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--open", type=int, default=DEFAULT_OPEN)
    parser.add_argument("--people", type=int, default=DEFAULT_PEOPLE)
    arguments = parser.parse_args()
    sys.exit(asyncio.run(main(arguments.open, arguments.people)))
