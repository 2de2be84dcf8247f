"""A condition (`when:`) that does not compile stops `novo-slack run` with one line naming
the rule, and a SIGHUP onto one keeps the policy in force and says so."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.lifecycle.conftest import World
from tests.lifecycle.test_startup_failures import _one_line_failure

GOOD = "rules:\n  - name: refunds\n    match: {when: 'input.amount > 500'}\n"
MISSPELT = "rules:\n  - name: refunds\n    match: {when: 'inputs.amount > 500'}\n"
NOT_BOOLEAN = (
    "rules:\n  - name: ok\n    match: {}\n  - name: items\n    match: {when: size(input.items)}\n"
)
WRONG_KIND = "rules:\n  - name: prod-deploys\n    match: {kind: approval}\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            MISSPELT,
            "NOVO_SLACK_CONFIG: policy.yml: rule 1 (refunds): match.when: undeclared reference"
            " to 'inputs.amount' (column 7)",
        ),
        (
            WRONG_KIND,
            'NOVO_SLACK_CONFIG: policy.yml: rule 1 (prod-deploys): match.kind "approval"'
            " — use approval_request or question",
        ),
    ],
)
async def test_bad_cel_or_a_kind_outside_its_set_is_named_at_start(
    world: World, tmp_path: Path, text: str, line: str
) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(text, encoding="utf-8")
    assert await _one_line_failure(await world.run(NOVO_SLACK_CONFIG=str(policy)), 2) == line


async def test_sighup_onto_bad_cel_keeps_the_policy_in_force(world: World, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(GOOD, encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    await bridge.saw("bridge started", within=60)
    policy.write_text(NOT_BOOLEAN, encoding="utf-8")
    bridge.process.send_signal(signal.SIGHUP)
    await bridge.saw(
        r"policy not reloaded, the one in force stays: policy\.yml: rule 2 \(items\):"
        r" match\.when: is int, not true or false"
    )
    assert bridge.process.returncode is None
    await bridge.kill()
