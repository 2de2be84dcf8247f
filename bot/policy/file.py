"""Reading the policy file, with errors that name the place.

Operators write this file by hand, so a mistake must say where it is
(`policy.yml: links.run: must be an http(s) URL template`), one line, and
stop start-up (exit 2) rather than run with half a policy.

Today the bridge reads `agents:` (how agents are named in messages),
`links:` (e.g. `run: "https://novo.example.com/runs/{runId}"`, with `{field}`
placeholders from the interaction) and `defaults:` (reminders, who they
mention, and escalation before an interaction lapses). Keys this version does
not know are refused, so a typo is not silently ignored.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.policy.timing import Lead, parse_lead

# Interaction fields a link template may use, by their wire names.
LINK_FIELDS = frozenset({"id", "runId", "rootRunId", "threadId", "agentId", "toolCallId"})
KNOWN_KEYS = frozenset({"agents", "links", "defaults"})


class PolicyError(Exception):
    """The policy file can't be used; the message names the file and the place."""


class Links(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run: str | None = None

    @field_validator("run")
    @classmethod
    def _template(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("https://", "http://")):
            raise ValueError("must be an http(s) URL template")
        names = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        unknown = sorted(names - LINK_FIELDS)
        if unknown:
            allowed = ", ".join(sorted(LINK_FIELDS))
            raise ValueError(f"unknown placeholder {{{unknown[0]}}} (use one of {allowed})")
        return value


class EscalationTargets(BaseModel):
    """Where an escalation goes: a channel, DMs to users, user groups mentioned."""

    model_config = ConfigDict(extra="forbid")

    channel: str | None = None
    users: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("C", "G")):
            raise ValueError("must be a channel id (C…)")
        return value

    @field_validator("users")
    @classmethod
    def _users(cls, value: list[str]) -> list[str]:
        for user in value:
            if not user.startswith(("U", "W")):
                raise ValueError(f"{user!r} is not a user id (U…)")
        return value

    @field_validator("groups")
    @classmethod
    def _groups(cls, value: list[str]) -> list[str]:
        for group in value:
            if not group.startswith("S"):
                raise ValueError(f"{group!r} is not a user group id (S…)")
        return value


class Escalation(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    at: Lead
    to: EscalationTargets

    @field_validator("at", mode="before")
    @classmethod
    def _at(cls, value: object) -> Lead:
        return parse_lead(value)

    @field_validator("to")
    @classmethod
    def _somewhere(cls, value: EscalationTargets) -> EscalationTargets:
        if value.channel is None and not value.users:
            raise ValueError("name a channel or users")
        if value.groups and value.channel is None:
            raise ValueError("groups are mentioned in the channel: name one")
        return value


class Defaults(BaseModel):
    """What applies to every interaction: reminders before expiry and an escalation."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    remind: list[Lead] = Field(default_factory=list)
    mention: Literal["deciders", "here", "none"] = "deciders"
    escalate: Escalation | None = None

    @field_validator("remind", mode="before")
    @classmethod
    def _remind(cls, value: object) -> list[Lead]:
        if not isinstance(value, list):
            raise ValueError('must be a list such as ["50%", "5m"]')
        return [parse_lead(item) for item in value]


class PolicyFile(BaseModel):
    """What the file says; empty when there is no file (every default applies)."""

    model_config = ConfigDict(extra="forbid")

    agents: dict[str, str] = Field(default_factory=dict)
    links: Links = Field(default_factory=Links)
    defaults: Defaults = Field(default_factory=Defaults)


def load_policy(path: Path | None) -> PolicyFile:
    """The policy at `path` (None: no file, the defaults), or PolicyError naming the place."""
    if path is None:
        return PolicyFile()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"{path}: can't be read ({exc.strerror or exc})") from None
    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise PolicyError(f"{path.name}: not valid YAML{where}") from None
    if data is None:
        return PolicyFile()
    if not isinstance(data, dict):
        raise PolicyError(f"{path.name}: the file must be a mapping of keys (agents, links, …)")
    unknown = sorted(str(k) for k in data if k not in KNOWN_KEYS)
    if unknown:
        raise PolicyError(f"{path.name}: {unknown[0]}: not a key this version knows")
    try:
        return PolicyFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise PolicyError(f"{path.name}: {where}: {message}") from None
