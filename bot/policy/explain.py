"""What `novo-slack policy check` and `policy explain` print, as pure functions.

An operator asking "why did this go there, and who may click it?" should not
have to replay the rules in their head: `explain_lines` shows each rule tried
with the key that failed or held (the same verdicts the bridge acts on, from
`bot.policy.routes`), then where the interaction goes, who may decide (user
groups with the members Slack listed, or why it couldn't), guests, the
quorum and the reminders in force. No I/O and no clock here: the command
(`bot.policy_cli`) fetches, resolves and prints, so these stay testable
with plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.domain import Allowance
from bot.novo.models import Interaction
from bot.policy.conditions import Unknown
from bot.policy.file import Deciders, Escalation, PolicyFile, Rule, redaction_rules
from bot.policy.routes import ConditionValue, Route, Verdict, resolve
from bot.redaction import redact_interaction

UNREAD_CHANNEL = "(NOVO_SLACK_CHANNEL)"
"""The default channel when the settings could not be read: it names the setting."""

_LABEL_WIDTH = 14  # "may decide:   " — the values line up under each other
_MATCHED, _FAILED, _UNSURE = "✓", "✗", "?"


@dataclass(frozen=True)
class GroupMembers:
    """A user group as Slack answered for it: its members, or why they couldn't be listed."""

    group_id: str
    members: tuple[str, ...] | None = None
    problem: str | None = None


def check_summary(shown: str, policy: PolicyFile) -> str:
    """One line for `policy check`: the rules in order and what the defaults say."""
    names = [rule.name for rule in policy.rules]
    if not names:
        rules = "no rules (the defaults apply to everything)"
    else:
        rules = f"{_count(len(names), 'rule')}: {', '.join(names)}"
    line = f"{shown}: ok — {rules}; defaults: {_defaults_summary(policy)}"
    if policy.agents:
        line += f"; {_count(len(policy.agents), 'agent')} named"
    return line


def check_warnings(policy: PolicyFile) -> list[str]:
    """What `policy check` warns of: a route to a channel that shows values unmasked.

    Turning redaction off is for a private DM route; in a channel, whatever the
    agent sends stays in history, search and exports.
    """
    warnings: list[str] = []
    owners: list[Rule | None] = [None, *policy.rules]
    for rule in owners:
        own = rule.redact if rule is not None else None
        if redaction_rules(policy.defaults.redact, own).enabled:
            continue
        route = resolve(policy, rule, UNREAD_CHANNEL)
        if route.dm:
            continue
        where = "defaults" if rule is None else f'rule "{rule.name}"'
        warnings.append(
            f"warning: {where} posts to channel {route.channel} with redact: false — credentials"
            " in an agent's input would stay in that channel's history; keep redact: false"
            " for dm: routes"
        )
    return warnings


def hidden_lines(interaction: Interaction, route: Route) -> list[str]:
    """What would be hidden of this record and why, by place: never the values.

    Nothing is printed when nothing would be hidden and redaction is on (the default).
    """
    if not route.redact.enabled:
        return [_field("hidden", f"nothing: redact: false in {route.rule}, values are shown")]
    findings = redact_interaction(interaction, route.redact).findings
    if not findings:
        return []  # nothing looks like a credential: no line, as for every other default
    lines = [_field("hidden", _count(len(findings), "value"))]
    lines += [" " * _LABEL_WIDTH + f"{f.path}: {f.reason}" for f in findings]
    if route.redact.reveal == "deciders":
        lines.append(" " * _LABEL_WIDTH + "(deciders see them in their own View full input)")
    return lines


def explain_lines(
    interaction: Interaction,
    verdicts: Sequence[Verdict],
    route: Route,
    groups: Mapping[str, GroupMembers],
    *,
    source: str | None,
    bridge_channel: str | None,
    agents: Mapping[str, str] | None = None,
    allowances: StandingFacts | None = None,
    conditions: Sequence[ConditionValue] = (),
) -> list[str]:
    """What `policy explain` prints for one interaction.

    `source` is the policy file as the operator named it (None: no file);
    `bridge_channel` is `NOVO_SLACK_CHANNEL` when the settings were read,
    so a channel that comes from the setting rather than the file says so.
    `allowances`: the standing approvals the store holds, to say whether one
    would approve this record (None: the store was not read). `conditions`: each
    rule's `when` with its value on the record.
    """
    lines = [_header(interaction, agents or {})]
    lines += _rules_tried(verdicts, route, source)
    lines += condition_lines(conditions, route)
    lines.append(_field("goes to", _destination(route, bridge_channel)))
    lines += _deciders(route.deciders, groups)
    lines.append(_field("guests", _guests(route.allow_guests)))
    lines.append(_field("quorum", _quorum(interaction, route, groups)))
    lines.append(_field("reminders", _reminders(route)))
    lines += standing_lines(interaction, route, allowances)
    lines += hidden_lines(interaction, route)
    return lines


@dataclass(frozen=True)
class StandingFacts:
    """What the store said about standing approvals, read at `now`: the allowances not
    yet ended, or why they could not be read."""

    now: datetime
    open: Sequence[Allowance] = ()
    problem: str | None = None


def standing_lines(
    interaction: Interaction, route: Route, facts: StandingFacts | None
) -> list[str]:
    """Whether the rule allows standing approvals and whether one in force would approve
    this record, as the poll would judge it (same agent and tool, same root run for
    `run` scope, until not passed, the scope still allowed)."""
    standing = route.standing
    if interaction.kind != "approval_request" or standing is None:
        return []  # as for every other default: no line (a quorum above 1 offers none)
    scopes = ", ".join(standing.scopes)
    lines = [_field("standing", f"offered: max {standing.max.text}, scopes {scopes}")]
    if facts is None:
        return lines
    if facts.problem is not None:
        return [*lines, " " * _LABEL_WIDTH + f"allowances unknown: {facts.problem}"]
    applies = next(
        (
            a
            for a in facts.open
            if a.in_force(facts.now)
            and a.rule == route.rule
            and a.scope in standing.scopes
            and a.covers(interaction.agent_id, interaction.tool_name, interaction.root_run_id)
        ),
        None,
    )
    if applies is None:
        return [*lines, " " * _LABEL_WIDTH + "no allowance in force would approve it"]
    until = applies.until.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    scope = "this run" if applies.scope == "run" else "any run"
    return [
        *lines,
        " " * _LABEL_WIDTH + f"would be approved by allowance {applies.id} of"
        f" {applies.granted_by.user_id} ({scope}), until {until}",
    ]


# -- the parts -----------------------------------------------------------------------------


def _header(interaction: Interaction, agents: Mapping[str, str]) -> str:
    agent = interaction.agent_id
    if interaction.agent_id in agents:
        agent += f" ({agents[interaction.agent_id]})"
    parts = [
        interaction.id,
        interaction.kind,
        f"toolName {interaction.tool_name}",
        f"agent {agent}",
    ]
    if interaction.worker_ref is not None:
        parts.append(f"worker {interaction.worker_ref}")
    if not interaction.is_pending:
        parts.append(f"status {interaction.status}: nothing more happens to it")
    return "  ".join(parts)


def _rules_tried(verdicts: Sequence[Verdict], route: Route, source: str | None) -> list[str]:
    if source is None:
        return ["rules tried: none — no policy file (NOVO_SLACK_CONFIG is not set): defaults apply"]
    if not verdicts:
        return [f"rules tried ({source}): none — the file has no rules: the defaults apply"]
    lines = [f"rules tried ({source}):"]
    for verdict in verdicts:
        mark = _MATCHED if verdict.matched else _UNSURE if verdict.unsure else _FAILED
        lines.append(f"  {mark} {verdict.rule}: {'; '.join(verdict.because)}")
    if route.unsure:
        lines.append(
            f"  → not sure which applies: what both allow, posted as {route.rule} would be"
        )
    elif not any(verdict.matched for verdict in verdicts):
        lines.append(f"  → no rule matched: the {route.rule} apply")
    return lines


def condition_lines(conditions: Sequence[ConditionValue], route: Route) -> list[str]:
    """Each rule's condition and its value (true, false, or the error); then, when one
    could not be evaluated, what that did to who may decide."""
    if not conditions:
        return []
    lines = ["conditions:"]
    for found in conditions:
        value = found.value
        shown = f"error: {value.error}" if isinstance(value, Unknown) else str(value).lower()
        lines.append(f"  rule {found.number} ({found.rule}): `{found.source}` → {shown}")
    if route.unsure:
        lines.append(
            "  ⚠ a condition could not be evaluated: only people allowed whether it is true"
            " or false may decide, with the higher quorum"
        )
    return lines


def _destination(route: Route, bridge_channel: str | None) -> str:
    if route.dm:
        return f"a DM to each of {', '.join(route.dm)}"
    if route.channel == UNREAD_CHANNEL:
        return f"channel {UNREAD_CHANNEL}: the bridge's channel (settings not read here)"
    if route.channel == bridge_channel:
        return f"channel {route.channel} (NOVO_SLACK_CHANNEL)"
    return f"channel {route.channel}"


def _deciders(deciders: Deciders, groups: Mapping[str, GroupMembers]) -> list[str]:
    if deciders.anyone:
        return [_field("may decide", "anyone")]
    if not deciders.users and not deciders.groups:
        return [
            _field(
                "may decide", "nobody in Slack (no one is allowed either way): decide it in Novo"
            )
        ]
    parts = list(deciders.users)
    unlisted: dict[str, list[str]] = {}
    for group_id in deciders.groups:
        found = groups.get(group_id, GroupMembers(group_id, problem="not looked up"))
        if found.members is None:
            unlisted.setdefault(found.problem or "no answer", []).append(group_id)
            parts.append(f"members of {group_id}")
        elif found.members:
            parts.append(f"members of {group_id} ({', '.join(found.members)})")
        else:
            parts.append(f"members of {group_id} (nobody, right now)")
    lines = [_field("may decide", "; ".join(parts))]
    for problem, ids in unlisted.items():
        lines.append(" " * _LABEL_WIDTH + f"(members of {', '.join(ids)} not listed: {problem})")
    return lines


def _guests(allowed: bool) -> str:
    if allowed:
        return "allowed, and people of other workspaces too (allow_guests: true)"
    return "refused, and people of other workspaces too (allow_guests: false)"


def _quorum(interaction: Interaction, route: Route, groups: Mapping[str, GroupMembers]) -> str:
    if interaction.kind != "approval_request":
        text = "one answer decides"
        if route.quorum > 1:
            text += f" (quorum {route.quorum} counts approvals only)"
        return text
    if route.quorum <= 1:
        return "one approval or one deny decides"
    text = f"{route.quorum} distinct approvals; one deny decides"
    able = _able_to_decide(route.deciders, groups)
    if able is not None and len(able) < route.quorum:
        text += f" — ⚠ only {_count(len(able), 'person', 'people')} may decide: it can't be met"
    return text


def _able_to_decide(deciders: Deciders, groups: Mapping[str, GroupMembers]) -> set[str] | None:
    """Everyone who may decide, when it is known (no `anyone`, every group listed)."""
    if deciders.anyone:
        return None
    able = set(deciders.users)
    for group_id in deciders.groups:
        members = groups.get(group_id, GroupMembers(group_id)).members
        if members is None:
            return None
        able.update(members)
    return able


def _reminders(route: Route) -> str:
    if not route.remind and route.escalate is None:
        return "none: an interaction nobody answers simply expires"
    parts: list[str] = []
    if route.remind:
        parts.append(f"{', '.join(lead.text for lead in route.remind)} before expiry")
        parts.append(_mention(route))
    else:
        parts.append("no reminders")
    parts.append(_escalation(route.escalate))
    return " · ".join(parts)


def _mention(route: Route) -> str:
    if route.mention == "here":
        return "mention @here"
    if route.mention == "none":
        return "mention nobody"
    if route.deciders.anyone:
        return "mention deciders (anyone may decide: nobody is mentioned)"
    return "mention deciders"


def _escalation(escalate: Escalation | None) -> str:
    if escalate is None:
        return "no escalation"
    targets: list[str] = []
    if escalate.to.channel is not None:
        channel = escalate.to.channel
        if escalate.to.groups:
            channel += f" (mentioning {', '.join(escalate.to.groups)})"
        targets.append(channel)
    if escalate.to.users:
        targets.append(f"a DM to {', '.join(escalate.to.users)}")
    return f"escalate at {escalate.at.text} to {' and '.join(targets)}"


def _defaults_summary(policy: PolicyFile) -> str:
    defaults = policy.defaults
    if defaults.dm:
        where = f"a DM to {', '.join(defaults.dm)}"
    else:
        where = f"channel {defaults.channel or 'NOVO_SLACK_CHANNEL'}"
    parts = [where, _deciders_summary(defaults.deciders)]
    if defaults.allow_guests:
        parts.append("guests allowed")
    if defaults.quorum and defaults.quorum > 1:
        parts.append(f"quorum {defaults.quorum}")
    if defaults.remind:
        parts.append("remind at " + " and ".join(lead.text for lead in defaults.remind))
    if defaults.escalate is not None:
        parts.append(f"escalate at {defaults.escalate.at.text}")
    return ", ".join(parts)


def _deciders_summary(deciders: Deciders | None) -> str:
    if deciders is None or deciders.anyone:
        return "anyone decides"
    named = [*deciders.users, *deciders.groups]
    return f"{', '.join(named)} decide"


def _field(label: str, value: str) -> str:
    return f"{label + ':':<{_LABEL_WIDTH}}{value}"


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else plural or singular + 's'}"
