"""A store that can't be opened says why in one line, and leaves nothing running."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.store import Store, StoreOpenError

from .conftest import PG_URL, Database
from .helpers import open_threads, threads_settle
from .processes import start


def _corrupt(path: Path) -> Path:
    path.write_bytes(os.urandom(8192))
    return path


def _read_only(path: Path) -> Path:
    path.write_bytes(b"")
    path.chmod(0o400)
    return path


async def _refused(target: Path | str) -> str:
    before = open_threads()
    with pytest.raises(StoreOpenError) as caught:
        await Store.open(target)
    await threads_settle(before)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("NOVO_SLACK_DB: ")
    return message


def _lock_is_free(path: Path) -> bool:
    lock = path.with_name(path.name + ".lock")
    if not lock.exists():
        return True
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return True


async def test_a_corrupt_file(tmp_path: Path) -> None:
    path = _corrupt(tmp_path / "novo-slack.db")
    message = await _refused(path)
    assert message == f"NOVO_SLACK_DB: {path}: file is not a database"
    assert _lock_is_free(path)


async def test_a_read_only_file(tmp_path: Path) -> None:
    path = _read_only(tmp_path / "novo-slack.db")
    assert await _refused(path) == f"NOVO_SLACK_DB: {path}: the file is read-only"


async def test_a_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "novo-slack.db"
    message = await _refused(path)
    assert message == f"NOVO_SLACK_DB: {path}: directory {path.parent} does not exist"
    assert not path.parent.exists()


async def test_a_directory(tmp_path: Path) -> None:
    message = await _refused(tmp_path)
    assert message == f"NOVO_SLACK_DB: {tmp_path}: is a directory, not a database file"


async def test_an_unreachable_server_with_the_password_masked() -> None:
    message = await _refused("postgresql://bridge:s3cret@127.0.0.1:1/novo")
    assert message.startswith("NOVO_SLACK_DB: postgresql://bridge:***@127.0.0.1:1/novo: ")
    assert "s3cret" not in message


async def test_a_password_in_the_query_is_masked_and_harmless_parameters_shown() -> None:
    """libpq and asyncpg also take the password as `?password=`; any parameter not known
    to be harmless is masked, whatever its name."""
    message = await _refused(
        "postgresql://bridge@127.0.0.1:1/novo?password=s3cret&sslmode=disable&secret_token=t0k"
    )
    assert "s3cret" not in message and "t0k" not in message
    assert "password=***" in message and "secret_token=***" in message
    assert "sslmode=disable" in message
    malformed = await _refused("postgresql://bridge@127.0.0.1:notaport/novo?password=s3cret")
    assert "s3cret" not in malformed


async def test_a_bad_url() -> None:
    message = await _refused("postgresql://bridge:s3cret@127.0.0.1:notaport/novo")
    assert "s3cret" not in message and "postgresql://bridge:***@" in message
    assert "mysql" in await _refused("mysql://root:pw@localhost/x")


async def test_an_unknown_postgres_database(postgres: Database) -> None:
    missing = make_url(PG_URL).set(database="novo_slack_no_such_db")
    message = await _refused(missing.render_as_string(hide_password=False))
    assert message.endswith('database "novo_slack_no_such_db" does not exist')


async def test_the_process_exits_promptly_after_the_error(tmp_path: Path) -> None:
    path = _corrupt(tmp_path / "novo-slack.db")
    child = await start("open", str(path))
    assert await child.line() == f"NOVO_SLACK_DB: {path}: file is not a database"
    assert await child.finish() == 3  # it ends by itself, within the wait's generous bound
