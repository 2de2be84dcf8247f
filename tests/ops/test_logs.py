"""`novo-slack run`'s log as an operator's pipeline sees it: JSON lines, each tied to its
interaction, one start-up line that says what runs, and quiet when idle."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot import __version__
from bot.logs import CHATTY_LOGGERS, configure_logging
from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.ops.conftest import CHANNEL, SIGNING_SECRET, Servers
from tests.support import wait_until

REPO = Path(__file__).resolve().parents[2]
IDLE_POLLS = 10  # polls watched while nothing happens
IDLE_LINES_ALLOWED = 1


class Process:
    """A `novo-slack run` whose stderr is read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.lines.append(raw.decode().rstrip("\n"))

    def records(self) -> list[dict[str, Any]]:
        parsed = []
        for line in self.lines:
            record = json.loads(line)  # every line, whatever logged it
            assert isinstance(record, dict), line
            parsed.append(record)
        return parsed

    async def stop(self) -> int:
        if self.process.returncode is None:
            self.process.terminate()
        async with asyncio.timeout(15):
            code = await self.process.wait()
            await self._reader
        return code


async def _run(servers: Servers, **overrides: str) -> Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "NOVO_"))}
    env.update(servers.env(**overrides), PYTHONPATH=str(REPO))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=servers.tmp,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    return Process(process)


async def test_json_lines_carry_the_interaction_id_and_idle_is_quiet(servers: Servers) -> None:
    bridge = await _run(servers, NOVO_SLACK_LOG_FORMAT="json")
    try:

        def started() -> dict[str, Any] | None:
            return next(
                (r for r in bridge.records() if r["message"].startswith("bridge started")), None
            )

        line: dict[str, Any] = await wait_until(started, message="start-up line")
        summary = line["message"]
        assert f"novo-slack {__version__}" in summary
        assert "HTTP mode" in summary and f"channel {CHANNEL}" in summary
        assert f"Novo {servers.sim.url}" in summary
        assert f"store sqlite {servers.tmp / 'bridge.db'}" in summary
        listening = next(r["message"] for r in bridge.records() if "listening" in r["message"])
        assert "http://127.0.0.1:" in listening  # the address really bound

        # idle: at most a line while Novo is polled many times (no per-job or
        # per-request lines)
        settled = len(bridge.lines)
        polled_before = await _polls(servers)

        async def polled_a_while() -> bool:
            return await _polls(servers) - polled_before >= IDLE_POLLS

        await wait_until(polled_a_while, message=f"{IDLE_POLLS} polls")
        idle = bridge.lines[settled:]
        assert len(idle) <= IDLE_LINES_ALLOWED, idle

        # a decision: its lines carry the interaction's id as a field
        interaction_id = await servers.create()
        ts = await wait_until(lambda: servers.shown_ts(interaction_id), message="posted")
        url = listening.split("http://", 1)[1].split("/", 1)[0]
        async with SlackDriver(f"http://{url}", SIGNING_SECRET, servers.slack) as driver:
            await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)

        def tagged() -> list[dict[str, Any]]:
            return [r for r in bridge.records() if r.get("interaction_id") == interaction_id]

        about: list[dict[str, Any]] = await wait_until(tagged, message="a line with the id")
        assert all(r["level"] and r["logger"] and r["time"] for r in about)
    finally:
        code = await bridge.stop()
    assert code == 0
    records = bridge.records()
    assert not [r for r in records if r["logger"].startswith(("apscheduler", "httpx"))]
    assert not [r for r in records if "will be unused" in r["message"]]  # Bolt's token notice
    for record in records:  # an id in the text is always in the field too
        if "int_" in record["message"]:
            assert record["interaction_id"] and record["interaction_id"] in record["message"]


async def _polls(servers: Servers) -> int:
    """How many requests Novo (the simulator) has had."""
    return len(await servers.control.log(prefix=""))


@contextmanager
def _configured(fmt: str) -> Iterator[None]:
    """The bridge's logging set up at INFO in `fmt`, and pytest's own handlers given back."""
    root = logging.getLogger()
    kept = (root.handlers[:], root.level, {n: logging.getLogger(n).level for n in CHATTY_LOGGERS})
    configure_logging("INFO", fmt)
    try:
        yield
    finally:
        root.handlers[:] = kept[0]
        root.setLevel(kept[1])
        for name, level in kept[2].items():
            logging.getLogger(name).setLevel(level)


def test_text_lines_show_an_id_given_only_as_extra_and_chatty_libraries_stay_quiet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _configured("text"):
        logging.getLogger("bot.example").info("delivered", extra={"interaction_id": "int_abc123"})
        logging.getLogger("httpx").info("HTTP Request: GET http://novo/v1/interactions")
        logging.getLogger("apscheduler.executors.default").info('Running job "poll"')
        logging.getLogger("bot.example").debug("too fine for INFO")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith("bot.example: delivered [int_abc123]")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_credential_quoted_in_a_log_line_is_masked(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "glpat-" + "Xy7Kp2Qw9Lm4Zn8Rt5Vb"
    with _configured(fmt):
        logging.getLogger("bot.example").warning(
            "novo refused %s", f"option {token} for postgresql://app:Hunter2-pw@db/prod"
        )
    err = capsys.readouterr().err
    assert "novo refused option glpa… (GitLab token hidden)" in err
    assert token[4:] not in err and "Hunter2-pw" not in err and "@db/prod" in err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_ordinary_words_after_a_logger_named_for_credentials_stay_readable(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line's prefix names the logger (`bot.slack.credentials: …`): masking reads the
    message alone, so its first word is not taken for a credential's value, and prose in
    parentheses is no call with a secret argument."""
    token = "glpat-" + "Xy7Kp2Qw9Lm4Zn8Rt5Vb"
    with _configured(fmt):
        logging.getLogger("bot.slack.credentials").warning(
            "Slack did not answer auth.test (Cannot connect to host); token %s", token
        )
    err = capsys.readouterr().err
    assert "Slack did not answer auth.test (Cannot connect to host)" in err
    assert token[4:] not in err
    if fmt == "text":
        assert "bot.slack.credentials: Slack did not answer" in err
