"""Counting interactions as they leave `pending`: how long people took, and what expired."""

from __future__ import annotations

from bot.metrics import EXPIRED, RULE_DEFAULTS, TIME_TO_DECISION
from bot.novo.models import Interaction


def observe_final(
    before: Interaction | None, after: Interaction, rule: str = RULE_DEFAULTS
) -> None:
    """Count an interaction that has just left `pending`: resolved (timed) or expired,
    under the policy rule it fell under."""
    if before is not None and before.status != "pending":
        return
    if after.timed_out:
        EXPIRED.labels(rule).inc()
    elif after.status == "resolved" and after.resolved_at is not None:
        waited = (after.resolved_at - after.created_at).total_seconds()
        TIME_TO_DECISION.labels(after.kind, rule).observe(max(0.0, waited))
