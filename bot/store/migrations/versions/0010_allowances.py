"""Standing approvals: the allowances deciders grant, each use of one, and the decisions
they take (which carry until when the allowance held).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "allowances",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("rule", sa.Text, nullable=False),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("agent_id", sa.Text, nullable=False),
        sa.Column("tool_name", sa.Text, nullable=False),
        sa.Column("root_run_id", sa.Text),
        sa.Column("granted_by_id", sa.Text, nullable=False),
        sa.Column("granted_by_name", sa.Text, nullable=False),
        sa.Column("granted_at", UtcDateTime, nullable=False),
        sa.Column("until", UtcDateTime, nullable=False),
        sa.Column("interaction_id", sa.Text, nullable=False),
        sa.Column("ended", sa.Text),
        sa.Column("ended_by_id", sa.Text),
        sa.Column("ended_at", UtcDateTime),
        sa.CheckConstraint("scope IN ('run', 'tool')", name="allowances_scope_known"),
        sa.CheckConstraint(
            "ended IS NULL OR ended IN ('revoked', 'expired', 'policy')",
            name="allowances_end_known",
        ),
    )
    op.create_index("allowances_open", "allowances", ["ended", "agent_id", "tool_name"])
    op.create_index("allowances_interaction", "allowances", ["interaction_id"])
    op.create_table(
        "allowance_uses",
        sa.Column("interaction_id", sa.Text, primary_key=True),
        sa.Column("allowance_id", sa.Integer, sa.ForeignKey("allowances.id"), nullable=False),
        sa.Column("run_id", sa.Text, nullable=False),
        sa.Column("step_number", sa.Integer, nullable=False),
        sa.Column("tool_name", sa.Text, nullable=False),
        sa.Column("used_at", UtcDateTime, nullable=False),
        sa.Column("reported_at", UtcDateTime),
    )
    op.create_index("allowance_uses_unreported", "allowance_uses", ["reported_at", "allowance_id"])
    # ADD COLUMN in place on both engines (a batch would copy the table on SQLite)
    op.add_column("decisions", sa.Column("standing_until", UtcDateTime))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("standing_until")
    op.drop_index("allowance_uses_unreported", "allowance_uses")
    op.drop_table("allowance_uses")
    op.drop_index("allowances_interaction", "allowances")
    op.drop_index("allowances_open", "allowances")
    op.drop_table("allowances")
