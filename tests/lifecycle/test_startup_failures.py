"""Each way start-up can fail ends `novo-slack run` quickly, with one line and a telling code.

Exit 2: a setting is wrong (missing, malformed, or refused by Slack).
Exit 1: something a setting points at failed (the database, the port).
Neither shows a traceback without -v, and neither leaves the process running.
"""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from tests.lifecycle.conftest import Bridge, World


async def _one_line_failure(bridge: Bridge, code: int) -> str:
    """The one line a failed start printed, once the process has ended with `code`. How soon
    it ends is `bench/lifecycle.py`'s figure; here only a generous bound keeps a start-up that
    retries forever from hanging the suite."""
    exit_code = await bridge.exit_code()
    lines = [line for line in bridge.lines if line.strip()]
    assert exit_code == code, bridge.stderr
    assert "Traceback" not in bridge.stderr
    assert len(lines) == 1, bridge.stderr
    assert lines[0].startswith("novo-slack: ")
    return lines[0].removeprefix("novo-slack: ")


async def test_a_bot_token_slack_refuses_is_named_at_start(world: World) -> None:
    bridge = await world.run(SLACK_BOT_TOKEN="xoxb-not-this-one")
    line = await _one_line_failure(bridge, 2)
    assert line == "SLACK_BOT_TOKEN was refused by Slack (auth.test: invalid_auth)"


async def test_an_app_token_slack_refuses_is_named_at_start(world: World) -> None:
    bridge = await world.run(SLACK_APP_TOKEN="xapp-not-this-one")
    line = await _one_line_failure(bridge, 2)
    assert line == "SLACK_APP_TOKEN was refused by Slack (apps.connections.open: invalid_auth)"


async def test_every_bad_setting_is_named_at_once(world: World) -> None:
    bridge = await world.run(
        NOVO_API_URL="http://", NOVO_SLACK_CHANNEL="#general", NOVO_API_KEY=None
    )
    line = await _one_line_failure(bridge, 2)
    assert line.startswith("NOVO_API_URL must name a host"), line
    assert "NOVO_API_KEY is required but not set" in line
    assert "NOVO_SLACK_CHANNEL must be a channel id like C0123ABCD, not a name ('#general')" in line
    assert "more)" not in line


async def test_a_port_in_use_is_named(world: World) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        bridge = await world.run(NOVO_SLACK_PORT=str(port))
        line = await _one_line_failure(bridge, 1)
    assert line == f"NOVO_SLACK_PORT: 0.0.0.0:{port}: address already in use"


def _corrupt(tmp: Path) -> Path:
    path = tmp / "corrupt.db"
    path.write_bytes(b"this is not a database" * 200)
    return path


def _read_only(tmp: Path) -> Path:
    path = tmp / "read-only.db"
    sqlite3.connect(path).close()
    path.chmod(0o444)
    return path


def _missing_directory(tmp: Path) -> Path:
    return tmp / "no-such-dir" / "bridge.db"


def _a_directory(tmp: Path) -> Path:
    path = tmp / "a-directory"
    path.mkdir()
    return path


@pytest.mark.parametrize("make", [_corrupt, _read_only, _missing_directory, _a_directory])
async def test_an_unusable_database_is_named(world: World, tmp_path: Path, make: object) -> None:
    assert callable(make)
    path: Path = make(tmp_path)
    bridge = await world.run(NOVO_SLACK_DB=str(path))
    line = await _one_line_failure(bridge, 1)
    assert line.startswith(f"NOVO_SLACK_DB: {path}: "), line
    assert not world.slack.calls("chat.postMessage")


async def test_with_v_the_traceback_is_shown_too(world: World) -> None:
    bridge = await world.run("-v", SLACK_BOT_TOKEN="xoxb-not-this-one")
    assert await bridge.exit_code() == 2
    assert "Traceback" in bridge.stderr
    assert bridge.lines[-1].startswith("novo-slack: SLACK_BOT_TOKEN was refused by Slack")


async def test_a_second_process_on_one_sqlite_file_refuses_to_start(world: World) -> None:
    first = await world.run()
    await first.saw("bridge started")
    second = await world.run()
    line = await _one_line_failure(second, 1)
    assert line.startswith("NOVO_SLACK_DB: "), line
    assert "in use by another novo-slack process" in line
    assert first.process.returncode is None  # the owner runs on, untouched
    db = Path(world.env["NOVO_SLACK_DB"])
    for private in (db, db.with_name(db.name + "-wal")):
        assert private.stat().st_mode & 0o777 == 0o600, private  # tool inputs, reasons, names


async def test_a_mistake_in_the_policy_file_is_named_at_start(world: World, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("links:\n  run: ftp://novo/{runId}\n", encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    line = await _one_line_failure(bridge, 2)
    assert line == ("NOVO_SLACK_CONFIG: policy.yml: links.run: must be an http(s) URL template")


async def test_a_mistake_in_a_rule_is_named_by_its_place(world: World, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("rules:\n  - name: prod\n    deciders: {groups: [sre]}\n", encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    line = await _one_line_failure(bridge, 2)
    assert line == (
        "NOVO_SLACK_CONFIG: policy.yml: rule 1 (prod): deciders.groups item 1:"
        ' "sre" is not a user group id (S…)'
    )


DEEP_POLICY = "rules: " + "[" * 5000 + "]" * 5000 + "\n"


async def test_a_policy_nested_thousands_deep_is_one_line_at_start(
    world: World, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(DEEP_POLICY, encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    line = await _one_line_failure(bridge, 2)
    assert line == (
        "NOVO_SLACK_CONFIG: policy.yml: nested deeper than 32 levels at line 1;"
        " a policy needs a handful"
    )
