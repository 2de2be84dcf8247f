"""`python -m bench.approve_all`: how soon Slack hears back from *Approve all* on a big step.

One agent step pauses on `--siblings` tool calls (200 by default) under a rule that needs
two approvals; once every card is posted and the step's message offers *Approve all*, one
decider clicks it `--samples` times over fresh steps. Figures, in milliseconds:

- *click -> ack*: from the signed click until the bridge's HTTP 200 arrives (Slack shows
  the person an error past 3 s);
- *click -> every vote shown*: until the step's message says all of them were counted.

`tests/e2e/test_decision_integrity.py` checks what such a click does; this is how fast.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import CHANNEL, USER_ID, Rig, format_table, running_rig
from bot.slack.ids import ActionId
from tests.support import wait_until

GROUP_EVENT = "novo_step_group"
SECOND_DECIDER = "U0BENCH2"
POLICY = f"""rules:
  - name: quorum
    match: {{toolName: 'tool_*'}}
    deciders: {{users: [{USER_ID}, {SECOND_DECIDER}]}}
    quorum: 2
"""


def _group_ts(rig: Rig, run_id: str) -> str | None:
    for message in rig.slack.messages(CHANNEL):
        payload = (message.metadata or {}).get("event_payload") or {}
        if (message.metadata or {}).get("event_type") == GROUP_EVENT and run_id in str(payload):
            return message.ts
    return None


def _text(rig: Rig, ts: str) -> str:
    message = rig.slack.message(CHANNEL, ts)
    return "" if message is None else f"{message.text} {message.blocks}"


async def _one_sample(rig: Rig, siblings: int, sample: int) -> tuple[float, float]:
    run_id = f"run_bench_{sample}"
    for n in range(siblings):
        await rig.create_approval(toolName=f"tool_{n}", runId=run_id, stepNumber=1)
    ts: str = await wait_until(lambda: _group_ts(rig, run_id), timeout=60, message="the group")
    await wait_until(
        lambda: f"Approve all ({siblings})" in _text(rig, ts),
        timeout=600,
        message=f"Approve all ({siblings}) offered",
    )
    began = time.monotonic()
    response = await rig.driver.click_message_button(USER_ID, CHANNEL, ts, ActionId.APPROVE_ALL)
    acked = time.monotonic() - began
    if response.status_code != 200:
        raise RuntimeError(f"the click was answered {response.status_code}: {response.text}")
    await wait_until(
        lambda: f"{siblings} counted towards a quorum" in _text(rig, ts),
        timeout=120,
        message="every vote shown",
    )
    return acked * 1000, (time.monotonic() - began) * 1000


async def measure(siblings: int, samples: int) -> list[tuple[str, list[float]]]:
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as folder:
        policy = Path(folder) / "policy.yml"
        policy.write_text(POLICY, encoding="utf-8")
        async with running_rig(poll_seconds=0.5, post_rate=50.0, config_path=policy) as rig:
            rig.slack.add_user(SECOND_DECIDER, "second", "Second Decider")
            acks: list[float] = []
            shown: list[float] = []
            for sample in range(samples):
                print(f"  sample {sample + 1}: posting {siblings} cards", file=sys.stderr)
                ack_ms, shown_ms = await _one_sample(rig, siblings, sample)
                acks.append(ack_ms)
                shown.append(shown_ms)
    return [("click -> ack", acks), ("click -> every vote shown", shown)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.approve_all", description=__doc__)
    parser.add_argument("--siblings", type=int, default=200, help="tool calls in the step")
    parser.add_argument("--samples", type=int, default=3, help="steps clicked, one each")
    options = parser.parse_args(argv)
    rows = asyncio.run(measure(options.siblings, options.samples))
    print(f"novo-slack approve_all: Approve all on a step of {options.siblings} under a quorum\n")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
