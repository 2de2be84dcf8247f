"""Reminder and escalation steps, each taken at most once per interaction; the
channel Slack put a message in when it was posted to a user (a DM).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "steps",
        sa.Column("interaction_id", sa.Text, nullable=False),
        sa.Column("step", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("link", sa.Text),
        sa.Column("taken_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("interaction_id", "step", name="steps_pkey"),
        sa.CheckConstraint("outcome IN ('sent', 'skipped')", name="steps_outcome_known"),
    )
    op.add_column("messages", sa.Column("slack_channel", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("slack_channel")
    op.drop_table("steps")
