"""Links to the bridge's messages, for surfaces that point at them (the App Home tab).

A message's permalink is its workspace's address, the conversation and the
ts without its dot (`https://acme.slack.com/archives/C123/p1700000000000100`),
and a reply's carries its thread (`?thread_ts=…`). Built from `auth.test`'s
`url`, a tab of thirty links costs no call to Slack. Without that address,
`chat.getPermalink` is asked once per message and its answer kept: a
permalink never changes, so the cache is a lookup, not state.
"""

from __future__ import annotations

import logging

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.outages import level
from bot.slack.gateway import SlackGateway

log = logging.getLogger(__name__)

MAX_CACHED = 5_000
"""Permalinks kept when they must be asked for; the oldest go first beyond it."""


def archive_link(team_url: str, channel: str, ts: str, thread_ts: str | None = None) -> str:
    """The permalink Slack would hand out for the message `ts` in `channel`."""
    link = f"{team_url.rstrip('/')}/archives/{channel}/p{ts.replace('.', '')}"
    if thread_ts is not None and thread_ts != ts:
        link += f"?thread_ts={thread_ts}"
    return link


class MessageLinks:
    def __init__(self, slack: SlackGateway, team_url: str | None) -> None:
        self._slack = slack
        self._team_url = team_url
        self._asked: dict[tuple[str, str], str] = {}

    async def link(self, channel: str, ts: str, thread_ts: str | None = None) -> str | None:
        """The message's permalink; None when Slack can't say (the tab shows no link)."""
        if self._team_url:
            return archive_link(self._team_url, channel, ts, thread_ts)
        known = self._asked.get((channel, ts))
        if known is not None:
            return known
        try:
            found = await self._slack.permalink(channel, ts)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.log(level(exc), "no permalink for %s in %s: %r", ts, channel, exc)
            return None
        if len(self._asked) >= MAX_CACHED:
            self._asked.pop(next(iter(self._asked)))
        self._asked[(channel, ts)] = found
        return found
