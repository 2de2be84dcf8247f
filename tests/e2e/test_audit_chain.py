"""The audit chain of a history made through real clicks: it verifies in the store and as
an export, and an edited export line is named."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.audit import export_audit
from bot.audit_verify import verify_file, verify_store
from bot.cli import main
from bot.services.shown import blocks_text
from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId
from bot.store.chain import text_hash
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_allowances import STANDING, _approval, _approved_without_a_message, _grant
from tests.e2e.test_questions import _question
from tests.support import wait_until


async def _events(loop: Loop) -> list[dict[str, Any]]:
    out = io.StringIO()
    await export_audit(loop.settings.db_path, fmt="jsonl", out=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def _deny_with_reason(loop: Loop, ts: str, reason: str) -> None:
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.DENY)
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.DENY_MODAL), None
        ),
        message="deny modal opened",
    )
    value = {"type": "plain_text_input", "value": reason}
    response = await loop.driver.submit_view(
        "U0GRACE", view.id, {REASON_BLOCK_ID: {ActionId.REASON_INPUT: value}}
    )
    assert response.status_code == 200


async def _answer(loop: Loop, ts: str) -> None:
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.ANSWER)
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.QUESTION_MODAL), None
        ),
        message="question modal opened",
    )
    chosen = loop.driver.selected_option(view.id, "q0", ActionId.ANSWER_INPUT.value, "o1")
    response = await loop.driver.submit_view(
        "U0ADA", view.id, {"q0": {ActionId.ANSWER_INPUT.value: chosen}}
    )
    assert response.status_code == 200


async def _history(loop: Loop, cards: dict[str, str] | None = None) -> dict[str, str]:
    """An approval, a denial with a reason, a question answered, an expiry; their ids.
    `cards`: filled with the text each card showed just before its click."""
    cards = {} if cards is None else cards
    approved, denied = await loop.create(toolName="read_file"), await loop.create()
    options = [{"id": "staging", "label": "Staging"}, {"id": "prod", "label": "Prod"}]
    asked = await loop.create(
        "question",
        request={
            "title": "Where?",
            "questions": [{"id": "q_env", "prompt": "Which?", "options": options}],
        },
    )
    lapsing = await loop.create()
    ids = {"approved": approved["id"], "denied": denied["id"], "answered": asked["id"]}
    ids["expired"] = lapsing["id"]
    ts = {name: await loop.posted(interaction_id) for name, interaction_id in ids.items()}
    await loop.control.expire(lapsing["id"])
    for name in ("approved", "denied", "answered"):
        message = loop.slack.message(CHANNEL, ts[name])
        assert message is not None
        cards[name] = blocks_text(message.blocks)
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts["approved"], ActionId.APPROVE)
    await _deny_with_reason(loop, ts["denied"], "not during the freeze")
    await _answer(loop, ts["answered"])
    for interaction_id in ids.values():
        await loop.api_get_final(interaction_id)

    async def all_ended() -> bool:
        ending = {
            e["interaction_id"]
            for e in await _events(loop)
            if e["event"] in ("resolved", "expired")
        }
        return ending >= set(ids.values())

    await wait_until(all_ended, message="every ending in the trail")
    return ids


async def test_a_history_of_clicks_verifies_and_an_edited_export_does_not(
    loop: Loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = await _history(loop)
    events = await _events(loop)
    expired = next(e for e in events if e["event"] == "expired")
    assert expired["interaction_id"] == ids["expired"]  # read from resolution.reason
    assert expired["detail"]["reason"] == "interaction_timeout"
    denial = next(
        e for e in events if e["event"] == "resolved" and e["interaction_id"] == ids["denied"]
    )
    assert denial["detail"]["body"]["reason"].endswith("not during the freeze")

    verdict = await verify_store(loop.settings.db_path)
    assert verdict.ok, verdict.line()
    assert verdict.count == len(events)

    monkeypatch.setenv("NOVO_SLACK_DB", str(loop.settings.db_path))
    assert await asyncio.to_thread(main, ["audit", "verify"]) == 0
    assert capsys.readouterr().out.startswith(f"{len(events)} events, chain intact from ")

    export = tmp_path / "export.jsonl"
    assert await asyncio.to_thread(main, ["audit", "export", "--format", "jsonl"]) == 0
    export.write_text(capsys.readouterr().out)
    assert verify_file(export).ok
    assert await asyncio.to_thread(main, ["audit", "verify", "--file", str(export)]) == 0
    capsys.readouterr()

    lines = export.read_text().splitlines()
    at = next(n for n, line in enumerate(lines) if ids["denied"] in line and '"resolved"' in line)
    edited = json.loads(lines[at])
    edited["detail"]["body"]["inputResponses"][0]["optionId"] = "approve"
    lines[at] = json.dumps(edited)
    export.write_text("\n".join(lines) + "\n")
    assert await asyncio.to_thread(main, ["audit", "verify", "--file", str(export)]) == 1
    said = capsys.readouterr().out
    assert said.startswith(f"chain broken: event #{edited['id']} (") and ": edited" in said


async def test_each_decision_event_carries_what_was_shown_at_the_click(loop: Loop) -> None:
    cards: dict[str, str] = {}
    ids = await _history(loop, cards)
    events = await _events(loop)
    clicked = {e["interaction_id"]: e for e in events if e["event"] == "clicked"}

    approved = clicked[ids["approved"]]["detail"]
    assert (approved["verb"], approved["rule"]) == ("Approved", "defaults")
    shown = approved["shown"]
    assert shown["source"] == "message"
    assert shown["text"] == cards["approved"]  # the card as it stood, not as it is now
    assert "read_file" in shown["text"]
    assert shown["sha256"] == text_hash(shown["text"])
    assert (shown["channel"], shown["ts"]) == (CHANNEL, await loop.posted(ids["approved"]))
    now_shown = loop.slack.message(CHANNEL, shown["ts"])
    assert now_shown is not None and blocks_text(now_shown.blocks) != shown["text"]

    denied = clicked[ids["denied"]]
    assert denied["actor_id"] == "U0GRACE"
    assert (denied["detail"]["verb"], denied["detail"]["note"]) == (
        "Denied",
        "not during the freeze",
    )
    assert denied["detail"]["shown"]["source"] == "modal"  # the form stood in for the card
    answered = clicked[ids["answered"]]["detail"]["shown"]
    assert answered["source"] == "modal" and "Which?" in answered["text"]


async def _event(loop: Loop, name: str, interaction_id: str) -> dict[str, Any]:
    async def found() -> dict[str, Any] | None:
        return next(
            (
                e
                for e in await _events(loop)
                if e["event"] == name and e["interaction_id"] == interaction_id
            ),
            None,
        )

    event: dict[str, Any] = await wait_until(found, message=f"{name} of {interaction_id}")
    return event


async def test_a_thread_reply_and_a_standing_approval_record_what_stood_in(loop: Loop) -> None:
    interaction_id, ts = await _question(loop, {"id": "q_why", "prompt": "Why deploy now?"})
    reply = await loop.driver.reply_in_thread("U0GRACE", CHANNEL, ts, "Tests are green.")
    offer = await wait_until(
        lambda: next((e for e in loop.slack.ephemerals("U0GRACE") if "Send" in e.text), None),
        message="the offer to send the reply",
    )
    assert (await loop.driver.click_ephemeral_button(offer, ActionId.SEND_REPLY)).status_code == 200
    shown = (await _event(loop, "clicked", interaction_id))["detail"]["shown"]
    # what Grace clicked: the offer naming her reply, in the thread under her reply
    assert shown["source"] == "thread reply"
    assert (shown["text"], shown["channel"], shown["ts"]) == (
        offer.text,
        CHANNEL,
        reply.message.ts,
    )
    assert "Tests are green." in shown["text"]

    await loop.use_policy(STANDING)
    granted_ts = await _grant(loop)
    later = await _approval(loop, step=2)
    await _approved_without_a_message(loop, later)
    used = await _event(loop, "allowance_used", later)
    stood_in = used["detail"]["shown"]
    assert used["actor_id"] == "U0ADA" and stood_in["source"] == "standing approval"
    assert stood_in["text"].startswith(f"Standing approval #{used['detail']['allowance']} by U0ADA")
    assert "deploy_status of agt_deployer in run run_7Q2, until " in stood_in["text"]
    granting = next(
        e
        for e in await _events(loop)
        if e["event"] == "clicked"
        and e["detail"]["shown"]
        and e["detail"]["shown"]["ts"] == granted_ts
    )
    assert (
        granting["actor_id"] == "U0ADA" and "deploy_status" in granting["detail"]["shown"]["text"]
    )
    assert (await verify_store(loop.settings.db_path)).ok
