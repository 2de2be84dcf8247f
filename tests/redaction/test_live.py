"""The policy in force makes the shown copy: once per record version, counted by kind,
redone after a reload, and never more than a note when the scan itself fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import REGISTRY

import bot.policy.live
from bot.novo.models import Interaction
from bot.policy.live import LivePolicy
from bot.redaction import hidden_count
from bot.redaction.record import WITHHELD
from tests.novo.conftest import approval_wire
from tests.redaction.planted import SECRETS


def _approval(**fields: object) -> Interaction:
    return Interaction.from_wire(approval_wire("int_live", **fields))


def _counted(kind: str) -> float:
    return REGISTRY.get_sample_value("novo_slack_redactions_total", {"kind": kind}) or 0.0


def test_one_scan_per_version_counted_by_kind() -> None:
    policy = LivePolicy("C0")
    record = _approval(input={"password": SECRETS["secret_key"]})
    before = _counted("secret_key")
    first = policy.shown(record)
    again = policy.shown(_approval(input={"password": SECRETS["secret_key"]}))
    assert again is first and hidden_count(first) == 1
    assert _counted("secret_key") == before + 1
    newer = policy.shown(_approval(input={"password": "x"}, updatedAt="2030-01-01T00:00:00.000Z"))
    assert newer is not first and _counted("secret_key") == before + 2


def test_a_reload_scans_again_under_the_new_rules(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    path.write_text("defaults:\n  redact: false\n", encoding="utf-8")
    policy = LivePolicy.load(path, "C0")
    record = _approval(input={"password": SECRETS["secret_key"]})
    assert policy.shown(record) is record
    path.write_text("defaults:\n  redact: {}\n", encoding="utf-8")
    assert policy.reload()
    assert hidden_count(policy.shown(record)) == 1


def test_a_scan_that_fails_shows_a_note_instead(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: object) -> object:
        raise RuntimeError("boom " + SECRETS["secret_key"])

    monkeypatch.setattr(bot.policy.live, "redact_interaction", broken)
    shown = LivePolicy("C0").shown(_approval(input={"cmd": SECRETS["github_token"]}))
    assert shown.input == {"cmd": WITHHELD}
    assert "could not check int_live for secrets (RuntimeError)" in caplog.text
    assert SECRETS["secret_key"] not in caplog.text
