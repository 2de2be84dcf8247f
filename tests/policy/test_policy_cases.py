"""`novo-slack policy test POLICY CASES` as CI runs it: one line per case, the exit code
(0 all hold, 1 some fail, 2 a malformed case file); and `policy explain` showing each
condition with its value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from novo_dev.demo.runner import DEMO_POLICY
from tests.novo.conftest import approval_wire
from tests.policy.test_policy_cli import no_settings
from tests.policy.test_policy_conditions import REFUNDS

__all__ = ["no_settings"]  # the fixture, used by every test here
pytestmark = pytest.mark.usefixtures("no_settings")

POLICY = REFUNDS.replace("users: [U0FIN1, U0FIN2]", "groups: [S0FINANCE]") + (
    "  - name: prod-deploys\n"
    '    match: {toolName: "deploy_*", when: \'input.env in ["prod", "production"]\'}\n'
    "    deciders: {users: [U0SRE]}\n"
)

CASES = """
groups:
  S0FINANCE: [U0FIN1, U0FIN2]
cases:
  - name: a big refund needs finance
    record: {toolName: issue_refund, input: {amount: 900, currency: USD}}
    expect:
      rule: big-refunds
      channel: C0FINANCE
      may_decide: [U0FIN1]
      may_not_decide: [U0DEV]
      quorum: 2
  - name: a small refund follows the defaults
    record: {toolName: issue_refund, input: {amount: 20, currency: USD}}
    expect: {rule: defaults, channel: C0APPROVALS, may_decide: [U0DEV], quorum: 1}
  - name: a recorded deploy
    file: deploy.json
    expect: {rule: prod-deploys, may_decide: [U0SRE], may_not_decide: [U0DEV]}
"""


def _files(tmp_path: Path, cases: str = CASES, policy: str = POLICY) -> tuple[str, str]:
    (tmp_path / "deploy.json").write_text(
        json.dumps(approval_wire(toolName="deploy_api", input={"env": "prod"})), encoding="utf-8"
    )
    policy_path, cases_path = tmp_path / "policy.yml", tmp_path / "cases.yml"
    policy_path.write_text(policy, encoding="utf-8")
    cases_path.write_text(cases, encoding="utf-8")
    return str(policy_path), str(cases_path)


def test_every_case_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "test", *_files(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "ok   case 1 (a big refund needs finance): rule big-refunds",
        "ok   case 2 (a small refund follows the defaults): rule defaults",
        "ok   case 3 (a recorded deploy): rule prod-deploys",
        "3 of 3 case(s) hold",
    ]
    assert err == ""


def test_a_case_that_does_not_hold_is_named_with_each_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = CASES.replace("amount: 20,", "amount: 2000,").replace(
        "may_not_decide: [U0DEV]\n      quorum: 2", "may_not_decide: [U0FIN2]\n      quorum: 2"
    )
    assert main(["policy", "test", *_files(tmp_path, wrong)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "FAIL case 1 (a big refund needs finance): U0FIN2 may decide",
        "FAIL case 2 (a small refund follows the defaults): rule big-refunds, expected defaults;"
        " goes to channel C0FINANCE, expected channel C0APPROVALS; U0DEV may not decide;"
        " quorum 2, expected 1",
        "ok   case 3 (a recorded deploy): rule prod-deploys",
        "1 of 3 case(s) hold, 2 fail",
    ]


def test_a_group_without_members_given_admits_nobody_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["policy", "test", *_files(tmp_path, CASES.replace("S0FINANCE:", "S0OTHER:"))]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "FAIL case 1 (a big refund needs finance): U0FIN1 may not decide"
        " (S0FINANCE: members not given in groups:)"
    )


def test_a_case_in_doubt_names_the_condition_that_could_not_be_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doubt = CASES.replace("amount: 20,", 'amount: "lots",')
    assert main(["policy", "test", *_files(tmp_path, doubt)]) == 1
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith(
        "FAIL case 2 (a small refund follows the defaults): rule big-refunds, expected defaults;"
        " goes to channel C0FINANCE"
    )
    assert "U0DEV may not decide; quorum 2, expected 1; (rule 1 (big-refunds): when" in line
    assert "could not be evaluated: No matching overloads found" in line


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ("cases: [", "cases.yml: not valid YAML at line 1"),
        ("cases: []", "cases.yml: cases: List should have at least 1 item"),
        (
            "cases:\n  - name: x\n    record: {}\n    expect: {rule: r, mays: []}\n",
            'cases.yml: case 1: expect: unknown key "mays"',
        ),
        (
            "cases:\n  - name: x\n    expect: {rule: r}\n",
            "cases.yml: case 1: give record: or file:, one of them",
        ),
        (
            "cases:\n  - name: x\n    record: {stepNumber: many}\n    expect: {rule: r}\n",
            "cases.yml: case 1 (x): not an interaction record (stepNumber:",
        ),
        (
            "cases:\n  - name: x\n    file: missing.json\n    expect: {rule: r}\n",
            "cases.yml: case 1 (x): ",
        ),
        (
            "cases:\n  - name: x\n    record: {}\n    expect: {rule: r, may_decide: [ada]}\n",
            'cases.yml: case 1: expect.may_decide item 1: "ada" is not a user id (U…)',
        ),
    ],
)
def test_a_malformed_case_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cases: str, message: str
) -> None:
    assert main(["policy", "test", *_files(tmp_path, cases)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"novo-slack: {tmp_path}/{message}"), err
    assert err.count("\n") == 1


def test_a_policy_with_bad_cel_is_refused_by_policy_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = POLICY.replace("input.amount > 500", "inputs.amount > 500")
    assert main(["policy", "test", *_files(tmp_path, policy=bad)]) == 2
    assert capsys.readouterr().err == (
        "novo-slack: policy.yml: rule 1 (big-refunds): match.when: undeclared reference to"
        " 'inputs.amount' (column 7)\n"
    )


def test_the_demo_policy_passes_its_own_cases(capsys: pytest.CaptureFixture[str]) -> None:
    cases = DEMO_POLICY.parent / "policy-cases.yml"
    assert main(["policy", "test", str(DEMO_POLICY), str(cases)]) == 0
    assert capsys.readouterr().out.endswith("case(s) hold\n")


def test_explain_shows_each_condition_and_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(POLICY, encoding="utf-8")
    record = tmp_path / "refund.json"
    wire = approval_wire(toolName="issue_refund", input={"amount": "lots", "currency": "USD"})
    record.write_text(json.dumps(wire), encoding="utf-8")
    assert main(["policy", "explain", "--file", str(record), "--policy", str(policy)]) == 0
    out = capsys.readouterr().out
    assert (
        '  ? big-refunds: toolName issue_refund matches "issue_refund"; when'
        ' `input.amount > 500 && input.currency == "USD"` could not be evaluated:'
        " No matching overloads found : _>_(string, int64)\n" in out
    )
    assert (
        "conditions:\n"
        '  rule 1 (big-refunds): `input.amount > 500 && input.currency == "USD"` → error:'
        " No matching overloads found : _>_(string, int64)\n"
        '  rule 2 (prod-deploys): `input.env in ["prod", "production"]` → error:'
        ' Key not found in map : "env"\n'
        "  ⚠ a condition could not be evaluated: only people allowed whether it is true or"
        " false may decide, with the higher quorum\n" in out
    )
    assert "may decide:   members of S0FINANCE" in out
    assert "quorum:       2 distinct approvals" in out
