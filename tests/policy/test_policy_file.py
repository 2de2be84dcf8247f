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
        ("rulez: []\n", "policy.yml: rulez: not a key this version knows"),
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
