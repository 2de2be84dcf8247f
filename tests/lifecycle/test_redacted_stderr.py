"""`novo-slack -v run` as an operator runs it: at DEBUG, what it writes to stderr holds no
credential planted in an approval's input and preview, and neither does `novo-slack audit`.

DEBUG is where third-party libraries say the most (the database drivers log each
statement with its parameters, Slack's SDK each request), so it is the level
that would leak if anything did.
"""

from __future__ import annotations

import asyncio
import json
import sys

from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import CHANNEL, SIGNING_SECRET, World
from tests.redaction.planted import approval_input, approval_preview, leaked_parts
from tests.support import wait_until


def _leaks(text: str) -> list[str]:
    return [kind for kind, part in leaked_parts().items() if part in text]


async def test_debug_stderr_and_the_audit_export_hold_no_planted_secret(world: World) -> None:
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    created = await world.control.approval(
        toolName="migrate_db",
        input=approval_input(),
        preview=approval_preview(),
        expiresInSeconds=600,
    )
    interaction_id = created["id"]
    bridge = await world.run("-v")
    url = await bridge.url()

    def posted() -> str | None:
        for message in world.slack.messages(CHANNEL):
            if (message.metadata or {}).get("event_payload", {}).get(
                "interaction_id"
            ) == interaction_id:
                return message.ts
        return None

    ts = await wait_until(posted, message="the approval posted")
    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await bridge.saw(f"updated message for {interaction_id} \\(resolved\\)")
    await bridge.kill()

    assert "DEBUG" in bridge.stderr and "chat.postMessage" in bridge.stderr
    assert _leaks(bridge.stderr) == []
    received = "\n".join(json.dumps(c.args, ensure_ascii=False) for c in world.slack.calls())
    assert _leaks(received) == [] and "db.internal.example.com" in received

    audit = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "audit",
        "--since",
        "1h",
        "--format",
        "jsonl",
        cwd=world.cwd,
        env=world.env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await audit.communicate()
    assert audit.returncode == 0, err.decode()
    exported = out.decode()
    assert interaction_id in exported and '"resolved"' in exported
    assert _leaks(exported + err.decode()) == []
