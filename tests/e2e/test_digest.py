"""The daily digest end to end: at its cron time, once, and once only across restarts.

A cron for a minute just ahead is written into the policy and the bridge's
clock is moved to it (`Loop.clock`) instead of waiting; Novo's clock is not
moved, so its deadlines stay real. "Down at the cron time" is a stopped
bridge whose clock moves on before it starts again.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from bot.clock import utc_now
from bot.slack.ids import ActionId
from bot.slack.render.digest import METADATA_EVENT_TYPE
from bot.store.digests import DigestRun
from novo_dev.localslack.records import StoredMessage
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

MANAGERS = "C0MANAGERS"
GRACE = "U0GRACE"
ADA = "U0ADA"
RULES = """rules:
  - name: prod-deploys
    match: {toolName: "deploy_*"}
    deciders: {users: [U0ADA]}
  - name: staging
    match: {toolName: "stage_*"}
"""


def _minute_ahead(minutes: int = 2) -> datetime:
    """A whole minute at least `minutes` ahead of the real time."""
    return (utc_now() + timedelta(minutes=minutes)).replace(second=0, microsecond=0)


def _cron(at: datetime) -> str:
    return f'"{at.minute} {at.hour} * * *"'


def _move_to(loop: Loop, moment: datetime) -> None:
    """Move the bridge's clock forward so that it reads `moment` now."""
    loop.clock.forward(moment - loop.clock())


def _digests(loop: Loop, channel: str) -> list[StoredMessage]:
    return [
        m
        for m in loop.slack.messages(channel)
        if (m.metadata or {}).get("event_type") == METADATA_EVENT_TYPE
    ]


async def _digest(loop: Loop, channel: str = MANAGERS) -> str:
    """Wait for the digest in `channel`; everything it shows, as one string."""
    found: StoredMessage = await wait_until(
        lambda: next(iter(_digests(loop, channel)), None),
        message=f"a digest in {channel}",
    )
    return loop.message_text_in(channel, found.ts)


async def _run(loop: Loop, index: int, scheduled: datetime) -> DigestRun | None:
    assert loop.bridge.services is not None
    key = loop.bridge.policy.current.digest[index].key
    return await loop.bridge.services.store.digest_run(key, scheduled)


async def _state(loop: Loop, index: int, scheduled: datetime, state: str) -> DigestRun:
    async def probe() -> DigestRun | None:
        run = await _run(loop, index, scheduled)
        return run if run is not None and run.state == state else None

    found: DigestRun = await wait_until(probe, message=f"digest {index} at {scheduled} {state}")
    return found


async def _ended(loop: Loop, interaction_id: str, status: str) -> None:
    async def probe() -> bool:
        tracked = await loop.tracked(interaction_id)
        return tracked is not None and tracked.snapshot.status == status

    await wait_until(probe, message=f"{interaction_id} {status} in the store")


async def _create(loop: Loop, tool: str, seconds: float) -> tuple[str, str]:
    created: dict[str, Any] = await loop.create(
        "approval_request", toolName=tool, expiresInSeconds=seconds
    )
    return created["id"], await loop.posted(created["id"])


async def _nothing_more_to_send(loop: Loop) -> None:
    """What the job does at each tick, called once: it finds every time already taken."""
    assert loop.bridge.services is not None
    assert await loop.bridge.services.digests.run_due() == 0


async def test_a_digest_at_its_cron_time_with_what_ended_and_what_waits(loop: Loop) -> None:
    at = _minute_ahead()
    await loop.use_policy(RULES + f"digest:\n  - {{to: {MANAGERS}, cron: {_cron(at)}}}\n")
    decided, decided_ts = await _create(loop, "deploy_service", 3600)
    expired, expired_ts = await _create(loop, "deploy_database", 1)
    older, older_ts = await _create(loop, "deploy_cache", 3 * 3600)
    soon, soon_ts = await _create(loop, "deploy_queue", 30 * 60)
    await loop.driver.click_message_button(ADA, CHANNEL, decided_ts, ActionId.APPROVE)
    await _ended(loop, decided, "resolved")
    await _ended(loop, expired, "cancelled")
    assert _digests(loop, MANAGERS) == []

    _move_to(loop, at + timedelta(seconds=1))
    text = await _digest(loop)
    assert text.startswith("📋 Novo digest: 1 decided, 1 expired, 2 pending now")
    assert "*Decided: 1* — 1 approved\nBy rule:\n• `prod-deploys`: 1 approved, 1 expired" in text
    assert re.search(r"time to decision: median \d+ s, p90 \d+ s", text)
    expired_line = next(line for line in text.split("\n") if line.startswith("• *Deploy database"))
    assert "— expired <!date^" in expired_line
    assert f"; asked in <#{CHANNEL}> (<@{ADA}>); nobody was reminded" in expired_line
    assert f"/archives/{CHANNEL}/p{expired_ts.replace('.', '')}|Open>" in expired_line
    pending = text.split("*Pending now: 2* (1 expiring within the hour), oldest first\n")[1]
    first, second = pending.split("\n")[:2]
    assert first.startswith("• *Deploy cache*") and "⏳" not in first
    assert f"/archives/{CHANNEL}/p{older_ts.replace('.', '')}|Open>" in first
    assert second.startswith("• *Deploy queue*") and "⏳ *expires <!date^" in second
    assert f"/archives/{CHANNEL}/p{soon_ts.replace('.', '')}|Open>" in second
    assert "*Waited longest*" in text and "`deploy_cache`" in text
    assert soon and older
    sent = await _state(loop, 0, at, "sent")
    assert sent.sent_at is not None

    await loop.restart()
    await _nothing_more_to_send(loop)
    assert len(_digests(loop, MANAGERS)) == 1


async def test_a_digest_missed_while_down_is_sent_on_start_within_the_hour_only(
    loop: Loop,
) -> None:
    late = _minute_ahead()  # missed by more than an hour: never sent
    missed = late + timedelta(minutes=40)  # missed by half an hour: sent once on start
    await loop.use_policy(
        f"digest:\n  - {{to: {MANAGERS}, cron: {_cron(missed)}}}\n"
        f"  - {{to: {GRACE}, cron: {_cron(late)}}}\n"
    )
    await loop.bridge.stop()
    _move_to(loop, missed + timedelta(minutes=30))
    await loop.restart()

    text = await _digest(loop)
    assert text.startswith("📋 Novo digest: 0 decided, 0 expired, 0 pending now")
    await _state(loop, 0, missed, "sent")
    await _state(loop, 1, late, "skipped")
    assert _digests(loop, GRACE) == []

    await loop.restart()
    await _nothing_more_to_send(loop)
    assert len(_digests(loop, MANAGERS)) == 1 and _digests(loop, GRACE) == []


async def test_a_digest_about_some_rules_leaves_the_others_out(loop: Loop) -> None:
    at = _minute_ahead()
    await loop.use_policy(
        RULES + f"digest:\n  - {{to: {GRACE}, cron: {_cron(at)}, rules: [staging]}}\n"
    )
    await _create(loop, "deploy_service", 3600)
    await _create(loop, "stage_service", 3600)
    _move_to(loop, at + timedelta(seconds=1))
    text = await _digest(loop, GRACE)  # a user id: the digest lands in their DM
    assert "· rules `staging`" in text
    assert "*Pending now: 1*" in text
    assert "Stage service" in text and "Deploy service" not in text


async def test_a_digest_added_by_a_reload_applies_at_the_next_tick(loop: Loop) -> None:
    at = _minute_ahead()
    await loop.use_policy(RULES)
    assert loop.settings.config_path is not None
    loop.settings.config_path.write_text(
        RULES + f"digest:\n  - {{to: {MANAGERS}, cron: {_cron(at)}}}\n", encoding="utf-8"
    )
    assert loop.bridge.reload_policy()  # what SIGHUP does
    _move_to(loop, at + timedelta(seconds=1))
    assert (await _digest(loop)).startswith("📋 Novo digest: 0 decided")


async def test_a_digest_slack_refuses_is_not_tried_again(loop: Loop) -> None:
    at = _minute_ahead()
    await loop.use_policy(f"digest:\n  - {{to: {MANAGERS}, cron: {_cron(at)}}}\n")
    loop.slack.fail_method("chat.postMessage", error="not_in_channel")
    _move_to(loop, at + timedelta(seconds=1))
    await _state(loop, 0, at, "skipped")
    await _nothing_more_to_send(loop)
    assert _digests(loop, MANAGERS) == []


async def test_the_digest_carries_the_top_advice_and_pins_the_trail(loop: Loop) -> None:
    at = _minute_ahead()
    await loop.use_policy(RULES + f"digest:\n  - {{to: {MANAGERS}, cron: {_cron(at)}}}\n")
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    asked = (loop.clock() - timedelta(minutes=3)).isoformat()
    for _ in range(20):  # twenty approvals of one tool under a rule without allow_standing
        await store.audit(
            "resolved",
            loop.clock(),
            interaction_id="int_x",
            actor_id=ADA,
            answer={"status": "resolved", "decision": "allow"},
            rule="prod-deploys",
            kind="approval_request",
            tool="deploy_docs",
            agent="agt_deployer",
            created_at=asked,
        )
    _move_to(loop, at + timedelta(seconds=1))
    text = await _digest(loop)
    assert (
        '💡 deploy_\u200bdocs under rule "prod-deploys": approved 20 of 20 times (100%) in 30 days,'
        " never denied: allow standing approvals for it · `novo-slack policy advise` has"
    ) in text
    head = re.search(r"Audit trail head: event #(\d+), `([0-9a-f]{64})`", text)
    assert head is not None
    pinned = {e.id: e.hash for e in await store.audit_entries()}
    assert pinned[int(head.group(1))] == head.group(2)
