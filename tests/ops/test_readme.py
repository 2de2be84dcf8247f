"""The README as a new user reads it: its marked shell blocks run verbatim, and every
setting the bridge reads is in its table."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from pathlib import Path

from bot.config import Settings

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
MARK = "<!-- runs-in-tests -->"
_BLOCK = re.compile(re.escape(MARK) + r"\s*```sh\n(.*?)```", re.DOTALL)


def test_every_setting_is_in_the_table() -> None:
    rows = {m.group(1) for m in re.finditer(r"^\s*\| `([A-Z_]+)` \|", README, re.MULTILINE)}
    names = {field.alias for field in Settings.model_fields.values() if field.alias}
    assert names - rows == set()
    assert rows - names == set()


async def test_the_marked_shell_blocks_run_verbatim() -> None:
    blocks = _BLOCK.findall(README)
    assert blocks, f"no block marked {MARK}"
    for block in blocks:
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-e",
            "-c",
            block,
            cwd=REPO,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: what it started goes with it
        )
        try:
            async with asyncio.timeout(30):
                out, err = await process.communicate()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        assert process.returncode == 0, f"{block}\n{out.decode()}\n{err.decode()}"
        assert out.decode().count('"status": "resolved"') == 2, out.decode()
