"""The `novo-slack` command: `run` the bridge, `check` it can, `db` its schema, `policy`
check, test, explain and advise on the policy file, `audit` export and verify the trail.

Commands of packages installed beside the bridge join through the `novo_slack.commands`
entry points: the dev kit (devkit/) adds `sim` and `demo` that way, so the product never
imports a stand-in, and a production install offers neither."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from bot import __version__
from bot.bridge.startup import EXIT_SETTINGS, EXIT_WORLD, StartupFailure
from bot.config import SettingsError, load_log_settings, load_settings, load_settings_for
from bot.logs import configure_logging

log = logging.getLogger("novo-slack")

# What `db` and `audit` read: the store, nothing of Slack or Novo.
STORE_SETTINGS = frozenset({"NOVO_SLACK_DB"})


BUILT_IN = frozenset({"run", "check", "db", "policy", "audit", "settings", "manifest"})
"""The bridge's own commands: starting one of them reads no entry points."""


def _parser(plugins: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="novo-slack",
        description="Put Novo agents' approvals and questions in front of people, in Slack.",
    )
    parser.add_argument("--version", action="version", version=f"novo-slack {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = _Commands(parser.add_subparsers(dest="command", required=True))

    commands.add_parser("run", help="run the bridge (settings from the environment or .env)")
    commands.add_parser(
        "settings", help="print every setting with its meaning and default (a .env to fill in)"
    )
    manifest = commands.add_parser(
        "manifest", help="print the Slack app manifest the bridge expects (create the app from it)"
    )
    manifest.add_argument(
        "--host",
        type=_host,
        default=None,
        help="the host Slack reaches (your Ingress's), put in the three request URLs",
    )
    manifest.add_argument(
        "--socket-mode", action="store_true", help="Socket Mode on (the URLs are then ignored)"
    )
    check = commands.add_parser(
        "check", help="check the settings, Slack, Novo and the store before going live"
    )
    check.add_argument(
        "--manifest",
        metavar="FILE",
        type=Path,
        default=None,
        help="the Slack app manifest to compare with the settings (default: ./manifest.yml)",
    )

    db = commands.add_parser("db", help="the store's schema in NOVO_SLACK_DB")
    db.add_argument(
        "action",
        choices=("upgrade", "current"),
        help="upgrade: migrate to the newest revision; current: show the revision it is at",
    )

    if plugins:
        _plugin_commands(commands)
    _policy_parser(commands)
    _audit_parser(commands)
    return parser


class _Commands:
    """The subcommands, each of which also takes `-v` after its name (`novo-slack check -v`),
    as people type it; before the name it works as well."""

    def __init__(self, actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        self._actions = actions

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        command = self._actions.add_parser(name, **kwargs)
        # SUPPRESS: absent after the name, the value given before it (or False) stands
        command.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug logging"
        )
        return command


COMMANDS_GROUP = "novo_slack.commands"
"""Entry points naming `add(commands)`: each adds a subcommand whose parser sets `run`."""

Command = Callable[[argparse.Namespace], int]
"""What a plugged-in command's parser sets as `run`: its arguments in, the exit code out."""


def _plugin_commands(commands: _Commands) -> None:
    """The subcommands of the packages installed beside the bridge (the dev kit's `sim`
    and `demo`). Each entry point is loaded only to add its parser: what it runs is
    imported when it runs."""
    for found in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.name):
        found.load()(commands)


def _audit_parser(commands: _Commands) -> None:
    """`audit [export] [--since] [--id] [--format]` and `audit verify [--file EXPORT]`
    (`audit` alone exports, as it did before it had verbs)."""
    audit = commands.add_parser(
        "audit", parents=[_export_options()], help="print the audit trail, or verify its chain"
    )
    actions = _Commands(audit.add_subparsers(dest="audit_command"))
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


def _policy_parser(commands: _Commands) -> None:
    """`policy check FILE`, `policy test FILE CASES`, `policy explain (--id | --file)
    [--policy FILE]` and `policy advise`."""
    policy = commands.add_parser(
        "policy", help="check or test the policy file, explain a routing, or advise changes"
    )
    actions = _Commands(policy.add_subparsers(dest="policy_command", required=True))
    check = actions.add_parser(
        "check", help="validate a policy file (no settings, no network needed)"
    )
    check.add_argument("file", type=Path, help="the policy file (YAML)")
    test = actions.add_parser(
        "test", help="run example records (a case file) against a policy file, as CI would"
    )
    test.add_argument("file", type=Path, help="the policy file (YAML)")
    test.add_argument("cases", type=Path, help="the case file (YAML): records and what to expect")
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


def _host(value: str) -> str:
    """A host name as the manifest's URLs take it (`slack.example.org`), not a URL."""
    if not value or "/" in value or any(c.isspace() for c in value):
        raise argparse.ArgumentTypeError(
            f"a host name like slack.example.org, not {value!r} (no https://, no path)"
        )
    return value


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
    if args.policy_command == "test":
        from bot.policy.cases import run_cases

        return run_cases(args.file, args.cases)
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
    given = list(sys.argv[1:] if argv is None else argv)
    # `run` (every start of the bridge) skips the scan of the installed packages' metadata
    command = next((a for a in given if not a.startswith("-")), None)
    args = _parser(plugins=command not in BUILT_IN).parse_args(given)
    _configure_logging(args.verbose)
    try:
        if args.command == "run":
            return asyncio.run(_run_bridge())
        if args.command == "check":
            from bot.check import run_check

            return asyncio.run(run_check(manifest=args.manifest))
        if args.command == "manifest":
            from bot.slack.manifest import manifest_text

            print(manifest_text(host=args.host, socket_mode=args.socket_mode), end="")
            return 0
        if args.command == "settings":
            from bot.envfile import render_env_example

            print(render_env_example(), end="")
            return 0
        if args.command == "db":
            return asyncio.run(_db(args.action))
        if args.command == "policy":
            return _policy(args)
        if args.command == "audit":
            return asyncio.run(_audit(args))
        plugged: Command = args.run
        return plugged(args)
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
