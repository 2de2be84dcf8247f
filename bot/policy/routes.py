"""Which rule applies to an interaction, and what it means: where, who, how many.

One place answers it for posting, for every click's check, for reminders
and for `novo-slack policy explain`, so they never disagree. Rules are tried
in order and the first whose every `match` key matches wins; the fields it
leaves out come from `defaults`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TypeVar

from bot.novo.models import Interaction
from bot.policy.file import (
    ANYONE,
    AllowStanding,
    Deciders,
    Escalation,
    Match,
    PolicyFile,
    Rule,
    Settings,
    redaction_rules,
)
from bot.policy.timing import Lead
from bot.redaction.rules import DEFAULT_RULES, RedactionRules

T = TypeVar("T")

DEFAULTS_RULE = "defaults"
"""The rule name of an interaction no rule matched (metrics, `explain`)."""


@dataclass(frozen=True)
class Route:
    """Everything the policy says about one interaction, defaults filled in."""

    rule: str
    channel: str | None
    dm: tuple[str, ...]
    deciders: Deciders
    allow_guests: bool
    quorum: int
    remind: tuple[Lead, ...]
    mention: str
    escalate: Escalation | None
    redact: RedactionRules = DEFAULT_RULES
    standing: AllowStanding | None = None
    """Standing approvals the rule allows; None when it allows none or its quorum is
    above 1 (one person's allowance must never stand in for several approvals)."""

    @property
    def destinations(self) -> tuple[str, ...]:
        """Where its messages go: one channel, or each listed user's DM."""
        if self.dm:
            return self.dm
        assert self.channel is not None
        return (self.channel,)


@dataclass(frozen=True)
class Verdict:
    """Why a rule did or did not match: the first key that failed, or all that held."""

    rule: str
    matched: bool
    because: tuple[str, ...]


def _fields(interaction: Interaction) -> dict[str, str | bool | None]:
    return {
        "kind": interaction.kind,
        "agentId": interaction.agent_id,
        "toolName": interaction.tool_name,
        "hookId": interaction.hook_id,
        "runId": interaction.run_id,
        "rootRunId": interaction.root_run_id,
        "worker": interaction.worker_ref is not None,
    }


def _wanted(match: Match) -> dict[str, str | bool]:
    given = match.model_dump(by_alias=True, exclude_none=True)
    return {str(k): v for k, v in given.items()}


def _shown(value: str | bool | None) -> str:
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else value


def judge(rule: Rule, interaction: Interaction) -> Verdict:
    fields = _fields(interaction)
    held: list[str] = []
    for key, pattern in _wanted(rule.match).items():
        value = fields[key]
        if isinstance(pattern, bool):
            ok = value is pattern
        else:
            ok = isinstance(value, str) and fnmatchcase(value, pattern)
        shown, wanted = (
            _shown(value),
            _shown(pattern) if isinstance(pattern, bool) else f'"{pattern}"',
        )
        if not ok:
            return Verdict(rule.name, False, (f"{key} {shown} does not match {wanted}",))
        held.append(f"{key} {shown} matches {wanted}")
    if not held:
        held.append("it matches every interaction")
    return Verdict(rule.name, True, tuple(held))


def explain(policy: PolicyFile, interaction: Interaction) -> list[Verdict]:
    """Each rule's verdict in order, up to and including the first that matches."""
    verdicts: list[Verdict] = []
    for rule in policy.rules:
        verdict = judge(rule, interaction)
        verdicts.append(verdict)
        if verdict.matched:
            break
    return verdicts


def matching_rule(policy: PolicyFile, interaction: Interaction) -> Rule | None:
    return next((r for r in policy.rules if judge(r, interaction).matched), None)


def route_for(policy: PolicyFile, interaction: Interaction, default_channel: str) -> Route:
    """The route of an interaction: its rule's fields, else the defaults', else the bridge's."""
    rule = matching_rule(policy, interaction)
    return resolve(policy, rule, default_channel)


def pick(mine: T | None, fallback: T | None) -> T | None:
    return mine if mine is not None else fallback


def resolve(policy: PolicyFile, rule: Rule | None, default_channel: str) -> Route:
    defaults = policy.defaults
    own: Settings = rule if rule is not None else defaults

    dm = own.dm if own.dm is not None or own.channel is not None else defaults.dm
    channel = own.channel if own.channel is not None or own.dm is not None else defaults.channel
    return Route(
        rule=rule.name if rule is not None else DEFAULTS_RULE,
        channel=None if dm else (channel or default_channel),
        dm=tuple(dm or ()),
        deciders=pick(own.deciders, defaults.deciders) or ANYONE,
        allow_guests=bool(pick(own.allow_guests, defaults.allow_guests)),
        quorum=pick(own.quorum, defaults.quorum) or 1,
        remind=tuple(pick(own.remind, defaults.remind) or ()),
        mention=pick(own.mention, defaults.mention) or "deciders",
        escalate=pick(own.escalate, defaults.escalate),
        redact=redaction_rules(defaults.redact, rule.redact if rule is not None else None),
        standing=_standing(own, defaults, pick(own.quorum, defaults.quorum) or 1),
    )


def _standing(own: Settings, defaults: Settings, quorum: int) -> AllowStanding | None:
    if quorum > 1:
        return None
    return pick(own.allow_standing, defaults.allow_standing)
