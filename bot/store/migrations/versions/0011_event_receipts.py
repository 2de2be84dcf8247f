"""Events API deliveries already taken (a retried or repeated `message` event decides
once), how a decision was given (`decisions.via`: "replying in the thread", and the
reply itself, marked ✅ once delivered), and an index
to find the interaction a thread reply is under by its message's ts.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "event_receipts",
        sa.Column("event_id", sa.Text, primary_key=True),
        sa.Column("received_at", UtcDateTime, nullable=False),
    )
    op.create_index("event_receipts_received", "event_receipts", ["received_at"])
    # ADD COLUMN in place on both engines (a batch would copy the table on SQLite)
    op.add_column("decisions", sa.Column("via", sa.Text))
    op.add_column("decisions", sa.Column("reply_channel", sa.Text))
    op.add_column("decisions", sa.Column("reply_ts", sa.Text))
    op.create_index("messages_ts", "messages", ["ts"])


def downgrade() -> None:
    op.drop_index("messages_ts", table_name="messages")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("reply_ts")
        batch.drop_column("reply_channel")
        batch.drop_column("via")
    op.drop_index("event_receipts_received", table_name="event_receipts")
    op.drop_table("event_receipts")
