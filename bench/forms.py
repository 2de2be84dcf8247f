"""`python -m bench.forms`: many people opening the largest question form at the same moment.

One question with `--questions` questions of `--options` options each (by
default 60 × 100, every text far longer than Slack shows) is posted; then
`--people` different people click its "Answer…" button at once. Slack gives
each click a trigger_id that expires 3 s later, so a form that takes the
bridge longer to build never opens: Slack answers `expired_trigger_id`.

Figures, in milliseconds, from each click (the moment its trigger_id was
issued, all within a few milliseconds of each other):
- click -> ack: until the bridge's HTTP 200 to Slack arrived;
- click -> views.open: until the local Slack received the bridge's
  `views.open` for that person (its own timestamp), whether Slack accepted
  it or not.

Then how many `views.open` calls Slack refused (expired triggers mostly) and
how many clicks got no `views.open` at all within the deadline.

The bridge runs as production runs it, in its own process (`python -m bot
run`, default poll interval), and so does the simulator (`python -m bot sim`):
in one process, the simulator's copying of a 6,000-option record on every poll
and the local Slack's parsing of every view would share the bridge's CPU and
be counted against it. The local Slack and the clicking stay here, where the
local Slack's own clock judges each trigger.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL
from typing import Any

import aiohttp

from bench.harness import API_KEY, CHANNEL, SIGNING_SECRET
from bot.slack.ids import ActionId
from novo_dev.localslack.driver import FORM, SlackDriver
from novo_dev.localslack.payloads import (
    action,
    envelope,
    find_element,
    message_container,
    user_object,
)
from novo_dev.localslack.records import RecordedCall
from novo_dev.localslack.server import LocalSlack, start_local_slack
from tests.support import wait_until

DEFAULT_PEOPLE = 300
DEFAULT_QUESTIONS = 60
DEFAULT_OPTIONS = 100
EXPIRES_IN_SECONDS = 3600.0
POST_WITHIN_SECONDS = 30.0
OPEN_WITHIN_SECONDS = 60.0
TRIGGER_SECONDS = 3.0
TEAM_ID = "T0LOCAL"
HOST = "127.0.0.1"
START_WITHIN_SECONDS = 30.0
LOCAL_TRIGGER_TTL_SECONDS = 3600.0
WAIT_INTERVAL_SECONDS = 0.05
PAGE_LINE = re.compile(r"Page 1 of (\d+)")
LONG_TEXT = 3_100
"""Longer than the title and details are shown, so those cuts are exercised."""
PROMPT_CHARS = 2_000
LABEL_CHARS = 75


@dataclass(frozen=True)
class Options:
    people: int
    questions: int
    options: int


@dataclass(frozen=True)
class Click:
    trigger_id: str
    at: float
    acked: float


@dataclass(frozen=True)
class Results:
    ack_ms: list[float]
    open_ms: list[float]
    refused: dict[str, int]
    never_opened: int
    pages: int


def largest_request(questions: int, options: int) -> dict[str, Any]:
    """The biggest form: 100-option menus with a note box, text as long as Slack shows.

    Labels are cut to Slack's 75 characters and prompts to its 2,000, so longer
    ones would only make the body bigger, not the form; descriptions are not
    shown in menus. The body stays under the simulator's 1 MiB request limit.
    """
    filler = "lorem ipsum dolor sit amet " * (LONG_TEXT // 27 + 1)
    return {
        "title": "Quarterly access review " + filler[:LONG_TEXT],
        "details": "Please review each grant. " + filler[:LONG_TEXT],
        "questions": [
            {
                "id": f"q{q}",
                "prompt": f"Grant {q}: keep which access? " + filler[:PROMPT_CHARS],
                "multiple": q % 2 == 0,
                "multiline": True,
                "options": [
                    {"id": f"{q}.{o}", "label": f"Role {o} " + filler[:LABEL_CHARS]}
                    for o in range(options)
                ],
            }
            for q in range(questions)
        ],
    }


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest rank: with few samples it is an observed value."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:<22}{'no samples':>10}"
    figures = [_percentile(values, f) for f in (0.5, 0.95, 0.99)] + [max(values)]
    return f"  {label:<22}" + "".join(f"{v:>10.0f}" for v in figures) + f"  (n={len(values)})"


def report(opts: Options, results: Results) -> str:
    late = sum(1 for v in results.open_ms if v > TRIGGER_SECONDS * 1000) + results.never_opened
    refused = ", ".join(f"{n} {error}" for error, n in sorted(results.refused.items())) or "none"
    lines = [
        f"novo-slack forms: {opts.people} people open one question of {opts.questions} questions"
        f" x {opts.options} options ({results.pages} modal pages) at once",
        "",
        f"  {'ms':<22}{'p50':>10}{'p95':>10}{'p99':>10}{'max':>10}",
        _row("click -> ack", results.ack_ms),
        _row("click -> views.open", results.open_ms),
        "",
        f"  views.open failed (sent later than {TRIGGER_SECONDS:g} s after the click,"
        f" so expired_trigger_id in Slack): {late} of {opts.people}",
        f"  views.open refused by the local Slack for other reasons: {refused}",
        f"  clicks with no views.open within {OPEN_WITHIN_SECONDS:g} s: {results.never_opened}",
    ]
    return "\n".join(lines)


@dataclass
class Stage:
    """The local Slack (in this process) and the URLs of the simulator and the bridge."""

    slack: LocalSlack
    sim_url: str
    relay_url: str
    driver: SlackDriver
    http: aiohttp.ClientSession


async def _post_question(stage: Stage, opts: Options) -> str:
    body = {
        "kind": "question",
        "request": largest_request(opts.questions, opts.options),
        "expiresInSeconds": EXPIRES_IN_SECONDS,
    }
    async with stage.http.post(f"{stage.sim_url}/_sim/interactions", json=body) as response:
        if response.status != 201:
            raise RuntimeError(
                f"the simulator refused the question: {(await response.text())[:500]}"
            )
        interaction_id = str((await response.json())["id"])

    def posted() -> str | None:
        for call in stage.slack.calls("chat.postMessage"):
            payload = (call.args.get("metadata") or {}).get("event_payload") or {}
            if call.ok and payload.get("interaction_id") == interaction_id:
                return str(call.response["ts"])
        return None

    ts: str = await wait_until(posted, timeout=POST_WITHIN_SECONDS, message="the question")
    return ts


def _click_payload(slack: LocalSlack, user: str, ts: str, trigger_id: str) -> dict[str, Any]:
    """The block_actions payload Slack sends when `user` clicks "Answer…" (as the driver builds)."""
    message = slack.message(CHANNEL, ts)
    block, element = find_element(message.blocks, ActionId.ANSWER)
    person = slack.user(user)
    assert person is not None
    return {
        **envelope("block_actions", slack.identity, user_object(person, TEAM_ID)),
        "container": message_container(message),
        "trigger_id": trigger_id,
        "channel": {"id": message.channel, "name": slack.channel_name(message.channel)},
        "message": message.to_api(),
        "state": {"values": {}},
        "response_url": slack.issue_response_url(message.channel, message.ts, user_id=user),
        "actions": [action(block, element, f"{time.time():.6f}")],
    }


async def _click_all(stage: Stage, ts: str, people: list[str]) -> list[Click]:
    """Every person clicks "Answer…" at once: all triggers issued, then all payloads sent.

    aiohttp rather than httpx: httpx's pool scans every connection on each
    request, which with hundreds open costs more CPU than the clicks themselves.
    """
    driver = stage.driver
    bodies = []
    for user in people:
        trigger_id = stage.slack.issue_trigger(user)
        body = driver.encode(_click_payload(stage.slack, user, ts, trigger_id))
        bodies.append((trigger_id, time.time(), body))

    async def click(trigger_id: str, at: float, body: bytes) -> Click:
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": FORM,
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": driver.sign(body, timestamp),
        }
        async with stage.http.post(driver.events_url, data=body, headers=headers) as response:
            await response.read()
            if response.status != 200:
                raise RuntimeError(f"the bridge answered a click with {response.status}")
        return Click(trigger_id, at, time.time())

    return list(await asyncio.gather(*(click(*entry) for entry in bodies)))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def _serving(
    module: str, args: list[str], env: dict[str, str], port: int
) -> AsyncIterator[str]:
    """`python -m <module> <args>` for the block; yields its URL once it listens on `port`."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, *args, env=env, stdout=DEVNULL, stderr=DEVNULL
    )
    what = f"`python -m {module} {args[0]}`"
    try:
        deadline = time.monotonic() + START_WITHIN_SECONDS
        while True:
            if process.returncode is not None:
                raise RuntimeError(f"{what} exited with {process.returncode}")
            try:
                _, writer = await asyncio.open_connection(HOST, port)
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{what} never listened") from None
                await asyncio.sleep(WAIT_INTERVAL_SECONDS)
                continue
            writer.close()
            break
        yield f"http://{HOST}:{port}"
    finally:
        if process.returncode is None:
            process.terminate()
            await process.wait()


@asynccontextmanager
async def running_stage(
    db: Path, bridge_settings: dict[str, str] | None = None
) -> AsyncIterator[Stage]:
    """Local Slack here; simulator, relay and bridge each in a process of their own.

    The local Slack never expires a trigger itself (its own queue would be
    counted against the bridge); the relay's arrival times say which
    `views.open` calls real Slack would have refused. `bridge_settings`: more
    of the bridge's environment (e.g. `NOVO_SLACK_CONFIG`).
    """
    sim_port, relay_port, bridge_port = _free_port(), _free_port(), _free_port()
    env = dict(os.environ)
    sim_args = ["sim", "--port", str(sim_port), "--api-key", API_KEY]
    timeout = aiohttp.ClientTimeout(total=OPEN_WITHIN_SECONDS)
    async with (
        await start_local_slack(trigger_ttl=LOCAL_TRIGGER_TTL_SECONDS) as slack,
        aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as http,
        _serving("bot", sim_args, env, sim_port) as sim_url,
        _serving("bench.relay", [str(relay_port), slack.url], env, relay_port) as relay_url,
    ):
        bridge_env = {
            **env,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": f"{relay_url}/api/",
            "NOVO_API_URL": sim_url,
            "NOVO_API_KEY": API_KEY,
            "NOVO_SLACK_CHANNEL": CHANNEL,
            "NOVO_SLACK_DB": str(db),
            "NOVO_SLACK_PORT": str(bridge_port),
            "NOVO_SLACK_METRICS_PORT": "0",
            **(bridge_settings or {}),
        }
        async with (
            _serving("bot", ["run"], bridge_env, bridge_port) as bridge_url,
            SlackDriver(bridge_url, SIGNING_SECRET, slack) as driver,
        ):
            yield Stage(slack, sim_url, relay_url, driver, http)


async def _arrivals(stage: Stage) -> dict[str, float]:
    async with stage.http.get(f"{stage.relay_url}/_arrivals") as response:
        arrivals: dict[str, float] = await response.json()
        return arrivals


async def measure(opts: Options) -> Results:
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as tmp:
        async with running_stage(Path(tmp) / "bench.db") as stage:
            people = [f"U0FORM{n:04d}" for n in range(opts.people)]
            for user in people:
                stage.slack.add_user(user, user.lower(), f"Person {user[-4:]}")
            _progress(f"posting a question of {opts.questions} x {opts.options}")
            ts = await _post_question(stage, opts)
            _progress(f"{opts.people} people click Answer at once")
            clicks = await _click_all(stage, ts, people)
            await _wait_for_opens(stage.slack, opts.people)
            arrivals = await _arrivals(stage)
            calls = stage.slack.calls("views.open")
            pages = _page_count(stage.slack, calls)
    sent = [c for c in clicks if c.trigger_id in arrivals]
    refused: dict[str, int] = {}
    for call in calls:
        if not call.ok:
            error = str(call.response.get("error"))
            refused[error] = refused.get(error, 0) + 1
    return Results(
        ack_ms=[(c.acked - c.at) * 1000 for c in clicks],
        open_ms=[
            (arrivals[c.trigger_id] - c.at) * 1000 for c in clicks if c.trigger_id in arrivals
        ],
        refused=refused,
        never_opened=len(clicks) - len(sent),
        pages=pages,
    )


def _page_count(slack: LocalSlack, calls: Iterable[RecordedCall]) -> int:
    """The form's page count, as its first page says ("Page 1 of n"), 1 without that line."""
    for call in calls:
        if call.ok:
            view = slack.view(str(call.response["view"]["id"]))
            for block in view.blocks:
                for element in block.get("elements", []) if block.get("type") == "context" else []:
                    match = PAGE_LINE.search(str(element.get("text", "")))
                    if match:
                        return int(match.group(1))
            return 1
    return 0


async def _wait_for_opens(slack: LocalSlack, people: int) -> None:
    """Every click's views.open, or the deadline (those missing are counted, not fatal)."""
    try:
        await wait_until(
            lambda: True if len(slack.calls("views.open")) >= people else None,
            timeout=OPEN_WITHIN_SECONDS,
            message=f"{people} views.open calls",
        )
    except TimeoutError as exc:
        _progress(str(exc))


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _parse(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.forms", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--people", type=int, default=DEFAULT_PEOPLE, help="simultaneous clicks")
    parser.add_argument("--questions", type=int, default=DEFAULT_QUESTIONS)
    parser.add_argument("--options", type=int, default=DEFAULT_OPTIONS, help="per question")
    args = parser.parse_args(argv)
    if min(args.people, args.questions, args.options) < 1:
        parser.error("--people, --questions and --options must be at least 1")
    return Options(args.people, args.questions, args.options)


def main(argv: list[str] | None = None) -> int:
    opts = _parse(argv)
    began = time.monotonic()
    results = asyncio.run(measure(opts))
    print(report(opts, results))
    print()
    print(f"run took {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
