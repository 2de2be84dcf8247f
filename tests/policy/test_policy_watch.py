"""The policy file noticed when it changes on disk, by a stat each poll interval."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from bot.policy.live import LivePolicy

ONE = "rules:\n  - name: one\n    match: {}\n"
TWO = ONE + "  - name: two\n    match: {}\n"
ONLY_ADA = "rules:\n  - name: only-ada\n    match: {}\n    deciders: {users: [U0ADA]}\n"


def test_unchanged_is_not_read_again_and_a_rewrite_is(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    path.write_text(ONE, encoding="utf-8")
    live = LivePolicy.load(path, "C0123")
    assert live.reload_if_changed() is False
    path.write_text(TWO, encoding="utf-8")  # a new size
    assert live.reload_if_changed() is False  # seen changing: read once it holds still
    assert live.reload_if_changed() is True
    assert [rule.name for rule in live.current.rules] == ["one", "two"]
    assert live.reload_if_changed() is False


def test_a_file_caught_mid_write_is_not_read_until_it_holds_still(tmp_path: Path) -> None:
    """Written in place, a file is empty for a moment, and an empty policy lets anyone
    decide: read then, it was in force, and stayed in force when the finished file had a
    mistake (a reload refused keeps the policy in force)."""
    path = tmp_path / "policy.yml"
    path.write_text(ONLY_ADA, encoding="utf-8")
    live = LivePolicy.load(path, "C0123")
    path.write_text("", encoding="utf-8")  # truncated, not written yet
    assert live.reload_if_changed() is False
    path.write_text("rules:\n  - name: broken\n    quorum: zero\n", encoding="utf-8")
    assert live.reload_if_changed() is False  # changed again since the last look
    assert live.reload_if_changed() is False  # read now: a mistake, refused
    assert [rule.name for rule in live.current.rules] == ["only-ada"]


def test_same_size_and_time_but_another_file_is_a_change(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    path.write_text(ONE, encoding="utf-8")
    live = LivePolicy.load(path, "C0123")
    fresh = tmp_path / "fresh.yml"
    fresh.write_text(ONE.replace("one", "uno"), encoding="utf-8")
    info = path.stat()
    os.utime(fresh, ns=(info.st_atime_ns, info.st_mtime_ns))
    fresh.replace(path)  # a rename: a new inode, nothing else differs
    assert live.reload_if_changed() is False  # seen changing
    assert live.reload_if_changed() is True
    assert [rule.name for rule in live.current.rules] == ["uno"]


def test_a_file_gone_keeps_the_policy_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "policy.yml"
    path.write_text(ONE, encoding="utf-8")
    live = LivePolicy.load(path, "C0123")
    path.unlink()
    with caplog.at_level(logging.WARNING):
        assert live.reload_if_changed() is False
        assert live.reload_if_changed() is False
    assert [r.getMessage() for r in caplog.records] == [
        f"policy file {path} is gone; the one in force stays"
    ]
    assert [rule.name for rule in live.current.rules] == ["one"]
    path.write_text(TWO, encoding="utf-8")
    assert live.reload_if_changed() is False  # seen back
    assert live.reload_if_changed() is True


def test_no_policy_file_is_never_looked_for(tmp_path: Path) -> None:
    assert LivePolicy.load(None, "C0123").reload_if_changed() is False
