"""`python -m bench.policy_match`: what matching a record against a policy costs when
its rules read the tool call (`when:` conditions in CEL).

The policy has 50 rules, each with a condition of a common shape (a number
compared, a value in a list, `has()`, a string in the preview, a question's
title); the records match none of them, so every rule is judged and every
condition evaluated — the most a record can cost. Figures, medians in
milliseconds:

- *per record*: `route_for` on the demo's records, on one with a 200 KB tool input
  (the input is converted for CEL once per record, shared by the 50 conditions),
  a later ask for the same version of a record (`LivePolicy.route` keeps the answer),
  and the same policy without conditions, for comparison;
- *beside posting it*: rendering the record's message, one part of posting it,
  and the pace Slack allows posts to one channel (about one a second);
- *at load*: reading the file and compiling its 50 conditions, once per load.

Progress goes to stderr, the figures to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench.redaction import _median_ms, _record, demo_records, large_record
from bot.novo.models import Interaction
from bot.policy.file import PolicyFile, load_policy
from bot.policy.live import LivePolicy
from bot.policy.routes import route_for
from bot.slack.render.context import MessageContext
from bot.slack.render.message import render_message

RULES = 50
DEFAULT_REPEAT = 200
SLACK_POST_MS = 1000.0
"""Slack lets a bot post about one message a second to a channel."""

_SHAPES = (  # (kind, when): a question's input is null, so input conditions name the kind
    ("approval_request", 'has(input.amount) && input.amount > {n}000 && input.currency == "USD"'),
    ("approval_request", 'has(input.env) && input.env in ["prod-{n}", "production-{n}"]'),
    ("approval_request", "has(input.force{n}) && input.force{n}"),
    (
        "approval_request",
        'preview != null && has(preview.title) && preview.title.contains("DROP {n}")',
    ),
    ("question", 'request.title.contains("refund {n}")'),
)


def policy_text(conditions: bool) -> str:
    lines = ["defaults:", "  channel: C0BENCH", "rules:"]
    for n in range(RULES):
        lines.append(f"  - name: rule-{n}")
        if conditions:
            kind, when = _SHAPES[n % len(_SHAPES)]
            lines.append(f"    match: {{kind: {kind}, when: '{when.format(n=n)}'}}")
        else:
            lines.append(f"    match: {{toolName: never_{n}}}")
        lines.append(f"    channel: C0R{n:03d}")
    return "\n".join(lines) + "\n"


def _load(text: str) -> PolicyFile:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "policy.yml"
        path.write_text(text, encoding="utf-8")
        return load_policy(path)


def _route_ms(policy: PolicyFile, record: Interaction, repeat: int) -> float:
    route = route_for(policy, record, "C0BENCH")
    assert route.rule == "defaults" and not route.unsure, (route.rule, route.unsure)
    return _median_ms(lambda: route_for(policy, record, "C0BENCH"), repeat)


def measure(repeat: int) -> list[tuple[str, float]]:
    with_conditions, plain = _load(policy_text(True)), _load(policy_text(False))
    records = demo_records()
    large = large_record()
    refund = _record({"amount": 20, "currency": "EUR", "env": "staging", "force": False})
    print(f"{len(records)} demo records, {RULES} rules", file=sys.stderr)
    each = [_route_ms(with_conditions, r, repeat) for r in records]
    live = LivePolicy("C0BENCH", with_conditions)
    live.route(large)
    return [
        (f"demo records ({len(records)}), each, median", statistics.median(each)),
        ("demo records, slowest", max(each)),
        ("a small refund", _route_ms(with_conditions, refund, repeat)),
        ("a 200 KB tool input", _route_ms(with_conditions, large, max(1, repeat // 10))),
        (
            f"the same {RULES} rules without conditions, a demo record",
            statistics.median(_route_ms(plain, r, repeat) for r in records),
        ),
        (
            "a later ask for the same version (cached)",
            _median_ms(lambda: live.route(large), repeat),
        ),
        ("its message rendered (a small refund)", _render_ms(refund, repeat)),
        ("Slack's pace of posts to one channel", SLACK_POST_MS),
        (
            f"loading the file, {RULES} conditions compiled",
            _median_ms(lambda: _load(policy_text(True)), max(1, repeat // 20)),
        ),
        (
            f"loading the file, {RULES} rules without conditions",
            _median_ms(lambda: _load(policy_text(False)), max(1, repeat // 20)),
        ),
    ]


def _render_ms(record: Interaction, repeat: int) -> float:
    ctx = MessageContext(now=datetime.now(UTC))
    return _median_ms(lambda: render_message(record, ctx), repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    args = parser.parse_args(argv)
    figures = measure(args.repeat)
    print(f"matching a record against {RULES} rules with conditions (none matches)")
    for label, ms in figures:
        print(f"  {label:<56}{ms:>10.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
