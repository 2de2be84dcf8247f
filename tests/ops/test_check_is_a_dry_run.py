"""`novo-slack check` fails on every mistake `novo-slack run` refuses, with run's line and code.

Each case is set up once; `run` (the bridge's own start-up, in process) gives
the line it would print and its exit code, and `check`, with the same
settings, must show that very line as a ✗ and exit with the same code.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.bridge.runtime import Bridge
from bot.bridge.startup import EXIT_SETTINGS, EXIT_WORLD, StartupFailure
from bot.check import FAILED, OK, checklist, run_check
from bot.config import SettingsError, load_settings
from tests.ops.conftest import Servers

_OURS = ("SLACK_", "NOVO_")

POLICY_MISTAKES = {
    "a misspelt key": "rules:\n  - name: a\n  - name: prod-deploys\n    quorom: 2\n",
    "a group by its handle": "rules:\n  - name: prod\n    deciders: {groups: [sre]}\n",
    "a channel and DMs": "defaults:\n  channel: C0X\n  dm: [U0ADA]\n",
    "a bad escalation": "defaults:\n  escalate: {at: 5m, to: {groups: [S0X]}}\n",
    "a bad digest": 'digest:\n  - {to: C0M, cron: "0 9 * * 8"}\n',
    "not YAML": "rules: [\n",
    "a key of no version": "rulez: []\n",
}


def _policy(text: str) -> Callable[[Servers], dict[str, str]]:
    def setup(servers: Servers) -> dict[str, str]:
        path = servers.tmp / "policy.yml"
        path.write_text(text, encoding="utf-8")
        return {"NOVO_SLACK_CONFIG": str(path)}

    return setup


def _junk_store(servers: Servers) -> dict[str, str]:
    path = servers.tmp / "junk.db"
    path.write_bytes(b"this is not a database, it only has the name of one" * 100)
    return {"NOVO_SLACK_DB": str(path)}


CASES: dict[str, Callable[[Servers], dict[str, str]]] = {
    **{f"policy: {name}": _policy(text) for name, text in POLICY_MISTAKES.items()},
    "a missing policy file": lambda s: {"NOVO_SLACK_CONFIG": str(s.tmp / "nope.yml")},
    "a missing key": lambda s: {"NOVO_API_KEY": ""},
    "a channel name": lambda s: {"NOVO_SLACK_CHANNEL": "#general"},
    "a mysql store": lambda s: {"NOVO_SLACK_DB": "mysql://novo:pw@db/novo"},
    "a refused bot token": lambda s: {"SLACK_BOT_TOKEN": "xoxb-not-this-one"},
    "a refused app token": lambda s: {"SLACK_APP_TOKEN": "xapp-not-this-one"},
    "a Slack URL without /api/": lambda s: {"SLACK_API_URL": s.slack.url},
    "a refused Novo key": lambda s: {"NOVO_API_KEY": "not-the-key"},
    "a URL that is not Novo's API": lambda s: {"NOVO_API_URL": s.slack.url},
    "a store that is not a database": _junk_store,
}


async def _run_refuses(servers: Servers) -> tuple[str, int]:
    """What `novo-slack run` prints (after `novo-slack: `) and its exit code."""
    try:
        bridge = Bridge(load_settings(), host="127.0.0.1")
        await bridge.start()
    except SettingsError as exc:
        return str(exc), EXIT_SETTINGS
    except StartupFailure as exc:
        return str(exc), EXIT_WORLD
    await bridge.stop()
    raise AssertionError("run started")


@pytest.mark.parametrize("case", sorted(CASES))
async def test_check_fails_on_what_run_refuses(
    servers: Servers, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(servers.tmp)  # no .env there
    for name in [n for n in os.environ if n.startswith(_OURS)]:
        monkeypatch.delenv(name)
    for name, value in servers.env(**CASES[case](servers)).items():
        monkeypatch.setenv(name, value)
    line, code = await _run_refuses(servers)
    items = [item async for item in checklist()]
    shown = [item for item in items if item.mark == FAILED]
    assert [item.detail for item in shown if item.detail == line], (line, [i.line for i in items])
    assert all("Traceback" not in item.line for item in items)
    out = io.StringIO()
    assert await run_check(out) == code, out.getvalue()


async def test_the_policys_targets_are_each_checked(
    servers: Servers, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Routing, DMs, escalation and digests: each channel, user and group named is asked."""
    servers.slack.add_channel("C0PROD", "prod")
    servers.slack.add_channel("C0MANAGERS", "managers")
    servers.slack.remove_bot_from("C0MANAGERS")
    servers.slack.remove_bot_from("C0DIGEST")
    servers.slack.add_user("U0BOB", "bob", "Bob")
    servers.slack.add_usergroup("S0SRE", "sre", ["U0ADA", "U0BOB"])
    policy = tmp_path / "policy.yml"
    policy.write_text(
        "defaults:\n"
        "  escalate: {at: 25%, to: {channel: C0MANAGERS, users: [U0BOB]}}\n"
        "rules:\n"
        "  - name: prod-deploys\n"
        "    channel: C0PROD\n"
        "    deciders: {groups: [S0SRE, S0GONE]}\n"
        "  - name: release-dm\n"
        "    dm: [U0ADA, U0NOBODY]\n"
        "digest:\n"
        '  - {to: C0DIGEST, cron: "0 9 * * *"}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(servers.tmp)
    for name in [n for n in os.environ if n.startswith(_OURS)]:
        monkeypatch.delenv(name)
    for name, value in servers.env(NOVO_SLACK_CONFIG=str(policy)).items():
        monkeypatch.setenv(name, value)
    items = {item.name: item async for item in checklist()}
    assert items["policy"].mark == OK
    assert items["channel C0PROD"].mark == OK
    assert "(rule prod-deploys)" in items["channel C0PROD"].detail
    managers = items["channel C0MANAGERS"]
    assert managers.mark == FAILED and "not a member of #managers" in managers.detail
    assert "(escalation of defaults)" in managers.detail
    digest = items["channel C0DIGEST"]
    assert digest.mark == FAILED and digest.detail.endswith("(digest 1)")
    assert (
        items["user U0ADA"].mark == OK and "(dm of rule release-dm)" in items["user U0ADA"].detail
    )
    assert items["user U0BOB"].mark == OK
    nobody = items["user U0NOBODY"]
    assert nobody.mark == FAILED and "Slack knows no such user (user_not_found)" in nobody.detail
    assert items["user group S0SRE"].mark == OK
    assert "2 member(s) (deciders of rule prod-deploys)" in items["user group S0SRE"].detail
    gone = items["user group S0GONE"]
    assert gone.mark == FAILED and "no_such_subteam" in gone.detail
    out = io.StringIO()
    assert await run_check(out) == EXIT_WORLD
