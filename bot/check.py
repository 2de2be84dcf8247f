"""`novo-slack check`: everything the bridge needs, checked once, before going live.

`novo-slack run` stops at the first thing that is wrong; a platform engineer
setting it up wants the whole list at once, each item with what to do about
it, without starting anything that posts. Each check prints one line, `✓`
or `✗` (with the fix after `fix:`), or `–` when it could not run because an
earlier one failed. The exit code is 0 only when every check passed.

Nothing here changes anything: Slack is asked `auth.test`,
`apps.connections.open` and `conversations.info`; Novo a one-item list; the
store is only looked at (its lock taken and let go at once).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings, SettingsError, load_settings
from bot.novo.client import NovoClient
from bot.novo.errors import NovoAPIStatusError, NovoConnectionError, NovoError, UnauthorizedError
from bot.slack.scopes import REQUIRED_BOT_SCOPES
from bot.store import StoreOpenError, admin
from bot.store.errors import StoreLockedError
from bot.store.filelock import FileLock
from bot.store.migrate import head_revision
from bot.store.target import parse_target

CALL_TIMEOUT_SECONDS = 10
OK, FAILED, SKIPPED = "✓", "✗", "–"


@dataclass(frozen=True)
class Item:
    mark: str
    name: str
    detail: str
    fix: str = ""

    @property
    def line(self) -> str:
        line = f"{self.mark} {self.name}: {self.detail}"
        return f"{line} — fix: {self.fix}" if self.fix else line


def passed(name: str, detail: str) -> Item:
    return Item(OK, name, detail)


def failed(name: str, detail: str, fix: str) -> Item:
    return Item(FAILED, name, detail, fix)


def skipped(name: str, why: str) -> Item:
    return Item(SKIPPED, name, f"not checked: {why}")


async def run_check(out: TextIO | None = None) -> int:
    """Print the checklist as it goes; 0 when everything passed, 1 otherwise."""
    stream = out or sys.stdout
    ok = True
    async for item in checklist():
        print(item.line, file=stream, flush=True)
        ok = ok and item.mark == OK
    return 0 if ok else 1


async def checklist() -> AsyncIterator[Item]:
    """The checks in order, each yielded as soon as it is known."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        yield failed(
            "settings",
            str(exc),
            "set them in the environment or a .env file (see the settings table in the README)",
        )
        for name in ("bot token", "scopes", "app token", "channel", "Novo", "store"):
            yield skipped(name, "the settings are not valid")
        return
    mode = "Socket Mode" if settings.socket_mode else "HTTP mode"
    yield passed("settings", f"valid ({mode}, channel {settings.default_channel})")
    async with aiohttp.ClientSession() as session:
        slack = _slack_client(settings, session)
        token, scopes = await _bot_token(slack)
        yield token
        if scopes is None:
            yield skipped("scopes", "the bot token does not work")
        else:
            yield _scopes(scopes)
        yield await _app_token(slack, settings)
        for channel in configured_channels(settings):
            yield await _membership(slack, channel, works=scopes is not None)
    yield await _novo(settings)
    yield await _store(settings)


def configured_channels(settings: Settings) -> list[str]:
    """Every channel the bridge posts to."""
    return [settings.default_channel]


def _slack_client(settings: Settings, session: aiohttp.ClientSession) -> AsyncWebClient:
    kwargs: dict[str, Any] = {
        "token": settings.slack_bot_token.get_secret_value(),
        "timeout": CALL_TIMEOUT_SECONDS,
        "retry_handlers": [],  # a check says what it saw, at once
        "session": session,
    }
    if settings.slack_api_url:
        kwargs["base_url"] = settings.slack_api_url.rstrip("/") + "/"
    return AsyncWebClient(**kwargs)


async def _bot_token(slack: AsyncWebClient) -> tuple[Item, set[str] | None]:
    """The bot token's line, and the scopes it was granted (None when it does not work)."""
    try:
        response = await slack.auth_test()
    except SlackApiError as exc:
        return failed(
            "bot token",
            f"Slack refused SLACK_BOT_TOKEN (auth.test: {_slack_error(exc)})",
            "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page"
            " (install the app to the workspace first)",
        ), None
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return failed(
            "bot token",
            f"Slack did not answer auth.test ({type(exc).__name__}: {exc})",
            "check the network, a proxy, or SLACK_API_URL (unset it for Slack's own)",
        ), None
    header = _header(response.headers, "x-oauth-scopes")
    token = passed(
        "bot token",
        f"team {response.get('team')} ({response.get('team_id')}),"
        f" bot user {response.get('user')} ({response.get('user_id')})",
    )
    return token, {s.strip() for s in (header or "").split(",") if s.strip()}


def _scopes(granted: set[str]) -> Item:
    missing = [s for s in REQUIRED_BOT_SCOPES if s not in granted]
    if not missing:
        return passed("scopes", ", ".join(REQUIRED_BOT_SCOPES))
    return failed(
        "scopes",
        f"the bot token lacks {', '.join(missing)}",
        "add them under OAuth & Permissions → Bot Token Scopes (or update the app from"
        " manifest.yml), then reinstall the app and use the new bot token",
    )


async def _app_token(slack: AsyncWebClient, settings: Settings) -> Item:
    if settings.slack_app_token is None:
        return passed(
            "app token",
            "not set: HTTP mode (Slack must reach /slack/events on this host)",
        )
    try:
        await slack.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
    except SlackApiError as exc:
        return failed(
            "app token",
            f"Slack refused SLACK_APP_TOKEN (apps.connections.open: {_slack_error(exc)})",
            "create an app-level token with connections:write under Basic Information →"
            " App-Level Tokens, and turn Socket Mode on",
        )
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return failed(
            "app token",
            f"Slack did not answer apps.connections.open ({type(exc).__name__})",
            "check the network, a proxy, or SLACK_API_URL",
        )
    return passed("app token", "opens a Socket Mode connection")


async def _membership(slack: AsyncWebClient, channel: str, *, works: bool) -> Item:
    name = f"channel {channel}"
    if not works:
        return skipped(name, "the bot token does not work")
    try:
        response = await slack.conversations_info(channel=channel)
    except SlackApiError as exc:
        error = _slack_error(exc)
        fix = {
            "channel_not_found": "check NOVO_SLACK_CHANNEL (the id from the channel's details);"
            " for a private channel, invite the bot first: /invite @Novo",
            "missing_scope": "add channels:read and groups:read to the bot's scopes and"
            " reinstall the app",
        }.get(error, "check NOVO_SLACK_CHANNEL and the bot's scopes")
        return failed(name, f"conversations.info: {error}", fix)
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return failed(name, f"Slack did not answer ({type(exc).__name__})", "check the network")
    info = response.get("channel") or {}
    shown = f"#{info.get('name')}" if info.get("name") else channel
    if not info.get("is_member"):
        return failed(
            name,
            f"the bot is not a member of {shown}",
            f"invite it: /invite @Novo in {shown}",
        )
    return passed(name, f"the bot is a member of {shown}")


async def _novo(settings: Settings) -> Item:
    novo = NovoClient(
        settings.novo_api_url,
        settings.novo_api_key.get_secret_value(),
        max_retries=0,
        timeout=CALL_TIMEOUT_SECONDS,
    )
    try:
        page = await novo.list_records(status="pending", limit=1)
    except UnauthorizedError:
        return failed(
            "Novo",
            f"{settings.novo_api_url} refused NOVO_API_KEY (401)",
            "set NOVO_API_KEY to a key of this Novo deployment",
        )
    except NovoAPIStatusError as exc:
        return failed(
            "Novo",
            f"{settings.novo_api_url} answered {exc}",
            "check NOVO_API_URL names the API's base (e.g. https://api.novo.example)",
        )
    except NovoConnectionError as exc:
        return failed(
            "Novo",
            f"no answer from {settings.novo_api_url} ({exc})",
            "check NOVO_API_URL and that Novo is reachable from here",
        )
    except NovoError as exc:
        return failed("Novo", f"{settings.novo_api_url}: {exc}", "check NOVO_API_URL")
    finally:
        await novo.aclose()
    more = "+" if page.has_more else ""
    return passed(
        "Novo", f"{settings.novo_api_url} accepts the key ({len(page.data)}{more} pending)"
    )


async def _store(settings: Settings) -> Item:
    try:
        target = parse_target(settings.db_path)
    except StoreOpenError as exc:
        return failed("store", str(exc), "set NOVO_SLACK_DB to a file path or a postgresql:// URL")
    if target.path is not None and not target.path.exists():
        if target.path.parent.is_dir():
            return passed("store", f"sqlite {target.shown} is created at the first run")
        return failed(
            "store",
            f"directory {target.path.parent} does not exist",
            "create it, on persistent storage",
        )
    owner = _lock_holder(target.path, target.shown) if target.path is not None else None
    if owner is not None:
        return failed(
            "store",
            owner,
            "stop the other process first; several replicas need PostgreSQL",
        )
    try:
        revision = await admin.current(settings.db_path)
    except StoreOpenError as exc:
        return failed("store", str(exc), "fix NOVO_SLACK_DB or the database it names")
    head = head_revision()
    if revision == head:
        return passed("store", f"{target.shown} at schema revision {head} (current)")
    at = f"at revision {revision}" if revision else "never migrated"
    return failed(
        "store",
        f"{target.shown} is {at}; this version needs {head}",
        "run `novo-slack db upgrade` (the bridge also migrates when it starts)",
    )


def _lock_holder(path: Path, shown: str) -> str | None:
    """Why the SQLite file is not ours to take, or None (the lock is let go at once)."""
    try:
        FileLock.acquire(path, shown).release()
    except StoreLockedError as exc:
        return str(exc).removeprefix("NOVO_SLACK_DB: ")
    except OSError as exc:
        return f"{shown}: cannot take the lock ({exc.strerror or exc})"
    return None


def _slack_error(exc: SlackApiError) -> str:
    error = exc.response.get("error") if exc.response is not None else None
    return str(error) if error else f"HTTP {exc.response.status_code}"


def _header(headers: Any, name: str) -> str | None:
    for key, value in dict(headers or {}).items():
        if str(key).lower() == name:
            return str(value)
    return None
