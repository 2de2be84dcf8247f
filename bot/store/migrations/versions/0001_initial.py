"""The schema the bridge shipped with: tracked interactions and the decision outbox.

Timestamps are ISO-8601 text here, as the first release wrote them;
revision 0002 turns them into real timestamps.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "interactions",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("snapshot", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("ts", sa.Text),
        sa.Column("rendered_hash", sa.Text),
        sa.Column("gone", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("synced", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("decided_by_id", sa.Text),
        sa.Column("decided_by_name", sa.Text),
        sa.Column("decided_verb", sa.Text),
        sa.Column("decided_note", sa.Text),
        sa.Column("decided_at", sa.Text),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
        sa.CheckConstraint("state IN ('posting', 'posted')"),
    )
    op.create_index("interactions_open", "interactions", ["status", "gone"])
    op.create_table(
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
        sa.Column("next_attempt_at", sa.Text, nullable=False),
        sa.Column("last_error", sa.Text),
        sa.Column("response_view_id", sa.Text),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
        sa.CheckConstraint("state IN ('queued', 'delivered', 'conflict', 'rejected', 'gone')"),
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


def downgrade() -> None:
    op.drop_table("decisions")
    op.drop_table("interactions")
