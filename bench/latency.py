"""`python -m bench.latency`: how long each hop of the loop keeps a person waiting.

Figures, each over `--samples` interactions:
- creation -> message posted: an approval created in Novo until the local
  Slack accepted the `chat.postMessage` carrying its id in metadata;
- click -> Slack's ack: the Approve click until the bridge answered Slack
  (Slack shows an error to the user past 3 s); its median and p99 are printed
  again on a line of their own (`--resolve-latency-ms 2000` shows the ack does not
  wait for Novo);
- click -> resolve received by Novo: the same click until the simulator
  received the resolve call that it answered 200;
- resolved via API -> message updated: a resolve made outside Slack until
  the `chat.update` showing the message without its buttons.

Each sample starts at a random moment within one poll interval (seeded):
the first and last figures depend on where in the poll cycle the event
falls, and starting each sample right after the previous one finished, as a
tight loop would, lands just after a poll every time and measures only the
worst case. End times are the servers' own timestamps (the ack's: when its
response arrived), not when a waiter noticed them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench.harness import (
    CHANNEL,
    DEFAULT_POLL_SECONDS,
    RESOLVE_PATH,
    USER_ID,
    Rig,
    epoch_of,
    format_table,
    has_action,
    percentile,
    running_rig,
)
from bot.slack.ids import ActionId
from novo_dev.localslack.records import RecordedCall
from novo_dev.localslack.server import LocalSlack
from tests.support import wait_until

DEFAULT_SAMPLES = 10
DEFAULT_SEED = 1
EXPIRES_IN_SECONDS = 3600.0  # far beyond the run, so no sample expires under it
DEADLINE_POLLS = 3  # a hop slower than this many poll intervals (plus slack) is a failure
DEADLINE_SLACK_SECONDS = 10.0
DENY_REASON = "rolled back by on-call"

POSTED = "creation -> message posted"
ACKED = "click -> Slack's ack (HTTP 200)"
RESOLVED = "click -> resolve received by Novo"
UPDATED = "resolved via API -> message updated"


@dataclass(frozen=True)
class Options:
    samples: int
    poll_seconds: float
    seed: int
    resolve_latency_ms: float = 0.0
    """Novo's resolve slowed by this much: the ack must not wait for it."""

    @property
    def deadline(self) -> float:
        return DEADLINE_POLLS * self.poll_seconds + DEADLINE_SLACK_SECONDS


@dataclass(frozen=True)
class Posted:
    interaction_id: str
    ts: str


def _post_for(slack: LocalSlack, interaction_id: str) -> RecordedCall | None:
    for call in slack.calls("chat.postMessage"):
        metadata = call.args.get("metadata")
        payload = metadata.get("event_payload") if isinstance(metadata, dict) else None
        if (
            call.ok
            and isinstance(payload, dict)
            and payload.get("interaction_id") == interaction_id
        ):
            return call
    return None


def _update_of(slack: LocalSlack, ts: str, since: float) -> RecordedCall | None:
    """The first accepted `chat.update` of message `ts` after `since` that has no Approve button."""
    for call in slack.calls("chat.update"):
        blocks = call.args.get("blocks")
        if (
            call.ok
            and call.at >= since
            and call.args.get("ts") == ts
            and isinstance(blocks, list)
            and not has_action(blocks, ActionId.APPROVE)
        ):
            return call
    return None


async def _dephase(rng: random.Random, opts: Options) -> None:
    await asyncio.sleep(rng.uniform(0.0, opts.poll_seconds))


async def _time_post(rig: Rig, rng: random.Random, opts: Options) -> tuple[Posted, float]:
    await _dephase(rng, opts)
    started = time.time()
    interaction_id = await rig.create_approval(expiresInSeconds=EXPIRES_IN_SECONDS)
    call = await wait_until(
        lambda: _post_for(rig.slack, interaction_id),
        timeout=opts.deadline,
        message=f"the message for {interaction_id}",
    )
    return Posted(interaction_id, str(call.response["ts"])), call.at - started


async def _time_click(
    rig: Rig, posted: Posted, rng: random.Random, opts: Options
) -> tuple[float, float]:
    """(click -> ack, click -> resolve received) in seconds."""
    path = RESOLVE_PATH.format(id=posted.interaction_id)

    async def resolve_received() -> dict[str, Any] | None:
        for entry in await rig.sim_log():
            if entry["method"] != "POST" or entry["path"] != path or entry["status"] is None:
                continue
            if entry["status"] != 200:
                raise RuntimeError(f"the resolve of {posted.interaction_id} got {entry['status']}")
            return entry
        return None

    await _dephase(rng, opts)
    await rig.clear_sim_log()  # keeps each log read small; the bridge never reads it
    started = time.time()
    response = await rig.driver.click_message_button(USER_ID, CHANNEL, posted.ts, ActionId.APPROVE)
    acked = time.time()
    if response.status_code != 200:
        raise RuntimeError(f"the bridge answered the click with {response.status_code}")
    entry = await wait_until(
        resolve_received, timeout=opts.deadline, message=f"the resolve of {posted.interaction_id}"
    )
    return acked - started, epoch_of(entry["at"]) - started


async def _time_update(rig: Rig, posted: Posted, rng: random.Random, opts: Options) -> float:
    await _dephase(rng, opts)
    started = time.time()
    body = {
        "inputResponses": [{"requestId": posted.interaction_id, "optionId": "deny"}],
        "reason": DENY_REASON,
    }
    await rig.api_resolve(posted.interaction_id, body)
    call = await wait_until(
        lambda: _update_of(rig.slack, posted.ts, started),
        timeout=opts.deadline,
        message=f"the update of {posted.ts}",
    )
    took: float = call.at - started
    return took


async def _post_many(rig: Rig, count: int, opts: Options) -> list[Posted]:
    """`count` approvals posted together, untimed: the material of the last figure."""
    ids = [await rig.create_approval(expiresInSeconds=EXPIRES_IN_SECONDS) for _ in range(count)]
    posted = []
    for interaction_id in ids:
        call = await wait_until(
            partial(_post_for, rig.slack, interaction_id),
            timeout=opts.deadline,
            message=f"the message for {interaction_id}",
        )
        posted.append(Posted(interaction_id, str(call.response["ts"])))
    return posted


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def measure(opts: Options) -> dict[str, list[float]]:
    """Every figure's samples, in milliseconds, in the order taken."""
    rng = random.Random(opts.seed)
    figures: dict[str, list[float]] = {POSTED: [], ACKED: [], RESOLVED: [], UPDATED: []}
    async with running_rig(opts.poll_seconds) as rig:
        if opts.resolve_latency_ms:
            await rig.control.faults(routes="resolve", latencyMs=opts.resolve_latency_ms)
        _progress(f"[1/3] {POSTED}")
        clickable = []
        for _ in range(opts.samples):
            posted, seconds = await _time_post(rig, rng, opts)
            clickable.append(posted)
            figures[POSTED].append(seconds * 1000)
        _progress(f"[2/3] {RESOLVED}")
        for posted in clickable:
            ack, resolved = await _time_click(rig, posted, rng, opts)
            figures[ACKED].append(ack * 1000)
            figures[RESOLVED].append(resolved * 1000)
        _progress(f"[3/3] {UPDATED}")
        for posted in await _post_many(rig, opts.samples, opts):
            figures[UPDATED].append(await _time_update(rig, posted, rng, opts) * 1000)
    return figures


def _parse(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.latency", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="samples per figure")
    parser.add_argument(
        "--poll-seconds",
        type=float,
        default=DEFAULT_POLL_SECONDS,
        help="the bridge's poll interval (default: its production default)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the start offsets")
    parser.add_argument(
        "--resolve-latency-ms",
        type=float,
        default=0.0,
        help="slow Novo's resolve by this much (the ack must not wait for it)",
    )
    args = parser.parse_args(argv)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    if args.poll_seconds <= 0:
        parser.error("--poll-seconds must be positive")
    return Options(args.samples, args.poll_seconds, args.seed, args.resolve_latency_ms)


def main(argv: list[str] | None = None) -> int:
    opts = _parse(argv)
    began = time.monotonic()
    figures = asyncio.run(measure(opts))
    print(
        f"novo-slack latency: {opts.samples} samples per figure, poll interval "
        f"{opts.poll_seconds:g} s, start offsets uniform in [0, {opts.poll_seconds:g}) s, "
        f"seed {opts.seed}, Novo's resolve slowed by {opts.resolve_latency_ms:g} ms"
    )
    print()
    print(format_table(list(figures.items())))
    print()
    acks = figures[ACKED]
    print(
        f"{ACKED}: median {statistics.median(acks):.1f} ms, p99 {percentile(acks, 0.99):.1f} ms "
        f"(nearest rank of {len(acks)}), with Novo's resolve slowed by "
        f"{opts.resolve_latency_ms:g} ms: the ack never waits for Novo"
    )
    print()
    print(f"run took {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
