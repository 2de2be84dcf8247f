"""One process owns a SQLite file, and its files are private to the owner."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bot.store import Store, StoreLockedError

from .helpers import NOW, interaction
from .processes import start

PRIVATE = 0o600


def _refusal(path: Path, pid: int) -> str:
    return (
        f"NOVO_SLACK_DB: {path} is in use by another novo-slack process (pid {pid}); one process"
        " owns one SQLite file — use PostgreSQL for several replicas"
    )


async def test_a_second_process_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    path = tmp_path / "novo-slack.db"
    store = await Store.open(path)
    second = await start("open", str(path))
    assert await second.line() == _refusal(path, os.getpid())
    assert await second.finish() == 3
    with pytest.raises(StoreLockedError):
        await Store.open(path)  # a second store in the same process is refused too
    await store.close()
    third = await start("open", str(path))
    assert (await third.line()).startswith("opened ")
    assert await third.finish() == 0


async def test_a_killed_owner_leaves_the_file_usable(tmp_path: Path) -> None:
    path = tmp_path / "novo-slack.db"
    async with await Store.open(path) as store:
        await store.claim_for_posting(interaction(), "C1", NOW)
    owner = await start("open", str(path))
    assert await owner.line() == f"opened {owner.pid}"
    with pytest.raises(StoreLockedError) as refused:
        await Store.open(path)
    assert refused.value.pid == owner.pid
    assert str(refused.value) == _refusal(path, owner.pid)
    await owner.kill()
    async with await Store.open(path) as store:
        assert await store.tracked_ids() == {"int_1"}


async def test_the_database_and_its_companions_are_private(tmp_path: Path) -> None:
    path = tmp_path / "novo-slack.db"
    old_umask = os.umask(0o022)
    try:
        store = await Store.open(path)
        await store.claim_for_posting(interaction(), "C1", NOW)
        files = [path, *(tmp_path / f"novo-slack.db{s}" for s in ("-wal", "-shm", ".lock"))]
        assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {
            f.name: PRIVATE for f in files
        }
        await store.close()
    finally:
        os.umask(old_umask)


async def test_an_existing_file_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "novo-slack.db"
    path.touch(mode=0o644)
    path.chmod(0o644)
    async with await Store.open(path):
        assert stat.S_IMODE(path.stat().st_mode) == PRIVATE
