"""Named leases for replicas, and drafts of forms still open.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.Column("acquired_at", UtcDateTime, nullable=False),
    )
    op.create_table(
        "drafts",
        sa.Column("view_id", sa.Text, primary_key=True),
        sa.Column("interaction_id", sa.Text, nullable=False),
        sa.Column("answers", sa.Text, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
    )
    op.create_index("drafts_interaction", "drafts", ["interaction_id"])
    op.create_index("drafts_updated", "drafts", ["updated_at"])


def downgrade() -> None:
    op.drop_table("drafts")
    op.drop_table("leases")
