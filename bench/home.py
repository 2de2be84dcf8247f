"""`python -m bench.home`: many people opening the App Home tab at once, with much open.

`--open` approvals (default 300) wait, spread over four rules: two channels,
a rule whose interactions go to one person's DM, and the defaults. Then
`--people` different people (default 40) open their Home tab at the same
moment: each an `app_home_opened` event, signed and POSTed as Slack's
Events API sends them. Bolt acks an event before its listener runs, so what
a person waits for is the tab itself.

Figure, in milliseconds, per person: from the moment their event was sent
until the local Slack received the first `views.publish` for them after it
(its own clock), i.e. until their tab showed what waits. Printed as n,
median, p95 and max, then every raw value; and how many were not served
within the deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import CHANNEL, Rig, format_table, running_rig, wait_for
from bot.localslack.records import RecordedCall

DEFAULT_OPEN = 300
DEFAULT_PEOPLE = 40
POST_RATE = 200.0  # posts a second per channel: the bench measures Home, not posting
POSTED_WITHIN_SECONDS = 120.0
SERVED_WITHIN_SECONDS = 180.0
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


def _people(count: int) -> list[str]:
    return [f"U0P{n:03d}" for n in range(count)]


async def _create(rig: Rig, count: int) -> list[str]:
    ids = []
    for n in range(count):
        tool = TOOLS[n % len(TOOLS)]
        ids.append(await rig.create_approval(toolName=tool, expiresInSeconds=3600 + n))
    return ids


async def _all_posted(rig: Rig, ids: list[str]) -> None:
    store = rig.bridge.services.store if rig.bridge.services is not None else None
    assert store is not None

    async def probe() -> bool | None:
        return len(await store.open_interactions()) >= len(ids) or None

    await wait_for(probe, within=POSTED_WITHIN_SECONDS, what=f"{len(ids)} posted")


def _served(rig: Rig, user: str, after: float) -> RecordedCall | None:
    for call in rig.slack.calls("views.publish"):
        if call.args.get("user_id") == user and call.at >= after and call.ok:
            return call
    return None


async def measure(open_count: int, people: int) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-home-") as tmp:
        policy = Path(tmp) / "policy.yml"
        policy.write_text(POLICY, encoding="utf-8")
        async with running_rig(config_path=policy, post_rate=POST_RATE) as rig:
            users = _people(people)
            for user in [*users, HR_PERSON]:
                rig.slack.add_user(user, user.lower(), f"Person {user}")
            rig.slack.add_channel(STAGING, "staging")
            ids = await _create(rig, open_count)
            await _all_posted(rig, ids)
            await rig.sent()
            print(f"{open_count} open, {people} people opening Home", file=sys.stderr)
            sent_at: dict[str, float] = {}

            async def open_home(user: str) -> None:
                sent_at[user] = time.time()
                response = await rig.driver.open_home(user)
                assert response.status_code == 200, response.text

            await asyncio.gather(*(open_home(u) for u in users))
            waits: dict[str, float] = {}

            async def probe() -> bool | None:
                for user in users:
                    if user not in waits and (call := _served(rig, user, sent_at[user])):
                        waits[user] = (call.at - sent_at[user]) * 1000
                return len(waits) == len(users) or None

            try:
                await wait_for(probe, within=SERVED_WITHIN_SECONDS, what="every tab published")
            except TimeoutError as exc:
                print(exc, file=sys.stderr)
            return list(waits.values()), len(users) - len(waits)


async def main(open_count: int, people: int) -> int:
    waits, unserved = await measure(open_count, people)
    print(f"{open_count} open interactions, {people} people opening Home at once ({CHANNEL})")
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
