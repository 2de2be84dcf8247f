"""The one place that tells a person how their decision went.

Services return a `DecisionOutcome` (facts); this has it worded
(`render.outcomes`) and decides where the person sees it.
A delivered decision needs no extra word (the message itself now shows it);
everything else (already decided, refused, queued, gone, not theirs to
decide) is an ephemeral message in the interaction's channel, visible only to
them, or a plain message in a DM with the bot.

A click carries its own way back (`ClickReply`): a notice about a click in an
ephemeral card (`/novo show`) goes through the click's response_url, and so
does one Slack refuses to take by `chat.postEphemeral` (the bot is not in that
channel); and once such a card's interaction is decided, the card itself is
replaced with what its channel message shows, so it keeps no live buttons.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import aiohttp
from slack_sdk.errors import SlackApiError
from sqlalchemy.exc import SQLAlchemyError

from bot.outages import level
from bot.outcomes import DecisionOutcome, Notice, OutcomeKind, Refusal
from bot.slack.click_reply import ClickReply
from bot.slack.gateway import SlackGateway, is_user_id
from bot.slack.render.common import clean_text, defuse_mrkdwn
from bot.slack.render.context import RenderedMessage
from bot.slack.render.outcomes import NOTICES, outcome_text
from bot.store import Store, TrackedInteraction
from bot.store.errors import StoreFileError, TooLate

log = logging.getLogger(__name__)

Render = Callable[[TrackedInteraction], Awaitable[RenderedMessage]]
# Slack's answers to chat.postEphemeral where the bot can't post: a response_url still can.
NOT_POSTABLE_ERRORS = frozenset(
    {"not_in_channel", "channel_not_found", "is_archived", "user_not_in_channel"}
)


FAILED_TEXT = "That didn't go through, so nothing was sent. Try again in a moment."


def failure_text(error: BaseException) -> str:
    """What to tell a person whose click or command failed on our side."""
    if isinstance(error, SQLAlchemyError | StoreFileError | TooLate | OSError | TimeoutError):
        return NOTICES[Notice.NOT_SAVED]
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


def ephemeral_text(text: str) -> str:
    """Mrkdwn for one person, made safe as everything we render is (see render.common):
    what a renderer escaped stays as it is, anything still raw can't ping or link."""
    return clean_text(defuse_mrkdwn(text))


class Presenter:
    def __init__(self, store: Store, slack: SlackGateway, render: Render | None = None) -> None:
        self._store = store
        self._slack = slack
        self._render = render

    async def say(
        self, user_id: str, text: str, channel: str | None, reply: ClickReply | None = None
    ) -> None:
        """A word to one person: only they see it in a channel; in their DM without one."""
        shown = ephemeral_text(text)
        if (
            reply is not None
            and reply.ephemeral
            and await self._slack.respond(reply.response_url, shown)
        ):
            return
        try:
            where = await self._slack.conversation_for(channel or user_id)
            await self._post_or_reply(where, user_id, shown, reply)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.log(level(exc), "could not tell %s: %r", user_id, exc)

    async def refuse(
        self,
        user_id: str,
        interaction_id: str,
        refusal: Refusal,
        channel: str | None = None,
        reply: ClickReply | None = None,
    ) -> None:
        """Tell someone the policy does not let them decide this (nothing was recorded)."""
        await self.tell(
            user_id, interaction_id, DecisionOutcome(OutcomeKind.REFUSED, refusal), channel, reply
        )

    async def tell(
        self,
        user_id: str,
        interaction_id: str,
        outcome: DecisionOutcome,
        channel: str | None = None,
        reply: ClickReply | None = None,
    ) -> None:
        """Tell the person how their click went; `reply`: the click's way back."""
        if reply is not None and reply.ephemeral:
            await self._replace_card(reply, interaction_id)
        if outcome.kind is OutcomeKind.DELIVERED:
            return
        text = ephemeral_text(outcome_text(outcome))
        if (
            reply is not None
            and reply.ephemeral
            and await self._slack.respond(reply.response_url, text)
        ):
            return  # the card was in an ephemeral: its notice goes where the card is
        if outcome.kind is OutcomeKind.REFUSED:
            log.info("told %s they may not decide %s", user_id, interaction_id)
        if channel is None:
            tracked = await self._store.get(interaction_id)
            if tracked is None:
                log.warning("no channel to tell %s about %s: %s", user_id, interaction_id, text)
                return
            # routed to DMs: each person is told in their own DM, never in someone else's
            channel = user_id if is_user_id(tracked.channel) else tracked.channel
        try:
            channel = await self._slack.conversation_for(channel)
            await self._post_or_reply(channel, user_id, text, reply)
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
            log.log(level(exc), "could not tell %s in %s: %r", user_id, channel, exc)

    async def _replace_card(self, reply: ClickReply, interaction_id: str) -> None:
        """Show, in place of the ephemeral card clicked, what its message shows now: once
        decided (or ended) it has no buttons left to press."""
        tracked = await self._store.get(interaction_id)
        if tracked is None or self._render is None:
            return
        undecided = tracked.is_open and tracked.decided_in_slack is None
        if undecided and await self._store.open_decision(interaction_id) is None:
            return  # nothing decided yet (refused, a modal opened): the card stands
        card = await self._render(tracked)
        if not await self._slack.respond(
            reply.response_url, card["text"], card["blocks"], replace_original=True
        ):
            log.warning("could not replace the shown card of %s", interaction_id)

    async def _post_or_reply(
        self, channel: str, user_id: str, text: str, reply: ClickReply | None
    ) -> None:
        """`_post`; where Slack refuses it (the bot is not in that channel), the click's
        response_url, which works in any conversation."""
        try:
            await self._post(channel, user_id, text)
        except SlackApiError as exc:
            if reply is None or exc.response.get("error") not in NOT_POSTABLE_ERRORS:
                raise
            if not await self._slack.respond(reply.response_url, text):
                raise
            log.info(
                "told %s through the click's response_url (%s)", user_id, exc.response.get("error")
            )

    async def _post(self, channel: str, user_id: str, text: str) -> None:
        if channel.startswith("D"):  # a DM with the bot: a message there is theirs alone
            await self._slack.post_text(channel, text)
        else:
            await self._slack.post_ephemeral(channel, user_id, text)
