"""The audit trail after a full lifecycle, exported as CSV and as JSON lines.

Exported beside the running bridge, as an operator would: the export takes
no lock and reads what the bridge wrote while it worked.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from bot.audit import export_audit, parse_since
from bot.cli import main
from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

ONLY_ADA = "rules:\n  - name: guarded\n    match: {}\n    deciders: {users: [U0ADA]}\n"


async def _export(loop: Loop, fmt: str, **kwargs: Any) -> str:
    out = io.StringIO()
    await export_audit(loop.settings.db_path, fmt=fmt, out=out, since=None, **kwargs)
    return out.getvalue()


async def _events(loop: Loop, interaction_id: str) -> list[str]:
    text = await _export(loop, "jsonl", interaction_id=interaction_id)
    return [json.loads(line)["event"] for line in text.splitlines()]


async def test_every_transition_is_in_the_trail_in_both_formats(loop: Loop) -> None:
    await loop.use_policy(ONLY_ADA)
    approved = await loop.create()
    ts = await loop.posted(approved["id"])
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await loop.api_get_final(approved["id"])
    expired = await loop.create()
    await loop.posted(expired["id"])
    await loop.control.expire(expired["id"])

    async def both_done() -> bool:
        return "resolved" in await _events(loop, approved["id"]) and "expired" in await _events(
            loop, expired["id"]
        )

    await wait_until(both_done, message="both lifecycles in the trail")
    assert await _events(loop, approved["id"]) == ["posted", "refused", "clicked", "resolved"]
    assert await _events(loop, expired["id"]) == ["posted", "expired"]

    lines = [json.loads(line) for line in (await _export(loop, "jsonl")).splitlines()]
    resolved = next(e for e in lines if e["event"] == "resolved")
    assert resolved["actor_id"] == "U0ADA"
    assert resolved["detail"]["body"]["inputResponses"] == [
        {"requestId": approved["id"], "optionId": "approve"}
    ]
    assert resolved["detail"]["body"]["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    assert resolved["detail"]["answer"] == {"status": "resolved", "decision": "allow"}
    refused = next(e for e in lines if e["event"] == "refused")
    assert (refused["actor_id"], refused["detail"]["why"]) == ("U0GRACE", "not a decider")

    rows = list(csv.DictReader(io.StringIO(await _export(loop, "csv"))))
    assert [r["event"] for r in rows] == [e["event"] for e in lines]
    assert json.loads(rows[0]["detail"])["channel"] == CHANNEL
    text = "\n".join(r["detail"] for r in rows)
    assert "xoxb-" not in text and "e2e-signing-secret" not in text  # nothing secret


def test_the_command_prints_the_trail(
    loop: Loop, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = loop.settings
    assert settings.slack_signing_secret is not None
    env = {
        "SLACK_BOT_TOKEN": settings.slack_bot_token.get_secret_value(),
        "SLACK_SIGNING_SECRET": settings.slack_signing_secret.get_secret_value(),
        "NOVO_API_URL": settings.novo_api_url,
        "NOVO_API_KEY": settings.novo_api_key.get_secret_value(),
        "NOVO_SLACK_CHANNEL": settings.default_channel,
        "NOVO_SLACK_DB": str(settings.db_path),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["audit", "--since", "1h", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("id,at,event,interaction_id,actor_id,detail")
    assert main(["audit", "--since", "soon"]) == 2
    assert "--since: 'soon': use a span such as 30m, 24h or 7d" in capsys.readouterr().err


def test_spans() -> None:
    assert parse_since("24h").total_seconds() == 86_400
    assert parse_since("7d").days == 7
    with pytest.raises(ValueError):
        parse_since("0m")
