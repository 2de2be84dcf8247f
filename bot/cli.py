"""The `novo-slack` command: `run` the bridge, `check` it can, `db` its schema, `sim` Novo,
`demo` the loop, `policy` check, explain and advise on the policy file, `audit` export and
verify the trail."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from bot import __version__
from bot.bridge.startup import EXIT_SETTINGS, EXIT_WORLD, StartupFailure
from bot.config import SettingsError, load_log_settings, load_settings, load_settings_for
from bot.logs import configure_logging

log = logging.getLogger("novo-slack")

# What `db` and `audit` read: the store, nothing of Slack or Novo.
STORE_SETTINGS = frozenset({"NOVO_SLACK_DB"})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="novo-slack",
        description="Put Novo agents' approvals and questions in front of people, in Slack.",
    )
    parser.add_argument("--version", action="version", version=f"novo-slack {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("run", help="run the bridge (settings from the environment or .env)")
    commands.add_parser(
        "check", help="check the settings, Slack, Novo and the store before going live"
    )

    db = commands.add_parser("db", help="the store's schema in NOVO_SLACK_DB")
    db.add_argument(
        "action",
        choices=("upgrade", "current"),
        help="upgrade: migrate to the newest revision; current: show the revision it is at",
    )

    sim = commands.add_parser("sim", help="serve the Novo Interactions API simulator")
    sim.add_argument("--host", default="127.0.0.1")
    sim.add_argument("--port", type=int, default=8787)
    sim.add_argument("--api-key", default=None, help="require this Bearer key (default: none)")
    sim.add_argument("--park-seconds", type=float, default=900.0, help="default expiry window (s)")
    sim.add_argument("--demo", action="store_true", help="seed and keep creating interactions")

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
        help="this policy file instead of the bundled example (bot/demo/policy.yml)",
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
    _policy_parser(commands)
    _audit_parser(commands)
    return parser


def _audit_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`audit [export] [--since] [--id] [--format]` and `audit verify [--file EXPORT]`
    (`audit` alone exports, as it did before it had verbs)."""
    audit = commands.add_parser(
        "audit", parents=[_export_options()], help="print the audit trail, or verify its chain"
    )
    actions = audit.add_subparsers(dest="audit_command")
    actions.add_parser(  # unset here, an option given before `export` stands
        "export",
        parents=[_export_options(argparse.SUPPRESS)],
        help="print the trail with its chain fields",
    )
    verify = actions.add_parser(
        "verify", help="check the hash chain: exit 0 when intact, 1 naming where it breaks"
    )
    verify.add_argument(
        "--file",
        type=Path,
        default=None,
        metavar="EXPORT.jsonl",
        help="an export (`audit export --format jsonl`) instead of the store",
    )


def _export_options(unset: str | None = None) -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--since", default=unset, help="only the last span: 30m, 24h, 7d")
    options.add_argument("--id", dest="interaction_id", default=unset, help="one interaction")
    options.add_argument("--format", choices=("csv", "jsonl"), default=unset or "jsonl")
    return options


def _policy_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`policy check FILE`, `policy explain (--id | --file) [--policy FILE]`, `policy advise`."""
    policy = commands.add_parser(
        "policy", help="check the policy file, explain a routing, or advise changes"
    )
    actions = policy.add_subparsers(dest="policy_command", required=True)
    check = actions.add_parser(
        "check", help="validate a policy file (no settings, no network needed)"
    )
    check.add_argument("file", type=Path, help="the policy file (YAML)")
    explain = actions.add_parser(
        "explain", help="which rule applies to an interaction, where it goes, who may decide"
    )
    which = explain.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--id", dest="interaction_id", metavar="int_…", help="fetch it from Novo (NOVO_API_URL)"
    )
    which.add_argument(
        "--file",
        dest="interaction_file",
        metavar="interaction.json",
        type=Path,
        help="an interaction record as the API returns it",
    )
    explain.add_argument(
        "--policy",
        metavar="FILE",
        type=Path,
        default=None,
        help="this policy file instead of NOVO_SLACK_CONFIG",
    )
    advise = actions.add_parser(
        "advise", help="figures from the audit trail, changes they call for"
    )
    advise.add_argument("--days", type=int, default=30, help="the window (default: 30 days)")
    advise.add_argument("--format", choices=("text", "json"), default="text")
    advise.add_argument("--policy", metavar="FILE", type=Path, help="not NOVO_SLACK_CONFIG")


def _configure_logging(verbose: bool) -> None:
    wanted = load_log_settings()
    configure_logging(wanted.log_level, wanted.log_format, verbose=verbose)


async def _run_bridge() -> int:
    """Run until SIGINT/SIGTERM, which also cut a start-up short (e.g. Slack unreachable).

    SIGHUP reloads the policy file (`NOVO_SLACK_CONFIG`).
    """
    settings = load_settings()
    from bot.bridge.runtime import Bridge

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    bridge = Bridge(settings)
    loop.add_signal_handler(signal.SIGHUP, bridge.reload_policy)
    starting = asyncio.create_task(bridge.start(), name="start")
    stopped = asyncio.create_task(stop.wait(), name="signal")
    try:
        await asyncio.wait({starting, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            log.info("stopping before start-up finished")
            starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        if not starting.cancelled():
            starting.result()  # start-up failures surface here, already cleaned up
            await stop.wait()
    finally:
        stopped.cancel()
        await bridge.stop()
    return 0


async def _db(action: str) -> int:
    """Migrate or inspect the store without starting the bridge.

    Lets a deployment migrate once, before rolling out replicas, and lets an
    operator check which revision a database is at (beside a running bridge
    too: `current` only looks). `NOVO_SLACK_DB` is read as `run` reads it, so
    the job that migrates sees exactly the database the bridge will, and
    nothing else is asked for: a migration job needs no Slack token.
    """
    settings = load_settings_for(STORE_SETTINGS)
    from bot.store import StoreOpenError, admin
    from bot.store.migrate import head_revision
    from bot.store.target import parse_target

    step = admin.upgrade if action == "upgrade" else admin.current
    try:
        shown = parse_target(settings.db_path).shown
        revision = await step(settings.db_path)
    except StoreOpenError as exc:
        raise StartupFailure(str(exc)) from exc
    head = head_revision()
    if revision == head:
        print(f"{shown}: at revision {revision} (head)")
    elif revision:
        print(f"{shown}: at revision {revision}; head is {head}: run `novo-slack db upgrade`")
    else:
        print(f"{shown}: never migrated; head is {head}: run `novo-slack db upgrade`")
    return 0


async def _audit(args: argparse.Namespace) -> int:
    """Read beside a running bridge: neither the export nor a verify takes the store's lock."""
    from bot.audit import export_audit, parse_since
    from bot.store import StoreOpenError

    if args.audit_command == "verify":
        return await _verify(args.file)
    try:
        since = parse_since(args.since) if args.since else None
    except ValueError as exc:
        raise SettingsError(f"--since: {exc}") from None
    settings = load_settings_for(STORE_SETTINGS)
    try:
        await export_audit(
            settings.db_path, since=since, interaction_id=args.interaction_id, fmt=args.format
        )
    except StoreOpenError as exc:
        raise StartupFailure(str(exc)) from exc
    return 0


async def _verify(export: Path | None) -> int:
    """Exit 0 and one line when the chain is intact; 1 naming the first break."""
    from bot.audit_verify import verify_file, verify_store
    from bot.store import StoreOpenError
    from bot.terminal import terminal_safe

    if export is not None:
        verdict = verify_file(export)
    else:
        settings = load_settings_for(STORE_SETTINGS)
        try:
            verdict = await verify_store(settings.db_path)
        except StoreOpenError as exc:
            raise StartupFailure(str(exc)) from exc
    print(terminal_safe(verdict.line() if verdict.ok else f"chain broken: {verdict.line()}"))
    return 0 if verdict.ok else 1


def _policy(args: argparse.Namespace) -> int:
    """`policy check` reads a file alone; `policy explain` may ask Novo and Slack."""
    from bot.policy_cli import check_policy, explain_policy

    if args.policy_command == "check":
        return check_policy(args.file)
    if args.policy_command == "advise":
        from bot.policy_advise import advise_command

        return advise_command(args)
    return asyncio.run(
        explain_policy(
            interaction_id=args.interaction_id,
            interaction_file=args.interaction_file,
            policy_path=args.policy,
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _configure_logging(args.verbose)
    try:
        if args.command == "run":
            return asyncio.run(_run_bridge())
        if args.command == "check":
            from bot.check import run_check

            return asyncio.run(run_check())
        if args.command == "db":
            return asyncio.run(_db(args.action))
        if args.command == "policy":
            return _policy(args)
        if args.command == "audit":
            return asyncio.run(_audit(args))
        if args.command == "sim":
            from bot.sim.server import run_sim

            run_sim(
                args.host,
                args.port,
                api_key=args.api_key,
                park_seconds=args.park_seconds,
                demo=args.demo,
            )
            return 0
        from bot.demo import run_demo
        from bot.demo.runner import DEMO_POLICY

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
    except SettingsError as exc:
        return _failed(exc, EXIT_SETTINGS, args.verbose)
    except StartupFailure as exc:
        return _failed(exc, EXIT_WORLD, args.verbose)
    except KeyboardInterrupt:
        return 130


def _failed(exc: Exception, code: int, verbose: bool) -> int:
    """One line on stderr; the traceback too only when asked for with -v."""
    if verbose:
        log.debug("start-up failed", exc_info=exc)
    print(f"novo-slack: {exc}", file=sys.stderr)
    return code
