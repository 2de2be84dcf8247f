"""Prometheus metrics, served at `GET /metrics` in both modes: what an on-call engineer graphs.

- Is the bridge keeping up with Novo? `polls_total{result}`, `poll_duration_seconds`,
  `novo_calls_total{route,status}`.
- Are clicks reaching Novo? `decisions_total{outcome,source}`, and the outbox:
  `outbox_depth` and `outbox_oldest_age_seconds` (a growing age means Novo
  has refused or missed decisions for that long).
- Is Novo, Slack or the database down? `dependency_up{dependency}` (0 during an outage) and
  `outages_total{dependency}`.
- Is Slack pushing back? `slack_calls_total{method,error}` counts every HTTP
  answer, 429s (`error="ratelimited"`) included even when a retry then works;
  `lane_depth{channel}` is what waits to be posted.
- Are people answering? `time_to_decision_seconds{kind}` (created → resolved)
  and `expired_total{rule}`. Are they nudged in time?
  `reminders_sent_total{rule}` and `escalations_sent_total{rule}`; their own
  "Remind me" DMs: `snoozes_total{result}`.

The outbox gauges are read from the store when scraped, so they are true on
every replica (the store is shared) and cost nothing between scrapes.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

_DECISIONS = Counter(
    "novo_slack_decisions_total",
    "Decisions taken in Slack, by what Novo made of them and where that happened"
    " (click: at once; redelivery: from the outbox). A decision that had to wait"
    " counts once as queued, then once with its final outcome",
    ["outcome", "source"],
)
POLLS = Counter("novo_slack_polls_total", "Polls of Novo's pending interactions", ["result"])
POLL_DURATION = Histogram(
    "novo_slack_poll_duration_seconds",
    "How long one poll of Novo (list, post, update) took, failed polls included",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
ALLOWANCES_USED = Counter(
    "novo_slack_allowances_used_total",
    "Pending approvals a standing approval (an allowance) approved, by the rule granting it",
    ["rule"],
)
MESSAGES_POSTED = Counter("novo_slack_messages_posted_total", "Interaction messages posted")
MESSAGES_UPDATED = Counter("novo_slack_messages_updated_total", "Interaction messages updated")
REDACTIONS = Counter(
    "novo_slack_redactions_total",
    "Values hidden from what the bridge shows, by kind (github_token, url_password,"
    " secret_key, …), counted once per version of a record read for showing",
    ["kind"],
)
UNREADABLE_RECORDS = Counter(
    "novo_slack_unreadable_records_total",
    "Listed records that could not be parsed (each id counted once); they are skipped",
)
INTERACTION_FAILURES = Counter(
    "novo_slack_interaction_failures_total",
    "Failures while handling one interaction; that interaction backs off, the rest go on",
)
TIME_TO_DECISION = Histogram(
    "novo_slack_time_to_decision_seconds",
    "From an interaction's creation to its resolution (in Slack or elsewhere), by kind and rule",
    ["kind", "rule"],
    buckets=(10, 30, 60, 120, 300, 600, 900, 1800, 3600, 4 * 3600, 24 * 3600),
)
EXPIRED = Counter(
    "novo_slack_expired_total", "Interactions that expired before anyone decided", ["rule"]
)
REMINDERS_SENT = Counter(
    "novo_slack_reminders_sent_total", "Reminders sent before an expiry", ["rule"]
)
ESCALATIONS_SENT = Counter(
    "novo_slack_escalations_sent_total",
    "Escalation messages sent (a channel post or a DM each)",
    ["rule"],
)
SNOOZES = Counter(
    "novo_slack_snoozes_total",
    '"Remind me" DMs: sent, or dropped (the interaction ended first, or Slack refused the DM)',
    ["result"],
)
RULE_DEFAULTS = "defaults"
"""The rule of an interaction no policy rule matched (and of any when the rule is unknown)."""
NOVO_CALLS = Counter(
    "novo_slack_novo_calls_total",
    "HTTP calls to Novo by route and status (timeout and connection_error when none came back)",
    ["route", "status"],
)
SLACK_CALLS = Counter(
    "novo_slack_slack_calls_total",
    "Slack Web API answers by method and error (ok when none; ratelimited for each 429)",
    ["method", "error"],
)
LANE_DEPTH = Gauge(
    "novo_slack_lane_depth", "Messages waiting in a channel's send lane", ["channel"]
)
OUTBOX_DEPTH = Gauge("novo_slack_outbox_depth", "Decisions waiting in the outbox for Novo")
OUTBOX_OLDEST_AGE = Gauge(
    "novo_slack_outbox_oldest_age_seconds",
    "Age of the oldest decision waiting in the outbox (0 when none waits)",
)

DEPENDENCY_UP = Gauge(
    "novo_slack_dependency_up",
    "1 while this process last reached the dependency (novo, slack, database), 0 during an outage",
    ["dependency"],
)
OUTAGES = Counter(
    "novo_slack_outages_total",
    "Outages of a dependency this process saw start (each said once at WARNING; see bot.outages)",
    ["dependency"],
)

# Outcomes that end a decision; `queued` does not (see `count_decision`).
QUEUED = "queued"


def count_decision(outcome: str, *, source: str, first_attempt: bool) -> None:
    """Count a delivery's outcome: final ones always, `queued` only the first time.

    A decision Novo could not take is retried from the outbox until it lands;
    each failed retry is not a new decision, so only the attempt that put it
    in the queue counts as `queued`.
    """
    if outcome == QUEUED and not first_attempt:
        return
    _DECISIONS.labels(outcome, source).inc()
