"""`novo-slack check`: a dry run of `run`, everything it needs checked once, before going live.

`novo-slack run` stops at the first thing that is wrong; a platform engineer
setting it up wants the whole list at once, each item with what to do about
it, without starting anything that posts. Each check prints one line, `✓`
or `✗` (with the fix after `fix:`), or `–` when it could not run because an
earlier one failed. A mistake `run` refuses is shown in `run`'s own words
(the same functions word both), and the exit code is `run`'s: 2 when a
setting's value is wrong (the policy file included, and a token or key
refused), 1 when something it points at fails, 0 only when every check passed.

Beyond `run`'s own start-up it asks Slack about every channel the policy
posts to (routing, escalation, digests), every user it sends DMs and every
user group it counts on, since those would otherwise fail at the first post
or click. Nothing here changes anything: Slack is asked `auth.test`,
`apps.connections.open`, `conversations.info`, `users.info` and
`usergroups.users.list`; Novo a one-item list; the store is only looked at
(its lock taken and let go at once).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import aiohttp
import yaml
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.bridge.runtime import EVENTS_PATH
from bot.bridge.startup import EXIT_SETTINGS, EXIT_WORLD
from bot.config import Settings, SettingsError, load_settings
from bot.novo.probe import probe_novo
from bot.policy.explain import check_summary
from bot.policy.live import LivePolicy
from bot.policy.targets import Targets, policy_targets
from bot.slack.answers import describe, http_status, not_web_api, slack_error
from bot.slack.credentials import is_transient, refused
from bot.slack.manifest import EXAMPLE_HOST
from bot.slack.scopes import REQUIRED_BOT_EVENTS, REQUIRED_BOT_SCOPES
from bot.store import StoreOpenError, admin
from bot.store.errors import StoreLockedError
from bot.store.filelock import FileLock
from bot.store.migrate import head_revision, is_known_revision
from bot.store.target import parse_target

CALL_TIMEOUT_SECONDS = 10
OK, FAILED, SKIPPED = "✓", "✗", "–"
CHECK_NAMES = ("bot token", "scopes", "events", "mode", "app token", "channel", "Novo", "store")
MANIFEST = Path("manifest.yml")
"""The app manifest the app was created from, when it lies where the check runs."""


@dataclass(frozen=True)
class Item:
    mark: str
    name: str
    detail: str
    fix: str = ""
    code: int = EXIT_WORLD
    """The exit code this failure gives (`run`'s for the same mistake)."""

    @property
    def line(self) -> str:
        line = f"{self.mark} {self.name}: {self.detail}"
        return f"{line} — fix: {self.fix}" if self.fix else line


def passed(name: str, detail: str) -> Item:
    return Item(OK, name, detail)


def failed(name: str, detail: str, fix: str, *, setting: bool = False) -> Item:
    """A ✗; `setting`: a value is wrong (exit 2), not the world around it (exit 1)."""
    return Item(FAILED, name, detail, fix, EXIT_SETTINGS if setting else EXIT_WORLD)


def skipped(name: str, why: str) -> Item:
    return Item(SKIPPED, name, f"not checked: {why}")


async def run_check(out: TextIO | None = None, manifest: Path | None = None) -> int:
    """Print the checklist as it goes; `run`'s exit code for the worst failure, else 0."""
    stream = out or sys.stdout
    code = 0
    async for item in checklist(manifest or MANIFEST):
        print(item.line, file=stream, flush=True)
        if item.mark == FAILED:
            code = max(code, item.code)
        elif item.mark == SKIPPED:
            code = max(code, EXIT_WORLD)
    return code


async def checklist(manifest_path: Path = MANIFEST) -> AsyncIterator[Item]:
    """The checks in order, each yielded as soon as it is known; `manifest_path`: the app
    manifest to compare with the settings (the one beside the check by default)."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        yield failed(
            "settings",
            str(exc),
            "set them in the environment or a .env file (`novo-slack settings` prints every"
            " one with its meaning and default)",
            setting=True,
        )
        for name in ("policy", *CHECK_NAMES):
            yield skipped(name, "the settings are not valid")
        return
    mode = "Socket Mode" if settings.socket_mode else "HTTP mode"
    yield passed("settings", f"valid ({mode}, channel {settings.default_channel})")
    policy_item, targets = _policy(settings)
    yield policy_item
    manifest = read_manifest(manifest_path)
    async with aiohttp.ClientSession() as session:
        slack = _slack_client(settings, session)
        token, scopes = await _bot_token(slack)
        yield token
        works = scopes is not None
        if scopes is None:
            yield skipped("scopes", "the bot token does not work")
        else:
            yield _scopes(scopes)
        if isinstance(manifest, Item):
            yield manifest
            yield skipped("mode", "the manifest can't be read")
        else:
            yield _events(manifest)
            yield _mode(manifest, settings)
        yield await _app_token(slack, settings, works=token.mark == OK)
        shown = targets or Targets(channels={settings.default_channel: ["NOVO_SLACK_CHANNEL"]})
        for channel, uses in shown.channels.items():
            yield await _membership(slack, channel, uses, works=works)
        for user, uses in shown.users.items():
            yield await _dm_target(slack, user, uses, works=works)
        for group, uses in shown.groups.items():
            yield await _group(slack, group, uses, works=works)
        if targets is None:
            yield skipped("the policy's channels, DMs and groups", "the policy file has a mistake")
    yield await _novo(settings)
    yield await _store(settings)


def _policy(settings: Settings) -> tuple[Item, Targets | None]:
    """The policy file read exactly as `run` reads it; what it names, when it can be used."""
    try:
        live = LivePolicy.configured(settings.config_path, settings.default_channel)
    except SettingsError as exc:
        return failed(
            "policy", str(exc), "correct the file (novo-slack policy check FILE)", setting=True
        ), None
    if settings.config_path is None:
        line = f"none (NOVO_SLACK_CONFIG unset): everything goes to {settings.default_channel}"
    else:
        line = check_summary(str(settings.config_path), live.current)
    return passed("policy", line), policy_targets(live.current, settings.default_channel)


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


SlackCall = Callable[[], Awaitable[Any]]
_NO_ANSWER = (aiohttp.ClientError, TimeoutError, OSError)


async def _bot_token(slack: AsyncWebClient) -> tuple[Item, set[str] | None]:
    """The bot token's line, and the scopes it was granted (None when it does not work)."""
    name = "bot token"
    try:
        response = await slack.auth_test()
    except SlackApiError as exc:
        error = slack_error(exc)
        if error is None and http_status(exc) < 500:
            return failed(name, not_web_api("auth.test", exc), _API_URL_FIX, setting=True), None
        if error is None or is_transient(error, http_status(exc)):
            return failed(
                name, f"Slack did not answer auth.test ({describe(exc)})", _NETWORK_FIX
            ), None
        return failed(
            name,
            refused("SLACK_BOT_TOKEN", "auth.test", error),
            "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page"
            " (install the app to the workspace first)",
            setting=True,
        ), None
    except _NO_ANSWER as exc:
        return failed(
            name, f"Slack did not answer auth.test ({type(exc).__name__}: {exc})", _NETWORK_FIX
        ), None
    header = _header(response.headers, "x-oauth-scopes")
    token = passed(
        name,
        f"team {response.get('team')} ({response.get('team_id')}),"
        f" bot user {response.get('user')} ({response.get('user_id')})",
    )
    return token, {s.strip() for s in (header or "").split(",") if s.strip()}


_API_URL_FIX = "unset SLACK_API_URL for Slack's own, or give the Web API's base (…/api/)"
_NETWORK_FIX = "check the network, a proxy, or SLACK_API_URL (unset it for Slack's own)"


_MANIFEST_COMMAND = "novo-slack manifest --host <your host>"
"""What prints the manifest the bridge expects: the installed command, in the image too."""


def _scopes(granted: set[str]) -> Item:
    missing = [s for s in REQUIRED_BOT_SCOPES if s not in granted]
    if not missing:
        return passed("scopes", ", ".join(REQUIRED_BOT_SCOPES))
    return failed(
        "scopes",
        f"the bot token lacks {', '.join(missing)}",
        "add them under OAuth & Permissions → Bot Token Scopes (or update the app from"
        f" {_MANIFEST_COMMAND}'s output), then reinstall the app and use the new bot token",
    )


_EVENTS_FIX = (
    "add them under Event Subscriptions → Subscribe to bot events (or update the app from"
    f" {_MANIFEST_COMMAND}'s output, which subscribes to them)"
)


@dataclass(frozen=True)
class Manifest:
    """The app manifest the check compares with the settings: its path, and what it
    says (None when there is no file there; an `Item` when it can't be read)."""

    path: Path
    data: dict[str, Any] | None

    @property
    def settings(self) -> dict[str, Any]:
        found = self.data.get("settings") if self.data is not None else None
        return found if isinstance(found, dict) else {}


def read_manifest(path: Path) -> Manifest | Item:
    """The manifest at `path` (an absent file is no mistake: there is nothing to compare)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Manifest(path, None)
    except (OSError, yaml.YAMLError) as exc:
        return failed(
            "manifest",
            f"{path} can't be read ({exc})",
            "fix the file or point --manifest elsewhere",
        )
    if not isinstance(data, dict):
        return failed(
            "manifest", f"{path} is not an app manifest", "point --manifest at the app's manifest"
        )
    return Manifest(path, data)


def _events(manifest: Manifest) -> Item:
    """The bot events a thread reply needs. Slack shows no token an app's subscriptions,
    so they are read from the manifest beside the check when there is one."""
    wanted = ", ".join(REQUIRED_BOT_EVENTS)
    if manifest.data is None:
        return passed(
            "events", f"no {manifest.path} here to read; the app must subscribe to {wanted}"
        )
    subscriptions = manifest.settings.get("event_subscriptions")
    listed = subscriptions.get("bot_events") if isinstance(subscriptions, dict) else None
    subscribed = set(listed) if isinstance(listed, list) else set()
    missing = [e for e in REQUIRED_BOT_EVENTS if e not in subscribed]
    if missing:
        return failed(
            "events", f"{manifest.path} does not subscribe to {', '.join(missing)}", _EVENTS_FIX
        )
    return passed("events", f"{manifest.path} subscribes to {wanted}")


def _mode(manifest: Manifest, settings: Settings) -> Item:
    """The manifest's mode against the one `run` would take (SLACK_APP_TOKEN set or not).

    They disagree silently otherwise: a Socket Mode app whose bridge listens for HTTP
    hears no click at all, and an HTTP app's requests never come down a socket."""
    name = "mode"
    ours = "Socket Mode" if settings.socket_mode else "HTTP mode"
    if manifest.data is None:
        return passed(
            name,
            f"{ours}; no {manifest.path} here to compare (novo-slack check --manifest FILE)",
        )
    socket = manifest.settings.get("socket_mode_enabled") is True
    path = manifest.path
    if socket and not settings.socket_mode:
        return failed(
            name,
            f"{path} turns Socket Mode on (socket_mode_enabled: true) but SLACK_APP_TOKEN is"
            " not set, so the bridge would wait on /slack/events for requests Slack never sends",
            "set SLACK_APP_TOKEN to an app-level token (xapp-…, connections:write), or update"
            f" the app from {_MANIFEST_COMMAND}'s output (HTTP mode)",
            setting=True,
        )
    if settings.socket_mode and not socket:
        return failed(
            name,
            f"{path} has Socket Mode off (socket_mode_enabled is not true) but SLACK_APP_TOKEN"
            " is set, so the bridge would wait on a socket Slack sends nothing down",
            "unset SLACK_APP_TOKEN for HTTP mode, or update the app from"
            " novo-slack manifest --socket-mode's output",
            setting=True,
        )
    if socket:
        return passed(name, f"Socket Mode, as {path} says")
    missing = [where for where, url in _request_urls(manifest) if not _is_events_url(url)]
    if missing:
        return failed(
            name,
            f"HTTP mode, but {path} sends no request to {EVENTS_PATH} from {', '.join(missing)}",
            f"set each to https://<your host>{EVENTS_PATH} and update the app (as"
            f" {_MANIFEST_COMMAND} prints them)",
            setting=True,
        )
    examples = [where for where, url in _request_urls(manifest) if EXAMPLE_HOST in str(url)]
    if examples:
        return failed(
            name,
            f"HTTP mode, but {path} still sends Slack to the example host {EXAMPLE_HOST}"
            f" ({', '.join(examples)})",
            f"replace {EXAMPLE_HOST} with the host your Ingress or proxy serves"
            f" ({_MANIFEST_COMMAND} prints it so), and update the app from it",
            setting=True,
        )
    return passed(name, f"HTTP mode, as {path} says (Slack calls {EVENTS_PATH})")


def _request_urls(manifest: Manifest) -> list[tuple[str, object]]:
    """Where an HTTP-mode app's manifest names the URL Slack sends requests to."""
    data = manifest.data or {}
    found: list[tuple[str, object]] = []
    for part in ("event_subscriptions", "interactivity"):
        section = manifest.settings.get(part)
        url = section.get("request_url") if isinstance(section, dict) else None
        found.append((f"settings.{part}.request_url", url))
    features = data.get("features")
    commands = features.get("slash_commands") if isinstance(features, dict) else None
    for command in commands if isinstance(commands, list) else []:
        if isinstance(command, dict):
            found.append((f"the {command.get('command')} command's url", command.get("url")))
    return found


def _is_events_url(url: object) -> bool:
    return isinstance(url, str) and url.startswith("https://") and url.endswith(EVENTS_PATH)


async def _app_token(slack: AsyncWebClient, settings: Settings, *, works: bool) -> Item:
    name = "app token"
    if settings.slack_app_token is None:
        return passed(name, "not set: HTTP mode (Slack must reach /slack/events on this host)")
    if not works:
        return skipped(name, "Slack did not take the bot token")
    try:
        await slack.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
    except SlackApiError as exc:
        error = slack_error(exc)
        if error is None or is_transient(error, http_status(exc)):
            return failed(
                name, f"Slack did not answer apps.connections.open ({describe(exc)})", _NETWORK_FIX
            )
        return failed(
            name,
            refused("SLACK_APP_TOKEN", "apps.connections.open", error),
            "create an app-level token with connections:write under Basic Information →"
            " App-Level Tokens, and turn Socket Mode on",
            setting=True,
        )
    except _NO_ANSWER as exc:
        return failed(
            name,
            f"Slack did not answer apps.connections.open ({type(exc).__name__})",
            _NETWORK_FIX,
        )
    return passed(name, "opens a Socket Mode connection")


async def _ask(name: str, call: SlackCall) -> tuple[Any, str | None, Item | None]:
    """Slack's answer; or Slack's error code to judge; or the ✗ for no answer at all."""
    try:
        return await call(), None, None
    except SlackApiError as exc:
        error = slack_error(exc)
        if error is None:
            return None, None, failed(name, f"Slack answered {describe(exc)}", _NETWORK_FIX)
        return None, error, None
    except _NO_ANSWER as exc:
        return (
            None,
            None,
            failed(name, f"Slack did not answer ({type(exc).__name__})", _NETWORK_FIX),
        )


def _used_by(uses: list[str]) -> str:
    return f" ({', '.join(uses)})"


async def _membership(slack: AsyncWebClient, channel: str, uses: list[str], *, works: bool) -> Item:
    name = f"channel {channel}"
    if not works:
        return skipped(name, "the bot token does not work")
    response, error, trouble = await _ask(name, lambda: slack.conversations_info(channel=channel))
    if trouble is not None:
        return trouble
    where = _used_by(uses)
    if error is not None:
        fix = {
            "channel_not_found": "check the channel id (the channel's details, at the bottom);"
            " for a private channel, invite the bot first: /invite @Novo",
            "missing_scope": "add channels:read and groups:read to the bot's scopes and"
            " reinstall the app",
        }.get(error, "check the channel id and the bot's scopes")
        return failed(name, f"conversations.info: {error}{where}", fix)
    info = response.get("channel") or {}
    shown = f"#{info.get('name')}" if info.get("name") else channel
    if info.get("is_archived"):
        return failed(name, f"{shown} is archived{where}", "unarchive it, or route elsewhere")
    if not info.get("is_member"):
        return failed(
            name,
            f"the bot is not a member of {shown}{where}",
            f"invite it: /invite @Novo in {shown}",
        )
    return passed(name, f"the bot is a member of {shown}{where}")


async def _dm_target(slack: AsyncWebClient, user: str, uses: list[str], *, works: bool) -> Item:
    """Someone the policy sends DMs: Slack must know them, and they must be able to read one."""
    name = f"user {user}"
    if not works:
        return skipped(name, "the bot token does not work")
    response, error, trouble = await _ask(name, lambda: slack.users_info(user=user))
    if trouble is not None:
        return trouble
    where = _used_by(uses)
    fix = "check the user id in the policy file (their profile → ⋮ → Copy member ID)"
    if error is not None:
        meaning = "Slack knows no such user" if error == "user_not_found" else "users.info"
        return failed(name, f"{meaning} ({error}){where}", fix)
    person = response.get("user") or {}
    shown = person.get("real_name") or person.get("name") or user
    if person.get("deleted"):
        return failed(name, f"{shown} is deactivated{where}", fix)
    if person.get("is_bot"):
        return failed(name, f"{shown} is a bot: nobody reads its DMs{where}", fix)
    return passed(name, f"{shown} gets DMs{where}")


async def _group(slack: AsyncWebClient, group: str, uses: list[str], *, works: bool) -> Item:
    """A user group deciders or an escalation count on: it must exist and Slack must list it."""
    name = f"user group {group}"
    if not works:
        return skipped(name, "the bot token does not work")
    response, error, trouble = await _ask(
        name, lambda: slack.usergroups_users_list(usergroup=group)
    )
    if trouble is not None:
        return trouble
    where = _used_by(uses)
    if error is not None:
        if error == "missing_scope":
            return failed(
                name,
                f"the bot token may not list user groups (missing_scope){where}",
                "add usergroups:read to the bot's scopes and reinstall the app",
            )
        meaning = "Slack knows no such user group" if error == "no_such_subteam" else "Slack"
        return failed(
            name,
            f"{meaning} ({error}){where}",
            "check the group id (S…) in the policy file: People → User groups → the group",
        )
    members = response.get("users") or []
    return passed(name, f"{len(members)} member(s){where}")


async def _novo(settings: Settings) -> Item:
    """`run`'s own look at Novo, in its words: a refused key or a URL that is not the API
    stop `run` (exit 2); a Novo that does not answer does not, but fails the check."""
    answer = await probe_novo(
        settings.novo_api_url,
        settings.novo_api_key.get_secret_value(),
        timeout=CALL_TIMEOUT_SECONDS,
    )
    if answer.state == "ok":
        more = "+" if answer.more else ""
        return passed("Novo", f"{answer.line} ({answer.pending}{more} pending)")
    fix = {
        "key_refused": "set NOVO_API_KEY to a key of this Novo deployment",
        "not_the_api": "set NOVO_API_URL to the API's base (e.g. https://api.novo.example)",
        "down": "check NOVO_API_URL and that Novo is reachable from here",
    }[answer.state]
    return failed("Novo", answer.line, fix, setting=answer.state != "down")


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
    if revision and not is_known_revision(revision):
        return failed(
            "store",
            f"{target.shown} is at revision {revision}, which this version does not know"
            " (a newer novo-slack migrated it)",
            "run the version that migrated it, or restore the database from before",
        )
    at = f"at revision {revision}" if revision else "never migrated"
    return passed(
        "store",
        f"{target.shown} is {at}; `run` migrates it to {head} when it starts"
        " (or `novo-slack db upgrade` first)",
    )


def _lock_holder(path: Path, shown: str) -> str | None:
    """Why the SQLite file is not ours to take, or None (the lock is let go at once)."""
    try:
        FileLock.acquire(path, shown).release()
    except StoreLockedError as exc:
        return str(exc)
    except OSError as exc:
        return f"{shown}: cannot take the lock ({exc.strerror or exc})"
    return None


def _header(headers: Any, name: str) -> str | None:
    for key, value in dict(headers or {}).items():
        if str(key).lower() == name:
            return str(value)
    return None
