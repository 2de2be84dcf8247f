"""The store's tables, one definition for SQLite and PostgreSQL.

This is the shape the newest migration leaves behind; queries are written
against it. Changing it means adding a revision under `migrations/versions/`.

- `interactions`: the newest API record of each interaction we track, and who
  decided it in Slack.
- `messages`: every Slack message the bridge posts, keyed by (subject, kind,
  channel) (`interaction_id`, `purpose`, `channel`): see `MessageKind`. The
  subject is an interaction's id, or a step group's for its group message (so
  the column names no foreign key).
- `decisions`: the outbox of decisions taken in Slack, at most one queued per
  interaction.
- `leases`: named leases that let one replica at a time do a job.
- `drafts`: answers typed into a form that is still open.
- `messages.slack_channel`: the DM channel a message posted to a user landed
  in (updates must name it).
- `messages.state`: `queued` (tracked, waiting for its lane: nothing was sent),
  `posting` (claimed by its lane just before the send: in doubt until its ts is
  recorded), `posted`; `after_ts` is where a look for an in-doubt one starts.
- `steps`: reminders and escalations before an expiry, each taken (sent or
  skipped) at most once per interaction.
- `votes`: approvals counted towards a rule's quorum, one per person per
  interaction; a withdrawn vote keeps its row (who changed their mind, when).
- `snoozes`: "Remind me" requests, each a DM due at a time, sent at most once.
- `step_groups`: approvals of one run's step posted together under one group
  message (a `messages` row of kind `group`), the cards replies in its thread;
  `interactions.group_id` says which group an interaction belongs to.
- `audit`: every transition (posted, clicked, refused, voted, resolved, 409/404,
  expired, reminded, escalated, digest sent), oldest pruned after
  NOVO_SLACK_AUDIT_DAYS; each event hashed with the one before it (`prev_hash`,
  `hash`: see `bot.store.chain`).
- `audit_chain`: one row, where the kept chain starts (the id and hash the first
  kept event follows), when the chain began and which older events it took in.
- `digests`: each scheduled digest, claimed once per scheduled time.
- `home_views`: who opened the App Home tab when, and what it last showed them.
- `allowances`: standing approvals a decider granted (rule, scope, agent, tool, run,
  until when), ended by a revoke, their expiry or a policy that no longer allows them.
- `allowance_uses`: each interaction an allowance approved, at most one row per
  interaction (the store, not a replica, decides that a use happens once), and
  whether its thread report went out.
- `event_receipts`: Events API deliveries already taken, by Slack's `event_id`, so a
  delivery Slack retries or sends twice is acted on once whichever replica gets it.
- `decisions.via`: how the decision was given when not by a button or form ("replying
  in the thread"), carried into the reason Novo receives; `reply_channel`, `reply_ts`:
  the thread reply that gave it, marked ✅ once Novo took it (after a redelivery too).
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    text,
)

from bot.store.sqltypes import UtcDateTime


class MessageKind(StrEnum):
    """What a message about an interaction is (`messages.purpose`): the kind picks its
    renderer and its destination, never a lifecycle of its own (bot/messages)."""

    PRIMARY = "channel"
    """The interaction's own message in its channel (at most one per interaction)."""
    COPY = "copy"
    """Each further message a route asks for (a DM to every listed user after the
    first): claimed with the primary, kept showing what it shows."""
    ESCALATION = "escalation"
    """One per target channel or user an escalation step names."""
    GROUP = "group"
    """A step group's own message (its subject is the group's id): the cards of its
    members reply in its thread."""


class MessageState(StrEnum):
    """Where a tracked message is on its way to Slack (`messages.state`)."""

    QUEUED = "queued"
    """Tracked, waiting for its lane: nothing was sent."""
    POSTING = "posting"
    """Claimed by its lane just before the send: in doubt until its ts is recorded."""
    POSTED = "posted"


UNPOSTED = (MessageState.QUEUED, MessageState.POSTING)
"""The states of a message that may still have to be posted."""


metadata = MetaData()

interactions = Table(
    "interactions",
    metadata,
    Column("id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("snapshot", Text, nullable=False),
    Column("gone", Boolean, nullable=False, server_default=text("false")),
    Column("decided_by_id", Text),
    Column("decided_by_name", Text),
    Column("decided_verb", Text),
    Column("decided_note", Text),
    Column("decided_at", UtcDateTime),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("group_id", Text),
    # one more at every write of `snapshot`: readers keep a parsed record while it holds
    Column("record_version", Integer, nullable=False, server_default=text("0")),
    Index("interactions_open", "status", "gone"),
    Index("interactions_group", "group_id"),
    Index("interactions_decided_by", "decided_by_id", "decided_at"),
)

messages = Table(
    "messages",
    metadata,
    Column("interaction_id", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("channel", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("ts", Text),
    Column("rendered_hash", Text),
    Column("synced", Boolean, nullable=False, server_default=text("false")),
    Column("version", Integer, nullable=False, server_default=text("0")),
    Column("claimed_at", UtcDateTime, nullable=False),
    # where Slack put it when that differs from `channel` (a DM posted to a user id)
    Column("slack_channel", Text),
    Column("updated_at", UtcDateTime, nullable=False),
    # the newest ts of ours in `channel` when it was claimed: if it was sent, it is newer
    Column("after_ts", Text),
    PrimaryKeyConstraint("interaction_id", "purpose", "channel", name="messages_pkey"),
    CheckConstraint("state IN ('queued', 'posting', 'posted')", name="messages_state_known"),
    Index("messages_state", "state", "purpose"),
    Index("messages_ts", "ts"),
    Index("messages_channel_newest", "channel", "state", "ts"),
    Index(
        "messages_one_primary",
        "interaction_id",
        unique=True,
        sqlite_where=text(f"purpose = '{MessageKind.PRIMARY.value}'"),
        postgresql_where=text(f"purpose = '{MessageKind.PRIMARY.value}'"),
    ),
)

decisions = Table(
    "decisions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("interaction_id", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("actor_id", Text, nullable=False),
    Column("actor_name", Text, nullable=False),
    Column("verb", Text, nullable=False),
    Column("note", Text),
    Column("state", Text, nullable=False),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("next_attempt_at", UtcDateTime, nullable=False),
    Column("last_error", Text),
    Column("response_view_id", Text),
    Column("approvers", Text),
    # a decision a standing approval took: until when the allowance held (the reason says)
    Column("standing_until", UtcDateTime),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("via", Text),
    Column("reply_channel", Text),
    Column("reply_ts", Text),
    ForeignKeyConstraint(["interaction_id"], ["interactions.id"]),
    CheckConstraint(
        "state IN ('queued', 'delivered', 'conflict', 'rejected', 'gone')",
        name="decisions_state_known",
    ),
    Index(
        "decisions_one_open",
        "interaction_id",
        unique=True,
        sqlite_where=text("state = 'queued'"),
        postgresql_where=text("state = 'queued'"),
    ),
    Index("decisions_due", "state", "next_attempt_at"),
)

leases = Table(
    "leases",
    metadata,
    Column("name", Text, primary_key=True),
    Column("holder", Text, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Column("acquired_at", UtcDateTime, nullable=False),
)

drafts = Table(
    "drafts",
    metadata,
    Column("view_id", Text, primary_key=True),
    Column("interaction_id", Text, nullable=False),
    Column("answers", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Index("drafts_interaction", "interaction_id"),
    Index("drafts_updated", "updated_at"),
)

steps = Table(
    "steps",
    metadata,
    Column("interaction_id", Text, nullable=False),
    Column("step", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("link", Text),
    Column("taken_at", UtcDateTime, nullable=False),
    PrimaryKeyConstraint("interaction_id", "step", name="steps_pkey"),
    CheckConstraint("outcome IN ('sent', 'skipped')", name="steps_outcome_known"),
)

votes = Table(
    "votes",
    metadata,
    Column("interaction_id", Text, nullable=False),
    Column("user_id", Text, nullable=False),
    Column("user_name", Text, nullable=False),
    Column("voted_at", UtcDateTime, nullable=False),
    Column("withdrawn_at", UtcDateTime),
    Column("note", Text),
    Column("sealed_at", UtcDateTime),
    Column("dropped_why", Text),
    PrimaryKeyConstraint("interaction_id", "user_id", name="votes_pkey"),
)

snoozes = Table(
    "snoozes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("interaction_id", Text, nullable=False),
    Column("user_id", Text, nullable=False),
    Column("due_at", UtcDateTime, nullable=False),
    Column("state", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("done_at", UtcDateTime),
    CheckConstraint("state IN ('waiting', 'sent', 'dropped')", name="snoozes_state_known"),
    Index("snoozes_due", "state", "due_at"),
    Index("snoozes_interaction", "interaction_id"),
)

step_groups = Table(
    "step_groups",
    metadata,
    Column("id", Text, primary_key=True),
    Column("root_run_id", Text, nullable=False),
    Column("step_number", Integer, nullable=False),
    Column("channel", Text, nullable=False),
    Column("agent_id", Text, nullable=False),
    Column("outcome", Text),
    Column("claimed_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

group_views = Table(
    "group_views",
    metadata,
    Column("group_id", Text, nullable=False),
    Column("version", Text, nullable=False),
    Column("item_ids", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    PrimaryKeyConstraint("group_id", "version", name="group_views_pkey"),
)

audit = Table(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", UtcDateTime, nullable=False),
    Column("event", Text, nullable=False),
    Column("interaction_id", Text),
    Column("actor_id", Text),
    Column("detail", Text, nullable=False),
    Column("prev_hash", Text, nullable=False),
    Column("hash", Text, nullable=False),
    Index("audit_at", "at"),
    Index("audit_interaction", "interaction_id"),
)

audit_chain = Table(
    "audit_chain",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("after_id", Integer, nullable=False),
    Column("prev_hash", Text, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("chained_through", Integer, nullable=False),
    CheckConstraint("id = 1", name="audit_chain_one_row"),
)

digests = Table(
    "digests",
    metadata,
    Column("digest", Text, nullable=False),
    Column("scheduled_for", UtcDateTime, nullable=False),
    Column("state", Text, nullable=False),
    Column("claimed_at", UtcDateTime, nullable=False),
    Column("sent_at", UtcDateTime),
    PrimaryKeyConstraint("digest", "scheduled_for", name="digests_pkey"),
    CheckConstraint("state IN ('sending', 'sent', 'skipped')", name="digests_state_known"),
)

home_views = Table(
    "home_views",
    metadata,
    Column("user_id", Text, primary_key=True),
    Column("opened_at", UtcDateTime, nullable=False),
    Column("published_hash", Text),
    Column("published_at", UtcDateTime),
)

allowances = Table(
    "allowances",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rule", Text, nullable=False),
    Column("scope", Text, nullable=False),
    Column("agent_id", Text, nullable=False),
    Column("tool_name", Text, nullable=False),
    Column("root_run_id", Text),
    Column("granted_by_id", Text, nullable=False),
    Column("granted_by_name", Text, nullable=False),
    Column("granted_at", UtcDateTime, nullable=False),
    Column("until", UtcDateTime, nullable=False),
    Column("interaction_id", Text, nullable=False),
    Column("ended", Text),
    Column("ended_by_id", Text),
    Column("ended_at", UtcDateTime),
    CheckConstraint("scope IN ('run', 'tool')", name="allowances_scope_known"),
    CheckConstraint(
        "ended IS NULL OR ended IN ('revoked', 'expired', 'policy', 'refused')",
        name="allowances_end_known",
    ),
    Index("allowances_open", "ended", "agent_id", "tool_name"),
    Index("allowances_interaction", "interaction_id"),
)

allowance_uses = Table(
    "allowance_uses",
    metadata,
    Column("interaction_id", Text, primary_key=True),
    Column("allowance_id", Integer, ForeignKey("allowances.id"), nullable=False),
    Column("run_id", Text, nullable=False),
    Column("step_number", Integer, nullable=False),
    Column("tool_name", Text, nullable=False),
    Column("used_at", UtcDateTime, nullable=False),
    Column("reported_at", UtcDateTime),
    Index("allowance_uses_unreported", "reported_at", "allowance_id"),
)

event_receipts = Table(
    "event_receipts",
    metadata,
    Column("event_id", Text, primary_key=True),
    Column("received_at", UtcDateTime, nullable=False),
    Index("event_receipts_received", "received_at"),
)
