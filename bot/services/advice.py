"""Policy advice from the audit trail: how each rule's interactions ended, and the
changes the figures call for.

The trail's ending events (`resolved` for a decision the bridge delivered,
`expired` and `ended` for what Novo ended) carry the rule, tool, agent and
creation time of their interaction, so the advice needs nothing but the trail.
Events written before they carried those facts are left out (and counted).

Two proposals, each with the figures behind it:

- **standing approval**: a tool approved in at least `STANDING_SHARE` of at least
  `STANDING_MIN` endings under a rule that offers no `allow_standing` (and could:
  its quorum is 1), and never denied in the window. Never for a tool denied even
  once: the snippet is a rule of its own for that tool, above the rule it came
  under, so no other tool of that rule gains a standing approval by it.
- **expiries**: a rule where at least `EXPIRY_SHARE` of at least `EXPIRY_MIN`
  interactions expired unanswered: reminders, escalation or more deciders.

The one owner of these thresholds and of the proposals' wording: the command
(`novo-slack policy advise`) and the managers' digest both ask `advise`.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from bot.policy.file import PolicyFile
from bot.policy.routes import DEFAULTS_RULE, resolve
from bot.store import Store
from bot.store.audit import AuditEntry

STANDING_MIN = 20
STANDING_SHARE = 0.95
EXPIRY_MIN = 10
EXPIRY_SHARE = 0.20
ADVICE_DAYS = 30
"""The window the digest's advice and the command's default look at."""
OUTSIDE_SLACK = "(outside Slack)"

Outcome = Literal["approved", "denied", "answered", "expired", "cancelled"]
OUTCOMES: tuple[Outcome, ...] = ("approved", "denied", "answered", "expired", "cancelled")


@dataclass(frozen=True)
class Ending:
    """How one interaction ended, as the trail tells it."""

    rule: str
    tool: str
    agent: str
    kind: str
    outcome: Outcome
    seconds: float | None
    """From creation to the decision; None when nobody decided."""
    decider: str | None


@dataclass
class Figures:
    """Counts for one rule, tool and agent (or any coarser grouping)."""

    approved: int = 0
    denied: int = 0
    answered: int = 0
    expired: int = 0
    cancelled: int = 0
    waits: list[float] = field(default_factory=list)
    deciders: Counter[str] = field(default_factory=Counter)

    def add(self, ending: Ending) -> None:
        setattr(self, ending.outcome, getattr(self, ending.outcome) + 1)
        if ending.seconds is not None:
            self.waits.append(ending.seconds)
        if ending.decider is not None:
            self.deciders[ending.decider] += 1

    def absorb(self, other: Figures) -> None:
        """Add `other`'s counts to these (a coarser grouping)."""
        for name in OUTCOMES:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.waits.extend(other.waits)
        self.deciders.update(other.deciders)

    @property
    def total(self) -> int:
        return sum(getattr(self, name) for name in OUTCOMES)

    @property
    def median_seconds(self) -> float | None:
        return statistics.median(self.waits) if self.waits else None

    def as_json(self) -> dict[str, Any]:
        return {
            **{name: getattr(self, name) for name in OUTCOMES},
            "total": self.total,
            "median_seconds_to_decide": self.median_seconds,
            "deciders": dict(self.deciders.most_common()),
        }


@dataclass(frozen=True)
class Proposal:
    kind: Literal["allow_standing", "expiries"]
    rule: str
    tool: str | None
    summary: str
    figures: dict[str, Any]
    snippet: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "tool": self.tool,
            "summary": self.summary,
            "figures": self.figures,
            "snippet": self.snippet,
        }


@dataclass(frozen=True)
class Advice:
    days: int
    groups: dict[tuple[str, str, str], Figures]
    """(rule, tool, agent) → figures."""
    proposals: list[Proposal]
    unlabelled: int
    """Endings in the window written before events carried their rule."""


def ending_of(entry: AuditEntry) -> Ending | None:
    """The ending an event records, or None (not an ending, or without its facts)."""
    detail = entry.detail
    rule, tool = detail.get("rule"), detail.get("tool")
    if not isinstance(rule, str) or not isinstance(tool, str):
        return None
    outcome: Outcome | None
    decider: str | None = None
    if entry.event == "expired":
        outcome = "expired"
    elif entry.event == "resolved":
        answer = detail.get("answer") or {}
        outcome = _outcome(answer.get("status"), answer.get("decision"))
        decider = entry.actor_id
    elif entry.event == "ended":
        outcome = _outcome(detail.get("status"), detail.get("decision"))
        decider = None if detail.get("decided_in_slack") else OUTSIDE_SLACK
    else:
        return None
    if outcome is None:
        return None
    return Ending(
        rule,
        tool,
        str(detail.get("agent") or ""),
        str(detail.get("kind") or ""),
        outcome,
        _seconds(detail.get("created_at"), entry.at) if outcome != "expired" else None,
        decider if outcome != "expired" else None,
    )


def _outcome(status: Any, decision: Any) -> Outcome | None:
    if status == "cancelled":
        return "cancelled"
    if status != "resolved":
        return None
    return {"allow": "approved", "deny": "denied"}.get(str(decision), "answered")  # type: ignore[return-value]


def _seconds(created: Any, at: datetime) -> float | None:
    try:
        return max(0.0, (at - datetime.fromisoformat(str(created))).total_seconds())
    except (TypeError, ValueError):
        return None


def _is_ending(entry: AuditEntry) -> bool:
    return entry.event in ("resolved", "expired", "ended")


def advise(entries: Iterable[AuditEntry], policy: PolicyFile, days: int) -> Advice:
    """The figures and proposals of `entries` (the window's events) under `policy`."""
    groups: dict[tuple[str, str, str], Figures] = {}
    unlabelled = 0
    for entry in entries:
        ending = ending_of(entry)
        if ending is None:
            unlabelled += _is_ending(entry)
            continue
        groups.setdefault((ending.rule, ending.tool, ending.agent), Figures()).add(ending)
    proposals = _standing(groups, policy, days) + _expiries(groups, days)
    return Advice(days, groups, proposals, unlabelled)


async def advice_from(store: Store, policy: PolicyFile, days: int, now: datetime) -> Advice:
    """`advise` on the store's last `days` days (only the ending events are kept)."""
    endings = [
        entry
        async for page in store.audit_pages(since=now - timedelta(days=days))
        for entry in page
        if _is_ending(entry)
    ]
    return advise(endings, policy, days)


def _merged(groups: dict[tuple[str, str, str], Figures], key: int) -> dict[Any, Figures]:
    """The figures summed over agents (key 2: by rule and tool) or tools too (by rule)."""
    merged: dict[Any, Figures] = {}
    for (rule, tool, _agent), figures in groups.items():
        merged.setdefault((rule, tool) if key == 2 else rule, Figures()).absorb(figures)
    return merged


def _standing(
    groups: dict[tuple[str, str, str], Figures], policy: PolicyFile, days: int
) -> list[Proposal]:
    rules = {rule.name: rule for rule in policy.rules}
    found: list[Proposal] = []
    for (rule, tool), f in sorted(_merged(groups, 2).items()):
        if f.total < STANDING_MIN or f.denied or f.approved < STANDING_SHARE * f.total:
            continue
        if rule != DEFAULTS_RULE and rule not in rules:
            continue  # a rule the file no longer has: nothing to change
        route = resolve(policy, rules.get(rule), "")
        if route.standing is not None or route.quorum > 1:
            continue
        share = f.approved / f.total
        found.append(
            Proposal(
                "allow_standing",
                rule,
                tool,
                f'{tool} under rule "{rule}": approved {f.approved} of {f.total} times '
                f"({share:.0%}) in {days} days, never denied: allow standing approvals for it",
                {"approved": f.approved, "denied": 0, "total": f.total, "share": round(share, 4)},
                _standing_snippet(rule, tool, rules.get(rule)),
            )
        )
    return sorted(found, key=lambda p: -int(p.figures["total"]))


def _standing_snippet(rule: str, tool: str, own: Any) -> str:
    """A rule of its own for the tool, above the one it came under: `allow_standing` on
    that rule would reach its other tools too, denied ones among them."""
    match = own.match.model_dump(by_alias=True, exclude_none=True) if own is not None else {}
    match["toolName"] = tool
    keys = ", ".join(f"{k}: {_yaml_scalar(v)}" for k, v in match.items())
    above = f'above rule "{rule}", with its other settings' if own is not None else "last"
    return (
        f"rules:\n"
        f"  # put this {above}\n"
        f"  - name: {_yaml_scalar(f'{rule} {tool} standing'[:80])}\n"
        f"    match: {{{keys}}}\n"
        f"    allow_standing: {{max: 4h, scopes: [run, tool]}}\n"
    )


def _yaml_scalar(value: Any) -> str:
    """A YAML flow scalar that reads back as `value` (JSON is YAML)."""
    return json.dumps(value)


def _expiries(groups: dict[tuple[str, str, str], Figures], days: int) -> list[Proposal]:
    found: list[Proposal] = []
    for rule, f in sorted(_merged(groups, 1).items()):
        if f.total < EXPIRY_MIN or f.expired < EXPIRY_SHARE * f.total:
            continue
        share = f.expired / f.total
        found.append(
            Proposal(
                "expiries",
                rule,
                None,
                f'rule "{rule}": {f.expired} of {f.total} interactions ({share:.0%}) expired '
                f"unanswered in {days} days: add reminders (remind), an escalation or more "
                "deciders",
                {"expired": f.expired, "total": f.total, "share": round(share, 4)},
            )
        )
    return sorted(found, key=lambda p: -float(p.figures["share"]))
