"""Messages become records of their own; timestamps become real timestamps.

Each interaction's channel, ts, rendered hash, sync flag and posting state
move to a `messages` row with purpose `channel` (its primary message). The
ISO text timestamps of 0001 are parsed and kept as instants. Tables are
rebuilt and their rows copied over, which works the same on both engines;
the whole revision runs in one transaction.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

PRIMARY = "channel"


def upgrade() -> None:
    bind = op.get_bind()
    old_interactions = _rows("interactions")
    old_decisions = _rows("decisions")
    op.drop_table("decisions")
    op.drop_table("interactions")
    interactions, messages, decisions = _create_tables()
    _insert(interactions, [_interaction(r) for r in old_interactions])
    _insert(messages, [_message(r) for r in old_interactions])
    _insert(decisions, [_decision(r) for r in old_decisions])
    if bind.dialect.name == "postgresql":
        bind.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('decisions', 'id'),"
                " COALESCE((SELECT MAX(id) FROM decisions), 0) + 1, false)"
            )
        )


def downgrade() -> None:
    raise NotImplementedError("the store only moves forward")


def _create_tables() -> tuple[sa.Table, sa.Table, sa.Table]:
    interactions = op.create_table(
        "interactions",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("snapshot", sa.Text, nullable=False),
        sa.Column("gone", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.Column("decided_by_id", sa.Text),
        sa.Column("decided_by_name", sa.Text),
        sa.Column("decided_verb", sa.Text),
        sa.Column("decided_note", sa.Text),
        sa.Column("decided_at", UtcDateTime),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
    )
    op.create_index("interactions_open", "interactions", ["status", "gone"])
    messages = op.create_table(
        "messages",
        sa.Column("interaction_id", sa.Text, sa.ForeignKey("interactions.id"), nullable=False),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("ts", sa.Text),
        sa.Column("rendered_hash", sa.Text),
        sa.Column("synced", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.Column("version", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("interaction_id", "purpose", "channel", name="messages_pkey"),
        sa.CheckConstraint("state IN ('posting', 'posted')", name="messages_state_known"),
    )
    op.create_index("messages_state", "messages", ["state", "purpose"])
    op.create_index(
        "messages_one_primary",
        "messages",
        ["interaction_id"],
        unique=True,
        sqlite_where=sa.text(f"purpose = '{PRIMARY}'"),
        postgresql_where=sa.text(f"purpose = '{PRIMARY}'"),
    )
    decisions = op.create_table(
        "decisions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("interaction_id", sa.Text, sa.ForeignKey("interactions.id"), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("actor_id", sa.Text, nullable=False),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("verb", sa.Text, nullable=False),
        sa.Column("note", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("next_attempt_at", UtcDateTime, nullable=False),
        sa.Column("last_error", sa.Text),
        sa.Column("response_view_id", sa.Text),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.CheckConstraint(
            "state IN ('queued', 'delivered', 'conflict', 'rejected', 'gone')",
            name="decisions_state_known",
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "decisions_one_open",
        "decisions",
        ["interaction_id"],
        unique=True,
        sqlite_where=sa.text("state = 'queued'"),
        postgresql_where=sa.text("state = 'queued'"),
    )
    op.create_index("decisions_due", "decisions", ["state", "next_attempt_at"])
    assert interactions is not None and messages is not None and decisions is not None
    return interactions, messages, decisions


def _rows(table: str) -> list[dict[str, Any]]:
    result = op.get_bind().execute(sa.text(f"SELECT * FROM {table}"))
    return [dict(row) for row in result.mappings()]


def _insert(table: sa.Table, rows: list[dict[str, Any]]) -> None:
    if rows:
        op.get_bind().execute(table.insert(), rows)


def _instant(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    parsed = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _interaction(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "kind": row["kind"],
        "status": row["status"],
        "snapshot": row["snapshot"],
        "gone": bool(row["gone"]),
        "decided_by_id": row["decided_by_id"],
        "decided_by_name": row["decided_by_name"],
        "decided_verb": row["decided_verb"],
        "decided_note": row["decided_note"],
        "decided_at": _instant(row["decided_at"]),
        "created_at": _instant(row["created_at"]),
        "updated_at": _instant(row["updated_at"]),
    }


def _message(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "interaction_id": row["id"],
        "purpose": PRIMARY,
        "channel": row["channel"],
        "state": row["state"],
        "ts": row["ts"],
        "rendered_hash": row["rendered_hash"],
        "synced": bool(row["synced"]),
        "version": 0,
        "claimed_at": _instant(row["created_at"]),
        "updated_at": _instant(row["updated_at"]),
    }


def _decision(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: row[k] for k in ("id", "interaction_id", "body", "actor_id", "actor_name")},
        **{k: row[k] for k in ("verb", "note", "state", "attempts", "last_error")},
        "response_view_id": row["response_view_id"],
        "next_attempt_at": _instant(row["next_attempt_at"]),
        "created_at": _instant(row["created_at"]),
        "updated_at": _instant(row["updated_at"]),
    }
