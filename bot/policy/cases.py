"""`novo-slack policy test POLICY.yml CASES.yml`: example records run against the policy.

An organisation keeps a policy in review like code; a change that sends refunds
to the wrong channel or lets the wrong person decide should fail in CI, not in
Slack. Each case gives a record and what is expected of it:

```yaml
groups:                        # members of user groups, as Slack would list them
  S0SRE: [U0SRE1, U0SRE2]
cases:
  - name: a big refund needs finance
    record:                    # inline (fields left out get placeholders) ...
      toolName: issue_refund
      input: {amount: 900, currency: USD}
    expect:
      rule: big-refunds
      channel: C0FINANCE       # or dm: [U…]
      may_decide: [U0FIN1]
      may_not_decide: [U0DEV1]
      quorum: 2
  - name: a recorded one
    file: records/deploy.json  # ... or a record as the API returns it, beside this file
    expect: {rule: prod-deploys}
```

The answer is the bridge's own (`bot.policy.routes.route_for`): one line per
case, exit 0 when every case holds, 1 naming each that does not, 2 with one
line when the case file itself is wrong (`SettingsError`). A user group whose
members the file does not give admits nobody here, and the line says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.config import SettingsError
from bot.novo.models import Interaction
from bot.policy.file import (
    GroupId,
    PolicyError,
    UserId,
    describe_error,
    load_policy,
)
from bot.policy.routes import Route, route_for

CASE_CHANNEL = "(NOVO_SLACK_CHANNEL)"
"""The bridge's channel, as a case's `channel:` names it when no rule or default gives one."""

PLACEHOLDERS: dict[str, Any] = {
    "object": "interaction",
    "runId": "run_case",
    "rootRunId": "run_case",
    "workerRef": None,
    "threadId": "thr_case",
    "agentId": "agent_case",
    "kind": "approval_request",
    "status": "pending",
    "stepNumber": 1,
    "toolName": "tool_case",
    "toolCallId": "call_case",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
}
"""What an inline record leaves out: a case names only the fields its rules read."""


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    channel: str | None = None
    dm: list[UserId] | None = None
    may_decide: list[UserId] = Field(default_factory=list)
    may_not_decide: list[UserId] = Field(default_factory=list)
    quorum: int | None = Field(default=None, ge=1)


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    record: dict[str, Any] | None = None
    file: str | None = None
    expect: Expect

    @model_validator(mode="after")
    def _one_record(self) -> Case:
        if (self.record is None) == (self.file is None):
            raise ValueError("give record: or file:, one of them")
        return self


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    groups: dict[GroupId, list[UserId]] = Field(default_factory=dict)
    cases: list[Case] = Field(min_length=1)


def run_cases(policy_path: Path, cases_path: Path) -> int:
    """Print one line per case; 0 when all hold, 1 when one does not."""
    try:
        policy = load_policy(policy_path)
    except PolicyError as exc:
        raise SettingsError(str(exc)) from None
    cases = load_cases(cases_path)
    failed = 0
    for number, (case, record) in enumerate(cases.items(), 1):
        route = route_for(policy, record, CASE_CHANNEL)
        problems = judge_case(case.expect, route, cases.groups)
        label = f"case {number} ({case.name})"
        if problems:
            failed += 1
            print(f"FAIL {label}: {'; '.join(problems)}")
        else:
            print(f"ok   {label}: rule {route.rule}")
    total = len(cases.cases)
    print(f"{total - failed} of {total} case(s) hold" + (f", {failed} fail" if failed else ""))
    return 1 if failed else 0


class LoadedCases:
    """The case file with each case's record parsed."""

    def __init__(self, parsed: CaseFile, records: list[Interaction]) -> None:
        self.groups = parsed.groups
        self.cases = parsed.cases
        self._records = records

    def items(self) -> list[tuple[Case, Interaction]]:
        return list(zip(self.cases, self._records, strict=True))


def load_cases(path: Path) -> LoadedCases:
    """The case file at `path`, or SettingsError naming the file and the place."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"{path}: can't be read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SettingsError(f"{path}: not valid YAML{where}") from None
    try:
        parsed = CaseFile.model_validate(data)
    except ValidationError as exc:
        where = describe_error(exc, data).replace("rules", "cases")
        raise SettingsError(f"{path}: {_case_place(where)}") from None
    records = [_record(path, number, case) for number, case in enumerate(parsed.cases, 1)]
    return LoadedCases(parsed, records)


def _case_place(text: str) -> str:
    """`cases item 2.expect.rule: …` reads as `case 2: expect.rule: …`."""
    if text.startswith("cases item "):
        number, _, rest = text.removeprefix("cases item ").partition(".")
        head, colon, tail = number.partition(":")
        return f"case {head}: {rest}{colon}{tail}" if rest else f"case {head}{colon}{tail}"
    return text


def _record(path: Path, number: int, case: Case) -> Interaction:
    if case.file is not None:
        source = path.parent / case.file
        try:
            data: Any = json.loads(source.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SettingsError(
                f"{path}: case {number} ({case.name}): {source} can't be read"
                f" ({exc.strerror or exc})"
            ) from None
        except ValueError as exc:
            raise SettingsError(
                f"{path}: case {number} ({case.name}): {source}: not JSON ({exc})"
            ) from None
    else:
        data = {"id": f"int_case_{number}", **PLACEHOLDERS, **(case.record or {})}
    try:
        return Interaction.from_wire(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SettingsError(
            f"{path}: case {number} ({case.name}): not an interaction record"
            f" ({where}: {first['msg']})"
        ) from None


def judge_case(expect: Expect, route: Route, groups: dict[str, list[str]]) -> list[str]:
    """What the route does otherwise than expected, one phrase each (none: it holds)."""
    problems: list[str] = []
    if route.rule != expect.rule:
        problems.append(f"rule {route.rule}, expected {expect.rule}")
    if expect.channel is not None and route.channel != expect.channel:
        problems.append(f"goes to {_where(route)}, expected channel {expect.channel}")
    if expect.dm is not None and list(route.dm) != expect.dm:
        problems.append(f"goes to {_where(route)}, expected a DM to {', '.join(expect.dm)}")
    for user in expect.may_decide:
        if not _may_decide(route, user, groups):
            problems.append(f"{user} may not decide{_unlisted(route, groups)}")
    for user in expect.may_not_decide:
        if _may_decide(route, user, groups):
            problems.append(f"{user} may decide")
    if expect.quorum is not None and route.quorum != expect.quorum:
        problems.append(f"quorum {route.quorum}, expected {expect.quorum}")
    if problems:  # a condition that could not be evaluated may be why
        problems += [f"({note})" for note in route.unsure]
    return problems


def _may_decide(route: Route, user: str, groups: dict[str, list[str]]) -> bool:
    deciders = route.deciders
    if deciders.anyone or user in deciders.users:
        return True
    return any(user in groups.get(group, ()) for group in deciders.groups)


def _unlisted(route: Route, groups: dict[str, list[str]]) -> str:
    missing = [g for g in route.deciders.groups if g not in groups]
    return f" ({', '.join(missing)}: members not given in groups:)" if missing else ""


def _where(route: Route) -> str:
    return f"a DM to {', '.join(route.dm)}" if route.dm else f"channel {route.channel}"
