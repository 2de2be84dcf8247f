"""Reading the policy file, with errors that name the place.

Operators write this file by hand, so a mistake must say where it is
(`policy.yml: links.run: must be an http(s) URL template`), one line, and
stop start-up (exit 2) rather than run with half a policy.

The file has `agents:` (how agents are named in messages), `links:` (e.g.
`run: "https://novo.example.com/runs/{runId}"`, with `{field}` placeholders
from the interaction), `defaults:` (where an interaction goes, who may
decide, reminders and escalation) and `rules:` (first match wins; a rule's
missing fields come from `defaults`); `digest:` lists scheduled summaries
(`bot.policy.digests`). Keys this version does not know are
refused, so a typo is not silently ignored. Which rule applies to an
interaction is `bot.policy.routes`' business.
"""

from __future__ import annotations

import difflib
import json
import string
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from bot.novo.models import KNOWN_KINDS
from bot.policy.conditions import Condition
from bot.policy.digests import DigestEntry
from bot.policy.timing import Lead, parse_lead
from bot.redaction.rules import RedactionRules, Reveal, check_key, compile_pattern

# Interaction fields a link template may use, by their wire names.
LINK_FIELDS = frozenset({"id", "runId", "rootRunId", "threadId", "agentId", "toolCallId"})
KNOWN_KEYS = frozenset({"agents", "links", "defaults", "rules", "digest"})
# The deepest a real policy goes is about six levels (rules → a rule → escalate →
# to → users → a user); PyYAML and pydantic recurse once per level, so a file nested
# thousands deep would end in a RecursionError rather than a line naming the place.
MAX_NESTING = 32


class PolicyError(Exception):
    """The policy file can't be used; the message names the file and the place."""


def _user_id(value: str) -> str:
    if not value.startswith(("U", "W")):
        raise ValueError(f'"{value}" is not a user id (U…)')
    return value


def _group_id(value: str) -> str:
    if not value.startswith("S"):
        raise ValueError(f'"{value}" is not a user group id (S…)')
    return value


def _channel_id(value: str) -> str:
    if not value.startswith(("C", "G")):
        raise ValueError(f'"{value}" is not a channel id (C…)')
    return value


UserId = Annotated[str, AfterValidator(_user_id)]
GroupId = Annotated[str, AfterValidator(_group_id)]
ChannelId = Annotated[str, AfterValidator(_channel_id)]


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

    channel: ChannelId | None = None
    users: list[UserId] = Field(default_factory=list)
    groups: list[GroupId] = Field(default_factory=list)


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


class Deciders(BaseModel):
    """Who may decide: `anyone` (in the file, the word), or listed users and user groups.

    Groups are Slack user groups, resolved to members when a click is checked,
    so a change in Slack applies without touching the file.
    """

    model_config = ConfigDict(extra="forbid")

    anyone: bool = False
    users: list[UserId] = Field(default_factory=list)
    groups: list[GroupId] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _word(cls, value: object) -> object:
        if value == "anyone":
            return {"anyone": True}
        if isinstance(value, str):
            raise ValueError("use anyone, or {users: [U…], groups: [S…]}")
        return value

    @model_validator(mode="after")
    def _someone(self) -> Deciders:
        if not self.anyone and not self.users and not self.groups:
            raise ValueError("name users or groups (or say anyone)")
        return self


ANYONE = Deciders(anyone=True)


def _pattern(value: str) -> str:
    compile_pattern(value)
    return value


RedactKey = Annotated[str, AfterValidator(check_key)]
RedactPattern = Annotated[str, AfterValidator(_pattern)]


class Redact(BaseModel):
    """`redact:` — more key names or paths and value patterns to hide, and who may see
    full values (`bot.redaction`); `redact: false` turns detection off for the rule.

    A rule's keys and patterns add to those of `defaults`; its `reveal`, if given,
    replaces theirs.
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    keys: list[RedactKey] = Field(default_factory=list)
    patterns: list[RedactPattern] = Field(default_factory=list)
    reveal: Literal["nobody", "deciders"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _word(cls, value: object) -> object:
        if value is False:
            return {"enabled": False}
        if value is True:
            return {}
        if not isinstance(value, dict):
            raise ValueError(
                "use false, or {keys: [...], patterns: [...], reveal: nobody|deciders}"
            )
        return value


def redaction_rules(defaults: Redact | None, own: Redact | None) -> RedactionRules:
    """What a route hides: the rule's `redact` over the defaults', detection on unless off."""
    if own is not None and not own.enabled:
        return RedactionRules(enabled=False)
    if own is None and defaults is not None and not defaults.enabled:
        return RedactionRules(enabled=False)
    given = [r for r in (defaults, own) if r is not None and r.enabled]
    keys = tuple(k for r in given for k in r.keys)
    patterns = tuple(compile_pattern(p) for r in given for p in r.patterns)
    reveal: Reveal = next((r.reveal for r in reversed(given) if r.reveal is not None), "nobody")
    return RedactionRules(enabled=True, keys=keys, patterns=patterns, reveal=reveal)


StandingScope = Literal["run", "tool"]
STANDING_SCOPES: tuple[StandingScope, ...] = get_args(StandingScope)


class AllowStanding(BaseModel):
    """`allow_standing: {max: 4h, scopes: [run, tool]}`: a decider may approve and allow
    the same agent's same tool for a while (`bot.services.allowances`); `max` caps how
    long any allowance under the rule lasts, `scopes` which kinds are offered."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    max: Lead
    scopes: list[StandingScope] = Field(default_factory=lambda: list(STANDING_SCOPES))

    @field_validator("max", mode="before")
    @classmethod
    def _max(cls, value: object) -> Lead:
        lead = parse_lead(value)
        if lead.seconds is None:
            raise ValueError('must be a duration such as "4h" or "30m", not a share')
        if lead.seconds > MAX_STANDING_SECONDS:
            raise ValueError("must be 24h or less")
        return lead

    @field_validator("scopes")
    @classmethod
    def _scopes(cls, value: list[StandingScope]) -> list[StandingScope]:
        if not value:
            raise ValueError("name at least one of run, tool")
        return list(dict.fromkeys(value))

    @property
    def max_seconds(self) -> float:
        assert self.max.seconds is not None
        return self.max.seconds


MAX_STANDING_SECONDS = 24 * 3600
"""The longest `allow_standing.max` the file may give: a standing approval is a
convenience for a working session, not a permanent exception."""


class Settings(BaseModel):
    """What `defaults` and each rule may set; a rule's unset fields come from `defaults`."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    channel: ChannelId | None = None
    dm: list[UserId] | None = None
    deciders: Deciders | None = None
    allow_guests: bool | None = None
    quorum: int | None = Field(default=None, ge=1, le=20)
    remind: list[Lead] | None = None
    mention: Literal["deciders", "here", "none"] | None = None
    escalate: Escalation | None = None
    redact: Redact | None = None
    allow_standing: AllowStanding | None = None

    @field_validator("remind", mode="before")
    @classmethod
    def _remind(cls, value: object) -> list[Lead] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            raise ValueError('must be a list such as ["50%", "5m"]')
        return [parse_lead(item) for item in value]

    @field_validator("dm")
    @classmethod
    def _dm(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not value:
            raise ValueError("name at least one user")
        return value

    @model_validator(mode="after")
    def _one_destination(self) -> Settings:
        if self.channel is not None and self.dm is not None:
            raise ValueError("give channel or dm, not both")
        deciders = self.deciders
        if (
            self.quorum is not None
            and deciders is not None
            and not deciders.anyone
            and not deciders.groups
            and self.quorum > len(set(deciders.users))
        ):
            raise ValueError(
                f"quorum {self.quorum} can never be reached by {len(set(deciders.users))}"
                " listed decider(s)"
            )
        return self


class Defaults(Settings):
    """What applies where no rule matches, and to what a matching rule leaves out.

    Its own unset fields fall back to the bridge's settings (the channel is
    `NOVO_SLACK_CHANNEL`) and to these values: anyone may decide, guests may
    not, one approval decides, no reminders.
    """

    allow_guests: bool | None = False
    quorum: int | None = Field(default=1, ge=1, le=20)
    remind: list[Lead] | None = Field(default_factory=list)
    mention: Literal["deciders", "here", "none"] | None = "deciders"


MATCH_FIELDS = ("kind", "agentId", "toolName", "hookId", "runId", "rootRunId", "worker", "when")


def one_of(value: object, allowed: Sequence[str]) -> PydanticCustomError:
    """A value outside its set, naming the set: `"approval" — use approval_request or question`.

    `describe_error` puts it right after the place (`match.kind "approval" — use …`).
    """
    names = list(allowed)
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    shown = json.dumps(str(value), ensure_ascii=False)  # quoted, and on one line whatever it holds
    return PydanticCustomError(NOT_IN_SET, f"{{value}} — use {listed}", {"value": shown})


NOT_IN_SET = "not_in_set"


class Match(BaseModel):
    """Every key given must match; strings are glob patterns (`deploy_*`); `when` is a CEL
    expression over the record (`bot.policy.conditions`), compiled here, once per load."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True)

    kind: str | None = None
    agent_id: str | None = Field(default=None, alias="agentId")
    tool_name: str | None = Field(default=None, alias="toolName")
    hook_id: str | None = Field(default=None, alias="hookId")
    run_id: str | None = Field(default=None, alias="runId")
    root_run_id: str | None = Field(default=None, alias="rootRunId")
    worker: bool | None = None
    when: Condition | None = None

    @model_validator(mode="before")
    @classmethod
    def _known(cls, value: object) -> object:
        if isinstance(value, dict):
            unknown = sorted(str(k) for k in value if k not in MATCH_FIELDS)
            if unknown:
                known = ", ".join(MATCH_FIELDS)
                close = difflib.get_close_matches(unknown[0], MATCH_FIELDS, n=1)
                hint = f'did you mean "{close[0]}"? ' if close else ""
                raise ValueError(
                    f'"{unknown[0]}" is not a field to match ({hint}use one of {known})'
                )
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str | None) -> str | None:
        """A kind (or pattern) no record can have would never match, and the defaults
        would decide in its place."""
        if value is not None and not any(fnmatchcase(k, value) for k in KNOWN_KINDS):
            raise one_of(value, KNOWN_KINDS)
        return value

    @field_validator("when", mode="before")
    @classmethod
    def _when(cls, value: object) -> Condition | None:
        """Compiled and type-checked now, rather than failing on the record that needed it."""
        if value is None or isinstance(value, Condition):
            return value
        if not isinstance(value, str) or not value.strip():
            raise ValueError('must be a CEL expression such as "input.amount > 500"')
        return Condition(value)

    @field_serializer("when")
    def _source(self, value: Condition | None) -> str | None:
        return value.source if value is not None else None

    @cached_property
    def wanted(self) -> dict[str, str | bool]:
        """Each key given besides `when`, by its name in the file, with its pattern.

        Worked out once per load: every route judges the rules before the one that
        matches, and dumping the model for each judgement was most of a route's cost
        (a burst of a thousand approvals over ten agents' rules asks five thousand)."""
        given = self.model_dump(by_alias=True, exclude_none=True, exclude={"when"})
        return {str(k): v for k, v in given.items()}


class Rule(Settings):
    name: str = Field(min_length=1, max_length=80)
    match: Match = Field(default_factory=Match)


class PolicyFile(BaseModel):
    """What the file says; empty when there is no file (every default applies)."""

    model_config = ConfigDict(extra="forbid")

    agents: dict[str, str] = Field(default_factory=dict)
    links: Links = Field(default_factory=Links)
    defaults: Defaults = Field(default_factory=Defaults)
    rules: list[Rule] = Field(default_factory=list)
    digest: list[DigestEntry] = Field(default_factory=list)

    @field_validator("rules")
    @classmethod
    def _distinct_names(cls, rules: list[Rule]) -> list[Rule]:
        seen: set[str] = set()
        for rule in rules:
            if rule.name in seen:
                raise ValueError(f'two rules are named "{rule.name}"')
            seen.add(rule.name)
        return rules

    @model_validator(mode="after")
    def _digest_rules_exist(self) -> PolicyFile:
        """A digest naming a rule that isn't there would quietly report nothing."""
        names = {rule.name for rule in self.rules} | {"defaults"}
        for index, entry in enumerate(self.digest):
            for position, name in enumerate(entry.rules or ()):
                if name not in names:
                    raise ValueError(
                        f"digest {index + 1}: rules item {position + 1}: no rule is named"
                        f' "{name}" ("defaults" means what no rule matched)'
                    )
        return self


def load_policy(path: Path | None) -> PolicyFile:
    """The policy at `path` (None: no file, the defaults), or PolicyError naming the place."""
    if path is None:
        return PolicyFile()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"{path}: can't be read ({exc.strerror or exc})") from None
    try:
        _check_nesting(text, path.name)
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
        raise PolicyError(f"{path.name}: {unknown_key(unknown[0], KNOWN_KEYS)}")
    try:
        return PolicyFile.model_validate(data)
    except ValidationError as exc:
        raise PolicyError(f"{path.name}: {describe_error(exc, data)}") from None


def _check_nesting(text: str, name: str) -> None:
    """PolicyError when collections nest deeper than MAX_NESTING, found by reading the
    YAML as a flat stream of events (no recursion), before anything is built from it."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                line = event.start_mark.line + 1 if event.start_mark is not None else 0
                raise PolicyError(
                    f"{name}: nested deeper than {MAX_NESTING} levels at line {line};"
                    " a policy needs a handful"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def unknown_key(key: str, known: Iterable[str]) -> str:
    """`unknown key "quorom" — did you mean "quorum"?` (the hint only when one is close)."""
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    hint = f' — did you mean "{close[0]}"?' if close else ""
    return f'unknown key "{key}"{hint}'


def describe_error(exc: ValidationError, data: Any) -> str:
    """The first mistake as a person would point at it, places counted from one.

    `rule 2 (prod-deploys): unknown key "quorom" — did you mean "quorum"?`,
    `rule 1 (deploys): deciders.groups item 1: "sre" is not a user group id (S…)`.
    Pydantic's own words (`rules[1].quorom: Extra inputs are not permitted`)
    count from zero and make the reader find rule 1 by counting.
    """
    first = exc.errors()[0]
    loc = tuple(first["loc"])
    kind = first["type"]
    message = str(first["msg"]).removeprefix("Value error, ")
    if kind in ("extra_forbidden", "missing") and loc and isinstance(loc[-1], str):
        key, loc = loc[-1], loc[:-1]
        if kind == "missing":
            message = f'"{key}" is required'
        else:
            message = unknown_key(key, _known_keys(loc))
    if kind == "literal_error":
        message = one_of(first["input"], _expected(first.get("ctx", {}))).message()
        kind = NOT_IN_SET
    where = _place(loc, data)
    if kind == NOT_IN_SET and where:
        return f"{where} {message}"  # `match.kind "approval" — use approval_request or question`
    return f"{where}: {message}" if where else message


def _expected(ctx: dict[str, Any]) -> list[str]:
    """The values a `Literal` takes, from pydantic's `'a', 'b' or 'c'`."""
    text = str(ctx.get("expected", ""))
    return [part.strip().strip("'") for part in text.replace(" or ", ", ").split(", ") if part]


def _place(loc: tuple[int | str, ...], data: Any) -> str:
    """`rule 2 (prod-deploys): deciders.groups item 1` for ("rules", 1, "deciders", "groups", 0)."""
    head = ""
    rest = list(loc)
    if len(rest) >= 2 and rest[0] in ("rules", "digest") and isinstance(rest[1], int):
        index = rest[1]
        head = f"{'rule' if rest[0] == 'rules' else 'digest'} {index + 1}"
        name = _rule_name(data, index) if rest[0] == "rules" else None
        if name:
            head += f" ({name})"
        rest = rest[2:]
    path = ""
    for part in rest:
        if isinstance(part, int):
            path += f" item {part + 1}"
        else:
            path += f".{part}" if path else str(part)
    return ": ".join(piece for piece in (head, path) if piece)


def _rule_name(data: Any, index: int) -> str | None:
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, list) or index >= len(rules) or not isinstance(rules[index], dict):
        return None
    name = rules[index].get("name")
    return name if isinstance(name, str) and name else None


def _known_keys(loc: tuple[int | str, ...]) -> list[str]:
    """The keys the model at `loc` takes (by the names the file uses), to suggest one."""
    model: type[BaseModel] = PolicyFile
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            field = next((f for f in model.model_fields.values() if f.alias == part), None)
        inner = _model_in(field.annotation) if field is not None else None
        if inner is None:
            return []
        model = inner
    return [field.alias or name for name, field in model.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, through `X | None`, `list[X]` and `dict[str, X]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
