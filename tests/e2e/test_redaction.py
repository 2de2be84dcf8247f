"""Secrets never reach Slack: one credential of each kind planted in an approval's input
and preview, a question's details and its option labels, then every surface exercised.

Judged by what the local Slack received (every call, every method: messages,
thread replies, DM copies, escalations, ephemerals, modals, the Home tab,
`/novo` answers), by what the bridge logged and by `novo-slack audit`: no
secret appears past the 4 characters a mask keeps, while ordinary values
and key names do. With `reveal: deciders`, the decider's own *View full
input* shows the values and a non-decider's does not.
"""

from __future__ import annotations

import io
import json
import logging
from datetime import timedelta

import pytest

from bot.audit import export_audit
from bot.clock import utc_now
from bot.logs import keep_statements_out_of_logs
from bot.slack.ids import ActionId, CallbackId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop
from tests.redaction.planted import (
    ORDINARY,
    SECRETS,
    approval_input,
    approval_preview,
    leaked_parts,
    question_request,
)
from tests.support import wait_until

POLICY = """\
defaults:
  deciders: {users: [U0ADA]}
  remind: ["50%"]
  escalate: {at: "50%", to: {users: [U0GRACE]}}
  redact:
    reveal: deciders
rules:
  - name: private
    match: {toolName: "dm_*"}
    dm: [U0ADA, U0GRACE]
"""
LIFETIME = timedelta(minutes=10)
"""Long enough that nothing expires before the test ends it: the reminder and escalation
come from moving the bridge's clock past half of it, the endings from the simulator."""
MANAGERS = "C0MANAGERS"


def _leaks(text: str) -> list[str]:
    return [kind for kind, part in leaked_parts().items() if part in text]


def _everything_slack_received(loop: Loop) -> str:
    return "\n".join(json.dumps(c.args, ensure_ascii=False) for c in loop.slack.calls())


async def _audit(loop: Loop) -> str:
    """What `novo-slack audit --format jsonl` prints (the command's own export)."""
    out = io.StringIO()
    await export_audit(loop.settings.db_path, fmt="jsonl", out=out, since=None)
    return out.getvalue()


async def _viewer_for(loop: Loop, user: str, ts: str, channel: str = CHANNEL) -> str:
    before = {v.id for v in loop.slack.views()}
    await loop.driver.click_message_button(user, channel, ts, ActionId.VIEW_INPUT)
    view = await wait_until(
        lambda: next(
            (
                v
                for v in loop.slack.views()
                if v.id not in before and v.callback_id == CallbackId.INPUT_VIEWER
            ),
            None,
        ),
        message=f"{user}'s input viewer",
    )
    return json.dumps(view.blocks, ensure_ascii=False)


async def test_no_planted_secret_reaches_slack_the_logs_or_the_audit_trail(
    loop: Loop,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # -v: everything the bridge would write to stderr
    keep_statements_out_of_logs()  # as `configure_logging` does at start-up
    await loop.use_policy(POLICY)
    approval = await loop.create(
        "approval_request",
        toolName="migrate_db",
        input=approval_input(),
        preview=approval_preview(),
        expiresInSeconds=LIFETIME.total_seconds(),
    )
    copied = await loop.create(
        "approval_request",
        toolName="dm_rotate",
        input=approval_input(),
        preview=approval_preview(),
        expiresInSeconds=LIFETIME.total_seconds(),
    )
    question = await loop.create(
        "question", request=question_request(), expiresInSeconds=LIFETIME.total_seconds()
    )
    ts = await loop.posted(approval["id"])
    question_ts = await loop.posted(question["id"])
    await loop.posted(copied["id"])

    shown = loop.message_text(ts)
    assert "🔒" in shown and "values hidden" in shown
    for value in (ORDINARY["host"], ORDINARY["commit"][:7], "db_url"):
        assert value in shown

    # the surfaces a person reaches: a refusal, a modal, the form, /novo, the Home tab
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(lambda: loop.slack.calls("chat.postEphemeral"), message="an ephemeral")
    grace_sees = await _viewer_for(loop, "U0GRACE", ts)
    assert "🔒" in grace_sees and not _leaks(grace_sees)
    await loop.driver.click_message_button("U0ADA", CHANNEL, question_ts, ActionId.ANSWER)
    await wait_until(
        lambda: any(v.callback_id == CallbackId.QUESTION_MODAL for v in loop.slack.views()),
        message="the question form",
    )
    for text in ("pending", f"show {approval['id']}", f"show {question['id']}"):
        assert (
            await loop.driver.send_command("U0ADA", "/novo", text, channel=CHANNEL)
        ).status_code == 200
    assert (await loop.driver.open_home("U0ADA")).status_code == 200
    await wait_until(lambda: loop.slack.calls("views.publish"), message="the Home tab published")

    # reminders in the thread, the escalation DM, then every message's ending
    loop.clock.forward(LIFETIME / 2 + timedelta(seconds=1))
    await wait_until(
        lambda: any(m.thread_ts == ts and m.ts != ts for m in loop.slack.messages(CHANNEL)),
        message="a reminder in the thread",
    )
    await wait_until(
        lambda: len([c for c in loop.slack.calls("chat.postMessage") if c.ok]) >= 6,
        message="3 cards, the copy, a reminder and an escalation posted",
    )
    for created in (approval, copied, question):
        await loop.control.expire(created["id"])
        await loop.api_get_final(created["id"])
    await loop.shows(ts, "Expired")

    received = _everything_slack_received(loop)
    methods = {c.method for c in loop.slack.calls()}
    assert {
        "chat.postMessage",
        "chat.update",
        "chat.postEphemeral",
        "views.open",
        "views.publish",
    } <= methods
    assert (
        len([c for c in loop.slack.calls("chat.postMessage") if c.ok]) >= 6
    )  # 3 cards, copy, reminder, escalation
    assert _leaks(received) == []
    for value in (*ORDINARY.values(), "password", "db_url", "deploy_key"):
        assert value in received, value
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert _leaks(logged) == []
    audit = await _audit(loop)
    assert approval["id"] in audit and _leaks(audit) == []

    # reveal: deciders — the decider, and only the decider, sees full values in their modal
    ada_sees = await _viewer_for(loop, "U0ADA", ts)
    assert set(_leaks(ada_sees)) >= {"url_password", "secret_key", "github_token"}
    assert "shown to you alone" in ada_sees and "shown to you alone" not in grace_sees
    assert not _leaks(await _viewer_for(loop, "U0GRACE", ts))


async def test_redact_false_shows_the_values_and_the_counter_counts_each_kind(loop: Loop) -> None:
    await loop.use_policy(
        "rules:\n  - name: raw\n    match: {toolName: raw_*}\n    dm: [U0ADA]\n    redact: false\n"
    )
    hidden = await loop.create(
        "approval_request", toolName="migrate", input={"password": SECRETS["secret_key"]}
    )
    raw = await loop.create(
        "approval_request", toolName="raw_dump", input={"password": SECRETS["secret_key"]}
    )
    ts = await loop.posted(hidden["id"])
    await loop.posted(raw["id"])
    assert SECRETS["secret_key"] not in loop.message_text(ts)
    dm = next(
        c
        for c in loop.slack.calls("chat.postMessage")
        if c.ok and c.args["channel"].startswith("D")
    )
    assert SECRETS["secret_key"] in json.dumps(dm.args)
    assert await loop.metric("novo_slack_redactions_total", kind="secret_key") >= 1


async def test_step_groups_decided_cards_snooze_dms_digests_and_compact_forms_hide_them_too(
    loop: Loop, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    keep_statements_out_of_logs()
    at = (utc_now() + timedelta(minutes=16)).replace(second=0, microsecond=0)
    await loop.use_policy(f'digest:\n  - {{to: {MANAGERS}, cron: "{at.minute} {at.hour} * * *"}}\n')
    await loop.fault(routes="list", errorRate=1.0, status=503)  # one poll finds both siblings
    siblings = [
        await loop.create(
            "approval_request",
            runId="run_planted",
            stepNumber=3,
            toolName=f"rotate_{n}",
            input=approval_input(),
            preview=approval_preview(),
            expiresInSeconds=3600.0,
        )
        for n in range(2)
    ]
    await loop.fault()
    card = await loop.posted(siblings[0]["id"])
    group = await wait_until(
        lambda: next(
            (
                m
                for m in loop.slack.messages(CHANNEL)
                if (m.metadata or {}).get("event_type") == "novo_step_group"
            ),
            None,
        ),
        message="the step group posted",
    )
    response = await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, card, ActionId.APPROVAL_OVERFLOW, OverflowValue.REMIND_15_MIN
    )
    assert response.status_code == 200
    await wait_until(lambda: loop.slack.ephemerals("U0ADA") or None, message="reminder set")
    loop.clock.forward(at + timedelta(seconds=1) - loop.clock())
    await wait_until(lambda: loop.slack.messages("U0ADA") or None, message="the snooze DM")
    await wait_until(lambda: loop.slack.messages(MANAGERS) or None, message="the digest")

    decided = await loop.posted(siblings[1]["id"])
    await loop.driver.click_message_button("U0ADA", CHANNEL, decided, ActionId.APPROVE)
    await loop.shows(decided, "Approved")
    loop.slack.fail_method("chat.postMessage", count=1, error="msg_blocks_too_long")
    compact = await loop.create(
        "approval_request", input=approval_input(), preview=approval_preview()
    )
    await loop.shows(await loop.shown(compact["id"]), "too long to show here in full")

    received = _everything_slack_received(loop)
    assert group.thread_ts is None and f'"thread_ts": "{group.ts}"' in received
    assert ORDINARY["host"] in received and "🔒" in received
    assert _leaks(received) == []
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert _leaks(logged) == []
    assert _leaks(await _audit(loop)) == []
