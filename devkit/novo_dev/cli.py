"""`novo-slack sim` and `novo-slack demo`: the dev kit's commands, added to the bridge's CLI
through the `novo_slack.commands` entry points (devkit/pyproject.toml).

Each `add_*` only adds its parser; what the command runs (aiohttp servers, the bridge, the
playground) is imported when it runs, so `novo-slack --help` stays as quick as without
the dev kit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from bot.config import SettingsError

if TYPE_CHECKING:
    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def add_sim(commands: Commands) -> None:
    sim = commands.add_parser("sim", help="serve the Novo Interactions API simulator")
    sim.add_argument("--host", default="127.0.0.1")
    sim.add_argument("--port", type=int, default=8787)
    sim.add_argument("--api-key", default=None, help="require this Bearer key (default: none)")
    sim.add_argument("--park-seconds", type=float, default=900.0, help="default expiry window (s)")
    sim.add_argument("--demo", action="store_true", help="seed and keep creating interactions")
    sim.set_defaults(run=_sim)


def _sim(args: argparse.Namespace) -> int:
    from novo_dev.sim.server import run_sim

    run_sim(
        args.host,
        args.port,
        api_key=args.api_key,
        park_seconds=args.park_seconds,
        demo=args.demo,
    )
    return 0


def add_demo(commands: Commands) -> None:
    demo = commands.add_parser("demo", help="simulator + local Slack + bridge, with a transcript")
    demo.add_argument(
        "--seconds", type=float, default=0, help="stop after this long (default: until Ctrl-C)"
    )
    demo.add_argument("--no-clicks", action="store_true", help="don't script any clicks")
    demo.add_argument(
        "--ui", action="store_true", help="serve the playground page where you click (no scripts)"
    )
    demo.add_argument("--ui-port", type=int, default=8700, help="the playground's port (loopback)")
    demo.add_argument("--clicks", action="store_true", help="with --ui: script clicks as well")
    demo.add_argument(
        "--policy",
        metavar="FILE",
        type=Path,
        default=None,
        help="this policy file instead of the bundled example (novo_dev/demo/policy.yml)",
    )
    demo.add_argument(
        "--no-seed", action="store_true", help="start with an empty simulator (make your own)"
    )
    demo.add_argument(
        "--rate",
        type=float,
        default=0,
        metavar="N",
        help="after the first round, N new run steps a minute (default 0: none)",
    )
    demo.set_defaults(run=_demo)


def _demo(args: argparse.Namespace) -> int:
    from novo_dev.demo import run_demo
    from novo_dev.demo.runner import DEMO_POLICY

    if args.rate < 0:
        raise SettingsError(f"--rate must be 0 or more, got {args.rate:g}")
    return run_demo(
        seconds=args.seconds,
        scripted_clicks=not args.no_clicks and (args.clicks or not args.ui),
        ui=args.ui,
        ui_port=args.ui_port,
        policy=args.policy or DEMO_POLICY,
        seed=not args.no_seed,
        rate=args.rate,
    )
