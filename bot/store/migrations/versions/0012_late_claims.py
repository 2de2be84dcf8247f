"""Late claims: a new message waits `queued` until its lane is about to send it, and a
claim remembers the newest ts of ours in its channel, where a look after a crash starts.

A `queued` message cannot be in Slack (nothing was sent for it), so a restart posts it
without looking; only `posting` ones (claimed by a lane just before its send) are in
doubt, at most a lane's burst per channel, and `after_ts` bounds the walk of the
channel's history that finds them all at once.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_constraint("messages_state_known", type_="check")
        batch.create_check_constraint(
            "messages_state_known", "state IN ('queued', 'posting', 'posted')"
        )
        batch.add_column(sa.Column("after_ts", sa.Text))
    op.create_index("messages_channel_newest", "messages", ["channel", "state", "ts"])


def downgrade() -> None:
    op.drop_index("messages_channel_newest", table_name="messages")
    # a message still waiting for its lane was claimed at first sight before this revision
    op.execute("UPDATE messages SET state = 'posting' WHERE state = 'queued'")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("after_ts")
        batch.drop_constraint("messages_state_known", type_="check")
        batch.create_check_constraint("messages_state_known", "state IN ('posting', 'posted')")
