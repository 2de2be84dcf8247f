"""Approvals counted towards a quorum; "Remind me" requests.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "votes",
        sa.Column("interaction_id", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("user_name", sa.Text, nullable=False),
        sa.Column("voted_at", UtcDateTime, nullable=False),
        sa.Column("withdrawn_at", UtcDateTime),
        sa.PrimaryKeyConstraint("interaction_id", "user_id", name="votes_pkey"),
    )
    op.create_table(
        "snoozes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("interaction_id", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("due_at", UtcDateTime, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("done_at", UtcDateTime),
        sa.CheckConstraint("state IN ('waiting', 'sent', 'dropped')", name="snoozes_state_known"),
    )
    op.create_index("snoozes_due", "snoozes", ["state", "due_at"])
    op.create_index("snoozes_interaction", "snoozes", ["interaction_id"])


def downgrade() -> None:
    op.drop_index("snoozes_interaction", "snoozes")
    op.drop_index("snoozes_due", "snoozes")
    op.drop_table("snoozes")
    op.drop_table("votes")
