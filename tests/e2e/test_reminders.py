"""Before it lapses: reminders in the thread, escalation, moved windows, an honest expiry.

Windows are a few seconds long so each scenario runs through to the end; the
policy file is written per scenario and the bridge restarted onto it.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.slack.ids import ActionId
from bot.store.schema import MessageKind, MessageState
from novo_dev.localslack.records import StoredMessage
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import DEFAULT_TIMEOUT, wait_until

MANAGERS = "C0MANAGERS"


async def _with_policy(loop: Loop, tmp_path: Path, defaults: str) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("defaults:\n" + defaults, encoding="utf-8")
    await loop.restart(config_path=policy)


def _replies(loop: Loop, ts: str) -> list[StoredMessage]:
    return [m for m in loop.slack.messages(CHANNEL) if m.thread_ts == ts and m.ts != ts]


async def _replied(
    loop: Loop, ts: str, count: int, timeout: float = DEFAULT_TIMEOUT
) -> list[StoredMessage]:
    def probe() -> list[StoredMessage] | None:
        replies = _replies(loop, ts)
        return replies if len(replies) >= count else None

    found: list[StoredMessage] = await wait_until(
        probe, timeout=timeout, message=f"{count} reminder(s) under {ts}"
    )
    return found


async def _approval(loop: Loop, seconds: float) -> tuple[str, str]:
    created: dict[str, Any] = await loop.create("approval_request", expiresInSeconds=seconds)
    return created["id"], await loop.shown(created["id"])


async def test_reminders_reply_in_the_thread_and_the_expiry_names_every_nudge(
    loop: Loop, tmp_path: Path
) -> None:
    await _with_policy(
        loop,
        tmp_path,
        '  remind: ["50%", "2s"]\n  mention: here\n  deciders: {users: [U0ADA]}\n'
        f'  escalate: {{at: "50%", to: {{channel: {MANAGERS}}}}}\n',
    )
    # ten seconds: under load a post may take a few, and two reminders found due at
    # once are one (the latest); 50% and 2 s before leave three seconds between them
    _, ts = await _approval(loop, 10)
    replies = await _replied(loop, ts, 2)
    assert all(r.text.startswith("⏰ ") and r.text.endswith("left — <!here>") for r in replies)
    assert "seconds left" in replies[0].text
    text = await loop.shows(
        ts,
        "Expired",
        "after 10 s",
        f"Asked: <@U0ADA> in <#{CHANNEL}>",  # who could have decided, and where
        "Reminded <!date^",
        f"escalated to <#{MANAGERS}> <!date^",
    )
    assert text.count("<!date^") >= 4  # when it expired, each reminder, the escalation
    assert len(_replies(loop, ts)) == 2
    (escalation,) = loop.slack.messages(MANAGERS)
    await wait_until(
        lambda: "⌛ Expired" in loop.message_text_in(MANAGERS, escalation.ts),
        message="the escalation says it expired",
    )
    assert await loop.metric("novo_slack_reminders_sent_total") >= 2
    assert await loop.metric("novo_slack_expired_total") >= 1


async def test_without_the_keys_nothing_is_reminded_and_expiry_says_so(loop: Loop) -> None:
    _, ts = await _approval(loop, 1)
    await loop.shows(ts, "Expired", "Nobody was reminded.")
    assert _replies(loop, ts) == []


async def test_no_reminder_once_decided(loop: Loop, tmp_path: Path) -> None:
    await _with_policy(loop, tmp_path, '  remind: ["50%"]\n  mention: none\n')
    _, decided_ts = await _approval(loop, 4)
    _, waiting_ts = await _approval(loop, 4)
    await loop.driver.click_message_button("U0ADA", CHANNEL, decided_ts, ActionId.APPROVE)
    await loop.shows(decided_ts, "Approved")
    (reply,) = await _replied(loop, waiting_ts, 1)
    assert reply.text.endswith(" left")  # `none`: nobody mentioned
    await loop.shows(waiting_ts, "Expired")
    assert _replies(loop, decided_ts) == []


async def test_an_escalation_says_what_waits_and_then_how_it_ended(
    loop: Loop, tmp_path: Path
) -> None:
    await _with_policy(
        loop,
        tmp_path,
        '  escalate:\n    at: "50%"\n'
        f"    to: {{channel: {MANAGERS}, users: [U0ADA], groups: [S0LEADS]}}\n",
    )
    _, ts = await _approval(loop, 6)

    def escalation(channel: str) -> StoredMessage | None:
        shown = loop.slack.messages(channel)
        return shown[0] if shown else None

    first = await wait_until(lambda: escalation(MANAGERS), message="escalation")
    dm = await wait_until(lambda: escalation("U0ADA"), message="escalation DM")
    text = loop.message_text_in(MANAGERS, first.ts)
    assert "Still waiting for a decision <!subteam^S0LEADS>" in text
    assert f"Asked:* <#{CHANNEL}>" in text
    assert f"/archives/{CHANNEL}/p{ts.replace('.', '')}|Open the request>" in text
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    for channel, message in ((MANAGERS, first), ("U0ADA", dm)):

        def closed(channel: str = channel, message: StoredMessage = message) -> bool:
            text = loop.message_text_in(channel, message.ts)
            return "Approved by <@U0GRACE>" in text and "after escalation" in text

        await wait_until(closed, message=f"escalation in {channel} closed")
    assert await loop.metric("novo_slack_escalations_sent_total") >= 2
    assert len(loop.slack.messages(MANAGERS)) == 1


async def test_a_restart_between_two_steps_repeats_and_loses_none(
    loop: Loop, tmp_path: Path
) -> None:
    # the steps 12 s apart (at 3 s and 15 s of 20): room for a restart on a busy machine,
    # where one that ended after the second step's time would meet it as missed
    await _with_policy(loop, tmp_path, '  remind: ["15%", "5s"]\n')
    _, ts = await _approval(loop, 20)
    await _replied(loop, ts, 1)
    await loop.restart()
    await _replied(loop, ts, 2)
    await loop.shows(ts, "Expired", "Reminded")
    assert len(_replies(loop, ts)) == 2


async def test_a_window_moved_later_moves_the_steps_not_yet_taken(
    loop: Loop, tmp_path: Path
) -> None:
    # windows of 10 s: both posted and the one moved before its first step (at 5 s), even
    # on a busy machine
    await _with_policy(loop, tmp_path, '  remind: ["50%"]\n')
    moved, moved_ts = await _approval(loop, 10)
    _, steady_ts = await _approval(loop, 10)
    await loop.control.extend(moved, 10)
    await _replied(loop, steady_ts, 1)  # the unmoved one's step, at 5 s
    assert _replies(loop, moved_ts) == []  # the moved one's is at 10 s now
    (reply,) = await _replied(loop, moved_ts, 1)
    assert "seconds left" in reply.text
    await loop.shows(moved_ts, "Expired", "after 20 s")


async def test_an_escalation_left_in_doubt_by_a_crash_is_found_not_posted_again(
    loop: Loop, tmp_path: Path
) -> None:
    await _with_policy(loop, tmp_path, f'  escalate: {{at: "50%", to: {{channel: {MANAGERS}}}}}\n')
    interaction_id, _ = await _approval(loop, 6)
    # Slack posts the escalation, but its answer is lost: the claim is left in doubt
    loop.slack.lose_answers("chat.postMessage", count=1)
    await wait_until(lambda: loop.slack.messages(MANAGERS) or None, message="escalation sent")
    services = (await loop.restart()).services  # the crash: the claim is all it knows
    assert services is not None

    async def adopted() -> str | None:
        sent = await services.store.get_message(interaction_id, MessageKind.ESCALATION, MANAGERS)
        return sent.ts if sent is not None and sent.state == MessageState.POSTED else None

    ts = await wait_until(adopted, message="the escalation found and recorded")
    [message] = loop.slack.messages(MANAGERS)  # found by its metadata, not posted twice
    assert message.ts == ts
    # adopted, it is audited as it would have been when posted
    assert await _escalations_audited(loop, interaction_id) == [MANAGERS]
    walks = loop.slack.calls("conversations.history")
    assert [c.args.get("channel") for c in walks] == [MANAGERS]


async def _escalations_audited(loop: Loop, interaction_id: str) -> list[Any]:
    services = loop.bridge.services
    assert services is not None
    entries = await services.store.audit_entries()
    return [
        e.detail["to"]
        for e in entries
        if e.event == "escalated" and e.interaction_id == interaction_id
    ]


async def test_an_escalation_a_crash_left_unsent_is_posted_once_and_audited(
    loop: Loop, tmp_path: Path
) -> None:
    """Tracked and not yet sent when the process went (its step taken, so no later tick
    takes it again): the next process posts it, once, and the trail says it escalated."""
    await _with_policy(loop, tmp_path, f'  escalate: {{at: "50%", to: {{channel: {MANAGERS}}}}}\n')
    interaction_id, _ = await _approval(loop, 600)
    loop.slack.hold_method("chat.getPermalink")  # due, tracked, held before its claim
    loop.clock.forward(timedelta(seconds=301))
    services = loop.bridge.services
    assert services is not None

    async def tracked() -> bool:
        held = await services.store.get_message(interaction_id, MessageKind.ESCALATION, MANAGERS)
        return held is not None and held.state == MessageState.QUEUED

    await wait_until(tracked, message="the escalation tracked, not yet claimed")
    await loop.restart()
    loop.slack.release_method("chat.getPermalink")
    await wait_until(lambda: loop.slack.messages(MANAGERS) or None, message="the escalation")
    assert await wait_until(
        lambda: _escalations_audited(loop, interaction_id), message="its audit entry"
    ) == [MANAGERS]
    [message] = loop.slack.messages(MANAGERS)
    assert "Open the request" in loop.message_text_in(MANAGERS, message.ts)
