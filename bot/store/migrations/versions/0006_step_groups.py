"""Step groups: sibling approvals of one run's step under one message.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "step_groups",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("root_run_id", sa.Text, nullable=False),
        sa.Column("step_number", sa.Integer, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("agent_id", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("ts", sa.Text),
        sa.Column("rendered_hash", sa.Text),
        sa.Column("outcome", sa.Text),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.CheckConstraint("state IN ('posting', 'posted')", name="step_groups_state_known"),
    )
    with op.batch_alter_table("interactions") as batch:
        batch.add_column(sa.Column("group_id", sa.Text))
        batch.create_index("interactions_group", ["group_id"])


def downgrade() -> None:
    with op.batch_alter_table("interactions") as batch:
        batch.drop_index("interactions_group")
        batch.drop_column("group_id")
    op.drop_table("step_groups")
