"""The bridge's SQLite store, on aiosqlite so no query blocks the event loop.

Every state change is one conditional statement whose row count says whether
it happened (`UPDATE … WHERE state = 'posting'`): two tasks racing on the same
interaction can never both win, and nothing is check-then-act.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

import aiosqlite

from bot.novo.models import Interaction, ResolveInteractionBody
from bot.slack.render.context import SlackActor, SlackDecision
from bot.store.migrations import migrate

DecisionState = Literal["queued", "delivered", "conflict", "rejected", "gone"]


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def _parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@dataclass(frozen=True)
class TrackedInteraction:
    """One interaction the bridge has (or is about to have) a Slack message for."""

    id: str
    kind: str
    state: Literal["posting", "posted"]
    snapshot: Interaction
    channel: str
    ts: str | None
    rendered_hash: str | None
    gone: bool
    decided_in_slack: SlackDecision | None

    @property
    def is_open(self) -> bool:
        """Still waiting on a human as far as the bridge last knew."""
        return self.snapshot.is_pending and not self.gone


@dataclass(frozen=True)
class QueuedDecision:
    """A decision taken in Slack, kept until Novo has acknowledged it."""

    id: int
    interaction_id: str
    body: ResolveInteractionBody
    decision: SlackDecision
    state: DecisionState
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    response_view_id: str | None


class Store:
    """Owns the connection; one instance per process."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    @classmethod
    async def open(cls, path: Path | str) -> Store:
        db = await aiosqlite.connect(str(path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA busy_timeout=5000")
        await db.execute("PRAGMA foreign_keys=ON")
        await migrate(db)
        return cls(db)

    async def close(self) -> None:
        await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _write(self, sql: str, params: tuple[Any, ...]) -> int:
        cursor = await self._db.execute(sql, params)
        count = cursor.rowcount
        await cursor.close()
        return count

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[aiosqlite.Row]:
        async with self._db.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    # ----- interactions -------------------------------------------------

    async def claim_for_posting(
        self, interaction: Interaction, channel: str, now: datetime
    ) -> bool:
        """Record the intent to post before posting; False when already tracked (posted once)."""
        return (
            await self._write(
                "INSERT OR IGNORE INTO interactions (id, kind, state, status, snapshot, channel,"
                " created_at, updated_at) VALUES (?, ?, 'posting', ?, ?, ?, ?, ?)",
                (
                    interaction.id,
                    interaction.kind,
                    interaction.status,
                    json.dumps(interaction.to_wire()),
                    channel,
                    _iso(now),
                    _iso(now),
                ),
            )
            == 1
        )

    async def mark_posted(
        self, interaction_id: str, ts: str, rendered_hash: str, now: datetime
    ) -> bool:
        return (
            await self._write(
                "UPDATE interactions SET state = 'posted', ts = ?, rendered_hash = ?,"
                " updated_at = ? WHERE id = ? AND state = 'posting'",
                (ts, rendered_hash, _iso(now), interaction_id),
            )
            == 1
        )

    async def update_snapshot(self, interaction: Interaction, now: datetime) -> None:
        """Keep the newest API record; never move a finalized record back to pending."""
        await self._write(
            "UPDATE interactions SET snapshot = ?, status = ?, updated_at = ?,"
            " synced = CASE WHEN status = ? THEN synced ELSE 0 END"
            " WHERE id = ? AND (status = 'pending' OR ? != 'pending')",
            (
                json.dumps(interaction.to_wire()),
                interaction.status,
                _iso(now),
                interaction.status,
                interaction.id,
                interaction.status,
            ),
        )

    async def set_rendered_hash(self, interaction_id: str, rendered_hash: str) -> None:
        """What Slack shows now; also marks the message as in step with the record."""
        await self._write(
            "UPDATE interactions SET rendered_hash = ?, synced = 1 WHERE id = ?",
            (rendered_hash, interaction_id),
        )

    async def mark_gone(self, interaction_id: str, now: datetime) -> None:
        await self._write(
            "UPDATE interactions SET gone = 1, synced = 0, updated_at = ? WHERE id = ?",
            (_iso(now), interaction_id),
        )

    async def record_slack_decision(self, interaction_id: str, decision: SlackDecision) -> bool:
        """Remember who decided in Slack; the first delivered decision wins."""
        return (
            await self._write(
                "UPDATE interactions SET decided_by_id = ?, decided_by_name = ?, decided_verb = ?,"
                " decided_note = ?, decided_at = ? WHERE id = ? AND decided_by_id IS NULL",
                (
                    decision.actor.user_id,
                    decision.actor.display_name,
                    decision.verb,
                    decision.note,
                    _iso(decision.at),
                    interaction_id,
                ),
            )
            == 1
        )

    async def get(self, interaction_id: str) -> TrackedInteraction | None:
        rows = await self._rows("SELECT * FROM interactions WHERE id = ?", (interaction_id,))
        return _tracked(rows[0]) if rows else None

    async def unposted(self) -> list[TrackedInteraction]:
        """Claimed but not confirmed posted: the crash window to reconcile."""
        rows = await self._rows(
            "SELECT * FROM interactions WHERE state = 'posting' ORDER BY created_at"
        )
        return [_tracked(r) for r in rows]

    async def open_interactions(self) -> list[TrackedInteraction]:
        rows = await self._rows(
            "SELECT * FROM interactions WHERE status = 'pending' AND gone = 0 AND state = 'posted'"
            " ORDER BY created_at"
        )
        return [_tracked(r) for r in rows]

    async def out_of_step(self) -> list[TrackedInteraction]:
        """Finished interactions whose message may not show it yet (an update failed)."""
        rows = await self._rows(
            "SELECT * FROM interactions WHERE synced = 0 AND state = 'posted'"
            " AND (status != 'pending' OR gone = 1) ORDER BY updated_at"
        )
        return [_tracked(r) for r in rows]

    async def tracked_ids(self) -> set[str]:
        return {str(r["id"]) for r in await self._rows("SELECT id FROM interactions")}

    # ----- decisions (the outbox) --------------------------------------

    async def enqueue_decision(
        self,
        interaction_id: str,
        body: ResolveInteractionBody,
        decision: SlackDecision,
        lease_until: datetime,
    ) -> QueuedDecision | None:
        """Keep a decision durably before it is sent; None when another one is already open.

        `lease_until` keeps the redelivery job off it while the first attempt
        is under way; after a crash the job picks it up once the lease ends.
        """
        try:
            cursor = await self._db.execute(
                "INSERT INTO decisions (interaction_id, body, actor_id, actor_name, verb, note,"
                " state, next_attempt_at, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                (
                    interaction_id,
                    json.dumps(body.to_wire()),
                    decision.actor.user_id,
                    decision.actor.display_name,
                    decision.verb,
                    decision.note,
                    _iso(lease_until),
                    _iso(decision.at),
                    _iso(decision.at),
                ),
            )
        except aiosqlite.IntegrityError:
            return None
        new_id = cursor.lastrowid
        await cursor.close()
        rows = await self._rows("SELECT * FROM decisions WHERE id = ?", (new_id,))
        return _decision(rows[0])

    async def open_decision(self, interaction_id: str) -> QueuedDecision | None:
        rows = await self._rows(
            "SELECT * FROM decisions WHERE interaction_id = ? AND state = 'queued'",
            (interaction_id,),
        )
        return _decision(rows[0]) if rows else None

    async def due_decisions(self, now: datetime) -> list[QueuedDecision]:
        rows = await self._rows(
            "SELECT * FROM decisions WHERE state = 'queued' AND next_attempt_at <= ? ORDER BY id",
            (_iso(now),),
        )
        return [_decision(r) for r in rows]

    async def claim_due(self, decision_id: int, now: datetime, lease_until: datetime) -> bool:
        """Take a due decision for one delivery attempt; False when another task took it."""
        return (
            await self._write(
                "UPDATE decisions SET next_attempt_at = ? WHERE id = ? AND state = 'queued'"
                " AND next_attempt_at <= ?",
                (_iso(lease_until), decision_id, _iso(now)),
            )
            == 1
        )

    async def release_leases(self, now: datetime) -> int:
        """At start-up: decisions an earlier process was delivering are due again now."""
        return await self._write(
            "UPDATE decisions SET next_attempt_at = ? WHERE state = 'queued'", (_iso(now),)
        )

    async def queued_count(self) -> int:
        rows = await self._rows("SELECT COUNT(*) FROM decisions WHERE state = 'queued'")
        return int(rows[0][0])

    async def set_response_view(self, decision_id: int, view_id: str) -> None:
        await self._write(
            "UPDATE decisions SET response_view_id = ? WHERE id = ?", (view_id, decision_id)
        )

    async def finish_decision(
        self, decision_id: int, state: DecisionState, now: datetime, error: str | None = None
    ) -> bool:
        """Close a queued decision; False when someone else closed it first."""
        return (
            await self._write(
                "UPDATE decisions SET state = ?, last_error = ?, attempts = attempts + 1,"
                " updated_at = ? WHERE id = ? AND state = 'queued'",
                (state, error, _iso(now), decision_id),
            )
            == 1
        )

    async def retry_decision_later(
        self, decision_id: int, next_attempt_at: datetime, error: str, now: datetime
    ) -> None:
        await self._write(
            "UPDATE decisions SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?,"
            " updated_at = ? WHERE id = ? AND state = 'queued'",
            (_iso(next_attempt_at), error, _iso(now), decision_id),
        )


def _tracked(row: aiosqlite.Row) -> TrackedInteraction:
    decided_at = _parse(row["decided_at"])
    decided = None
    if row["decided_by_id"] and decided_at is not None:
        decided = SlackDecision(
            actor=SlackActor(row["decided_by_id"], row["decided_by_name"] or row["decided_by_id"]),
            at=decided_at,
            verb=row["decided_verb"] or "Decided",
            note=row["decided_note"],
        )
    return TrackedInteraction(
        id=row["id"],
        kind=row["kind"],
        state=row["state"],
        snapshot=Interaction.model_validate(json.loads(row["snapshot"])),
        channel=row["channel"],
        ts=row["ts"],
        rendered_hash=row["rendered_hash"],
        gone=bool(row["gone"]),
        decided_in_slack=decided,
    )


def _decision(row: aiosqlite.Row) -> QueuedDecision:
    return QueuedDecision(
        id=int(row["id"]),
        interaction_id=row["interaction_id"],
        body=ResolveInteractionBody.model_validate(json.loads(row["body"])),
        decision=SlackDecision(
            actor=SlackActor(row["actor_id"], row["actor_name"]),
            at=datetime.fromisoformat(row["created_at"]),
            verb=row["verb"],
            note=row["note"],
        ),
        state=row["state"],
        attempts=int(row["attempts"]),
        next_attempt_at=datetime.fromisoformat(row["next_attempt_at"]),
        last_error=row["last_error"],
        response_view_id=row["response_view_id"],
    )
