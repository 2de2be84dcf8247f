"""`novo-slack check` against the simulator and the local Slack: all ✓, then each ✗ with its fix."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from pathlib import Path

import jsonschema
import pytest
import yaml

from bot.check import FAILED, OK, SKIPPED, Item, checklist
from bot.slack.manifest import EXAMPLE_HOST
from bot.slack.scopes import REQUIRED_BOT_EVENTS, REQUIRED_BOT_SCOPES
from bot.store import Store
from bot.store.filelock import FileLock
from tests.ops.conftest import CHANNEL, Servers
from tests.support import novo_slack

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
_OUR_PREFIXES = ("SLACK_", "NOVO_")


async def _check(
    servers: Servers, monkeypatch: pytest.MonkeyPatch, **overrides: str | None
) -> dict[str, Item]:
    """The checklist with these settings changed (None unsets one), by check name."""
    monkeypatch.chdir(servers.tmp)  # no .env there
    for name in [n for n in os.environ if n.startswith(_OUR_PREFIXES)]:
        monkeypatch.delenv(name)
    for name, setting in servers.env().items():
        monkeypatch.setenv(name, setting)
    for name, value in overrides.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    items = [item async for item in checklist()]
    return {item.name.split(" C0", 1)[0]: item for item in items}


async def test_the_command_passes_against_a_working_setup(servers: Servers) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_PREFIXES)}
    env.update(servers.env(SLACK_APP_TOKEN=servers.slack.app_token), PYTHONPATH=str(REPO))
    ran = await novo_slack("check", env=env, cwd=servers.tmp, timeout=30)
    lines = ran.out.splitlines()
    assert ran.code == 0, ran.out + ran.err
    assert [line[0] for line in lines] == [OK] * 10, lines
    assert [line.split(":", 1)[0][2:] for line in lines] == [
        "settings",
        "policy",
        "bot token",
        "scopes",
        "events",
        "mode",
        "app token",
        f"channel {CHANNEL}",
        "Novo",
        "store",
    ]
    assert "team Novo Local (T0LOCAL), bot user novo (U0LOCALBOT)" in lines[2]
    assert "opens a Socket Mode connection" in lines[6]


async def test_each_failure_is_named_with_its_fix(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers.slack.set_scopes("chat:write", "channels:history")
    servers.slack.remove_bot_from(CHANNEL)
    db = servers.tmp / "bridge.db"
    async with await Store.open(db):  # a running bridge owns the file
        items = await _check(
            servers, monkeypatch, NOVO_API_KEY="not-the-key", SLACK_APP_TOKEN="xapp-wrong"
        )
    assert items["settings"].mark == OK and items["bot token"].mark == OK
    scopes = items["scopes"]
    assert scopes.mark == FAILED
    assert "lacks users:read, groups:history, channels:read, groups:read" in scopes.detail
    assert "reinstall the app" in scopes.fix
    app = items["app token"]
    assert (app.mark, app.detail) == (
        FAILED,
        "SLACK_APP_TOKEN was refused by Slack (apps.connections.open: invalid_auth)",
    )
    assert "connections:write" in app.fix
    channel = items["channel"]
    assert channel.mark == FAILED and "not a member" in channel.detail
    assert "/invite @Novo" in channel.fix
    novo = items["Novo"]
    assert novo.mark == FAILED and "NOVO_API_KEY was refused by Novo at" in novo.detail
    store = items["store"]
    assert store.mark == FAILED and "in use by another novo-slack process" in store.detail
    assert f"(pid {os.getpid()})" in store.detail
    assert "stop the other process" in store.fix


async def test_a_refused_bot_token_skips_what_depends_on_it(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = await _check(servers, monkeypatch, SLACK_BOT_TOKEN="xoxb-not-this-one")
    token = items["bot token"]
    assert token.mark == FAILED
    assert token.detail == "SLACK_BOT_TOKEN was refused by Slack (auth.test: invalid_auth)"
    assert "OAuth & Permissions" in token.fix
    assert items["scopes"].mark == SKIPPED and items["channel"].mark == SKIPPED
    assert items["Novo"].mark == OK  # the rest still runs
    assert items["store"].mark == OK and "created at the first run" in items["store"].detail


async def test_bad_settings_are_named_and_nothing_else_runs(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = await _check(servers, monkeypatch, NOVO_API_KEY=None, NOVO_SLACK_LOG_FORMAT="xml")
    settings = items["settings"]
    assert settings.mark == FAILED
    assert "NOVO_API_KEY is required but not set" in settings.detail
    assert "`novo-slack settings`" in settings.fix  # the installed command, not a doc
    assert "NOVO_SLACK_LOG_FORMAT" in settings.detail
    assert {i.mark for n, i in items.items() if n != "settings"} == {SKIPPED}


async def test_an_unreachable_novo_and_a_never_migrated_store(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = servers.tmp / "old.db"
    sqlite3.connect(db).close()  # a database no revision was ever applied to
    dead = _nobody_listens()
    items = await _check(servers, monkeypatch, NOVO_API_URL=dead, NOVO_SLACK_DB=str(db))
    novo = items["Novo"]
    assert novo.mark == FAILED
    assert novo.detail.startswith(f"Novo at {dead} (NOVO_API_URL) does not answer (")
    assert "NOVO_API_URL" in novo.fix
    store = items["store"]  # `run` would migrate it and start: no mistake
    assert store.mark == OK and "never migrated; `run` migrates it to" in store.detail
    FileLock.acquire(db, str(db)).release()  # the check let its lock go


async def test_a_store_a_newer_version_migrated_fails(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = servers.tmp / "newer.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        connection.execute("INSERT INTO alembic_version VALUES ('9999')")
    store = (await _check(servers, monkeypatch, NOVO_SLACK_DB=str(db)))["store"]
    assert store.mark == FAILED
    assert "at revision 9999, which this version does not know" in store.detail


def _manifest(
    servers: Servers,
    *,
    socket_mode: bool,
    url: str | None = None,
    command_url: str | None = None,
    events_url: str | None = None,
) -> None:
    """The repository's manifest beside the check, in one mode, with these request URLs
    (interactivity's, the /novo command's, the events')."""
    manifest = yaml.safe_load((REPO / "manifest.yml").read_text())
    manifest["settings"]["socket_mode_enabled"] = socket_mode
    if url is not None:
        manifest["settings"]["interactivity"]["request_url"] = url
    if command_url is not None:
        manifest["features"]["slash_commands"][0]["url"] = command_url
    if events_url is not None:
        manifest["settings"]["event_subscriptions"]["request_url"] = events_url
    (servers.tmp / "manifest.yml").write_text(yaml.safe_dump(manifest))


async def test_a_socket_mode_manifest_beside_an_http_bridge_fails_with_the_fix(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    _manifest(servers, socket_mode=True)
    items = await _check(servers, monkeypatch, SLACK_APP_TOKEN=None)
    mode = items["mode"]
    assert mode.mark == FAILED and mode.code == 2
    assert "turns Socket Mode on" in mode.detail and "SLACK_APP_TOKEN is not set" in mode.detail
    assert "set SLACK_APP_TOKEN" in mode.fix and "novo-slack manifest --host" in mode.fix


async def test_an_http_manifest_beside_a_socket_mode_bridge_fails_with_the_fix(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    _manifest(servers, socket_mode=False)
    items = await _check(servers, monkeypatch, SLACK_APP_TOKEN=servers.slack.app_token)
    mode = items["mode"]
    assert mode.mark == FAILED and mode.code == 2
    assert "has Socket Mode off" in mode.detail
    assert "unset SLACK_APP_TOKEN" in mode.fix


async def test_an_http_manifest_must_send_slack_to_the_events_path(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    _manifest(servers, socket_mode=False, url="https://novo-slack.example.com/")
    mode = (await _check(servers, monkeypatch, SLACK_APP_TOKEN=None))["mode"]
    assert mode.mark == FAILED
    assert "settings.interactivity.request_url" in mode.detail
    _manifest(servers, socket_mode=False)  # as the repository has it: the example host
    mode = (await _check(servers, monkeypatch, SLACK_APP_TOKEN=None))["mode"]
    assert mode.mark == FAILED and f"the example host {EXAMPLE_HOST}" in mode.detail
    assert f"replace {EXAMPLE_HOST}" in mode.fix
    ours = "https://novo.acme.test/slack/events"
    _manifest(servers, socket_mode=False, url=ours, command_url=ours, events_url=ours)
    mode = (await _check(servers, monkeypatch, SLACK_APP_TOKEN=None))["mode"]
    assert (mode.mark, mode.detail) == (
        OK,
        "HTTP mode, as manifest.yml says (Slack calls /slack/events)",
    )


async def test_the_manifest_may_be_named(servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check --manifest FILE`: the repository's own manifest is HTTP mode, the default."""
    monkeypatch.chdir(servers.tmp)
    items = await _check(servers, monkeypatch, SLACK_APP_TOKEN=servers.slack.app_token)
    assert items["mode"].mark == OK and "no manifest.yml here" in items["mode"].detail
    for name, value in servers.env(SLACK_APP_TOKEN=servers.slack.app_token).items():
        monkeypatch.setenv(name, value)
    named = {i.name: i async for i in checklist(REPO / "manifest.yml")}
    assert named["mode"].mark == FAILED and "has Socket Mode off" in named["mode"].detail


async def test_socket_mode_needs_no_signing_secret(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    _manifest(servers, socket_mode=True)
    items = await _check(
        servers, monkeypatch, SLACK_APP_TOKEN=servers.slack.app_token, SLACK_SIGNING_SECRET=None
    )
    assert {name: item.mark for name, item in items.items()} == dict.fromkeys(items, OK)
    assert items["mode"].detail == "Socket Mode, as manifest.yml says"
    http = await _check(servers, monkeypatch, SLACK_APP_TOKEN=None, SLACK_SIGNING_SECRET=None)
    assert http["settings"].mark == FAILED
    assert "SLACK_SIGNING_SECRET is required in HTTP mode" in http["settings"].detail


async def test_verbose_may_follow_the_command(servers: Servers) -> None:
    """`novo-slack check -v`, as the docs say it: the checklist, with debug logging."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_PREFIXES)}
    env.update(servers.env(NOVO_API_URL=_nobody_listens()), PYTHONPATH=str(REPO))
    ran = await novo_slack("check", "-v", env=env, cwd=servers.tmp)
    assert "unrecognized arguments" not in ran.err
    assert ran.code == 1, ran.out + ran.err  # Novo does not answer
    assert f"{FAILED} Novo: " in ran.out
    assert "DEBUG" in ran.err


def test_the_checked_scopes_are_the_manifests() -> None:
    manifest = yaml.safe_load((REPO / "manifest.yml").read_text())
    assert tuple(manifest["oauth_config"]["scopes"]["bot"]) == REQUIRED_BOT_SCOPES


def test_the_checked_events_are_the_manifests() -> None:
    manifest = yaml.safe_load((REPO / "manifest.yml").read_text())
    assert tuple(manifest["settings"]["event_subscriptions"]["bot_events"]) == REQUIRED_BOT_EVENTS


async def test_a_manifest_missing_an_event_subscription_is_named(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = yaml.safe_load((REPO / "manifest.yml").read_text())
    manifest["settings"]["event_subscriptions"]["bot_events"].remove("message.groups")
    (servers.tmp / "manifest.yml").write_text(yaml.safe_dump(manifest))
    servers.slack.set_scopes(*(s for s in REQUIRED_BOT_SCOPES if s != "reactions:write"))
    items = await _check(servers, monkeypatch)
    events = items["events"]
    assert events.mark == FAILED
    assert events.detail == "manifest.yml does not subscribe to message.groups"
    assert "Event Subscriptions" in events.fix and "novo-slack manifest" in events.fix
    assert items["scopes"].mark == FAILED
    assert items["scopes"].detail == "the bot token lacks reactions:write"
    assert "novo-slack manifest" in items["scopes"].fix


def test_the_manifest_is_valid_for_slack() -> None:
    """Checked against Slack's published manifest schema (slackapi/manifest-schema, MIT)."""
    schema = json.loads((HERE / "manifest.schema.1.0.0.json").read_text())
    manifest = yaml.safe_load((REPO / "manifest.yml").read_text())
    problems = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(manifest)]
    assert problems == []


def _nobody_listens() -> str:
    """A loopback URL whose port was just freed: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
