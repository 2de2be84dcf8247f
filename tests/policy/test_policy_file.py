"""The policy file: what it says, and mistakes named by their place in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.policy.file import PolicyError, load_policy


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_means_every_default() -> None:
    policy = load_policy(None)
    assert policy.agents == {} and policy.links.run is None


def test_agents_and_the_run_link(tmp_path: Path) -> None:
    policy = load_policy(
        _file(
            tmp_path,
            'agents:\n  agt_release: "Release bot"\n'
            'links:\n  run: "https://novo.example.com/runs/{runId}"\n',
        )
    )
    assert policy.agents == {"agt_release": "Release bot"}
    assert policy.links.run == "https://novo.example.com/runs/{runId}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("links:\n  run: ftp://x/{runId}\n", "policy.yml: links.run: must be an http(s) URL"),
        ("links:\n  run: https://x/{run}\n", "policy.yml: links.run: unknown placeholder {run}"),
        ("agents: [a, b]\n", "policy.yml: agents: "),
        ("agents:\n  agt_1: [x]\n", "policy.yml: agents.agt_1: "),
        ("rulez: []\n", 'policy.yml: unknown key "rulez" — did you mean "rules"?'),
        ("- just\n- a list\n", "policy.yml: the file must be a mapping"),
        ("agents: {a: 'unclosed\n", "policy.yml: not valid YAML at line"),
    ],
)
def test_a_mistake_is_named_by_its_place(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyError) as raised:
        load_policy(_file(tmp_path, text))
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="can't be read"):
        load_policy(tmp_path / "nowhere.yml")


def test_reminders_and_escalation_in_defaults(tmp_path: Path) -> None:
    policy = load_policy(
        _file(
            tmp_path,
            'defaults:\n  remind: ["50%", "5m", "30s"]\n  mention: here\n'
            '  escalate:\n    at: "25%"\n'
            "    to: {channel: C0MANAGERS, users: [U0BOSS], groups: [S0LEADS]}\n",
        )
    )
    defaults = policy.defaults
    assert defaults.remind is not None
    assert [(r.share, r.seconds) for r in defaults.remind] == [
        (0.5, None),
        (None, 300.0),
        (None, 30.0),
    ]
    assert defaults.mention == "here"
    assert defaults.escalate is not None and defaults.escalate.at.share == 0.25
    assert defaults.escalate.to.users == ["U0BOSS"] and defaults.escalate.to.groups == ["S0LEADS"]
    assert load_policy(None).defaults.remind == [] and load_policy(None).defaults.escalate is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('defaults:\n  remind: ["5x"]\n', "policy.yml: defaults.remind: '5x': use a share"),
        ('defaults:\n  remind: ["100%"]\n', "policy.yml: defaults.remind: '100%': a share must"),
        ("defaults:\n  remind: 5m\n", "policy.yml: defaults.remind: must be a list"),
        (
            "defaults:\n  mention: everyone\n",
            'policy.yml: defaults.mention "everyone" — use deciders, here or none',
        ),
        (
            'defaults:\n  escalate: {at: "2m", to: {channel: "#managers"}}\n',
            'policy.yml: defaults.escalate.to.channel: "#managers" is not a channel id (C…)',
        ),
        (
            'defaults:\n  escalate: {at: "2m", to: {groups: [S0LEADS]}}\n',
            "policy.yml: defaults.escalate.to: name a channel or users",
        ),
        (
            'defaults:\n  escalate: {at: "2m", to: {users: [U1], groups: [S0LEADS]}}\n',
            "policy.yml: defaults.escalate.to: groups are mentioned in the channel",
        ),
        (
            'defaults:\n  escalate: {at: "soon", to: {users: [U1]}}\n',
            "policy.yml: defaults.escalate.at: 'soon': use",
        ),
        (
            "defaults:\n  reminders: []\n",
            'policy.yml: defaults: unknown key "reminders" — did you mean "remind"?',
        ),
    ],
)
def test_a_defaults_mistake_is_named_by_its_place(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(_file(tmp_path, text))
    assert str(caught.value).startswith(message)
