"""Who someone is in Slack, as far as deciding goes: a guest? another workspace? in a group?

Every click is checked against the policy before anything is recorded, so
these answers sit in front of Slack's 3-second ack. They are cached for
`TTL_SECONDS` (a change in Slack applies within five minutes) and each
lookup is bounded in time; a lookup that fails raises `DirectoryUnavailable`
and the click is refused rather than let through unchecked. Callers asking
the same thing at once share one lookup (forty people opening Home at once
make one call per group, not forty).

Who is in a channel (conversations.members) answers who can read what a
channel shows, for lists (Home's team queue, `/novo`): paged, at most
`CHANNEL_PAGES` pages of `CHANNEL_PAGE` within `CHANNEL_LOOKUP_SECONDS`; the
members of a larger channel beyond that are not known to be in it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.answers import describe

log = logging.getLogger(__name__)

T = TypeVar("T")

TTL_SECONDS = 300.0
LOOKUP_SECONDS = 1.5
CHANNEL_PAGE = 1000  # conversations.members' largest page
CHANNEL_PAGES = 20
CHANNEL_LOOKUP_SECONDS = 5.0


class DirectoryUnavailable(Exception):
    """Slack could not say who someone is; the caller must not guess."""


@dataclass(frozen=True)
class Person:
    user_id: str
    team_id: str | None
    guest: bool  # is_restricted or is_ultra_restricted
    stranger: bool  # a user of another organisation seen through a shared channel


class SlackDirectory:
    def __init__(self, client: AsyncWebClient, *, ttl: float = TTL_SECONDS) -> None:
        self._client = client
        self._ttl = ttl
        self._people: dict[str, tuple[float, Person]] = {}
        self._groups: dict[str, tuple[float, frozenset[str]]] = {}
        self._channels: dict[str, tuple[float, frozenset[str]]] = {}
        # look-ups under way, shared: Approve all of 200 asks about one person 200 times
        self._asking: dict[tuple[int, str, bool], asyncio.Future[Any]] = {}

    async def person(self, user_id: str, *, fresh: bool = False) -> Person:
        """users.info's facts about a person (cached, unless `fresh`)."""
        return await self._cached(
            self._people, user_id, lambda: self._look_up(user_id), fresh=fresh
        )

    async def members(self, group_id: str, *, fresh: bool = False) -> frozenset[str]:
        """The members of a user group (usergroups.users.list, cached unless `fresh`).

        `fresh` is for the votes that are about to complete a quorum: a member who
        left the group minutes ago must not still count.
        """
        return await self._cached(
            self._groups, group_id, lambda: self._list_members(group_id), fresh=fresh
        )

    async def channel_members(self, channel: str) -> frozenset[str]:
        """Who is in a channel (conversations.members, cached; see the module's note)."""
        return await self._cached(
            self._channels,
            channel,
            lambda: self._list_channel(channel),
            seconds=CHANNEL_LOOKUP_SECONDS,
        )

    async def _cached(
        self,
        cache: dict[str, tuple[float, T]],
        key: str,
        fetch: Callable[[], Awaitable[T]],
        *,
        seconds: float = LOOKUP_SECONDS,
        fresh: bool = False,
    ) -> T:
        hit = cache.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < self._ttl and not fresh:
            return hit[1]
        asking = (id(cache), key, fresh)
        under_way = self._asking.get(asking)
        if under_way is not None:
            try:
                value: T = await asyncio.shield(under_way)
                return value
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the caller itself is cancelled
                # the lookup it waited on was cut short: ask again below
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._asking[asking] = future
        try:
            value = await self._bounded(key, fetch, seconds)
        except BaseException as exc:
            if isinstance(exc, Exception):
                future.set_exception(exc)
                future.exception()  # retrieved: nobody else may be waiting
            else:
                future.cancel()
            raise
        finally:
            if self._asking.get(asking) is future:
                del self._asking[asking]
        future.set_result(value)
        cache[key] = (time.monotonic(), value)
        return value

    @staticmethod
    async def _bounded(key: str, fetch: Callable[[], Awaitable[T]], seconds: float) -> T:
        try:
            async with asyncio.timeout(seconds):
                return await fetch()
        except SlackApiError as exc:
            error = describe(exc)
            log.warning("Slack could not look up %s: %s", key, error)
            raise DirectoryUnavailable(f"{key}: {error}") from exc
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("Slack did not answer a lookup of %s: %r", key, exc)
            raise DirectoryUnavailable(f"{key}: no answer") from exc

    async def _look_up(self, user_id: str) -> Person:
        response = await self._client.users_info(user=user_id)
        user: dict[str, Any] = response.get("user") or {}
        return Person(
            user_id=user_id,
            team_id=user.get("team_id"),
            guest=bool(user.get("is_restricted") or user.get("is_ultra_restricted")),
            stranger=bool(user.get("is_stranger")),
        )

    async def _list_members(self, group_id: str) -> frozenset[str]:
        response = await self._client.usergroups_users_list(usergroup=group_id)
        return frozenset(str(u) for u in response.get("users") or [])

    async def _list_channel(self, channel: str) -> frozenset[str]:
        members: set[str] = set()
        cursor: str | None = None
        for _ in range(CHANNEL_PAGES):
            response = await self._client.conversations_members(
                channel=channel, limit=CHANNEL_PAGE, cursor=cursor
            )
            members.update(str(u) for u in response.get("members") or [])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if cursor is None:
                return frozenset(members)
        log.warning(
            "%s has more than %d members: only the first %d are known to be in it",
            channel,
            CHANNEL_PAGE * CHANNEL_PAGES,
            len(members),
        )
        return frozenset(members)
