"""`novo-slack demo` with its bundled policy shows the product within its first minute.

Named agents, a quorum, a DM and a step group, as the local Slack received them;
`--no-seed` starts empty; the demo prints the settings that point the CLI at it, and
`policy explain` run with them answers as docs/policy.md shows.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import pytest

from bot.cli import main
from novo_dev.demo.runner import (
    DEMO_API_KEY,
    DEMO_CHANNEL,
    DEMO_POLICY,
    DEMO_SIGNING_SECRET,
    DemoOptions,
    demo_config,
)
from novo_dev.demo.stack import LocalStack, local_stack
from tests.support import wait_until

REPO = Path(__file__).resolve().parents[2]
FIRST_MINUTE = 60.0


def _options(*, seed: bool = True) -> DemoOptions:
    return DemoOptions(0, False, None, DEMO_POLICY, seed, 0)


def _shown(stack: LocalStack, channel: str) -> str:
    """Everything a channel shows, blocks and fallback text, as one string."""
    return json.dumps(
        [[m.text, m.blocks] for m in stack.slack.messages(channel)], ensure_ascii=False
    )


async def test_the_first_minute_shows_names_a_quorum_a_dm_and_a_step_group(
    tmp_path: Path,
) -> None:
    async with local_stack(demo_config(tmp_path / "demo.db", _options())) as stack:

        def everything_shown() -> bool:
            channel = _shown(stack, DEMO_CHANNEL)
            return (
                "Deploy bot" in channel  # an agent by its name, not agt_deployer
                and "Needs 2 approvals" in channel  # the prod-deploys quorum
                and "paused step 7 on 2 tool calls" in channel  # a step group
                and "Refund $129.00" in _shown(stack, "U0GRACE")  # the DM rule
                and "novo.example.com/runs/" in channel  # run links
            )

        await wait_until(everything_shown, timeout=FIRST_MINUTE, message="the demo's first round")
        assert "agt_deployer" not in _shown(stack, DEMO_CHANNEL)
        assert "Refund $129.00" not in _shown(stack, DEMO_CHANNEL)  # DMs only


async def test_no_seed_starts_empty(tmp_path: Path) -> None:
    async with local_stack(demo_config(tmp_path / "demo.db", _options(seed=False))) as stack:
        await wait_until(
            lambda: stack.bridge.jobs is not None and stack.bridge.jobs.last_poll_ok,
            message="a first poll",
        )
        assert stack.sim.state.interactions() == []
        assert stack.slack.messages(DEMO_CHANNEL) == []


async def test_the_demo_prints_the_settings_that_point_the_cli_at_it() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "demo",
        "--no-seed",
        "--no-clicks",
        "--seconds",
        "1",
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(30):
        out, err = await process.communicate()
    text = out.decode()
    assert process.returncode == 0, text + err.decode()
    assert re.search(r"export SLACK_API_URL=http://127\.0\.0\.1:\d+/api/ ", text), text
    assert re.search(r"export NOVO_API_URL=http://127\.0\.0\.1:\d+ NOVO_API_KEY=demo-key", text)
    assert f"export NOVO_SLACK_CONFIG={DEMO_POLICY}" in text
    assert " NEW " not in text  # nothing seeded


def _explain_example() -> list[str]:
    """The `policy explain` output docs/policy.md shows for the demo's deploy."""
    doc = (REPO / "docs" / "policy.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- explain-of-the-demo -->\s*```\n\$ [^\n]*\n(.*?)```", doc, re.DOTALL)
    assert found, "docs/policy.md lost its marked explain example"
    return found.group(1).rstrip("\n").split("\n")


async def test_policy_explain_against_the_demo_answers_as_the_docs_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async with local_stack(demo_config(tmp_path / "demo.db", _options())) as stack:
        deploy = await wait_until(
            lambda: next(
                (
                    m
                    for m in stack.slack.messages(DEMO_CHANNEL)
                    if "Deploy 3 services" in m.text and m.metadata
                ),
                None,
            ),
            message="the deploy posted",
        )
        interaction_id = deploy.metadata["event_payload"]["interaction_id"]
        for name in [n for n in os.environ if n.startswith(("SLACK_", "NOVO_"))]:
            monkeypatch.delenv(name)
        monkeypatch.chdir(tmp_path)
        for name, value in {
            "NOVO_API_URL": stack.sim.url,
            "NOVO_API_KEY": DEMO_API_KEY,
            "SLACK_API_URL": stack.slack.api_url,
            "SLACK_BOT_TOKEN": stack.slack.bot_token,
            "SLACK_SIGNING_SECRET": DEMO_SIGNING_SECRET,
            "NOVO_SLACK_CHANNEL": DEMO_CHANNEL,
            "NOVO_SLACK_CONFIG": "devkit/novo_dev/demo/policy.yml",
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(REPO)
        code = await asyncio.to_thread(main, ["policy", "explain", "--id", interaction_id])
        out, err = capsys.readouterr()
    assert code == 0, err
    shown = out.rstrip("\n").replace(interaction_id, "int_…").split("\n")
    assert shown == _explain_example()
