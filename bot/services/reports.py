"""Figures about decisions: outcomes, time to decision and expiry, by policy rule.

`/novo stats` and the daily digest say the same things the same way, so both
take them from here. Times run from an interaction's creation to its
resolution as Novo recorded them; percentiles are nearest-rank (no
interpolation between two people's waits that nobody actually had).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from bot.novo.models import Interaction
from bot.store import TrackedInteraction

OUTCOMES = ("approved", "denied", "answered", "dismissed", "cancelled", "expired", "gone")


def outcome_of(tracked: TrackedInteraction) -> str:
    """How an ended interaction ended, in one word from `OUTCOMES`."""
    snapshot = tracked.snapshot
    if tracked.gone and snapshot.is_pending:
        return "gone"
    if snapshot.status == "cancelled":
        if snapshot.timed_out:
            return "expired"
        if tracked.decided_in_slack is not None and snapshot.kind == "question":
            return "dismissed"
        return "cancelled"
    if snapshot.kind == "approval_request":
        return {"allow": "approved", "deny": "denied"}.get(snapshot.decision or "", "cancelled")
    return "answered"


def wait_seconds(interaction: Interaction) -> float | None:
    """Creation to resolution, for an interaction someone decided."""
    if interaction.resolved_at is None or interaction.status != "resolved":
        return None
    return max(0.0, (interaction.resolved_at - interaction.created_at).total_seconds())


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (`share` 0.5 is the median); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@dataclass
class RuleStats:
    rule: str
    outcomes: Counter[str] = field(default_factory=Counter)
    waits: list[float] = field(default_factory=list)

    @property
    def ended(self) -> int:
        return sum(self.outcomes.values())

    @property
    def p50(self) -> float | None:
        return percentile(self.waits, 0.5)

    @property
    def p90(self) -> float | None:
        return percentile(self.waits, 0.9)

    @property
    def expiry_rate(self) -> float:
        return self.outcomes["expired"] / self.ended if self.ended else 0.0


def stats_by_rule(
    ended: Iterable[TrackedInteraction], rule_of: Callable[[Interaction], str]
) -> dict[str, RuleStats]:
    """Per rule (as the policy in force names it): outcomes and waits, rules in name order."""
    stats: dict[str, RuleStats] = {}
    for tracked in ended:
        rule = rule_of(tracked.snapshot)
        entry = stats.setdefault(rule, RuleStats(rule))
        entry.outcomes[outcome_of(tracked)] += 1
        wait = wait_seconds(tracked.snapshot)
        if wait is not None:
            entry.waits.append(wait)
    return dict(sorted(stats.items()))
