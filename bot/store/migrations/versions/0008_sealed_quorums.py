"""Decisions are what people saw and meant: a quorum sealed with its votes, each vote's
note kept, a vote that no longer counts said so, and what each step-group message
listed when someone pressed its Approve all.

- `votes.note`: the words given with an approval, carried into the reason.
- `votes.sealed_at`: set on every counted vote in the transaction that meets the
  quorum and queues the decision; a sealed vote can no longer be withdrawn.
- `votes.dropped_why`: a vote dropped because its giver no longer qualifies.
- `decisions.approvers`: the approvers a quorum decision was sealed with (JSON), so
  delivery names exactly those, whatever happens to the votes afterwards.
- `group_views`: the items one rendered version of a group message listed with a
  card of their own; Approve all / Deny all act on those and no others.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.sqltypes import UtcDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("votes") as votes:
        votes.add_column(sa.Column("note", sa.Text))
        votes.add_column(sa.Column("sealed_at", UtcDateTime))
        votes.add_column(sa.Column("dropped_why", sa.Text))
    with op.batch_alter_table("decisions") as decisions:
        decisions.add_column(sa.Column("approvers", sa.Text))
    op.create_table(
        "group_views",
        sa.Column("group_id", sa.Text, nullable=False),
        sa.Column("version", sa.Text, nullable=False),
        sa.Column("item_ids", sa.Text, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("group_id", "version", name="group_views_pkey"),
    )


def downgrade() -> None:
    op.drop_table("group_views")
    with op.batch_alter_table("decisions") as decisions:
        decisions.drop_column("approvers")
    with op.batch_alter_table("votes") as votes:
        votes.drop_column("dropped_why")
        votes.drop_column("sealed_at")
        votes.drop_column("note")
