"""Refused grants: an allowance whose granting approval Novo refused ends as `refused`.

An allowance takes effect only once the approval it was granted with is delivered as
`approve`; when Novo refuses that approval (decided elsewhere first, gone, a 400) the
allowance never took effect, and it is ended with this word so the granting message
and the audit trail say why.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("allowances") as batch:
        batch.drop_constraint("allowances_end_known", type_="check")
        batch.create_check_constraint(
            "allowances_end_known",
            "ended IS NULL OR ended IN ('revoked', 'expired', 'policy', 'refused')",
        )


def downgrade() -> None:
    # a refused grant never approved anything: before this revision it reads as revoked
    op.execute("UPDATE allowances SET ended = 'revoked' WHERE ended = 'refused'")
    with op.batch_alter_table("allowances") as batch:
        batch.drop_constraint("allowances_end_known", type_="check")
        batch.create_check_constraint(
            "allowances_end_known", "ended IS NULL OR ended IN ('revoked', 'expired', 'policy')"
        )
