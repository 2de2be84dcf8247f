"""Rules: first match wins, globs on the interaction's fields, defaults fill the gaps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import DEFAULTS_RULE, explain, route_for
from tests.novo.conftest import approval_wire, question_wire

POLICY = """
defaults:
  channel: C0APPROVALS
  deciders: anyone
rules:
  - name: prod-deploys
    match: {kind: approval_request, toolName: "deploy_*"}
    channel: C0PROD
    deciders: {users: [U0ALICE], groups: [S0SRE]}
    quorum: 2
  - name: release-agent
    match: {agentId: agt_release, worker: false}
    dm: [U0ALICE, U0BOB]
    allow_guests: true
  - name: support-questions
    match: {kind: question}
    channel: C0SUPPORT
"""


def _policy(tmp_path: Path, text: str = POLICY) -> PolicyFile:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path)


def _approval(**fields: Any) -> Interaction:
    return Interaction.from_wire(approval_wire(**fields))


def test_the_first_matching_rule_decides_where_and_who(tmp_path: Path) -> None:
    route = route_for(_policy(tmp_path), _approval(toolName="deploy_api"), "C0FALLBACK")
    assert (route.rule, route.destinations, route.quorum) == ("prod-deploys", ("C0PROD",), 2)
    assert route.deciders.users == ["U0ALICE"] and route.deciders.groups == ["S0SRE"]
    assert route.allow_guests is False  # from the defaults


def test_a_rule_matches_every_key_it_gives(tmp_path: Path) -> None:
    policy = _policy(tmp_path)
    release = route_for(policy, _approval(agentId="agt_release"), "C0FALLBACK")
    assert (release.rule, release.destinations, release.allow_guests) == (
        "release-agent",
        ("U0ALICE", "U0BOB"),
        True,
    )
    assert release.channel is None and release.deciders.anyone
    worker = route_for(policy, _approval(agentId="agt_release", workerRef="wkr_1"), "C0FALLBACK")
    assert worker.rule == DEFAULTS_RULE and worker.destinations == ("C0APPROVALS",)


def test_questions_and_the_defaults(tmp_path: Path) -> None:
    policy = _policy(tmp_path)
    question = route_for(policy, Interaction.from_wire(question_wire()), "C0FALLBACK")
    assert (question.rule, question.destinations) == ("support-questions", ("C0SUPPORT",))
    other = route_for(policy, _approval(toolName="delete_file"), "C0FALLBACK")
    assert (other.rule, other.destinations, other.quorum) == (DEFAULTS_RULE, ("C0APPROVALS",), 1)


def test_without_a_file_everything_goes_to_the_bridge_channel() -> None:
    route = route_for(PolicyFile(), _approval(), "C0FALLBACK")
    assert route.destinations == ("C0FALLBACK",)
    assert route.deciders.anyone and not route.allow_guests and route.quorum == 1


def test_a_pattern_never_matches_a_missing_field(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path, 'rules:\n  - name: hooks\n    match: {hookId: "*"}\n    channel: C0H\n'
    )
    assert route_for(policy, _approval(), "C0X").rule == "hooks"
    assert route_for(policy, Interaction.from_wire(question_wire()), "C0X").rule == DEFAULTS_RULE


def test_explain_says_which_key_failed_and_which_held(tmp_path: Path) -> None:
    verdicts = explain(_policy(tmp_path), _approval(agentId="agt_release"))
    assert [v.rule for v in verdicts] == ["prod-deploys", "release-agent"]
    assert verdicts[0].because == ('toolName delete_file does not match "deploy_*"',)
    assert verdicts[1].matched
    assert verdicts[1].because == (
        'agentId agt_release matches "agt_release"',
        "worker false matches false",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "rules:\n  - name: a\n    deciders: {groups: [sre]}\n",
            'policy.yml: rule 1 (a): deciders.groups item 1: "sre" is not a user group id (S…)',
        ),
        (
            "rules:\n  - name: a\n  - name: b\n    deciders: {users: [alice]}\n",
            'policy.yml: rule 2 (b): deciders.users item 1: "alice" is not a user id (U…)',
        ),
        (
            "rules:\n  - name: a\n    channel: C1\n    dm: [U1]\n",
            "policy.yml: rule 1 (a): give channel or dm, not both",
        ),
        (
            "rules:\n  - name: a\n    deciders: {users: [U1]}\n    quorum: 2\n",
            "policy.yml: rule 1 (a): quorum 2 can never be reached by 1 listed decider(s)",
        ),
        (
            "rules:\n  - name: a\n    match: {tool: x}\n",
            'policy.yml: rule 1 (a): match: "tool" is not a field to match',
        ),
        ("rules:\n  - name: a\n  - name: a\n", 'policy.yml: rules: two rules are named "a"'),
        ("rules:\n  - name: a\n    deciders: everyone\n", "policy.yml: rule 1 (a): deciders: use"),
        ("rules:\n  - name: a\n    deciders: {}\n", "policy.yml: rule 1 (a): deciders: name users"),
        ("rules:\n  - name: a\n    quorum: 0\n", "policy.yml: rule 1 (a): quorum: "),
        ("rules:\n  - match: {kind: question}\n", 'policy.yml: rule 1: "name" is required'),
        ("defaults:\n  dm: []\n", "policy.yml: defaults.dm: name at least one user"),
    ],
)
def test_a_rule_mistake_is_named_by_its_place(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyError) as raised:
        _policy(tmp_path, text)
    assert str(raised.value).startswith(message), str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "rules:\n  - name: a\n  - name: prod-deploys\n    quorom: 2\n",
            'policy.yml: rule 2 (prod-deploys): unknown key "quorom" — did you mean "quorum"?',
        ),
        (
            "defaults:\n  escalate: {at: 5m, to: {chanel: C1}}\n",
            'policy.yml: defaults.escalate.to: unknown key "chanel" — did you mean "channel"?',
        ),
        ("rules:\n  - name: a\n    zzz: 1\n", 'policy.yml: rule 1 (a): unknown key "zzz"'),
        (
            "rules:\n  - name: a\n    match: {toolname: x}\n",
            'policy.yml: rule 1 (a): match: "toolname" is not a field to match (did you mean'
            ' "toolName"?',
        ),
        (
            "rules:\n  - name: a\n    remind: [5m, soon]\n",
            "policy.yml: rule 1 (a): remind: ",
        ),
    ],
)
def test_a_mistake_reads_as_a_person_would_point_at_it(
    tmp_path: Path, text: str, message: str
) -> None:
    """Places count from one and name the rule; a misspelt key gets the key it meant."""
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    assert str(raised.value).startswith(message), str(raised.value)
    assert "[0]" not in str(raised.value)
    assert "Extra inputs" not in str(raised.value)
