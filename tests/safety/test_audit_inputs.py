"""Hostile input to the audit trail's readers: payloads of shapes Slack never sends, and
export files an attacker wrote. Nothing raises; each is refused or read for what it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.audit_verify import verify_file
from bot.services.shown import blocks_text, shown_of
from bot.terminal import terminal_safe


@pytest.mark.parametrize(
    "body",
    [
        None,
        "text",
        [],
        {"message": "not a dict"},
        {"message": {"blocks": "nope", "text": 7}},
        {"view": {"blocks": [{"text": {"text": None}}]}},
        {"event": {"type": "message", "thread_ts": "1.2", "text": ["x"]}},
        {"container": [], "message": {"blocks": [[[[]]]]}},
    ],
)
def test_payloads_of_any_shape_give_a_value_or_none(body: Any) -> None:
    shown = shown_of(body)
    assert shown is None or isinstance(shown.text, str)


def test_blocks_nested_beyond_reason_are_not_walked_to_the_bottom() -> None:
    deep: Any = {"text": "bottom"}
    for _ in range(10_000):
        deep = {"elements": [deep]}
    assert blocks_text([{"text": {"type": "mrkdwn", "text": "top"}}, deep]) == "top"


def test_hidden_menu_choices_are_not_what_was_shown() -> None:
    blocks = [
        {"type": "section", "text": {"type": "mrkdwn", "text": "Deploy api"}},
        {
            "type": "actions",
            "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Approve"}},
                {"type": "overflow", "options": [{"text": {"text": "Approve with a note"}}]},
            ],
        },
    ]
    assert blocks_text(blocks) == "Deploy api\nApprove"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[" * 100_000 + "]" * 100_000 + "\n", "line 1: not an audit event"),
        ('{"id": "x"}\n', "line 1: not an audit event"),
        (json.dumps({"id": 1, "at": "yesterday"}) + "\n", "line 1: not an audit event"),
        ("\n\n" + json.dumps([1, 2]) + "\n", "line 3: not an audit event"),
    ],
)
def test_an_export_that_is_not_one_is_refused_naming_the_line(
    tmp_path: Path, content: str, said: str
) -> None:
    export = tmp_path / "export.jsonl"
    export.write_text(content)
    verdict = verify_file(export)
    assert not verdict.ok and verdict.line().startswith(said)


def test_an_unreadable_export_is_named(tmp_path: Path) -> None:
    (tmp_path / "binary.jsonl").write_bytes(b"\xff\xfe\x00")
    assert verify_file(tmp_path / "binary.jsonl").line().endswith("not UTF-8 text")
    assert "can't be read" in verify_file(tmp_path / "absent.jsonl").line()


def test_content_the_bridge_never_writes_is_edited(tmp_path: Path) -> None:
    line = {
        "id": 1,
        "at": "2026-12-01T09:00:00Z",
        "event": "clicked",
        "interaction_id": None,
        "actor_id": None,
        "detail": {"n": float("nan")},
        "prev_hash": "0" * 64,
        "hash": "0" * 64,
    }
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(line) + "\n")  # json writes NaN, and reads it back
    assert verify_file(export).line() == (
        "event #1 (2026-12-01 09:00:00 UTC, clicked): edited (its content no longer matches"
        " its hash)"
    )


def test_an_escape_in_an_export_is_printed_as_text() -> None:
    drawn_over = "clicked\x1b[2K\r12 events, chain intact\u202e"
    assert terminal_safe(drawn_over) == "clicked\\x1b[2K\\x0d12 events, chain intact\\u202e"
    assert terminal_safe("two\nlines") == "two\nlines"


def test_the_verify_command_prints_an_exports_escapes_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    line = {
        "id": 1,
        "at": "2026-12-01T09:00:00Z",
        "event": "clicked\x1b[2K\r1 events, chain intact",
        "interaction_id": None,
        "actor_id": None,
        "detail": {},
        "prev_hash": "0" * 64,
        "hash": "0" * 64,
    }
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(line) + "\n")
    assert main(["audit", "verify", "--file", str(export)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out
    assert out.startswith("chain broken: event #1 (2026-12-01 09:00:00 UTC, clicked\\x1b[2K")
