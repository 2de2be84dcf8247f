"""The one place that tells a person how their decision went.

Services return a `DecisionOutcome`; this turns it into what the person sees.
A delivered decision needs no extra word (the message itself now shows it);
everything else (already decided, refused, queued, gone, not theirs to
decide) is an ephemeral message in the interaction's channel, visible only to
them, or a plain message in a DM with the bot.
"""

from __future__ import annotations

import logging

import aiohttp
from slack_sdk.errors import SlackApiError
from sqlalchemy.exc import SQLAlchemyError

from bot.services.acking import NOT_SAVED_TEXT
from bot.services.outcomes import DecisionOutcome, OutcomeKind
from bot.slack.gateway import SlackGateway, is_user_id
from bot.slack.render.common import clean_text, defuse_mrkdwn
from bot.store import Store
from bot.store.errors import TooLate

log = logging.getLogger(__name__)


FAILED_TEXT = "That didn't go through, so nothing was sent. Try again in a moment."


def failure_text(error: BaseException) -> str:
    """What to tell a person whose click or command failed on our side."""
    if isinstance(error, SQLAlchemyError | TooLate | OSError | TimeoutError):
        return NOT_SAVED_TEXT
    return FAILED_TEXT


def requester(body: object) -> tuple[str | None, str | None]:
    """(who sent it, the channel it came from) of any payload Slack sends a listener."""
    if not isinstance(body, dict):
        return None, None
    user = body.get("user")
    user_id = user.get("id") if isinstance(user, dict) else body.get("user_id")
    channel = body.get("channel")
    channel_id = channel.get("id") if isinstance(channel, dict) else body.get("channel_id")
    container = body.get("container")
    if channel_id is None and isinstance(container, dict):
        channel_id = container.get("channel_id")
    return (
        str(user_id) if user_id else None,
        str(channel_id) if channel_id else None,
    )


def ephemeral_text(outcome: DecisionOutcome) -> str:
    """The outcome's mrkdwn, made safe as everything we render is (see render.common)."""
    return clean_text(defuse_mrkdwn(outcome.text))


class Presenter:
    def __init__(self, store: Store, slack: SlackGateway) -> None:
        self._store = store
        self._slack = slack

    async def say(self, user_id: str, text: str, channel: str | None) -> None:
        """A word to one person: only they see it in a channel; in their DM without one."""
        shown = ephemeral_text(DecisionOutcome(OutcomeKind.REJECTED, text))
        try:
            await self._post(await self._slack.conversation_for(channel or user_id), user_id, shown)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("could not tell %s: %r", user_id, exc)

    async def refuse(
        self, user_id: str, interaction_id: str, text: str, channel: str | None = None
    ) -> None:
        """Tell someone the policy does not let them decide this (nothing was recorded)."""
        await self.tell(
            user_id, interaction_id, DecisionOutcome(OutcomeKind.REFUSED, text), channel
        )

    async def tell(
        self,
        user_id: str,
        interaction_id: str,
        outcome: DecisionOutcome,
        channel: str | None = None,
    ) -> None:
        if outcome.kind is OutcomeKind.DELIVERED:
            return
        if outcome.kind is OutcomeKind.REFUSED:
            log.info("told %s they may not decide %s", user_id, interaction_id)
        if channel is None:
            tracked = await self._store.get(interaction_id)
            if tracked is None:
                log.warning(
                    "no channel to tell %s about %s: %s", user_id, interaction_id, outcome.text
                )
                return
            # routed to DMs: each person is told in their own DM, never in someone else's
            channel = user_id if is_user_id(tracked.channel) else tracked.channel
        try:
            channel = await self._slack.conversation_for(channel)
            await self._post(channel, user_id, ephemeral_text(outcome))
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            # The decision itself is safe in the store; only the courtesy note is lost.
            log.warning(
                "could not tell %s about %s (%s): %r", user_id, interaction_id, outcome.kind, exc
            )

    async def note(self, user_id: str, channel: str | None, text: str) -> None:
        """A word about something other than a decision (a reminder set, or why not),
        where `tell` would put it.

        `text` is our own mrkdwn holding nobody else's words, so it is only cleaned,
        not defused: its `<!date^…>` tokens stay live and each person reads the
        time in their own zone. Without a channel (a click in the App Home tab) it goes
        to their DM with the app, beside the tab they clicked in.
        """
        try:
            where = channel if channel is not None else await self._slack.open_dm(user_id)
            await self._post(where, user_id, clean_text(text))
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("could not tell %s in %s: %r", user_id, channel, exc)

    async def _post(self, channel: str, user_id: str, text: str) -> None:
        if channel.startswith("D"):  # a DM with the bot: a message there is theirs alone
            await self._slack.post_text(channel, text)
        else:
            await self._slack.post_ephemeral(channel, user_id, text)
