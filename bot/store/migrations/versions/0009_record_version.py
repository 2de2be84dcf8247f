"""A version on each interaction's stored record, counted up at every write of it, so a
reader can keep the record parsed for as long as the version holds.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN in place on both engines (a batch would copy the table on SQLite)
    op.add_column(
        "interactions",
        sa.Column("record_version", sa.Integer, nullable=False, server_default=sa.text("0")),
    )


def downgrade() -> None:
    with op.batch_alter_table("interactions") as batch:
        batch.drop_column("record_version")
