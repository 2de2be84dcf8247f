"""The audit trail becomes a hash chain: each event keeps the hash of the one before it
and its own, and `audit_chain` records where the chain starts.

The events already there are chained here, oldest first, and the chain's start
records when and up to which id: the chain proves they have not changed since this
migration, not that they were right before it.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from bot.store.chain import GENESIS, content_bytes, link_hash
from bot.store.records import load_record
from bot.store.sqltypes import UtcDateTime

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_BATCH = 1_000


def upgrade() -> None:
    op.create_table(
        "audit_chain",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("after_id", sa.Integer, nullable=False),
        sa.Column("prev_hash", sa.Text, nullable=False),
        sa.Column("started_at", UtcDateTime, nullable=False),
        sa.Column("chained_through", sa.Integer, nullable=False),
        sa.CheckConstraint("id = 1", name="audit_chain_one_row"),
    )
    with op.batch_alter_table("audit") as batch:
        batch.add_column(sa.Column("prev_hash", sa.Text))
        batch.add_column(sa.Column("hash", sa.Text))
    last_id = _chain_existing()
    with op.batch_alter_table("audit") as batch:
        batch.alter_column("prev_hash", existing_type=sa.Text, nullable=False)
        batch.alter_column("hash", existing_type=sa.Text, nullable=False)
    chain = sa.table(
        "audit_chain",
        sa.column("id", sa.Integer),
        sa.column("after_id", sa.Integer),
        sa.column("prev_hash", sa.Text),
        sa.column("started_at", UtcDateTime),
        sa.column("chained_through", sa.Integer),
    )
    op.bulk_insert(
        chain,
        [
            {
                "id": 1,
                "after_id": 0,
                "prev_hash": GENESIS,
                "started_at": datetime.now(UTC),
                "chained_through": last_id,
            }
        ],
    )


def _chain_existing() -> int:
    """Hash every event there, oldest first; the last id chained (0: none)."""
    audit = sa.table(
        "audit",
        sa.column("id", sa.Integer),
        sa.column("at", UtcDateTime),
        sa.column("event", sa.Text),
        sa.column("interaction_id", sa.Text),
        sa.column("actor_id", sa.Text),
        sa.column("detail", sa.Text),
        sa.column("prev_hash", sa.Text),
        sa.column("hash", sa.Text),
    )
    connection = op.get_bind()
    prev, last_id = GENESIS, 0
    while rows := connection.execute(
        sa.select(audit).where(audit.c.id > last_id).order_by(audit.c.id).limit(_BATCH)
    ).all():
        for row in rows:
            content = content_bytes(
                row.at, row.event, row.interaction_id, row.actor_id, load_record(row.detail)
            )
            own = link_hash(prev, content)
            connection.execute(
                sa.update(audit).where(audit.c.id == row.id).values(prev_hash=prev, hash=own)
            )
            prev, last_id = own, int(row.id)
    return last_id


def downgrade() -> None:
    with op.batch_alter_table("audit") as batch:
        batch.drop_column("hash")
        batch.drop_column("prev_hash")
    op.drop_table("audit_chain")
