"""`novo-slack db upgrade` and `db current`, run as an operator runs them.

A deployment migrates once before it rolls replicas out, and an operator
asks which revision a database is at; both are judged by the exit code and
the one line printed.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.store.migrate import head_revision
from tests.lifecycle.conftest import REPO

SETTINGS = {
    "SLACK_BOT_TOKEN": "xoxb-db-command",
    "SLACK_SIGNING_SECRET": "db-command-secret",
    "NOVO_API_URL": "http://127.0.0.1:9",
    "NOVO_API_KEY": "db-command-key",
    "NOVO_SLACK_CHANNEL": "C0DBCOMMAND",
}


async def _db(action: str, cwd: Path, **settings: str) -> tuple[int, str, str]:
    """Run `novo-slack db <action>`; its exit code, stdout and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "NOVO_"))}
    env.update(PYTHONPATH=str(REPO), **settings)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "db",
        action,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(30):
        out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode().strip(), err.decode().strip()


async def test_upgrade_then_current_on_postgresql(database_url: str, tmp_path: Path) -> None:
    head = head_revision()
    shown = database_url  # no password in the test URL, so nothing is masked

    code, out, err = await _db("current", tmp_path, **SETTINGS, NOVO_SLACK_DB=database_url)
    assert (code, err) == (0, "")
    assert out == f"{shown}: never migrated; head is {head}: run `novo-slack db upgrade`"

    assert await _db("upgrade", tmp_path, **SETTINGS, NOVO_SLACK_DB=database_url) == (
        0,
        f"{shown}: at revision {head} (head)",
        "",
    )
    # a second upgrade finds nothing to do, and `current` agrees with it
    for action in ("upgrade", "current"):
        code, out, err = await _db(action, tmp_path, **SETTINGS, NOVO_SLACK_DB=database_url)
        assert (code, out, err) == (0, f"{shown}: at revision {head} (head)", "")


async def test_upgrade_then_current_on_sqlite(tmp_path: Path) -> None:
    head = head_revision()
    db = tmp_path / "bridge.db"

    code, out, err = await _db("current", tmp_path, **SETTINGS, NOVO_SLACK_DB=str(db))
    assert (code, out) == (1, "")
    assert err == f"novo-slack: NOVO_SLACK_DB: {db}: no such file"
    assert not db.exists()  # looking creates nothing

    for action in ("upgrade", "current"):
        code, out, err = await _db(action, tmp_path, **SETTINGS, NOVO_SLACK_DB=str(db))
        assert (code, out, err) == (0, f"{db}: at revision {head} (head)", "")


async def test_a_database_out_of_reach_is_one_line_and_exit_1(tmp_path: Path) -> None:
    url = "postgresql://novo:s3cret@127.0.0.1:1/novo"
    code, out, err = await _db("upgrade", tmp_path, **SETTINGS, NOVO_SLACK_DB=url)
    assert (code, out) == (1, "")
    assert err.startswith("novo-slack: NOVO_SLACK_DB: postgresql://novo:***@127.0.0.1:1/novo: ")
    assert len(err.splitlines()) == 1 and "s3cret" not in err


async def test_only_the_store_setting_is_needed(tmp_path: Path) -> None:
    """A migration job has no Slack token or Novo key, and needs none."""
    db = tmp_path / "x.db"
    code, out, err = await _db("upgrade", tmp_path, NOVO_SLACK_DB=str(db))
    assert (code, out, err) == (0, f"{db}: at revision {head_revision()} (head)", "")


async def test_a_store_url_it_cannot_use_is_a_bad_setting_exit_2(tmp_path: Path) -> None:
    code, out, err = await _db("current", tmp_path, NOVO_SLACK_DB="mysql://novo:s3cret@db/novo")
    assert (code, out) == (2, "")
    assert err == (
        "novo-slack: NOVO_SLACK_DB mysql://novo:***@db/novo: only a file path or a"
        " postgresql:// URL is understood"
    )


async def test_audit_needs_only_the_store_setting(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert (await _db("upgrade", tmp_path, NOVO_SLACK_DB=str(db)))[0] == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "NOVO_"))}
    env.update(PYTHONPATH=str(REPO), NOVO_SLACK_DB=str(db))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "audit",
        "--format",
        "csv",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(30):
        out, err = await process.communicate()
    assert (process.returncode, err.decode()) == (0, "")
    assert out.decode().startswith("id,at,event")
