"""Prometheus metrics, served at `GET /metrics` in HTTP mode.

What an operator watches: decisions by outcome (a growing `queued` means Novo
is unreachable), polls by result, and how many messages were posted/updated.
"""

from __future__ import annotations

from prometheus_client import Counter

DECISIONS = Counter(
    "novo_slack_decisions_total", "Decisions taken in Slack, by what Novo made of them", ["outcome"]
)
POLLS = Counter("novo_slack_polls_total", "Polls of Novo's pending interactions", ["result"])
MESSAGES_POSTED = Counter("novo_slack_messages_posted_total", "Interaction messages posted")
MESSAGES_UPDATED = Counter("novo_slack_messages_updated_total", "Interaction messages updated")
UNREADABLE_RECORDS = Counter(
    "novo_slack_unreadable_records_total",
    "Listed records that could not be parsed (each id counted once); they are skipped",
)
INTERACTION_FAILURES = Counter(
    "novo_slack_interaction_failures_total",
    "Failures while handling one interaction; that interaction backs off, the rest go on",
)
