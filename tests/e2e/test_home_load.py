"""Many people opening Home at once, with much open, are each served their own tab.

Concurrent opens share one board per version of what is open and one set of
sections per viewer's rights (see `services.home`), so twenty opens cost
little more than one. `bench/home.py` measures 40 people and 300 open
interactions with the bridge in its own process, and how soon each tab arrives;
this is the same at a size that runs in a few seconds here, judged by what each
person's tab shows.
"""

from __future__ import annotations

import asyncio
import time

from tests.e2e.conftest import Loop
from tests.support import wait_until

OPEN = 60
PEOPLE = 20
STAGING = "C0STAGING"
POLICY = f"""rules:
  - name: staging
    match: {{toolName: "stage_*"}}
    channel: {STAGING}
  - name: prod-deploys
    match: {{toolName: "deploy_*"}}
    deciders: {{users: [U0P00, U0P01]}}
"""
TOOLS = ("deploy_service", "stage_service", "run_report")


async def test_twenty_people_opening_home_at_once_are_each_served_their_own_tab(
    loop: Loop,
) -> None:
    await loop.use_policy(POLICY)
    loop.slack.add_channel(STAGING, "staging")
    people = [f"U0P{n:02d}" for n in range(PEOPLE)]
    for user in people:
        loop.slack.add_user(user, user.lower(), f"Person {user}")
    created = [
        await loop.create(toolName=TOOLS[n % len(TOOLS)], expiresInSeconds=900 + n)
        for n in range(OPEN)
    ]
    for record in created:
        await loop.posted(record["id"])

    started = time.time()
    answers = await asyncio.gather(*(loop.driver.open_home(user) for user in people))
    assert all(a.status_code == 200 for a in answers)

    def served() -> dict[str, float] | None:
        first: dict[str, float] = {}
        for call in loop.slack.calls("views.publish"):
            if call.ok and call.at >= started:
                first.setdefault(str(call.args["user_id"]), call.at - started)
        return first if set(first) >= set(people) else None

    waits: dict[str, float] = await wait_until(served, timeout=60, message="every tab published")
    print(f"{PEOPLE} tabs with {OPEN} open served within {max(waits.values()) * 1000:.0f} ms")
    # what each was shown is theirs: a decider of the deploys sees them waiting on them
    deciders_view = loop.slack.home_view("U0P00")
    assert deciders_view is not None
    assert f"Waiting on you · {OPEN}" in str(deciders_view.blocks)
    others_view = loop.slack.home_view("U0P05")
    assert others_view is not None
    assert f"Waiting on you · {OPEN - OPEN // len(TOOLS)}" in str(others_view.blocks)
