"""`novo-slack demo --ui`: the page is served beside the transcript, and nobody clicks but you."""

from __future__ import annotations

import asyncio
import re
import sys

import httpx
import pytest

from tests.support import wait_until

DEMO_SECONDS = 4
URL = re.compile(r"playground\s+(http://127\.0\.0\.1:\d+)")
START_BOUND_SECONDS = 90
"""A generous bound on a cold start of three servers and the bridge on a busy machine."""


@pytest.mark.timeout(START_BOUND_SECONDS + 30)
async def test_demo_ui_serves_the_channel_without_scripted_clicks() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "demo",
        "--ui",
        "--ui-port",
        "0",
        "--seconds",
        str(DEMO_SECONDS),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(START_BOUND_SECONDS):
            while not (found := URL.search("".join(lines))):
                line = await process.stdout.readline()
                assert line, f"demo ended before serving the page: {''.join(lines)}"
                lines.append(line.decode())
            async with httpx.AsyncClient(timeout=5) as http:

                async def channel_shown() -> list[dict[str, object]] | None:
                    state = (await http.get(f"{found.group(1)}/api/state")).json()
                    channels: list[dict[str, object]] = state["channels"]
                    return channels if channels and channels[0]["messages"] else None

                channels = await wait_until(channel_shown, message="the demo channel on the page")
            assert channels[0]["name"] == "agent-approvals"
            rest, _ = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    transcript = "".join(lines) + rest.decode()
    assert process.returncode == 0, transcript
    assert "no scripted clicks" in transcript
    assert "*click*" not in transcript  # with --ui, the clicking is left to the page
