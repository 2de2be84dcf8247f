"""The managers' view: the audit trail, digests sent once, App Home tabs opened, and
what each person decided found by an index (the Home tab asks it every few seconds).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("interaction_id", sa.Text),
        sa.Column("actor_id", sa.Text),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_index("audit_at", "audit", ["at"])
    op.create_index("audit_interaction", "audit", ["interaction_id"])
    op.create_table(
        "digests",
        sa.Column("digest", sa.Text, nullable=False),
        sa.Column("scheduled_for", UtcDateTime, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
        sa.Column("sent_at", UtcDateTime),
        sa.PrimaryKeyConstraint("digest", "scheduled_for", name="digests_pkey"),
        sa.CheckConstraint("state IN ('sending', 'sent', 'skipped')", name="digests_state_known"),
    )
    op.create_index("interactions_decided_by", "interactions", ["decided_by_id", "decided_at"])
    op.create_table(
        "home_views",
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("opened_at", UtcDateTime, nullable=False),
        sa.Column("published_hash", sa.Text),
        sa.Column("published_at", UtcDateTime),
    )


def downgrade() -> None:
    op.drop_table("home_views")
    op.drop_index("interactions_decided_by", "interactions")
    op.drop_table("digests")
    op.drop_index("audit_interaction", "audit")
    op.drop_index("audit_at", "audit")
    op.drop_table("audit")
