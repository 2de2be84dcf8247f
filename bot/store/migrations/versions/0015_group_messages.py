"""A step group's message becomes a message like any other: a `messages` row of kind
`group`, its subject the group's id, so one table and one set of verbs keep every
message the bridge posts (claimed, recorded, reconciled and refreshed alike).

`step_groups` keeps what the group itself is (its run, step, channel, agent and
outcome); its message's state, ts and rendered hash move to `messages`. The subject of
a group message is no interaction, so `messages.interaction_id` loses its foreign key.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

GROUP = "group"
# how SQLite's unnamed foreign key is named for batch mode to find it
_NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}
_SQLITE_FK = "fk_messages_interaction_id_interactions"
_POSTGRESQL_FK = "messages_interaction_id_fkey"


def upgrade() -> None:
    _drop_interaction_key()
    op.execute(
        "INSERT INTO messages (interaction_id, purpose, channel, state, ts, rendered_hash,"
        " synced, version, claimed_at, updated_at)"
        f" SELECT id, '{GROUP}', channel, state, ts, rendered_hash, TRUE, 0, claimed_at,"
        " updated_at FROM step_groups"
    )
    with op.batch_alter_table("step_groups") as batch:
        batch.drop_constraint("step_groups_state_known", type_="check")
        batch.drop_column("state")
        batch.drop_column("ts")
        batch.drop_column("rendered_hash")


def downgrade() -> None:
    with op.batch_alter_table("step_groups") as batch:
        batch.add_column(sa.Column("state", sa.Text, nullable=False, server_default="posting"))
        batch.add_column(sa.Column("ts", sa.Text))
        batch.add_column(sa.Column("rendered_hash", sa.Text))
    group_message = (
        f"FROM messages m WHERE m.interaction_id = step_groups.id AND m.purpose = '{GROUP}'"
    )
    # a group message still waiting for its lane was claimed at once before this revision
    op.execute(
        "UPDATE step_groups SET"
        f" state = COALESCE((SELECT CASE m.state WHEN 'posted' THEN 'posted' ELSE 'posting' END"
        f" {group_message}), 'posting'),"
        f" ts = (SELECT m.ts {group_message}),"
        f" rendered_hash = (SELECT m.rendered_hash {group_message})"
    )
    op.execute(f"DELETE FROM messages WHERE purpose = '{GROUP}'")
    with op.batch_alter_table("step_groups") as batch:
        batch.create_check_constraint("step_groups_state_known", "state IN ('posting', 'posted')")
    if op.get_bind().dialect.name == "postgresql":
        op.create_foreign_key(
            _POSTGRESQL_FK, "messages", "interactions", ["interaction_id"], ["id"]
        )
        return
    with op.batch_alter_table("messages", naming_convention=_NAMING) as batch:
        batch.create_foreign_key(_SQLITE_FK, "interactions", ["interaction_id"], ["id"])


def _drop_interaction_key() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for key in sa.inspect(bind).get_foreign_keys("messages"):
            if key["referred_table"] == "interactions" and key["name"]:
                op.drop_constraint(key["name"], "messages", type_="foreignkey")
        return
    with op.batch_alter_table("messages", naming_convention=_NAMING) as batch:
        batch.drop_constraint(_SQLITE_FK, type_="foreignkey")
