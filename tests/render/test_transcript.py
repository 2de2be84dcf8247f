"""The demo's transcript prints each message as one readable line, cut between words."""

from __future__ import annotations

import httpx
import pytest

from novo_dev.demo.transcript import LINE_CHARS, Transcript
from novo_dev.localslack.server import LocalSlack


async def test_a_long_message_line_is_cut_between_words(capsys: pytest.CaptureFixture[str]) -> None:
    text = "Deploy api-gateway to production — " + "Release Bot asks for approval " * 8
    async with httpx.AsyncClient() as http:
        transcript = Transcript(LocalSlack(), "http://sim", "key", http, "C1", started=0.0)
        transcript._print_call("chat.postMessage", {"text": text}, {"ok": True})
    line = capsys.readouterr().out.strip()
    shown = line.split(" NEW   ", 1)[1]
    assert len(shown) <= LINE_CHARS and shown.endswith("…")
    assert text.startswith(shown[:-1] + " ")


async def test_mentions_and_dates_read_as_words(capsys: pytest.CaptureFixture[str]) -> None:
    text = "Approved by <@U0NOBODY> · <!date^1741944660^{time}|2025-03-14 09:31 UTC> &amp; noted"
    async with httpx.AsyncClient() as http:
        transcript = Transcript(LocalSlack(), "http://sim", "key", http, "C1", started=0.0)
        transcript._print_call("chat.update", {"text": text}, {"ok": True})
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith("EDIT  Approved by @U0NOBODY · 2025-03-14 09:31 UTC & noted")
    )
