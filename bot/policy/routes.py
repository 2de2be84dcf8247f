"""Which rule applies to an interaction, and what it means: where, who, how many.

One place answers it for posting, for every click's check, for reminders
and for `novo-slack policy explain`, so they never disagree. Rules are tried
in order and the first whose every `match` key matches wins; the fields it
leaves out come from `defaults`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TypeVar

from bot.novo.models import Interaction
from bot.policy.conditions import Bindings, Outcome, Unknown
from bot.policy.file import (
    ANYONE,
    AllowStanding,
    Deciders,
    Escalation,
    PolicyFile,
    Rule,
    Settings,
    redaction_rules,
)
from bot.policy.timing import Lead
from bot.redaction.rules import DEFAULT_RULES, RedactionRules, Reveal

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
    unsure: tuple[str, ...] = ()
    """The conditions that could not be evaluated on the record, each naming its rule
    (`rule 2 (refunds): when … could not be evaluated: …`); the route is then `cautious`."""

    @property
    def destinations(self) -> tuple[str, ...]:
        """Where its messages go: one channel, or each listed user's DM."""
        if self.dm:
            return self.dm
        assert self.channel is not None
        return (self.channel,)


@dataclass(frozen=True)
class Verdict:
    """Why a rule did or did not match: the first key that failed, or all that held.

    `unsure` is set when the rule's other keys held but its `when` could not be
    evaluated on the record: the rule may or may not apply (`route_for` then lets
    only those decide whom either answer allows).
    """

    rule: str
    matched: bool
    because: tuple[str, ...]
    unsure: str | None = None


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


def _shown(value: str | bool | None) -> str:
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else value


def judge(
    rule: Rule,
    interaction: Interaction,
    bindings: Bindings | None = None,
    fields: dict[str, str | bool | None] | None = None,
) -> Verdict:
    """The rule's verdict on the record; `bindings` and `fields` share the record's CEL
    variables and matched fields between the rules of one pass (made here when not given)."""
    fields = _fields(interaction) if fields is None else fields
    held: list[str] = []
    for key, pattern in rule.match.wanted.items():
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
    condition = rule.match.when
    if condition is not None:
        outcome = condition.evaluate(bindings or Bindings(interaction))
        if isinstance(outcome, Unknown):
            said = f"when `{condition.source}` could not be evaluated: {outcome.error}"
            return Verdict(rule.name, False, (*held, said), unsure=outcome.error)
        said = f"when `{condition.source}` is {str(outcome).lower()}"
        if not outcome:
            return Verdict(rule.name, False, (said,))
        held.append(said)
    if not held:
        held.append("it matches every interaction")
    return Verdict(rule.name, True, tuple(held))


def _tried(policy: PolicyFile, interaction: Interaction) -> list[tuple[Rule, Verdict]]:
    """Each rule with its verdict, in order, up to and including the first that matches."""
    bindings = Bindings(interaction)
    fields = _fields(interaction)
    tried: list[tuple[Rule, Verdict]] = []
    for rule in policy.rules:
        verdict = judge(rule, interaction, bindings, fields)
        tried.append((rule, verdict))
        if verdict.matched:
            break
    return tried


def explain(policy: PolicyFile, interaction: Interaction) -> list[Verdict]:
    """Each rule's verdict in order, up to and including the first that matches."""
    return [verdict for _, verdict in _tried(policy, interaction)]


def route_for(policy: PolicyFile, interaction: Interaction, default_channel: str) -> Route:
    """The route of an interaction: its rule's fields, else the defaults', else the bridge's.

    A rule whose `when` could not be evaluated may or may not apply: each rule that
    might is an outcome, and so is what follows when none does. Then only people every
    outcome allows may decide, with the highest quorum of them (`cautious`): an error
    never widens who may decide, whether the condition restricts or loosens.
    """
    tried = _tried(policy, interaction)
    surely = tried[-1][0] if tried and tried[-1][1].matched else None
    maybe = [(number, rule, v) for number, (rule, v) in enumerate(tried, 1) if v.unsure]
    route = resolve(policy, surely, default_channel)
    if not maybe:
        return route
    outcomes = [resolve(policy, rule, default_channel) for _, rule, _ in maybe] + [route]
    notes = tuple(
        f"rule {number} ({rule.name}): {verdict.because[-1]}" for number, rule, verdict in maybe
    )
    return cautious(outcomes, notes)


def cautious(outcomes: list[Route], unsure: tuple[str, ...]) -> Route:
    """One route that no outcome is wider than: who may decide is who every outcome allows,
    the quorum the highest, guests only if all allow them, no standing approvals, and
    values hidden if any outcome hides them.

    It is posted where the first outcome not open to anyone would post it (so the people
    who may decide see it), with that outcome's reminders; the rule named is that one.
    """
    shown = next((o for o in outcomes if not o.deciders.anyone), outcomes[0])
    deciders = outcomes[0].deciders
    for other in outcomes[1:]:
        deciders = both(deciders, other.deciders)
    return replace(
        shown,
        deciders=deciders,
        allow_guests=all(o.allow_guests for o in outcomes),
        quorum=max(o.quorum for o in outcomes),
        redact=_strictest([o.redact for o in outcomes]),
        standing=None,
        unsure=unsure,
    )


def both(one: Deciders, other: Deciders) -> Deciders:
    """Who both allow. Exact when either is `anyone`; otherwise the users listed by both
    and the user groups named by both. A person one side admits only through a group's
    membership is left out: membership is Slack's, known at a click, not here, and the
    answer may be narrower than the true intersection but never wider. It may be nobody
    (then it is decided in Novo), which the file itself can't say."""
    if one.anyone:
        return other
    if other.anyone:
        return one
    users = [u for u in one.users if u in other.users]
    groups = [g for g in one.groups if g in other.groups]
    return Deciders.model_construct(anyone=False, users=users, groups=groups)


def _strictest(rules: list[RedactionRules]) -> RedactionRules:
    """Hidden if any outcome hides it: every enabled outcome's keys and patterns, full
    values revealed to deciders only if every outcome says so."""
    enabled = [r for r in rules if r.enabled]
    if not enabled:
        return rules[0]
    reveal: Reveal = "deciders" if all(r.reveal == "deciders" for r in rules) else "nobody"
    return RedactionRules(
        enabled=True,
        keys=tuple(dict.fromkeys(k for r in enabled for k in r.keys)),
        patterns=tuple(dict.fromkeys(p for r in enabled for p in r.patterns)),
        reveal=reveal,
    )


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


@dataclass(frozen=True)
class ConditionValue:
    """A rule's `when` and its value on one record, whatever its other keys say."""

    number: int
    rule: str
    source: str
    value: Outcome


def condition_values(policy: PolicyFile, interaction: Interaction) -> list[ConditionValue]:
    """Every rule's condition evaluated on the record, in file order (`policy explain`)."""
    bindings = Bindings(interaction)
    return [
        ConditionValue(
            number, rule.name, rule.match.when.source, rule.match.when.evaluate(bindings)
        )
        for number, rule in enumerate(policy.rules, 1)
        if rule.match.when is not None
    ]
