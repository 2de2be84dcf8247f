"""A local stand-in for Slack's Web API, served over real HTTP on loopback.

Slack itself is out of reach from tests and demos, yet the bridge must be
exercised through slack_sdk's real client, wire format included. This server
speaks that wire format (`POST /api/<method>`, form or JSON bodies, bearer
token), keeps messages, views and users, refuses what Slack refuses, and
records every call so tests can assert on what the bridge sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from types import TracebackType
from typing import Any

from aiohttp import web

from bot.slack import limits
from bot.slack.scopes import REQUIRED_BOT_SCOPES
from novo_dev.localslack.faults import Faults
from novo_dev.localslack.records import (
    Identity,
    RecordedCall,
    SlackUser,
    StoredEphemeral,
    StoredMessage,
    StoredView,
    UserGroup,
)
from novo_dev.localslack.scopes import missing_scope
from novo_dev.localslack.sockets import Envelopes, SocketAck
from novo_dev.localslack.wire import SlackFailure
from novo_dev.localslack.workspace import Workspace

log = logging.getLogger(__name__)

DEFAULT_BOT_TOKEN = "xoxb-local-test"
DEFAULT_APP_TOKEN = "xapp-local-test"
# apps.connections.open asks for the app-level token; every other method refuses it.
_APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
_JSON_FIELDS = ("blocks", "attachments", "metadata", "view")
# What auth.test says the bot token may do (`x-oauth-scopes`), unless a test says otherwise:
# the scopes manifest.yml asks for.
DEFAULT_SCOPES = REQUIRED_BOT_SCOPES
SOCKET_PATH = "/_test/socket"
_MAX_BODY = 4 * 1024 * 1024  # well above Slack's 250 KB view so the size check is ours


class LocalSlack:
    """The server plus the in-process handles tests use to script and inspect it."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        bot_token: str = DEFAULT_BOT_TOKEN,
        clock: Callable[[], float] = time.time,
        trigger_ttl: float = limits.TRIGGER_TTL_SECONDS,
        identity: Identity | None = None,
    ) -> None:
        self.bot_token = bot_token
        self.app_token = DEFAULT_APP_TOKEN
        # What apps.connections.open hands out; None: a URL on this server that is no
        # WebSocket, so Socket Mode never connects (Slack's socket out of reach).
        self.socket_url: str | None = None
        self.scopes: tuple[str, ...] = DEFAULT_SCOPES
        self._sockets: set[web.WebSocketResponse] = set()
        self._envelopes = Envelopes()
        self.identity = identity or Identity()
        self.url = ""
        self._host = host
        self._port = port
        self._clock = clock
        self._workspace = Workspace(identity=self.identity, clock=clock, trigger_ttl=trigger_ttl)
        self._faults = Faults(clock)
        self._calls: list[RecordedCall] = []
        self._waiters: set[asyncio.Event] = set()
        self._in_flight: Counter[str] = Counter()
        self._peak_in_flight: Counter[str] = Counter()
        self._runner: web.AppRunner | None = None

    @property
    def api_url(self) -> str:
        """The `base_url` for slack_sdk's clients (it must end with a slash)."""
        return f"{self.url}/api/"

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> LocalSlack:
        app = web.Application(client_max_size=_MAX_BODY)
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/_response/{token}", self._response_url)
        app.router.add_get("/_test/calls", self._test_calls)
        app.router.add_get("/_test/messages", self._test_messages)
        app.router.add_get(SOCKET_PATH, self._socket)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, self._host, self._port).start()
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        log.info("local Slack listening on %s", self.url)
        return self

    async def close(self) -> None:
        await self.drop_sockets()
        self._faults.release_all()  # a held call would keep the runner's cleanup waiting
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> LocalSlack:
        return self if self._runner is not None else await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------------ setting up

    def add_user(
        self,
        user_id: str,
        name: str,
        display_name: str,
        real_name: str | None = None,
        tz: str = "UTC",
        *,
        is_restricted: bool = False,
        is_ultra_restricted: bool = False,
        team_id: str | None = None,
        is_stranger: bool = False,
    ) -> SlackUser:
        """A person; the flags make a guest (`is_restricted`, `is_ultra_restricted`) or
        someone of another team (`team_id`; `is_stranger` when met only via a shared channel)."""
        user = SlackUser(
            user_id,
            name,
            display_name,
            real_name or display_name,
            tz,
            is_restricted=is_restricted,
            is_ultra_restricted=is_ultra_restricted,
            team_id=team_id,
            is_stranger=is_stranger,
        )
        self._workspace.users[user_id] = user
        return user

    def add_usergroup(self, group_id: str, handle: str, users: list[str]) -> UserGroup:
        """A user group usergroups.users.list answers for; every user must exist already."""
        return self._workspace.people.set_group(group_id, handle, users)

    def set_usergroup_members(self, group_id: str, users: list[str]) -> None:
        """Replace the group's members, as an admin editing it in Slack would."""
        self._workspace.people.set_members(group_id, users)

    def usergroup(self, group_id: str) -> UserGroup:
        return self._workspace.people.groups[group_id]

    def add_channel(self, channel_id: str, name: str) -> None:
        self._workspace.channels[channel_id] = name

    def set_channel_members(self, channel: str, users: list[str]) -> None:
        """Who is in `channel` (conversations.members); unset, every user of the workspace."""
        self._workspace.members.set(channel, users)

    def set_scopes(self, *scopes: str) -> None:
        """What auth.test reports the bot token was granted (its `x-oauth-scopes` header)."""
        self.scopes = tuple(scopes)

    def remove_bot_from(self, channel: str) -> None:
        """The bot is not a member of `channel`: conversations.info says `is_member: false`
        and chat.postEphemeral there answers `not_in_channel`."""
        self._workspace.not_member_of.add(self._workspace.resolve_channel(channel))

    def serve_socket(self) -> None:
        """apps.connections.open hands out a WebSocket on this server that stays open.

        It stands for Slack's socket being up, so Socket Mode counts as
        connected; `deliver_over_socket` sends the app a request down it.
        """
        self.socket_url = f"{self.url.replace('http', 'ws', 1)}{SOCKET_PATH}"

    async def drop_sockets(self) -> None:
        """Close every Socket Mode connection from this side, as Slack does on a restart."""
        sockets, self._sockets = set(self._sockets), set()
        for socket in sockets:
            await socket.close()

    @property
    def socket_connections(self) -> int:
        return len(self._sockets)

    async def deliver_over_socket(
        self, kind: str, payload: dict[str, Any], *, within: float = 5.0
    ) -> SocketAck:
        """Send the app a request (`slash_commands`, `interactive`, ...) over one of its
        Socket Mode connections, as Slack does, and wait up to `within` s for its ack."""
        if not self._sockets:
            raise AssertionError("no Socket Mode connection is open to deliver over")
        socket = next(iter(self._sockets))
        return await self._envelopes.deliver(socket, kind, payload, within=within)

    def user(self, user_id: str) -> SlackUser | None:
        return self._workspace.users.get(user_id)

    def users(self) -> list[SlackUser]:
        return list(self._workspace.users.values())

    def channel_id(self, channel: str) -> str:
        """The id behind an id, `#name` or user id (their DM with the bot)."""
        return self._workspace.resolve_channel(channel)

    def channel_name(self, channel: str) -> str:
        return self._workspace.channels[self.channel_id(channel)]

    def channel_names(self) -> dict[str, str]:
        """Every channel the workspace knows (DMs included), id → name."""
        return dict(self._workspace.channels)

    def usergroups(self) -> list[UserGroup]:
        return list(self._workspace.people.groups.values())

    def issue_trigger(self, user_id: str | None = None, *, view_id: str | None = None) -> str:
        """A fresh trigger_id, as an interaction by `user_id` (in view `view_id`) gives one."""
        user = user_id or next(iter(self._workspace.users))
        return self._workspace.views.issue_trigger(user_id=user, view_id=view_id)

    def issue_response_url(
        self, channel: str, message_ts: str, *, user_id: str | None = None, ephemeral: bool = False
    ) -> str:
        token = self._workspace.issue_response_url(
            channel, message_ts, user_id, ephemeral=ephemeral
        )
        return f"{self.url}/_response/{token}"

    def rate_limit_post_message(self, channel: str, *, count: int, retry_after: int = 1) -> None:
        """The next `count` chat.postMessage calls to `channel` get HTTP 429."""
        key = self._workspace.resolve_channel(channel)
        self._faults.rate_limit_post_message(key, count=count, retry_after=retry_after)

    def set_post_message_rate(
        self, per_second: int | None, *, retry_after: int = 1, burst: int | None = None
    ) -> None:
        """Beyond `per_second` posts per channel, 429s; None turns it off. Counted in a
        sliding second, or with `burst` as a token bucket of that size."""
        self._faults.set_post_message_rate(per_second, retry_after=retry_after, burst=burst)

    def lose_answers(self, method: str, *, count: int = 1) -> None:
        """The next `count` calls of `method` are carried out, then the connection drops
        before the answer is sent: the caller cannot tell whether it worked."""
        self._faults.lose_answers(method, count)

    def delay_method(self, method: str, seconds: float) -> None:
        """Every later call of `method` answers `seconds` late (0 turns it off): a slow Slack."""
        self._faults.delay_method(method, seconds)

    def hold_method(self, method: str) -> None:
        """Every later call of `method` waits unanswered until `release_method(method)`: a
        Slack that has not answered yet, for as long as a test needs to see what happens
        meanwhile (an ack that does not wait on it, say)."""
        self._faults.hold_method(method)

    def release_method(self, method: str) -> None:
        self._faults.release_method(method)

    def go_down(self, http_status: int | None = 503) -> None:
        """Slack out of reach until `come_back()`: every Web API call answers `http_status`
        (a 5xx), or with None has its connection cut before any answer (a network outage)."""
        self._faults.go_down(http_status)

    def come_back(self) -> None:
        self._faults.come_back()

    def fail_method(
        self, method: str, *, count: int = 1, error: str = "internal_error", http_status: int = 200
    ) -> None:
        """The next `count` calls of `method` fail with `error` (and `http_status`, e.g. 500)."""
        self._faults.fail_method(method, count=count, error=error, http_status=http_status)

    # ------------------------------------------------------------------ inspecting

    def calls(self, method: str | None = None) -> list[RecordedCall]:
        return [c for c in self._calls if method is None or c.method == method]

    def clear_calls(self) -> None:
        self._calls.clear()
        self._peak_in_flight.clear()

    def peak_in_flight(self, method: str) -> int:
        """The most calls of `method` this server was answering at one moment: with a delay
        set, calls made one after another never overlap, calls made together all do."""
        return self._peak_in_flight[method]

    async def wait_for_call(
        self,
        method: str,
        *,
        where: Callable[[RecordedCall], bool] | None = None,
        within: float = 5.0,
    ) -> RecordedCall:
        """The first recorded `method` call matching `where`, waiting up to `within` seconds."""
        found: list[RecordedCall] = []

        def seen() -> bool:
            found[:] = [c for c in self.calls(method) if where is None or where(c)][:1]
            return bool(found)

        await self.wait_for(seen, within=within, what=f"a {method} call")
        return found[0]

    async def wait_for(
        self, condition: Callable[[], bool], *, within: float = 5.0, what: str = "condition"
    ) -> None:
        """Wait until `condition()` holds, re-checking after every call the server answers."""
        try:
            async with asyncio.timeout(within):
                while not condition():
                    event = asyncio.Event()
                    self._waiters.add(event)
                    try:
                        await event.wait()
                    finally:
                        self._waiters.discard(event)
        except TimeoutError:
            seen = [c.method for c in self._calls]
            raise AssertionError(f"{what} not seen within {within}s; calls: {seen}") from None

    def messages(self, channel: str) -> list[StoredMessage]:
        """What the channel shows now, oldest first."""
        return self._workspace.messages(channel)

    def replies(self, channel: str, thread_ts: str) -> list[StoredMessage]:
        """The thread under `thread_ts`, oldest first, without its parent message.

        `messages(channel)` lists replies too (each with its `thread_ts`).
        """
        return self._workspace.replies(channel, thread_ts)

    def message(self, channel: str, ts: str) -> StoredMessage:
        message = self._workspace.message(channel, ts)
        if message is None:
            raise KeyError(f"no message {ts} in {channel}")
        return message

    def find_message(self, channel: str, ts: str) -> StoredMessage | None:
        return self._workspace.message(channel, ts)

    def add_person_message(
        self, channel: str, user_id: str, text: str, thread_ts: str | None, *, bot_id: str = ""
    ) -> StoredMessage:
        """Someone writes `text` in `channel` (in `thread_ts`'s thread when given); the
        driver then delivers the `message` event Slack would send the app."""
        return self._workspace.add_person_message(channel, user_id, text, thread_ts, bot_id=bot_id)

    def edit_person_message(self, channel: str, ts: str, text: str) -> tuple[StoredMessage, str]:
        """Its author edits a message: (the message now, its text before)."""
        return self._workspace.edit_person_message(channel, ts, text)

    def delete_person_message(self, channel: str, ts: str) -> StoredMessage:
        """Its author deletes a message: gone from the channel, reactions and all."""
        return self._workspace.delete_person_message(channel, ts)

    def ephemerals(self, user: str | None = None) -> list[StoredEphemeral]:
        return [e for e in self._workspace.ephemerals if user is None or e.user == user]

    def views(self) -> list[StoredView]:
        return self._workspace.views.all()

    def view(self, view_id: str) -> StoredView:
        view = self._workspace.views.get(view_id)
        if view is None:
            raise KeyError(f"no view {view_id}")
        return view

    def view_stack(self, view_id: str) -> list[StoredView]:
        """The open views of the modal `view_id` belongs to, root first."""
        return self._workspace.views.stack(self.view(view_id).root_view_id)

    def home_view(self, user_id: str) -> StoredView | None:
        return self._workspace.views.home(user_id)

    def set_view_state(self, view_id: str, values: dict[str, Any]) -> None:
        """What the user has typed or picked so far (`state.values`), as Slack tracks it."""
        self._workspace.views.set_state(view_id, values)

    def apply_view_response(self, view_id: str, ack: dict[str, Any] | None) -> list[str]:
        """Apply an app's view_submission ack; returns what Slack would refuse in it."""
        return self._workspace.views.apply_response(view_id, ack)

    # ------------------------------------------------------------------ HTTP

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        answer = partial(self._answer, connection=_connection_of(request))
        self._in_flight[method] += 1
        self._peak_in_flight[method] = max(self._peak_in_flight[method], self._in_flight[method])
        try:
            return await self._answer_api(request, method, answer)
        finally:
            self._in_flight[method] -= 1

    async def _answer_api(
        self, request: web.Request, method: str, answer: Callable[..., web.Response]
    ) -> web.Response:
        args: dict[str, Any] = {}
        delay = self._faults.delay_of(method)
        if delay:
            await asyncio.sleep(delay)
        await self._faults.wait_while_held(method)
        if self._faults.cut and request.transport is not None:
            answer(method, args, {"ok": False, "error": "connection_cut"}, 0, {})  # recorded
            request.transport.abort()
            return web.Response(status=204)  # never reaches the caller: the line is cut
        try:
            args = await _read_args(request)
            self._authorize(request, args, method)
            failure = self._faults.before_call(method, self._channel_of(method, args))
            if failure is not None:
                return answer(method, args, failure.body, failure.status, failure.headers)
            body = self._call(method, args)
        except SlackFailure as exc:
            return answer(method, args, exc.body(), exc.status, exc.headers)
        if method == "chat.postMessage":
            self._faults.after_post(str(body["channel"]))
        headers = {"x-oauth-scopes": ",".join(self.scopes)} if method == "auth.test" else {}
        answered = answer(method, args, body, 200, headers)
        if self._faults.loses_answer(method):
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=204)  # never reaches the caller: the line is cut
        return answered

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()  # answers pings itself
        await socket.prepare(request)
        self._sockets.add(socket)
        try:
            async for message in socket:
                self._envelopes.received(message)  # the app's acks of what was delivered
        finally:
            self._sockets.discard(socket)
        return socket

    async def _response_url(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        body: Any = None
        try:
            body = await request.json()
            answer = self._workspace.respond(token, body)
        except json.JSONDecodeError:
            return self._answer("response_url", {}, {"ok": False, "error": "invalid_json"}, 400, {})
        except SlackFailure as exc:
            args = {"token": token, **(body if isinstance(body, dict) else {})}
            return self._answer("response_url", args, exc.body(), exc.status, exc.headers)
        return self._answer("response_url", {"token": token, **body}, answer, 200, {})

    async def _test_calls(self, request: web.Request) -> web.Response:
        calls = self.calls(request.query.get("method"))
        return web.json_response({"calls": [c.to_json() for c in calls]})

    async def _test_messages(self, request: web.Request) -> web.Response:
        try:
            messages = self.messages(request.query.get("channel", ""))
        except SlackFailure as exc:
            return web.json_response(exc.body(), status=404)
        shown = [
            {**m.to_api(), "channel": m.channel, "edited_count": m.edited_count} for m in messages
        ]
        return web.json_response({"messages": shown})

    def _call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "apps.connections.open":
            url = self.socket_url or f"{self.url.replace('http', 'ws', 1)}/_test/no-socket"
            return {"ok": True, "url": url}
        return self._workspace.call(method, args)

    def _authorize(self, request: web.Request, args: dict[str, Any], method: str = "") -> None:
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else None
        token = token or args.get("token")
        if not token:
            raise SlackFailure("not_authed")
        wanted = self.app_token if method in _APP_TOKEN_METHODS else self.bot_token
        if token in (self.app_token, self.bot_token) and token != wanted:
            raise SlackFailure("not_allowed_token_type")
        if token != wanted:
            raise SlackFailure("invalid_auth")
        needed = self._workspace.needed_scope(method, args)
        if needed is not None and needed not in self.scopes:
            raise missing_scope(needed, self.scopes)

    def _channel_of(self, method: str, args: dict[str, Any]) -> str | None:
        if method != "chat.postMessage":
            return None
        try:
            return self._workspace.resolve_channel(args.get("channel"))
        except SlackFailure:
            return None

    def _answer(
        self,
        method: str,
        args: dict[str, Any],
        body: dict[str, Any],
        status: int,
        headers: dict[str, str],
        *,
        connection: str = "",
    ) -> web.Response:
        recorded = {k: v for k, v in args.items() if k != "token"}
        self._calls.append(RecordedCall(method, recorded, body, self._clock(), status, connection))
        log.debug("%s -> %s %s", method, status, body.get("error", "ok"))
        for event in self._waiters:
            event.set()
        return web.json_response(body, status=status, headers=headers)


async def _read_args(request: web.Request) -> dict[str, Any]:
    """Query parameters and the body, form or JSON; JSON-encoded form fields decoded."""
    args: dict[str, Any] = dict(request.query)
    if request.body_exists:
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except json.JSONDecodeError as exc:
                raise SlackFailure("invalid_json") from exc
            if not isinstance(body, dict):
                raise SlackFailure("invalid_json")
            args.update(body)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            args.update({k: v for k, v in form.items() if isinstance(v, str)})
        else:
            raise SlackFailure("invalid_post_type")
    for name in _JSON_FIELDS:
        value = args.get(name)
        if isinstance(value, str):
            # Left as sent when it is not JSON: the method reports it in Slack's own words.
            with contextlib.suppress(json.JSONDecodeError):
                args[name] = json.loads(value)
    return args


async def start_local_slack(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    bot_token: str = DEFAULT_BOT_TOKEN,
    clock: Callable[[], float] = time.time,
    trigger_ttl: float = limits.TRIGGER_TTL_SECONDS,
) -> LocalSlack:
    """Start a local Slack; `clock` and `trigger_ttl` let tests expire triggers without waiting."""
    slack = LocalSlack(host, port, bot_token=bot_token, clock=clock, trigger_ttl=trigger_ttl)
    return await slack.start()


def _connection_of(request: web.Request) -> str:
    """`host:port` of the caller's end of this request's connection."""
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else ""
