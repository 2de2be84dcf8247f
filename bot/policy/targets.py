"""Every place a policy sends something, and every user group it counts on, with where.

`novo-slack check` asks Slack about each of these before going live: a
channel the bot is not in, a user it can't DM or a group Slack doesn't know
would otherwise show up as a failed post or a refused click, hours later.
Each target carries the places that name it (`rule prod-deploys`,
`escalation of defaults`, `digest 1`), so the line about it says what breaks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.policy.file import Escalation, PolicyFile, Settings


@dataclass
class Targets:
    """Channels posted to, users sent DMs, user groups asked for members; in file order."""

    channels: dict[str, list[str]] = field(default_factory=dict)
    users: dict[str, list[str]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: dict[str, list[str]], target: str, where: str) -> None:
        uses = kind.setdefault(target, [])
        if where not in uses:
            uses.append(where)


def policy_targets(policy: PolicyFile, default_channel: str) -> Targets:
    """What `policy` names, the bridge's channel first (where unrouted interactions go)."""
    found = Targets()
    found.add(found.channels, default_channel, "NOVO_SLACK_CHANNEL")
    _settings(found, policy.defaults, "defaults")
    for rule in policy.rules:
        _settings(found, rule, f"rule {rule.name}")
    for number, entry in enumerate(policy.digest, start=1):
        place = f"digest {number}"
        if entry.to.startswith(("U", "W")):
            found.add(found.users, entry.to, place)
        else:
            found.add(found.channels, entry.to, place)
    return found


def _settings(found: Targets, settings: Settings, where: str) -> None:
    if settings.channel is not None:
        found.add(found.channels, settings.channel, where)
    for user in settings.dm or ():
        found.add(found.users, user, f"dm of {where}")
    if settings.deciders is not None:
        for group in settings.deciders.groups:
            found.add(found.groups, group, f"deciders of {where}")
    if settings.escalate is not None:
        _escalation(found, settings.escalate, f"escalation of {where}")


def _escalation(found: Targets, escalation: Escalation, where: str) -> None:
    to = escalation.to
    if to.channel is not None:
        found.add(found.channels, to.channel, where)
    for user in to.users:
        found.add(found.users, user, where)
    for group in to.groups:
        found.add(found.groups, group, where)
