"""A database made by an earlier release upgrades in place, keeping every message and decision.

`fixtures/legacy-v1.sql` is the dump of a file the first release's own store
wrote (see `fixtures/make_legacy_db.py`); set `NOVO_SLACK_LEGACY_SRC` to a
checkout of that release to also make one afresh and upgrade it.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import column, table, text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store import Store, StoreOpenError, admin
from bot.store.migrate import config as migrate_config
from bot.store.migrate import head_revision, upgrade_to
from bot.store.opening import open_engine
from bot.store.schema import MessageKind
from bot.store.sqltypes import UtcDateTime
from tests.support import bounded

from .conftest import Database
from .helpers import NOW

FIXTURES = Path(__file__).parent / "fixtures"
LEGACY = FIXTURES / "legacy-v1.sql"


def _legacy_file(path: Path) -> Path:
    """The first release's file, restored from its dump (in WAL mode, as it ran)."""
    raw = sqlite3.connect(path)
    try:
        raw.execute("PRAGMA journal_mode=WAL")
        raw.executescript(LEGACY.read_text())
    finally:
        raw.close()
    return path


async def _expect_legacy_content(store: Store) -> None:
    assert await store.tracked_ids() == {"int_posted", "int_unposted", "int_done"}
    posted = await store.get("int_posted")
    assert posted is not None
    assert (posted.state, posted.channel, posted.ts, posted.rendered_hash) == (
        "posted",
        "C1",
        "1700000000.000100",
        "hash-1",
    )
    assert posted.snapshot.input == {"service": "api", "note": "ünïcode \u202e"}
    assert [t.id for t in await store.open_interactions()] == ["int_posted"]
    [unposted] = await store.unposted()
    assert (unposted.id, unposted.channel, unposted.claimed_at) == (
        "int_unposted",
        "C2",
        NOW + timedelta(seconds=1),
    )
    done = await store.get("int_done")
    assert done is not None and done.snapshot.status == "resolved"
    assert done.decided_in_slack is not None and done.decided_in_slack.actor.display_name == "Grace"
    assert [t.id for t in await store.out_of_step()] == ["int_done"]
    queued = await store.open_decision("int_posted")
    assert queued is not None
    assert (queued.decision.actor.user_id, queued.decision.note) == ("U1", "ok")
    assert queued.next_attempt_at == NOW + timedelta(minutes=3)
    assert queued.decision.at == NOW + timedelta(seconds=5)
    assert await store.queued_count() == 1
    assert [d.interaction_id for d in await store.due_decisions(NOW + timedelta(minutes=3))] == [
        "int_posted"
    ]
    # and it goes on working: new decisions get new ids (after Novo refused the first)
    await store.finish_decision(queued.id, "rejected", NOW, "400")
    again = await store.enqueue_decision("int_posted", queued.body, queued.decision, NOW)
    assert again is not None and again.id > queued.id


async def _upgrade_and_check(path: Path) -> None:
    assert await admin.current(path) == ""  # made before revisions were recorded
    store = await Store.open(path)
    try:
        await _expect_legacy_content(store)
    finally:
        await store.close()
    assert await admin.current(path) == head_revision()
    reopened = await Store.open(path)  # a second start changes nothing
    try:
        assert len(await reopened.tracked_ids()) == 3
    finally:
        await reopened.close()


async def test_a_file_from_the_first_release_upgrades_in_place(tmp_path: Path) -> None:
    await _upgrade_and_check(_legacy_file(tmp_path / "novo-slack.db"))


@pytest.mark.skipif(not os.environ.get("NOVO_SLACK_LEGACY_SRC"), reason="no first-release tree")
async def test_a_file_made_now_by_the_first_release_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "novo-slack.db"
    env = {**os.environ, "PYTHONPATH": os.environ["NOVO_SLACK_LEGACY_SRC"]}
    script = str(FIXTURES / "make_legacy_db.py")
    maker = await asyncio.create_subprocess_exec(
        sys.executable, script, str(path), env=env, cwd=tmp_path
    )
    assert await bounded(maker.wait(), 60) == 0
    await _upgrade_and_check(path)


async def test_an_unknown_old_version_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _legacy_file(tmp_path / "novo-slack.db")
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO schema_version VALUES (7)")
    raw.close()
    with pytest.raises(StoreOpenError) as caught:
        await Store.open(path)
    assert "unknown schema version 7" in str(caught.value)
    assert "\n" not in str(caught.value)


async def test_postgres_rows_written_at_0001_move_to_messages(postgres: Database) -> None:
    """The same revision moves data on PostgreSQL (and keeps the id sequence ahead)."""

    async def to_0001(connection: AsyncConnection) -> None:
        await connection.run_sync(upgrade_to, "0001")
        await connection.execute(
            text(
                "INSERT INTO interactions (id, kind, state, status, snapshot, channel, ts,"
                " rendered_hash, created_at, updated_at) VALUES ('int_1', 'approval_request',"
                " 'posted', 'pending', :snapshot, 'C7', '1.5', 'h', :at, :at)"
            ),
            {"snapshot": LEGACY_SNAPSHOT, "at": "2026-11-30T09:00:00+00:00"},
        )
        await connection.execute(
            text(
                "INSERT INTO decisions (id, interaction_id, body, actor_id, actor_name, verb,"
                " state, next_attempt_at, created_at, updated_at) VALUES (41, 'int_1', '{}',"
                " 'U1', 'Ada', 'Approved', 'queued', :lease, :at, :at)"
            ),
            {"lease": "2026-11-30T09:03:00+00:00", "at": "2026-11-30T09:00:00+00:00"},
        )

    opened = await open_engine(postgres.target, to_0001, schema=postgres.schema)
    await opened.close()
    assert await admin.current(postgres.target, schema=postgres.schema) == "0001"
    assert await admin.upgrade(postgres.target, schema=postgres.schema) == head_revision()
    store = await postgres.open()
    try:
        tracked = await store.get("int_1")
        assert tracked is not None and (tracked.channel, tracked.ts) == ("C7", "1.5")
        queued = await store.open_decision("int_1")
        assert queued is not None and queued.id == 41
        assert queued.next_attempt_at == NOW + timedelta(minutes=3)
        await store.finish_decision(41, "rejected", NOW, "400")
        body, decision = queued.body, queued.decision
        assert (await store.enqueue_decision("int_1", body, decision, NOW)) is not None
    finally:
        await store.close()


LEGACY_SNAPSHOT = (
    '{"id": "int_1", "object": "interaction", "runId": "run_1", "rootRunId": "run_1",'
    ' "threadId": "thr_1", "agentId": "agt_1", "kind": "approval_request", "status": "pending",'
    ' "stepNumber": 1, "toolName": "deploy", "toolCallId": "call_1",'
    ' "createdAt": "2026-11-30T08:00:00Z", "updatedAt": "2026-11-30T08:00:00Z"}'
)


_OLD_GROUPS = table(
    "step_groups",
    column("id"),
    column("root_run_id"),
    column("step_number"),
    column("channel"),
    column("agent_id"),
    column("state"),
    column("ts"),
    column("rendered_hash"),
    column("claimed_at", UtcDateTime),
    column("updated_at", UtcDateTime),
)


def _old_group(group_id: str, state: str, ts: str | None) -> dict[str, object]:
    return {
        "id": group_id,
        "root_run_id": "run_1",
        "step_number": 3,
        "channel": "C1",
        "agent_id": "agt",
        "state": state,
        "ts": ts,
        "rendered_hash": "h" if ts else None,
        "claimed_at": NOW,
        "updated_at": NOW,
    }


async def test_step_group_messages_written_at_0014_move_to_messages_and_back(
    db: Database,
) -> None:
    """Revision 0015 moves each group's message into `messages` (kind `group`), and its
    downgrade moves them back."""

    async def to_0014(connection: AsyncConnection) -> None:
        await connection.run_sync(upgrade_to, "0014")
        await connection.execute(
            _OLD_GROUPS.insert(),
            [_old_group("run_1#3#C1", "posted", "1.5"), _old_group("run_2#3#C1", "posting", None)],
        )

    async def to_0015(connection: AsyncConnection) -> None:
        await connection.run_sync(upgrade_to, "0015")

    async def back_to_0014(connection: AsyncConnection) -> None:
        await connection.run_sync(lambda sync: command.downgrade(migrate_config(sync), "0014"))

    async def at(prepare: Callable[[AsyncConnection], Awaitable[Any]]) -> None:
        opened = await open_engine(db.target, prepare, schema=db.schema)
        await opened.close()

    await at(to_0014)
    await at(to_0015)
    store = await db.open()
    try:
        posted, doubtful = await store.group("run_1#3#C1"), await store.group("run_2#3#C1")
        assert posted is not None and (posted.state, posted.ts, posted.rendered_hash) == (
            "posted",
            "1.5",
            "h",
        )
        assert doubtful is not None and (doubtful.state, doubtful.claimed_at) == ("posting", NOW)
        [unposted] = await store.unposted_messages()
        assert (unposted.interaction_id, unposted.purpose) == ("run_2#3#C1", MessageKind.GROUP)
    finally:
        await store.close()
    await at(back_to_0014)
    rows: list[Any] = []

    async def read(connection: AsyncConnection) -> None:
        found = await connection.execute(text("SELECT id, state, ts FROM step_groups ORDER BY id"))
        rows.extend(tuple(r) for r in found)
        left = await connection.execute(text("SELECT COUNT(*) FROM messages"))
        rows.append(left.scalar())

    await at(read)
    assert rows == [("run_1#3#C1", "posted", "1.5"), ("run_2#3#C1", "posting", None), 0]
    await at(to_0015)  # and up again
