"""Prometheus metrics, served at `GET /metrics` in both modes: what an on-call engineer graphs.

- Is the bridge keeping up with Novo? `polls_total{result}`, `poll_duration_seconds`,
  `novo_calls_total{route,status}`.
- Are clicks reaching Novo? `decisions_total{outcome,source}`, and the outbox:
  `outbox_depth` and `outbox_oldest_age_seconds` (a growing age means Novo
  has refused or missed decisions for that long).
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

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from prometheus_client import Counter, Gauge, Histogram
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot.novo.models import TIMEOUT_REASON
from bot.slack.gateway import method_of

if TYPE_CHECKING:  # the Novo client counts its calls here: keep this module light to import
    from bot.novo.models import Interaction
    from bot.store import Store

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

# An id in a Novo path becomes `{id}`: one series per route, not per interaction.
_ID_SEGMENT = re.compile(r"(?<=/runs/)[^/]+|(?<=^/v1/interactions/)[^/]+")
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


def observe_final(
    before: Interaction | None, after: Interaction, rule: str = RULE_DEFAULTS
) -> None:
    """Count an interaction that has just left `pending`: resolved (timed) or expired,
    under the policy rule it fell under."""
    if before is not None and before.status != "pending":
        return
    if after.status == "cancelled" and after.reason == TIMEOUT_REASON:
        EXPIRED.labels(rule).inc()
    elif after.status == "resolved" and after.resolved_at is not None:
        waited = (after.resolved_at - after.created_at).total_seconds()
        TIME_TO_DECISION.labels(after.kind, rule).observe(max(0.0, waited))


def novo_route(path: str) -> str:
    """`/v1/interactions/int_1/resolve` → `/v1/interactions/{id}/resolve`."""
    return _ID_SEGMENT.sub("{id}", path.split("?", 1)[0])


def count_novo_call(method: str, path: str, status: int | str) -> None:
    NOVO_CALLS.labels(f"{method} {novo_route(path)}", str(status)).inc()


async def refresh_outbox(store: Store, now: datetime | None = None) -> None:
    """Set the outbox gauges from the store; called on each scrape."""
    now = now or datetime.now(UTC)
    waiting = await store.due_decisions(datetime.max.replace(tzinfo=UTC))
    OUTBOX_DEPTH.set(len(waiting))
    oldest = min((d.decision.at for d in waiting), default=None)
    OUTBOX_OLDEST_AGE.set(max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)


class SlackCallCounter(AsyncRetryHandler):
    """Counts every answer slack_sdk gets, by method and error, and never asks for a retry.

    slack_sdk shows each HTTP answer (a 429 its rate-limit handler then waits
    out included) to the client's retry handlers in turn; first in the list,
    this one sees them all, in HTTP and Socket Mode alike, without wrapping
    any call.
    """

    def __init__(self) -> None:
        super().__init__(max_retry_count=1 << 30)

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        method = method_of(request)
        SLACK_CALLS.labels(method, _slack_error(response, error)).inc()
        return False


def install_slack_counter(client: Any) -> None:
    """Put a `SlackCallCounter` first among an AsyncWebClient's retry handlers (once)."""
    handlers = client.retry_handlers
    if not any(isinstance(h, SlackCallCounter) for h in handlers):
        handlers.insert(0, SlackCallCounter())


def _slack_error(response: HttpResponse | None, error: Exception | None) -> str:
    if error is not None:
        return type(error).__name__
    if response is None:
        return "no_response"
    if response.status_code == 429:
        return "ratelimited"
    body = response.body if isinstance(response.body, dict) else {}
    if body.get("ok") is True:
        return "ok"
    reported = body.get("error")
    if isinstance(reported, str) and reported:
        return reported[:64]
    return f"http_{response.status_code}"
