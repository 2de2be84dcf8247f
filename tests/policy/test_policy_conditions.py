"""A rule's `when:` (CEL over the record): compiled at load, refused when it can't be
used, and an expression that can't be evaluated never widens who may decide."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import condition_values, explain, route_for
from tests.novo.conftest import approval_wire, question_wire

REFUNDS = """
defaults:
  channel: C0APPROVALS
  deciders: anyone
rules:
  - name: big-refunds
    match: {toolName: issue_refund, when: 'input.amount > 500 && input.currency == "USD"'}
    channel: C0FINANCE
    deciders: {users: [U0FIN1, U0FIN2]}
    quorum: 2
"""

STAGING = """
defaults:
  channel: C0APPROVALS
  deciders: {users: [U0SRE]}
rules:
  - name: staging
    match: {when: 'input.env == "staging"'}
    channel: C0STAGING
    deciders: anyone
"""


def _policy(tmp_path: Path, text: str) -> PolicyFile:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path)


def _refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(PolicyError) as caught:
        _policy(tmp_path, text)
    return str(caught.value)


def _approval(**fields: Any) -> Interaction:
    return Interaction.from_wire(approval_wire(**fields))


def _refund(amount: Any, currency: str = "USD") -> Interaction:
    return _approval(toolName="issue_refund", input={"amount": amount, "currency": currency})


def test_a_condition_routes_by_what_the_call_does(tmp_path: Path) -> None:
    policy = _policy(tmp_path, REFUNDS)
    big = route_for(policy, _refund(900), "C0X")
    assert (big.rule, big.channel, big.quorum, big.deciders.users) == (
        "big-refunds",
        "C0FINANCE",
        2,
        ["U0FIN1", "U0FIN2"],
    )
    small = route_for(policy, _refund(20), "C0X")
    assert (small.rule, small.channel, small.deciders.anyone) == ("defaults", "C0APPROVALS", True)
    euros = route_for(policy, _refund(900, "EUR"), "C0X")
    assert euros.rule == "defaults"
    assert big.unsure == () and small.unsure == ()


@pytest.mark.parametrize(
    ("when", "record", "matches"),
    [
        ('input.env in ["prod", "production"]', approval_wire(input={"env": "production"}), True),
        ('input.env in ["prod", "production"]', approval_wire(input={"env": "dev"}), False),
        ("has(input.force) && input.force", approval_wire(input={"force": True}), True),
        ("has(input.force) && input.force", approval_wire(input={"branch": "main"}), False),
        ('preview.sql.contains("DROP")', approval_wire(preview={"sql": "DROP TABLE t"}), True),
        ('request.title.contains("refund")', question_wire(), False),
        (
            'request.title.contains("refund")',
            question_wire(request={"title": "Which refund?", "questions": []}),
            True,
        ),
        ('kind == "question" && stepNumber > 0', question_wire(), True),
        ("workerRef == null", approval_wire(), True),
    ],
)
def test_conditions_over_every_part_of_the_record(
    tmp_path: Path, when: str, record: dict[str, Any], matches: bool
) -> None:
    text = f"rules:\n  - name: cond\n    match: {{when: {json.dumps(when)}}}\n    channel: C0COND\n"
    route = route_for(_policy(tmp_path, text), Interaction.from_wire(record), "C0X")
    assert (route.rule == "cond") is matches
    assert route.unsure == ()


@pytest.mark.parametrize(
    ("when", "why"),
    [
        ("inputs.amount > 5", "undeclared reference to 'inputs.amount' (column 7)"),
        ("size(input.items)", "is int, not true or false"),
        ("input.amount >", "Syntax error"),
        ('toolName + 1 == "x"', "found no matching overload for '_+_' applied to '(string, int)'"),
        ("", 'must be a CEL expression such as "input.amount > 500"'),
    ],
)
def test_an_expression_that_cannot_be_used_is_refused_at_load(
    tmp_path: Path, when: str, why: str
) -> None:
    bad = f"  - name: bad\n    match: {{when: {json.dumps(when)}}}\n"
    text = f"rules:\n  - name: ok\n    match: {{}}\n{bad}"
    message = _refused(tmp_path, text)
    assert message.startswith("policy.yml: rule 2 (bad): match.when: "), message
    assert why in message
    assert "\n" not in message


def test_a_condition_is_compiled_once_per_load(tmp_path: Path) -> None:
    policy = _policy(tmp_path, REFUNDS)
    condition = policy.rules[0].match.when
    assert condition is not None
    for amount in (900, 20, 600):
        route_for(policy, _refund(amount), "C0X")
    assert policy.rules[0].match.when is condition  # the same compiled program, every time


def test_a_restricting_condition_in_error_leaves_only_finance(tmp_path: Path) -> None:
    policy = _policy(tmp_path, REFUNDS)
    for record in (_refund("lots"), _approval(toolName="issue_refund", input={"currency": "USD"})):
        route = route_for(policy, record, "C0X")
        # true: finance, quorum 2; false: anyone, quorum 1 → finance, quorum 2
        assert route.deciders.anyone is False
        assert route.deciders.users == ["U0FIN1", "U0FIN2"]
        assert route.quorum == 2
        assert route.channel == "C0FINANCE"
        assert route.standing is None
        assert len(route.unsure) == 1
        assert route.unsure[0].startswith("rule 1 (big-refunds): when `input.amount > 500")


def test_a_loosening_condition_in_error_leaves_only_sre(tmp_path: Path) -> None:
    policy = _policy(tmp_path, STAGING)
    staging = route_for(policy, _approval(input={"env": "staging"}), "C0X")
    assert staging.deciders.anyone
    # (`input.env == 7` is simply false: CEL compares values of different types as unequal)
    for record in (_approval(input={"region": "eu"}), _approval(input=["env"])):
        route = route_for(policy, record, "C0X")
        assert (route.deciders.anyone, route.deciders.users) == (False, ["U0SRE"])
        assert route.channel == "C0APPROVALS"  # where the SRE decide, not the open channel
        assert route.unsure and "rule 1 (staging)" in route.unsure[0]


def test_when_both_outcomes_name_people_only_those_in_both_may_decide(tmp_path: Path) -> None:
    text = """
defaults:
  deciders: {users: [U0A, U0B], groups: [S0OPS]}
  quorum: 3
  allow_guests: true
rules:
  - name: cond
    match: {when: "input.n > 1"}
    deciders: {users: [U0B, U0C], groups: [S0OPS, S0DEV]}
    allow_guests: false
"""
    route = route_for(_policy(tmp_path, text), _approval(input={"n": "x"}), "C0X")
    assert route.deciders.users == ["U0B"] and route.deciders.groups == ["S0OPS"]
    assert (route.quorum, route.allow_guests) == (3, False)


def test_nobody_in_both_leaves_nobody_in_slack(tmp_path: Path) -> None:
    text = """
defaults:
  deciders: {users: [U0A]}
rules:
  - name: cond
    match: {when: "input.n > 1"}
    deciders: {users: [U0B]}
"""
    route = route_for(_policy(tmp_path, text), _approval(input={}), "C0X")
    assert not route.deciders.anyone and not route.deciders.users and not route.deciders.groups


def test_a_later_rule_that_surely_matches_is_one_of_the_outcomes(tmp_path: Path) -> None:
    text = """
rules:
  - name: cond
    match: {when: "input.n > 1"}
    deciders: {users: [U0A, U0B]}
  - name: all
    match: {}
    deciders: {users: [U0B]}
    quorum: 1
"""
    policy = _policy(tmp_path, text)
    verdicts = explain(policy, _approval(input={}))
    assert [(v.rule, v.matched, v.unsure is not None) for v in verdicts] == [
        ("cond", False, True),
        ("all", True, False),
    ]
    route = route_for(policy, _approval(input={}), "C0X")
    assert route.deciders.users == ["U0B"]


def test_a_value_cel_cannot_hold_is_an_error_not_a_crash(tmp_path: Path) -> None:
    policy = _policy(tmp_path, REFUNDS)
    route = route_for(policy, _refund(2**70), "C0X")
    assert route.deciders.users == ["U0FIN1", "U0FIN2"] and route.unsure
    deep: dict[str, Any] = {}
    cursor = deep
    for _ in range(800):
        cursor["a"] = {}
        cursor = cursor["a"]
    route = route_for(policy, _approval(toolName="issue_refund", input=deep), "C0X")
    assert route.unsure and not route.deciders.anyone


def test_condition_values_name_each_rule_and_its_value(tmp_path: Path) -> None:
    policy = _policy(tmp_path, REFUNDS)
    (value,) = condition_values(policy, _refund("lots"))
    assert (value.number, value.rule) == (1, "big-refunds")
    assert not isinstance(value.value, bool)
    assert "No matching overloads" in value.value.error
    (value,) = condition_values(policy, _refund(900))
    assert value.value is True


# -- every enumerated value checked -------------------------------------------------------------


def test_a_kind_outside_its_set_names_the_allowed_values(tmp_path: Path) -> None:
    text = "rules:\n  - name: prod-deploys\n    match: {kind: approval}\n"
    assert _refused(tmp_path, text) == (
        'policy.yml: rule 1 (prod-deploys): match.kind "approval"'
        " — use approval_request or question"
    )
    ok = "rules:\n  - name: any\n    match: {kind: '*'}\n"
    assert _policy(tmp_path, ok).rules[0].match.kind == "*"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "allow_standing: {max: 1h, scopes: [forever]}",
            'allow_standing.scopes item 1 "forever" — use run or tool',
        ),
        ("mention: everyone", 'mention "everyone" — use deciders, here or none'),
        ("redact: {reveal: all}", 'redact.reveal "all" — use nobody or deciders'),
    ],
)
def test_every_enumerated_value_names_its_set(tmp_path: Path, setting: str, message: str) -> None:
    text = f"rules:\n  - name: r\n    match: {{}}\n    {setting}\n"
    assert _refused(tmp_path, text) == f"policy.yml: rule 1 (r): {message}"


def test_an_error_never_repeats_a_value_of_the_record(tmp_path: Path) -> None:
    """The error goes to the log, the audit trail and `policy explain`: a value of the
    agent's input is masked, what the expression itself says is kept."""
    policy = _policy(tmp_path, REFUNDS)
    huge = 2**70
    route = route_for(policy, _refund(huge), "C0X")
    (note,) = route.unsure
    assert str(huge) not in note
    assert "input.amount > 500" in note  # the expression, quoted by the note itself
