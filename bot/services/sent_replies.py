"""A thread reply whose answer was sent, then edited or deleted.

The answer a reply gave is what its *Send* click named, and it is Novo's or on its
way there: an edit or a deletion can't change it. So its author is told, only them,
in the thread, that the answer stays as it was sent; and the ✅ that marks the reply
as the answer Novo took stays only while the reply still says that answer (an edit
that changes it takes the ✅ off, an edit back puts it on again). Slack says so with
`message` events of subtype `message_changed` and `message_deleted`; a delivery
Slack repeats is acted on once (the event's receipt, as for a new reply).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.services.thread_replies import offer_words
from bot.slack.gateway import SlackGateway
from bot.slack.render.common import clean_text, defuse_mrkdwn
from bot.slack.render.thread_reply import REACTION, kept_as_sent_text
from bot.slack.thread_answers import parse_reply
from bot.store import QueuedDecision, Store

log = logging.getLogger(__name__)

_SLACK_FAILURES = (SlackApiError, aiohttp.ClientError, TimeoutError)


@dataclass(frozen=True)
class ReplyChange:
    """A reply in some thread edited (`text`: what it says now) or deleted (`text` None)."""

    event_id: str | None
    channel: str
    thread_ts: str
    ts: str
    user_id: str
    text: str | None


def reply_change(event: dict[str, Any], event_id: str | None) -> ReplyChange | None:
    """The edit or deletion of a person's thread reply a `message` event tells; None for
    anything else."""
    subtype = event.get("subtype")
    if subtype == "message_changed":
        message, text = event.get("message"), None
        if isinstance(message, dict):
            text = message.get("text")
            if not isinstance(text, str):
                return None
    elif subtype == "message_deleted":
        message, text = event.get("previous_message"), None
    else:
        return None
    if not isinstance(message, dict) or message.get("bot_id"):
        return None
    channel, thread_ts = event.get("channel"), message.get("thread_ts")
    ts, user = message.get("ts") or event.get("deleted_ts"), message.get("user")
    if not all(isinstance(v, str) and v for v in (channel, thread_ts, ts, user)):
        return None
    if thread_ts == ts:
        return None  # a thread's parent, not a reply in it
    return ReplyChange(event_id, str(channel), str(thread_ts), str(ts), str(user), text)


class SentReplyService:
    def __init__(self, store: Store, slack: SlackGateway, clock: Clock) -> None:
        self._store = store
        self._slack = slack
        self._clock = clock

    async def changed(self, change: ReplyChange) -> bool:
        """Act on the edit or deletion of a reply that gave an answer; whether its author
        was told the answer stays as sent."""
        if await self._store.interaction_at(change.channel, change.thread_ts) is None:
            return False  # not under a question's message: nothing of ours
        given = await self._store.decision_given_in(change.channel, change.ts)
        if given is None or given.decision.actor.user_id != change.user_id:
            return False
        if change.event_id and not await self._store.first_receipt(change.event_id, self._clock()):
            return False
        sent, still = await self._sent_and_still(given, change.text)
        delivered = given.state == "delivered"
        if still:
            if delivered:
                await self._react(change, add=True)
            return False
        if delivered and change.text is not None:
            await self._react(change, add=False)
        await self._tell(change, kept_as_sent_text(sent, deleted=change.text is None))
        return True

    async def _sent_and_still(self, given: QueuedDecision, text: str | None) -> tuple[str, bool]:
        """(the answer as it was sent, in words; whether `text` still says it)."""
        responses = given.body.input_responses or []
        tracked = await self._store.get(given.interaction_id)
        if not responses or tracked is None:
            return given.decision.verb, False
        sent = responses[0]
        answer = parse_reply(tracked.snapshot, text) if text is not None else None
        words, _ = offer_words(tracked.snapshot, sent)
        return words, answer is not None and answer.response == sent

    async def _react(self, change: ReplyChange, *, add: bool) -> None:
        """Put the ✅ back on, or take it off; the answer is Novo's either way, so a
        reaction Slack refuses is only logged."""
        try:
            if add:
                await self._slack.add_reaction(change.channel, change.ts, REACTION)
            else:
                await self._slack.remove_reaction(change.channel, change.ts, REACTION)
        except _SLACK_FAILURES as exc:
            log.warning("could not change the ✅ on reply %s: %r", change.ts, exc)

    async def _tell(self, change: ReplyChange, text: str) -> None:
        """A word only the reply's author sees, in its thread."""
        try:
            await self._slack.post_ephemeral(
                change.channel,
                change.user_id,
                clean_text(defuse_mrkdwn(text)),
                thread_ts=change.thread_ts,
            )
        except _SLACK_FAILURES as exc:
            log.warning("could not tell %s about reply %s: %r", change.user_id, change.ts, exc)
