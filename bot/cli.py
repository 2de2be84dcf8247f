"""The `novo-slack` command: `run` the bridge, `sim` the Novo simulator, `demo` the whole loop."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence

from bot import __version__
from bot.config import SettingsError, load_settings
from bot.startup import EXIT_SETTINGS, EXIT_WORLD, StartupFailure

log = logging.getLogger("novo-slack")

# Libraries that narrate at INFO (migrations, every job run, every request): a failing
# start must print one line, and a running bridge's log should say what the bridge did.
_CHATTY_LOGGERS = ("alembic", "apscheduler", "httpx", "slack_bolt", "slack_sdk")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="novo-slack",
        description="Put Novo agents' approvals and questions in front of people, in Slack.",
    )
    parser.add_argument("--version", action="version", version=f"novo-slack {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("run", help="run the bridge (settings from the environment or .env)")

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
    return parser


class _CancelledWithoutTraceback(logging.Filter):
    """Work cut off at a bounded shutdown is expected, not a crash: one line, no traceback.

    APScheduler logs a cancelled job with `logger.exception`, whoever cancelled it.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            record.msg = f"{record.msg} (cancelled at shutdown)"
            record.exc_info = None
            record.exc_text = None
        return True


def _configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    if not verbose:
        for name in _CHATTY_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
        for handler in logging.getLogger().handlers:
            handler.addFilter(_CancelledWithoutTraceback())


async def _run_bridge() -> int:
    """Run until SIGINT/SIGTERM, which also cut a start-up short (e.g. Slack unreachable)."""
    settings = load_settings()
    from bot.runtime import Bridge

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    bridge = Bridge(settings)
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _configure_logging(args.verbose)
    try:
        if args.command == "run":
            return asyncio.run(_run_bridge())
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

        return run_demo(seconds=args.seconds, scripted_clicks=not args.no_clicks)
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
