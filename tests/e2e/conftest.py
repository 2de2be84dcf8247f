"""The whole loop over real HTTP: Novo simulator + local Slack + the bridge.

Nothing of the bridge is mocked: Slack's payloads arrive form-encoded and
signed through `SlackDriver`, the bridge talks to both servers over loopback.
"""

from __future__ import annotations

import asyncio
import atexit
import io
import json
import shutil
import sqlite3
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.audit import export_audit
from bot.bridge.runtime import Bridge
from bot.clock import Clock, utc_now
from bot.config import Settings
from bot.slack.ids import ActionId, CallbackId
from bot.store import Store, TrackedInteraction
from bot.tls import trust_store
from novo_dev.demo.stack import Person, ServersConfig, StackConfig, local_stack
from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.records import StoredView
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.postgres import fresh_database
from tests.support import DEFAULT_TIMEOUT, FakeClock, trigger_ttl, wait_until

SIGNING_SECRET = "e2e-signing-secret"
API_KEY = "novo-e2e-key"
CHANNEL = "C0APPROVALS"
POLL_SECONDS = 0.1


@dataclass
class Loop:
    """Everything a scenario needs, plus the small verbs scenarios share."""

    sim: SimServer
    slack: LocalSlack
    bridge: Bridge
    driver: SlackDriver
    settings: Settings
    http: httpx.AsyncClient
    clock: FakeClock = field(default_factory=FakeClock)  # real time, moved to skip a wait
    workdir: Path | None = None

    @property
    def control(self) -> SimControl:
        """The simulator's control API: arrange Novo's side, read what it was asked."""
        return SimControl(self.sim.url, self.http)

    async def create(self, kind: str = "approval_request", **fields: Any) -> dict[str, Any]:
        return await self.control.create(kind, **fields)

    async def api_get(self, interaction_id: str) -> dict[str, Any]:
        response = await self.http.get(
            f"{self.sim.url}/v1/interactions/{interaction_id}",
            headers={"Authorization": f"Bearer {API_KEY}"},
        )
        result: dict[str, Any] = response.json()
        return result

    async def api_get_final(
        self, interaction_id: str, timeout: float = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """The API record once it has left `pending`."""

        async def probe() -> dict[str, Any] | None:
            record = await self.api_get(interaction_id)
            return record if record["status"] != "pending" else None

        final: dict[str, Any] = await wait_until(
            probe, timeout=timeout, message=f"{interaction_id} no longer pending"
        )
        return final

    async def api_resolve(self, interaction_id: str, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(
            f"{self.sim.url}/v1/interactions/{interaction_id}/resolve",
            json=body,
            headers={"Authorization": f"Bearer {API_KEY}"},
        )

    async def tracked(self, interaction_id: str) -> TrackedInteraction | None:
        assert self.bridge.services is not None
        return await self.bridge.services.store.get(interaction_id)

    async def posted(self, interaction_id: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until the bridge has posted the interaction; returns the message ts."""

        async def probe() -> str | None:
            tracked = await self.tracked(interaction_id)
            return tracked.ts if tracked and tracked.state == "posted" else None

        ts: str = await wait_until(probe, timeout=timeout, message=f"{interaction_id} posted")
        return ts

    def message_text(self, ts: str) -> str:
        """Everything the channel shows for that message, as one string."""
        return self.message_text_in(CHANNEL, ts)

    def message_text_in(self, channel: str, ts: str) -> str:
        """`message_text` for a message in another channel (or a user's DM)."""
        message = self.slack.message(channel, ts)
        assert message is not None
        return message.text + "\n" + _block_text(message.blocks)

    def action_ids(self, ts: str) -> list[str]:
        message = self.slack.message(CHANNEL, ts)
        assert message is not None
        return [
            str(element.get("action_id"))
            for block in message.blocks
            if block.get("type") == "actions"
            for element in block.get("elements", [])
        ]

    async def open_form(self, user: str, ts: str) -> StoredView:
        """Press Answer on a question's message as `user`; the form Slack opened for them."""
        await self.driver.click_message_button(user, CHANNEL, ts, ActionId.ANSWER)
        view: StoredView = await wait_until(
            lambda: next(
                (
                    v
                    for v in self.slack.views()
                    if v.user_id == user and v.callback_id == CallbackId.QUESTION_MODAL
                ),
                None,
            ),
            message=f"{user}'s form opened",
        )
        return view

    async def shows(self, ts: str, *needles: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        def probe() -> str | None:
            text = self.message_text(ts)
            return text if all(n in text for n in needles) else None

        shown: str = await wait_until(
            probe, timeout=timeout, message=f"message {ts} showing {needles}"
        )
        return shown

    async def resolve_calls(self, interaction_id: str) -> list[dict[str, Any]]:
        """Resolve requests the simulator received for this interaction (any status)."""
        path = f"/v1/interactions/{interaction_id}/resolve"
        return [r for r in await self.control.log() if r["method"] == "POST" and r["path"] == path]

    async def batch_calls(self, root_run_id: str) -> list[dict[str, Any]]:
        """resolveBatch requests the simulator received for this root run."""
        path = f"/v1/runs/{root_run_id}/interactions/resolve"
        return [r for r in await self.control.log() if r["method"] == "POST" and r["path"] == path]

    async def trail(self, interaction_id: str | None = None) -> list[dict[str, Any]]:
        """The audit trail as `novo-slack audit --format jsonl` exports it (of one
        interaction, or all), one dict per event, oldest first."""
        out = io.StringIO()
        await export_audit(
            self.settings.db_path, fmt="jsonl", out=out, since=None, interaction_id=interaction_id
        )
        return [json.loads(line) for line in out.getvalue().splitlines()]

    async def readiness(self, status: int) -> dict[str, Any]:
        """The detailed `/readyz` once it answers `status` (readiness judges how recent the
        last poll is, so a busy machine may answer otherwise for a moment)."""

        async def probe() -> dict[str, Any] | None:
            answer = await self.http.get(f"{self.bridge.metrics_url}/readyz")
            body: dict[str, Any] = answer.json()
            return body if answer.status_code == status else None

        found: dict[str, Any] = await wait_until(probe, message=f"/readyz answering {status}")
        return found

    async def fault(self, **spec: Any) -> None:
        await self.control.faults(**spec)

    async def restart(self, **changes: Any) -> Bridge:
        """Stop the bridge and start it again (with these settings changed), as a
        deploy would; Slack's payloads then go to the new one."""
        await self.bridge.stop()
        await self.driver.aclose()
        if changes:
            self.settings = self.settings.model_copy(update=changes)
        self.bridge = fast_bridge(self.settings, self.clock)
        await self.bridge.start()
        assert self.bridge.url is not None
        self.driver = SlackDriver(self.bridge.url, SIGNING_SECRET, self.slack)
        return self.bridge

    async def use_policy(self, text: str) -> Bridge:
        """Restart the bridge onto a policy file holding `text` (YAML)."""
        if self.workdir is not None:
            folder = self.workdir
        else:
            assert isinstance(self.settings.db_path, Path)
            folder = self.settings.db_path.parent
        path = folder / "policy.yml"
        path.write_text(text, encoding="utf-8")
        return await self.restart(config_path=path)

    async def serve_raw(self, *records: Any, listed: bool = True) -> None:
        """Have Novo list these records verbatim (malformed, unknown kinds, hostile);
        `listed=False`: only answer GET by id with them (records that left the list)."""
        await self.control.serve_raw(list(records), listed=listed)

    async def stop_serving_raw(self) -> None:
        await self.control.clear_raw()

    def posted_ids(self) -> list[str]:
        """Interaction ids of every message Slack accepted a post for, in order."""
        return [
            c.args["metadata"]["event_payload"]["interaction_id"]
            if isinstance(c.args.get("metadata"), dict)
            else str(c.args.get("metadata"))
            for c in self.slack.calls("chat.postMessage")
            if c.ok
        ]

    def slack_ts_of(self, interaction_id: str) -> str | None:
        """The ts of the channel message Slack shows for the interaction, by its metadata."""
        for message in self.slack.messages(CHANNEL):
            payload = (message.metadata or {}).get("event_payload") or {}
            if payload.get("interaction_id") == interaction_id:
                return message.ts
        return None

    async def shown(self, interaction_id: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until Slack shows a message for the interaction; returns its ts."""
        ts: str = await wait_until(
            lambda: self.slack_ts_of(interaction_id),
            timeout=timeout,
            message=f"a message for {interaction_id} in Slack",
        )
        return ts

    async def metric(self, name: str, **labels: str) -> float:
        """The bridge's value for a Prometheus sample (0 when not exported yet); with
        `labels`, the sample carrying each of them."""
        assert self.bridge.url is not None
        text = (await self.http.get(f"{self.bridge.metrics_url}/metrics")).text
        wanted = [f'{key}="{value}"' for key, value in labels.items()]
        for line in text.splitlines():
            if line.startswith((name + " ", name + "{")) and all(w in line for w in wanted):
                return float(line.rsplit(" ", 1)[1])
        return 0.0


def _block_text(value: Any) -> str:
    if isinstance(value, dict):
        return "\n".join(_block_text(v) for k, v in value.items() if k != "value")
    if isinstance(value, list):
        return "\n".join(_block_text(v) for v in value)
    return value if isinstance(value, str) else ""


POST_RATE = 50.0  # scenarios post a handful at once; pacing has tests of its own
NOVO_RETRY_BASE = 0.01
REDELIVERY_BASE = 0.05
PEOPLE = (Person("U0ADA", "ada", "Ada Lovelace"), Person("U0GRACE", "grace", "Grace Hopper"))


def fast_bridge(settings: Settings, clock: Clock = utc_now) -> Bridge:
    return Bridge(
        settings,
        host="127.0.0.1",
        clock=clock,
        novo_retry_base=NOVO_RETRY_BASE,
        redelivery_base=REDELIVERY_BASE,
    )


_template: Path | None = None


async def _migrated_store_at(db: Path | str) -> None:
    """A store file at the newest revision, copied from one migrated once per test process:
    migrating a fresh file took a third of every scenario's start, and the migrations
    have tests of their own (tests/store)."""
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="novo-slack-e2e-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        async with await Store.open(folder / "migrated.db"):
            pass
        _template = folder / "migrated.db"
    await asyncio.to_thread(_copy_unless_there, _template, Path(db))


def _copy_unless_there(template: Path, db: Path) -> None:
    if not db.exists():  # a workdir opened again keeps the store it has
        shutil.copy2(template, db)  # its mode too: the store is private to its owner


@asynccontextmanager
async def open_loop(
    workdir: Path, db: Path | str | None = None, **changes: Any
) -> AsyncIterator[Loop]:
    """Simulator, local Slack and a bridge on `db` (a SQLite file in `workdir`, or a
    PostgreSQL URL), with these settings changed (`post_rate=5.0`); `workdir` also holds
    the policy files scenarios write. The one rig every in-process loop starts from."""
    config = StackConfig(
        servers=ServersConfig(api_key=API_KEY, people=PEOPLE, trigger_ttl=trigger_ttl()),
        db=workdir / "bridge.db",
        channel=CHANNEL,
        signing_secret=SIGNING_SECRET,
        poll_seconds=POLL_SECONDS,
        novo_retry_base=NOVO_RETRY_BASE,
        redelivery_base=REDELIVERY_BASE,
    )
    clock = FakeClock()
    changes = {"post_rate": POST_RATE, **({} if db is None else {"db_path": db}), **changes}
    if "db_path" not in changes:
        await _migrated_store_at(config.db)
    async with (
        local_stack(config, clock=clock, settings_changes=changes) as stack,
        httpx.AsyncClient(timeout=10, verify=trust_store()) as http,
    ):
        bridge, driver = stack.bridge, stack.driver
        scenario = Loop(
            stack.sim, stack.slack, bridge, driver, bridge.settings, http, clock, workdir
        )
        try:
            yield scenario
        finally:
            await scenario.bridge.stop()  # a scenario may have restarted it
            await scenario.driver.aclose()


@pytest.fixture
async def loop(tmp_path: Path) -> AsyncIterator[Loop]:
    async with open_loop(tmp_path) as scenario:
        yield scenario


@pytest.fixture(params=["sqlite", "postgresql"])
async def engine_loop(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Loop, str]]:
    if request.param == "sqlite":
        async with open_loop(tmp_path) as scenario:
            yield scenario, "sqlite"
        return
    async with fresh_database() as url, open_loop(tmp_path, url) as scenario:
        yield scenario, url


async def hold_the_store(
    loop: Loop,
    engine: str,
    held: asyncio.Event,
    done: asyncio.Event,
    tables: str = "decisions, votes",
) -> None:
    """Keep the bridge's store from writing until `done` (a frozen database): the whole
    file on SQLite, these tables on PostgreSQL (`engine`: its URL)."""
    if engine == "sqlite":
        assert isinstance(loop.settings.db_path, Path)
        file = sqlite3.connect(
            loop.settings.db_path, timeout=30, isolation_level=None, check_same_thread=False
        )
        await asyncio.to_thread(file.execute, "BEGIN EXCLUSIVE")  # waits out the bridge's writes
        held.set()
        await done.wait()
        file.execute("ROLLBACK")
        file.close()
        return
    url = engine.replace("postgresql://", "postgresql+asyncpg://", 1)
    locker = create_async_engine(url)
    try:
        async with locker.begin() as connection:
            await connection.execute(text(f"LOCK TABLE {tables} IN ACCESS EXCLUSIVE MODE"))
            held.set()
            await done.wait()
    finally:
        await locker.dispose()
