"""`allow_standing` in the policy file: read, bounded, never with a quorum above 1, and
what `policy explain` says of it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.domain import Allowance, SlackActor
from bot.policy.explain import StandingFacts, standing_lines
from bot.policy.file import PolicyError, load_policy
from bot.policy.routes import Route, route_for
from tests.store.helpers import NOW, interaction

RULE = "rules:\n  - name: deploys\n    match: {toolName: 'deploy_*'}\n"


def _route(tmp_path: Path, text: str, tool: str = "deploy_status") -> Route:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return route_for(load_policy(path), interaction(toolName=tool), "C0DEFAULT")


def test_a_rule_opts_in_with_a_bound(tmp_path: Path) -> None:
    route = _route(tmp_path, RULE + "    allow_standing: {max: 4h, scopes: [run]}\n")
    assert route.standing is not None
    assert route.standing.max_seconds == 4 * 3600 and route.standing.scopes == ["run"]


def test_defaults_opt_in_for_every_rule_that_leaves_it_out(tmp_path: Path) -> None:
    route = _route(tmp_path, "defaults:\n  allow_standing: {max: 30m}\n" + RULE)
    assert route.standing is not None and route.standing.scopes == ["run", "tool"]


def test_without_it_or_with_a_quorum_nothing_is_offered(tmp_path: Path) -> None:
    assert _route(tmp_path, RULE).standing is None
    quorum = RULE + "    allow_standing: {max: 4h}\n    quorum: 2\n"
    assert _route(tmp_path, quorum).standing is None


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("{max: 50%}", "must be a duration"),
        ("{max: 25h}", "24h or less"),
        ("{max: 1h, scopes: []}", "at least one"),
        ("{max: 1h, scopes: [forever]}", "scopes"),
        ("{scopes: [run]}", "max"),
    ],
)
def test_a_mistake_is_named(tmp_path: Path, given: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        _route(tmp_path, RULE + f"    allow_standing: {given}\n")


def _allowance(scope: str = "run", run: str | None = "run_1", **changes: object) -> Allowance:
    fields: dict[str, object] = {
        "id": 7,
        "rule": "deploys",
        "scope": scope,
        "agent_id": "agt_1",
        "tool_name": "deploy_status",
        "root_run_id": run,
        "granted_by": SlackActor("U0ADA", "Ada"),
        "granted_at": NOW,
        "until": NOW + timedelta(hours=1),
        "interaction_id": "int_grant",
        **changes,
    }
    return Allowance(**fields)  # type: ignore[arg-type]


def test_explain_says_whether_an_allowance_would_apply(tmp_path: Path) -> None:
    route = _route(tmp_path, RULE + "    allow_standing: {max: 4h}\n")
    record = interaction(toolName="deploy_status", agentId="agt_1", rootRunId="run_1")
    applies = standing_lines(record, route, StandingFacts(NOW, [_allowance()]))
    assert applies[0] == "standing:     offered: max 4h, scopes run, tool"
    assert "would be approved by allowance 7 of U0ADA (this run)" in applies[1]
    other_run = standing_lines(record, route, StandingFacts(NOW, [_allowance(run="run_2")]))
    assert other_run[1].strip() == "no allowance in force would approve it"
    later = standing_lines(record, route, StandingFacts(NOW + timedelta(hours=2), [_allowance()]))
    assert later[1].strip() == "no allowance in force would approve it"
    unread = standing_lines(record, route, StandingFacts(NOW, problem="no such file"))
    assert unread[1].strip() == "allowances unknown: no such file"
