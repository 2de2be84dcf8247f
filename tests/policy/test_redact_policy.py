"""`redact:` in the policy file: a mistake named by its place, rules over defaults,
`policy check` warning of a channel route that turns it off, `explain` saying what
would be hidden and why without printing a value."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.novo.models import Interaction
from bot.policy.explain import check_warnings, hidden_lines
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import route_for
from tests.novo.conftest import approval_wire
from tests.redaction.planted import SECRETS, approval_input, approval_preview


def _policy(tmp_path: Path, text: str) -> PolicyFile:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            'rules:\n  - name: a\n    redact:\n      patterns: ["ACME-["]\n',
            'policy.yml: rule 1 (a): redact.patterns item 1: "ACME-[" is not a regular expression',
        ),
        (
            'defaults:\n  redact:\n    patterns: ["x*"]\n',
            'policy.yml: defaults.redact.patterns item 1: "x*" matches empty text',
        ),
        (
            'defaults:\n  redact:\n    keys: ["ok", "a..b"]\n',
            'policy.yml: defaults.redact.keys item 2: "a..b" has an empty part between dots',
        ),
        (
            "defaults:\n  redact:\n    reveal: everyone\n",
            'policy.yml: defaults.redact.reveal "everyone" — use nobody or deciders',
        ),
        (
            "defaults:\n  redact:\n    hide: [a]\n",
            'policy.yml: defaults.redact: unknown key "hide"',
        ),
        ("defaults:\n  redact: sometimes\n", "policy.yml: defaults.redact: use false, or"),
    ],
)
def test_a_mistake_is_named_by_its_place(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(PolicyError) as raised:
        _policy(tmp_path, text)
    assert str(raised.value).startswith(error)


def test_a_rules_keys_and_patterns_add_to_the_defaults_and_its_reveal_wins(
    tmp_path: Path,
) -> None:
    policy = _policy(
        tmp_path,
        "defaults:\n  redact:\n    keys: ['*_dsn']\n    patterns: ['ACME-[0-9]{8}']\n"
        "rules:\n  - name: ops\n    match: {toolName: ops_*}\n"
        "    redact: {keys: [customer.ssn], reveal: deciders}\n"
        "  - name: raw\n    match: {toolName: raw_*}\n    dm: [U0ADA]\n    redact: false\n",
    )
    ops = route_for(policy, _approval(toolName="ops_fix"), "C0").redact
    assert ops.keys == ("*_dsn", "customer.ssn") and ops.reveal == "deciders"
    assert [p.pattern for p in ops.patterns] == ["ACME-[0-9]{8}"]
    other = route_for(policy, _approval(toolName="deploy"), "C0").redact
    assert other.enabled and other.keys == ("*_dsn",) and other.reveal == "nobody"
    assert not route_for(policy, _approval(toolName="raw_dump"), "C0").redact.enabled


def test_without_a_policy_detection_is_on_and_reveals_to_nobody() -> None:
    rules = route_for(PolicyFile(), _approval(), "C0").redact
    assert rules.enabled and rules.reveal == "nobody"


def test_check_warns_of_a_channel_route_without_redaction(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "rules:\n  - name: raw-dm\n    match: {toolName: a}\n    dm: [U0ADA]\n    redact: false\n"
        "  - name: raw-channel\n    match: {toolName: b}\n    channel: C0RAW\n    redact: false\n",
    )
    warnings = check_warnings(policy)
    assert len(warnings) == 1
    assert warnings[0].startswith('warning: rule "raw-channel" posts to channel C0RAW with redact')
    assert check_warnings(_policy(tmp_path, "defaults:\n  redact: false\n"))[0].startswith(
        "warning: defaults posts to channel (NOVO_SLACK_CHANNEL) with redact: false"
    )
    assert check_warnings(PolicyFile()) == []


def test_explain_lists_what_would_be_hidden_by_place_without_values() -> None:
    interaction = _approval(input=approval_input(), preview=approval_preview())
    lines = hidden_lines(interaction, route_for(PolicyFile(), interaction, "C0"))
    text = "\n".join(lines)
    assert lines[0].startswith("hidden:") and "values" in lines[0]
    assert "input.db_url: password in URL" in text
    assert "input.password: secret-like key" in text
    assert "preview.token: secret-like key" in text
    assert "input.command: GitHub token" in text
    assert not [k for k, v in SECRETS.items() if v[4:] in text]
    assert hidden_lines(_approval(), route_for(PolicyFile(), _approval(), "C0")) == []


def _approval(**fields: object) -> Interaction:
    return Interaction.from_wire(approval_wire("int_x", **fields))
