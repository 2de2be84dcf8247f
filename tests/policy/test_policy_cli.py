"""`novo-slack policy check|explain` as an operator runs them: what is printed, the exit code.

`explain --id` runs against the real simulator and the local Slack over
loopback; `main` runs its own event loop, so it is called in a thread while
the servers answer on the test's loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.cli import main
from novo_dev.demo.stack import Group, Person, ServersConfig, local_servers
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.novo.conftest import approval_wire, question_wire
from tests.support import trigger_ttl

POLICY = """
agents:
  agt_release: "Release bot"
defaults:
  channel: C0APPROVALS
  deciders: anyone
  remind: ["50%", "5m"]
  escalate:
    at: "25%"
    to: {channel: C0MANAGERS}
rules:
  - name: support-questions
    match: {kind: question}
    channel: C0SUPPORT
  - name: prod-deploys
    match: {kind: approval_request, toolName: "deploy_*"}
    channel: C0PROD
    deciders: {users: [U0ALICE], groups: [S0SRE]}
    quorum: 2
  - name: release-dm
    match: {agentId: agt_release, worker: false}
    dm: [U0ALICE, U0BOB]
    allow_guests: true
"""

API_KEY = "policy-cli-key"
_OUR_PREFIXES = ("SLACK_", "NOVO_")


@pytest.fixture(autouse=True)
def no_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Nothing of ours in the environment, and no `.env` where the command runs.

    `main` points the root logger at the stderr of the moment (capsys's); the
    handlers of before are put back so no later test logs into a closed stream.
    """
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith(_OUR_PREFIXES)]:
        monkeypatch.delenv(name)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _interaction(tmp_path: Path, wire: dict[str, Any]) -> Path:
    return _file(tmp_path, "interaction.json", json.dumps(wire))


def _explain_file(tmp_path: Path, wire: dict[str, Any], policy: str = POLICY) -> None:
    code = main(
        [
            "policy",
            "explain",
            "--file",
            str(_interaction(tmp_path, wire)),
            "--policy",
            str(_file(tmp_path, "policy.yml", policy)),
        ]
    )
    assert code == 0


# -- policy check -----------------------------------------------------------------------------


def test_check_says_what_the_file_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, "policy.yml", POLICY)
    assert main(["policy", "check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == (
        f"{path}: ok — 3 rules: support-questions, prod-deploys, release-dm; defaults: channel"
        " C0APPROVALS, anyone decides, remind at 50% and 5m, escalate at 25%; 1 agent named\n"
    )
    assert err == ""


def test_check_names_the_place_of_a_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, "policy.yml", POLICY.replace("groups: [S0SRE]", "groups: [sre]"))
    assert main(["policy", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "novo-slack: policy.yml: rule 2 (prod-deploys): deciders.groups item 1:"
        ' "sre" is not a user group id (S…)\n'
    )


def test_check_of_a_policy_nested_thousands_deep_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(
        tmp_path,
        "policy.yml",
        "agents:\n" + "".join("  " * (n + 1) + f"k{n}:\n" for n in range(3000)),
    )
    assert main(["policy", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "novo-slack: policy.yml: nested deeper than 32 levels at line 33;"
        " a policy needs a handful\n"
    )


def test_check_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "check", str(tmp_path / "nope.yml")]) == 2
    assert "nope.yml: can't be read (No such file or directory)" in capsys.readouterr().err


# -- policy explain --file ---------------------------------------------------------------------


def _explained(tmp_path: Path, capsys: pytest.CaptureFixture[str], wire: dict[str, Any]) -> str:
    _explain_file(tmp_path, wire)
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_explain_a_matching_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wire = approval_wire("int_8f2c", toolName="deploy_api", agentId="agt_release")
    policy = str(tmp_path / "policy.yml")
    assert _explained(tmp_path, capsys, wire).splitlines() == [
        "int_8f2c  approval_request  toolName deploy_api  agent agt_release (Release bot)",
        f"rules tried ({policy}):",
        '  ✗ support-questions: kind approval_request does not match "question"',
        '  ✓ prod-deploys: kind approval_request matches "approval_request";'
        ' toolName deploy_api matches "deploy_*"',
        "goes to:      channel C0PROD",
        "may decide:   U0ALICE; members of S0SRE",
        "              (members of S0SRE not listed: SLACK_BOT_TOKEN is not set (or not"
        " valid), so Slack can't be asked)",
        "guests:       refused, and people of other workspaces too (allow_guests: false)",
        "quorum:       2 distinct approvals; one deny decides",
        "reminders:    50%, 5m before expiry · mention deciders · escalate at 25% to C0MANAGERS",
    ]


def test_explain_falls_to_the_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _explained(tmp_path, capsys, approval_wire("int_x", toolName="delete_file"))
    assert lines.splitlines()[2:] == [
        '  ✗ support-questions: kind approval_request does not match "question"',
        '  ✗ prod-deploys: toolName delete_file does not match "deploy_*"',
        '  ✗ release-dm: agentId agt_1 does not match "agt_release"',
        "  → no rule matched: the defaults apply",
        "goes to:      channel C0APPROVALS",
        "may decide:   anyone",
        "guests:       refused, and people of other workspaces too (allow_guests: false)",
        "quorum:       one approval or one deny decides",
        "reminders:    50%, 5m before expiry · mention deciders (anyone may decide: nobody is"
        " mentioned) · escalate at 25% to C0MANAGERS",
    ]


def test_explain_a_worker_and_its_parent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = _explained(tmp_path, capsys, approval_wire(agentId="agt_release", workerRef="wkr_7"))
    assert "agent agt_release (Release bot)  worker wkr_7" in worker
    assert "  ✗ release-dm: worker true does not match false\n" in worker
    assert "goes to:      channel C0APPROVALS\n" in worker

    parent = _explained(tmp_path, capsys, approval_wire(agentId="agt_release"))
    assert (
        '  ✓ release-dm: agentId agt_release matches "agt_release"; worker false matches false\n'
    ) in parent
    assert "goes to:      a DM to each of U0ALICE, U0BOB\n" in parent
    assert (
        "guests:       allowed, and people of other workspaces too (allow_guests: true)" in parent
    )


def test_explain_a_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _explained(tmp_path, capsys, question_wire("int_q"))
    assert '  ✓ support-questions: kind question matches "question"\n' in out
    assert "goes to:      channel C0SUPPORT\n" in out
    assert "quorum:       one answer decides\n" in out


def test_without_settings_the_bridge_channel_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _explain_file(tmp_path, approval_wire(), policy="rules: []\n")
    out = capsys.readouterr().out
    assert "the file has no rules: the defaults apply" in out
    assert (
        "goes to:      channel (NOVO_SLACK_CHANNEL): the bridge's channel (settings not read here)"
    ) in out


def test_an_interaction_file_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wire = approval_wire()
    del wire["toolName"]
    policy = str(_file(tmp_path, "policy.yml", POLICY))
    path = str(_interaction(tmp_path, wire))
    assert main(["policy", "explain", "--file", path, "--policy", policy]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"novo-slack: {path}: not an interaction record as Novo sends it"
        " (toolName: Field required)\n"
    )


def test_explain_a_file_needs_no_setting_it_does_not_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No Novo, Slack or signing setting: explaining a record reads none of them."""
    for name in ("NOVO_API_URL", "NOVO_API_KEY", "SLACK_SIGNING_SECRET", "NOVO_SLACK_CHANNEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "not-a-bot-token")  # malformed, and not needed
    path = str(_interaction(tmp_path, approval_wire()))
    assert main(["policy", "explain", "--file", path]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "no policy file (NOVO_SLACK_CONFIG is not set): defaults apply" in out


def test_explain_names_a_policy_setting_that_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOVO_SLACK_CONFIG", str(_file(tmp_path, "policy.yml", "rulez: []\n")))
    path = str(_interaction(tmp_path, approval_wire()))
    assert main(["policy", "explain", "--file", path]) == 2
    assert capsys.readouterr().err == (
        'novo-slack: NOVO_SLACK_CONFIG: policy.yml: unknown key "rulez" — did you mean "rules"?\n'
    )


# -- policy explain --id, against the simulator and the local Slack -----------------------------


async def _run(*argv: str) -> int:
    """`novo-slack …` in a thread: it runs its own event loop, the servers answer on ours."""
    return await asyncio.to_thread(main, list(argv))


@pytest.fixture
async def servers(
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[SimServer, LocalSlack]]:
    # their access lines would land in the command's stderr: it shares this process
    monkeypatch.setattr(logging.getLogger("aiohttp.access"), "disabled", True)
    people = [
        Person(user, name, name.title())
        for user, name in (("U0ALICE", "alice"), ("U0BOB", "bob"), ("U0CAROL", "carol"))
    ]
    sre = Group("S0SRE", "sre", ["U0CAROL", "U0BOB"])
    async with local_servers(
        ServersConfig(api_key=API_KEY, people=people, groups=[sre], trigger_ttl=trigger_ttl())
    ) as running:
        yield running.sim, running.slack


def _settings_env(
    monkeypatch: pytest.MonkeyPatch, sim: SimServer, slack: LocalSlack, **overrides: str
) -> None:
    env = {
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_SIGNING_SECRET": "policy-cli-secret",
        "SLACK_API_URL": slack.api_url,
        "NOVO_API_URL": sim.url,
        "NOVO_API_KEY": API_KEY,
        "NOVO_SLACK_CHANNEL": "C0BRIDGE",
        **overrides,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)


async def _created(sim: SimServer, **fields: Any) -> str:
    async with httpx.AsyncClient(timeout=5) as http:
        return str((await SimControl(sim.url, http).create(**fields))["id"])


async def test_explain_by_id_lists_group_members(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    policy = _file(tmp_path, "policy.yml", POLICY)
    _settings_env(monkeypatch, sim, slack, NOVO_SLACK_CONFIG=str(policy))
    interaction_id = await _created(
        sim, kind="approval_request", toolName="deploy_api", agentId="agt_ops"
    )

    assert await _run("policy", "explain", "--id", interaction_id) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"{interaction_id}  approval_request  toolName deploy_api  agent agt_ops\n"
    )
    assert f"rules tried ({policy}):\n" in out
    assert "may decide:   U0ALICE; members of S0SRE (U0BOB, U0CAROL)\n" in out
    assert "quorum:       2 distinct approvals; one deny decides\n" in out
    assert [call.args.get("usergroup") for call in slack.calls("usergroups.users.list")] == [
        "S0SRE"
    ]


async def test_a_slack_url_that_is_not_the_web_api_is_named_in_the_answer(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The local Slack without /api/: a 404 page, not Slack's JSON; a line, no traceback."""
    sim, slack = servers
    policy = _file(tmp_path, "policy.yml", POLICY)
    _settings_env(monkeypatch, sim, slack, NOVO_SLACK_CONFIG=str(policy), SLACK_API_URL=slack.url)
    interaction_id = await _created(
        sim, kind="approval_request", toolName="deploy_api", agentId="agt_ops"
    )
    assert await _run("policy", "explain", "--id", interaction_id) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert (
        "(members of S0SRE not listed: SLACK_API_URL does not answer like Slack's Web API"
        " (HTTP 404))"
    ) in out


async def test_a_quorum_nobody_can_meet_is_pointed_out(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    slack.set_usergroup_members("S0SRE", ["U0ALICE"])
    _settings_env(monkeypatch, sim, slack)
    policy = _file(tmp_path, "policy.yml", POLICY)
    interaction_id = await _created(sim, kind="approval_request", toolName="deploy_db")

    assert await _run("policy", "explain", "--id", interaction_id, "--policy", str(policy)) == 0
    out = capsys.readouterr().out
    assert "may decide:   U0ALICE; members of S0SRE (U0ALICE)\n" in out
    assert (
        "2 distinct approvals; one deny decides — ⚠ only 1 person may decide: it can't be met"
        in (out)
    )


async def test_a_group_slack_cannot_list_is_named_with_why(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    slack.fail_method("usergroups.users.list", error="missing_scope")
    _settings_env(monkeypatch, sim, slack, NOVO_SLACK_CONFIG=str(_file(tmp_path, "p.yml", POLICY)))
    interaction_id = await _created(sim, kind="approval_request", toolName="deploy_api")

    assert await _run("policy", "explain", "--id", interaction_id) == 0
    out = capsys.readouterr().out
    assert (
        "may decide:   U0ALICE; members of S0SRE\n"
        "              (members of S0SRE not listed:"
        " the bot token lacks the usergroups:read scope (missing_scope))\n"
    ) in out
    assert "quorum:       2 distinct approvals; one deny decides\n" in out  # no guess at who


def _dead_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_slack_out_of_reach_does_not_end_the_explanation(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    dead = _dead_url() + "/api"
    _settings_env(monkeypatch, sim, slack, SLACK_API_URL=dead)
    path = str(_interaction(tmp_path, approval_wire(toolName="deploy_api")))
    policy = str(_file(tmp_path, "policy.yml", POLICY))

    assert await _run("policy", "explain", "--file", path, "--policy", policy) == 0
    out = capsys.readouterr().out
    assert f"(members of S0SRE not listed: Slack did not answer ({dead}))\n" in out
    assert "goes to:      channel C0PROD\n" in out


async def test_an_unknown_id_is_one_line(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    _settings_env(monkeypatch, sim, slack)
    assert await _run("policy", "explain", "--id", "int_nope") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"novo-slack: Novo at {sim.url} has no interaction int_nope (404)\n"


async def test_novo_out_of_reach_is_one_line(
    servers: tuple[SimServer, LocalSlack],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    dead = _dead_url()
    _settings_env(monkeypatch, sim, slack, NOVO_API_URL=dead)
    assert await _run("policy", "explain", "--id", "int_1") == 1
    err = capsys.readouterr().err
    assert err.startswith(f"novo-slack: Novo at {dead} did not answer (")
    assert err.count("\n") == 1


async def test_by_id_without_a_policy_file_every_default_applies(
    servers: tuple[SimServer, LocalSlack],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    _settings_env(monkeypatch, sim, slack)
    interaction_id = await _created(sim, kind="question", request=question_wire()["request"])
    assert await _run("policy", "explain", "--id", interaction_id) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "rules tried: none — no policy file (NOVO_SLACK_CONFIG is not set): defaults apply",
        "goes to:      channel C0BRIDGE (NOVO_SLACK_CHANNEL)",
        "may decide:   anyone",
        "guests:       refused, and people of other workspaces too (allow_guests: false)",
        "quorum:       one answer decides",
        "reminders:    none: an interaction nobody answers simply expires",
    ]


# -- docs/policy.md shows what the command prints ----------------------------------------------

_POLICY_SECTION = (Path(__file__).resolve().parents[2] / "docs" / "policy.md").read_text(
    encoding="utf-8"
)


def _readme_block(fence: str, starting: str = "") -> str:
    """The first fenced block of docs/policy.md of that kind (and start)."""
    pattern = re.escape(f"```{fence}\n{starting}") + r"(.*?)```"
    found = re.search(pattern, _POLICY_SECTION, re.DOTALL)
    assert found is not None, f"no ```{fence} block starting {starting!r} in docs/policy.md"
    return starting + found.group(1)


async def test_the_readme_example_explains_as_the_readme_shows(
    servers: tuple[SimServer, LocalSlack],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, slack = servers
    _file(tmp_path, "policy.yml", _readme_block("yaml"))  # the command runs in tmp_path
    _settings_env(monkeypatch, sim, slack, NOVO_SLACK_CONFIG="policy.yml")
    await _created(
        sim, id="int_8f2c", kind="approval_request", toolName="deploy_api", agentId="agt_release"
    )
    shown = _readme_block("", "$ novo-slack policy explain --id int_8f2c\n")

    assert await _run("policy", "explain", "--id", "int_8f2c") == 0
    assert "$ novo-slack policy explain --id int_8f2c\n" + capsys.readouterr().out == shown

    assert await _run("policy", "check", "policy.yml") == 0
    checked = _readme_block("", "$ novo-slack policy check policy.yml\n").splitlines()[1]
    assert capsys.readouterr().out == checked + "\n"


# -- standing approvals ---------------------------------------------------------------------

STANDING = (
    "rules:\n  - name: deploys\n    match: {toolName: 'deploy_*'}\n"
    "    allow_standing: {max: 4h, scopes: [run]}\n"
)


async def _store_with_allowance(db: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.domain import SlackActor
    from bot.store import Store
    from bot.store.allowances import Grant

    now = datetime.now(UTC)
    store = await Store.open(db)
    try:
        await store.grant_allowance(
            Grant(
                "deploys",
                "run",
                "agt_1",
                "deploy_api",
                "run_1",
                SlackActor("U0ALICE", "Alice"),
                now,
                now + timedelta(hours=1),
                "int_grant",
            )
        )
    finally:
        await store.close()


def test_explain_says_whether_a_standing_approval_would_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "bridge.db"
    monkeypatch.setenv("NOVO_SLACK_DB", str(db))
    wire = approval_wire("int_8f2c", toolName="deploy_api", agentId="agt_1", rootRunId="run_1")
    _explain_file(tmp_path, wire, STANDING)
    unread = capsys.readouterr().out
    assert "standing:     offered: max 4h, scopes run\n" in unread
    assert "allowances unknown: " in unread and "no such file" in unread
    asyncio.run(_store_with_allowance(db))
    _explain_file(tmp_path, wire, STANDING)
    applies = capsys.readouterr().out
    assert "would be approved by allowance 1 of U0ALICE (this run), until " in applies
    other = approval_wire("int_9", toolName="deploy_api", agentId="agt_1", rootRunId="run_2")
    _explain_file(tmp_path, other, STANDING)
    assert "no allowance in force would approve it" in capsys.readouterr().out
