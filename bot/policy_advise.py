"""`novo-slack policy advise [--days N] [--format text|json] [--policy FILE]`: per rule,
tool and agent, how the window's interactions ended, and the policy changes the figures
call for (`bot.services.advice` decides both; this module reads and prints).

It reads the store beside a running bridge (no lock, no migration) and the policy
file (`--policy`, else NOVO_SLACK_CONFIG; none: the defaults), so it says what would
change in the file the bridge runs with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

from bot.bridge.startup import StartupFailure
from bot.config import SettingsError, load_settings_for
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.services.advice import OUTCOMES, Advice, Figures, advice_from
from bot.store import Store, StoreOpenError
from bot.terminal import terminal_safe


def advise_command(args: argparse.Namespace) -> int:
    if args.days < 1:
        raise SettingsError(f"--days must be 1 or more, got {args.days}")
    settings = load_settings_for({"NOVO_SLACK_DB", "NOVO_SLACK_CONFIG"})
    try:
        policy = load_policy(args.policy or settings.config_path)
    except PolicyError as exc:
        raise SettingsError(str(exc)) from None
    advice = asyncio.run(_advice(settings.db_path, policy, args.days))
    print(
        as_json(advice) if args.format == "json" else terminal_safe("\n".join(text_lines(advice)))
    )
    return 0


async def _advice(target: Path | str, policy: PolicyFile, days: int) -> Advice:
    try:
        store = await Store.open_reader(target)
    except StoreOpenError as exc:
        raise StartupFailure(str(exc)) from exc
    try:
        return await advice_from(store, policy, days, datetime.now(UTC))
    finally:
        await store.close()


def as_json(advice: Advice) -> str:
    return json.dumps(
        {
            "days": advice.days,
            "groups": [
                {"rule": rule, "tool": tool, "agent": agent, **figures.as_json()}
                for (rule, tool, agent), figures in sorted(advice.groups.items())
            ],
            "proposals": [p.as_json() for p in advice.proposals],
            "events_without_rule": advice.unlabelled,
        },
        indent=2,
    )


def text_lines(advice: Advice) -> list[str]:
    lines = [f"Last {advice.days} days, by rule, tool and agent:"]
    if not advice.groups:
        lines.append("  nothing ended in the window")
    for (rule, tool, agent), figures in sorted(advice.groups.items()):
        lines.append(f"  {rule} · {tool} · {agent or '?'}: {_figures(figures)}")
    if advice.unlabelled:
        lines.append(f"  ({advice.unlabelled} endings recorded before events named their rule)")
    lines.append("")
    if not advice.proposals:
        lines.append("No changes proposed.")
    for number, proposal in enumerate(advice.proposals, start=1):
        lines.append(f"{number}. {proposal.summary}")
        if proposal.snippet:
            lines.extend("     " + line for line in proposal.snippet.splitlines())
    return lines


def _figures(f: Figures) -> str:
    parts = [f"{getattr(f, name)} {name}" for name in OUTCOMES if getattr(f, name)]
    median = f.median_seconds
    if median is not None:
        parts.append(f"median {_duration(median)} to decide")
    if f.deciders:
        parts.append("by " + ", ".join(f"{who} ({n})" for who, n in f.deciders.most_common(3)))
    return ", ".join(parts)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
