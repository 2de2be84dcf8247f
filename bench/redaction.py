"""`python -m bench.redaction`: what hiding secrets costs, per interaction and per poll.

Four figures:

- *the corpus*: how many of `tests/redaction/corpus.py`'s credential
  plantings leak, per placement, how many harmless plantings are masked
  for nothing, and the scan's cost per planted record;
- *per interaction*: `redact_interaction` on every demo template (the shapes
  a demo shows: rich tool inputs, previews, every kind of question), on one
  holding a credential of each kind, and the cached look-up every later read
  of the same record version costs (`LivePolicy.shown`);
- *a 200 KB input*: the scan of one tool input of that size (ordinary text
  with a few credentials in it), beside rendering its message and its full
  input viewer, and Slack's 3 s to acknowledge a click;
- *polls*: `bench.poll_cost`'s measurement run twice, with redaction and with
  `LivePolicy.shown` replaced by the identity (redaction off), so the
  difference is what redaction adds to a poll.

Times are medians of repeated runs, in milliseconds; progress goes to
stderr, the figures to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import poll_cost
from bot.novo.models import Interaction
from bot.policy.live import LivePolicy
from bot.redaction import redact_interaction
from bot.slack.render.context import MessageContext
from bot.slack.render.input_viewer import input_viewer_page_count, render_input_viewer
from bot.slack.render.message import render_message
from novo_dev.sim.demo_data import TEMPLATES, create_group
from novo_dev.sim.state import SimState
from tests.redaction import corpus

LARGE_INPUT_BYTES = 200_000
DEFAULT_REPEAT = 200
DEFAULT_PENDING = 200
DEFAULT_ROUNDS = 5


def _median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def demo_records() -> list[Interaction]:
    state = SimState()
    for group in TEMPLATES:
        create_group(state, group)
    return [Interaction.from_wire(i.to_wire()) for i in state.interactions()]


def _record(input_value: Any, preview: dict[str, Any] | None = None) -> Interaction:
    now = datetime.now(UTC)
    return Interaction.from_wire(
        {
            "id": "int_bench",
            "object": "interaction",
            "runId": "run_bench",
            "rootRunId": "run_bench",
            "workerRef": None,
            "threadId": "thr_bench",
            "agentId": "agt_bench",
            "kind": "approval_request",
            "status": "pending",
            "stepNumber": 1,
            "toolName": "run_sql",
            "toolCallId": "call_bench",
            "input": input_value,
            "preview": preview,
            "expiresAt": (now + timedelta(hours=1)).isoformat(),
            "createdAt": now.isoformat(),
            "updatedAt": now.isoformat(),
        }
    )


def planted_record() -> Interaction:
    return _record(
        {
            "db_url": "postgresql://app:Hunter2-Pa55!@db.internal:5432/prod",
            "password": "correct-horse-battery",
            "command": "curl -H 'Authorization: Bearer abcdefghijklmnop0123' https://api.internal",
            "token": "ghp_" + "a1" * 18,
            "aws": "AKIAZ7QW3PLANTED4KEY",
            "commit": "3f786850e387550fdab836ed7e6dc881de23001b",
        },
        {"Target": "db.internal", "Statement": "UPDATE users SET plan = 'pro' WHERE id = 42"},
    )


def large_record() -> Interaction:
    """A 200 KB tool input: rows of ordinary values, a credential every few hundred rows."""
    rows: list[dict[str, Any]] = []
    size = 0
    n = 0
    while size < LARGE_INPUT_BYTES:
        row: dict[str, Any] = {
            "id": f"row_{n:06d}",
            "host": f"web-{n % 40}.prod.internal",
            "sha": f"{n:040x}",
            "note": f"restart pod web-{n % 40} after deploy {n} of release 2026.{n % 12}",
        }
        if n % 300 == 0:
            row["dsn"] = f"redis://default:Pa55-{n}-word@cache.internal:6379/0"
        rows.append(row)
        size += sum(len(str(v)) + len(k) + 6 for k, v in row.items())
        n += 1
    return _record({"rows": rows}, {"Rows": len(rows)})


def per_interaction(repeat: int) -> list[tuple[str, float]]:
    records = demo_records()
    planted = planted_record()
    policy = LivePolicy("C0BENCH")
    policy.shown(planted)
    return [
        (
            f"demo templates ({len(records)}), each",
            statistics.median(
                _median_ms(lambda r=r: redact_interaction(r), repeat)  # type: ignore[misc]
                for r in records
            ),
        ),
        (
            "demo templates, slowest",
            max(_median_ms(lambda r=r: redact_interaction(r), repeat) for r in records),  # type: ignore[misc]
        ),
        (
            "one credential of each common kind",
            _median_ms(lambda: redact_interaction(planted), repeat),
        ),
        (
            "a later read of the same version (cached)",
            _median_ms(lambda: policy.shown(planted), repeat),
        ),
    ]


def large_input(repeat: int) -> list[tuple[str, float]]:
    record = large_record()
    shown = redact_interaction(record).shown
    ctx = MessageContext(now=datetime.now(UTC))
    pages = input_viewer_page_count(shown)
    hidden = len(redact_interaction(record).findings)
    return [
        (
            f"scan of the 200 KB input ({hidden} values hidden)",
            _median_ms(lambda: redact_interaction(record), repeat),
        ),
        ("its message, rendered", _median_ms(lambda: render_message(shown, ctx), repeat)),
        (
            f"its input viewer, all {pages} pages rendered",
            _median_ms(
                lambda: [render_input_viewer(shown, p) for p in range(pages)], max(1, repeat // 10)
            ),
        ),
        ("Slack's time to acknowledge a click", 3000.0),
    ]


@dataclass(frozen=True)
class CorpusFigures:
    """Leaks per placement as (leaked, planted), harmless plantings masked, cost per record."""

    leaks: dict[str, tuple[int, int]]
    over_masked: tuple[int, int]
    median_ms: float
    slowest_ms: float


def corpus_figures(repeat: int) -> CorpusFigures:
    leaks: dict[str, tuple[int, int]] = {}
    planted = corpus.corpus()
    records: list[Interaction] = []
    for placement in corpus.PLACEMENTS:
        eligible = [
            (i, p) for i, p in enumerate(planted) if p.alone or placement in corpus.NAMED_PLACEMENTS
        ]
        leaks[placement] = (len(corpus.leaks_in(placement)), len(eligible))
        records += [corpus.record(*corpus.plantings(p, i)[placement]) for i, p in eligible]
    masked, total, _ = corpus.over_masked()
    sample = records[:: max(1, len(records) // 200)]
    times = [_median_ms(lambda r=r: redact_interaction(r), repeat) for r in sample]  # type: ignore[misc]
    return CorpusFigures(leaks, (masked, total), statistics.median(times), max(times))


@dataclass
class ShownCalls:
    """How often the poll benchmark's bridge asked for a shown copy, and the time it took."""

    calls: int = 0
    seconds: float = 0.0


async def polls(
    pending: int, rounds: int
) -> tuple[list[poll_cost.PollCost], list[poll_cost.PollCost], ShownCalls]:
    """`rounds` poll measurements with redaction on and as many off, taken in turn so a
    busy machine weighs on both alike; with it on, every `LivePolicy.shown` is timed."""
    on: list[poll_cost.PollCost] = []
    off: list[poll_cost.PollCost] = []
    counted = ShownCalls()
    original = LivePolicy.shown

    def timed(self: LivePolicy, interaction: Interaction) -> Interaction:
        began = time.perf_counter()
        try:
            return original(self, interaction)
        finally:
            counted.calls += 1
            counted.seconds += time.perf_counter() - began

    for n in range(rounds):
        print(f"poll round {n + 1} of {rounds}", file=sys.stderr, flush=True)
        LivePolicy.shown = timed  # type: ignore[method-assign]
        try:
            on.append(await poll_cost.measure(pending))
        finally:
            LivePolicy.shown = original  # type: ignore[method-assign]
        LivePolicy.shown = lambda self, interaction: interaction  # type: ignore[method-assign]
        try:
            off.append(await poll_cost.measure(pending))
        finally:
            LivePolicy.shown = original  # type: ignore[method-assign]
    return on, off, counted


def corpus_report(figures: CorpusFigures) -> list[str]:
    leaked = sum(n for n, _ in figures.leaks.values())
    planted = sum(t for _, t in figures.leaks.values())
    masked, total = figures.over_masked
    lines = [f"the corpus: {leaked} of {planted} credential plantings leaked"]
    lines += [f"  {place:<52}{n:>5} of {t}" for place, (n, t) in figures.leaks.items()]
    lines += [
        f"  {'harmless plantings masked':<52}{masked:>5} of {total} ({masked / total:.1%})",
        f"  {'scan of one planted record, median':<52}{figures.median_ms:>9.3f} ms",
        f"  {'scan of one planted record, slowest':<52}{figures.slowest_ms:>9.3f} ms",
    ]
    return lines


def report(
    interaction: list[tuple[str, float]],
    large: list[tuple[str, float]],
    measured: tuple[list[poll_cost.PollCost], list[poll_cost.PollCost], ShownCalls] | None,
) -> str:
    def row(label: str, value: str) -> str:
        return f"  {label:<52}{value:>12}"

    lines = ["novo-slack redaction cost (medians)", "", "per interaction"]
    lines += [row(label, f"{ms:.3f} ms") for label, ms in interaction]
    lines += ["", "a 200 KB tool input"]
    lines += [row(label, f"{ms:.1f} ms") for label, ms in large]
    if measured is not None:
        on, off, counted = measured
        lines += [
            "",
            f"polls with {on[0].pending} pending approvals, median of {len(on)} rounds"
            " (redaction on / off)",
        ]
        for label, field in (
            ("poll that posted them all, wall time", "initial_poll_seconds"),
            ("one steady-state poll, wall time", "steady_poll_seconds"),
        ):
            a = statistics.median(float(getattr(c, field)) for c in on) * 1000
            b = statistics.median(float(getattr(c, field)) for c in off) * 1000
            change = (a - b) / b * 100 if b else 0.0
            lines.append(row(label, f"{a:.0f} / {b:.0f} ms") + f"  ({change:+.1f} %)")
        per_round = counted.calls / len(on)
        lines.append(
            row("shown copies asked for, per run (post and polls)", f"{per_round:.0f}")
            + f"  ({counted.seconds / len(on) * 1000:.1f} ms in all)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.redaction", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="poll runs each way")
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT, help="runs per timing")
    parser.add_argument(
        "--pending",
        type=int,
        default=DEFAULT_PENDING,
        help="approvals for the poll figures (0: skip)",
    )
    args = parser.parse_args(argv)
    print("the corpus", file=sys.stderr, flush=True)
    print("\n".join(corpus_report(corpus_figures(max(1, args.repeat // 10)))) + "\n")
    print("timing the scans", file=sys.stderr, flush=True)
    interaction = per_interaction(args.repeat)
    large = large_input(max(1, args.repeat // 10))
    logging.getLogger(poll_cost.SCHEDULER_LOGGER).setLevel(logging.ERROR)
    measured = asyncio.run(polls(args.pending, args.rounds)) if args.pending > 0 else None
    print(report(interaction, large, measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())
