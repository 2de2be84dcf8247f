"""Answering a question by replying in its message's thread.

A reply is read as the answer it unambiguously stands for (see
`bot.slack.thread_answers`) and then takes the same road as a form
submission: the policy's check, the outbox (recorded before anything is
sent, delivered once, redelivered after an outage), the same rewrite of the
message. Only the person who replied is told anything (in the thread, only to
them); a reply whose answer Novo took gets a ✅ instead, for everyone to see.

Ignored without a word: messages from apps (the bridge's own included), edits
and deletions (message subtypes), top-level messages, and replies under
anything but a question's message. Slack retries a delivery it counts as
failed and may send one twice: the first delivery of an `event_id` to claim it
in the store is the one acted on, whichever replica it reached.

Slack has heard its ack before this runs (an event is acked on arrival), so a
crash between the ack and the outbox loses that reply; the person sees no ✅
and can reply again. The ✅ comes with the delivery, the first or a redelivery after an
outage: the outbox keeps which reply gave the answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.domain import SlackActor, SlackDecision, SlackMessageRef
from bot.novo.models import ResolveInteractionBody
from bot.outcomes import DecisionOutcome, OutcomeKind
from bot.services.decisions import DecisionService, ReplyMark
from bot.services.questions import ACTION_LABEL_CHARS, VERB_ANSWERED
from bot.slack.gateway import SlackGateway
from bot.slack.render.common import clean_text, defuse_mrkdwn, truncate
from bot.slack.render.outcomes import outcome_text
from bot.slack.render.thread_reply import REACTION, THREAD_VIA, reply_help
from bot.slack.thread_answers import parse_reply, reply_targets
from bot.store import Store

log = logging.getLogger(__name__)

RECEIPT_DAYS = 1
"""How long a delivery's `event_id` is kept: Slack's last retry comes within minutes."""
# Subtypes that are still someone's new message in the thread; every other subtype is an
# edit, a deletion, a join or an app's message.
_NEW_MESSAGE_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})


@dataclass(frozen=True)
class ThreadReply:
    """A person's new message in some thread, as a `message` event told it."""

    event_id: str | None
    channel: str
    thread_ts: str
    ts: str
    user_id: str
    team_id: str | None
    text: str


class ReplyResult(Enum):
    IGNORED = "ignored"  # not a reply to a question's message
    REPEATED = "repeated"  # a delivery of an event already taken
    TOLD = "told"  # the person was told something (ended, refused, what a reply can answer)
    ANSWERED = "answered"  # Novo took the answer; the reply got its ✅
    QUEUED = "queued"  # in the outbox, Novo not reached yet


def thread_reply(event: dict[str, Any], event_id: str | None) -> ThreadReply | None:
    """The reply a `message` event carries, or None for what is never an answer."""
    if event.get("subtype") not in _NEW_MESSAGE_SUBTYPES or event.get("bot_id"):
        return None
    fields = (event.get(k) for k in ("channel", "thread_ts", "ts", "user"))
    channel, thread_ts, ts, user = fields
    text = event.get("text")
    if not all(isinstance(v, str) and v for v in (channel, thread_ts, ts, user)):
        return None
    if thread_ts == ts or not isinstance(text, str):
        return None  # a thread's parent itself, not a reply in it
    team = event.get("user_team") or event.get("team")
    return ThreadReply(
        event_id,
        str(channel),
        str(thread_ts),
        str(ts),
        str(user),
        str(team) if team else None,
        text,
    )


def reply_marker(slack: SlackGateway) -> ReplyMark:
    """How a delivered decision marks the reply it was given in: a ✅ everyone sees. The
    answer is already Novo's, so a reaction Slack refuses is only logged."""

    async def mark(reply: SlackMessageRef) -> None:
        try:
            await slack.add_reaction(reply.channel, reply.ts, REACTION)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("could not add ✅ to reply %s in %s: %r", reply.ts, reply.channel, exc)

    return mark


class ThreadReplyService:
    def __init__(
        self, store: Store, slack: SlackGateway, decisions: DecisionService, clock: Clock
    ) -> None:
        self._store = store
        self._slack = slack
        self._decisions = decisions
        self._clock = clock

    async def replied(self, reply: ThreadReply, actor: SlackActor) -> ReplyResult:
        """Answer the question under `reply.thread_ts` with the reply, if it is one's."""
        interaction_id = await self._store.interaction_at(reply.channel, reply.thread_ts)
        if interaction_id is None:
            return ReplyResult.IGNORED
        tracked = await self._store.get(interaction_id)
        if tracked is None or tracked.snapshot.kind != "question":
            return ReplyResult.IGNORED  # people talk under approvals: none of it is an answer
        if reply.event_id and not await self._store.first_receipt(reply.event_id, self._clock()):
            log.info("a repeated delivery of event %s was ignored", reply.event_id)
            return ReplyResult.REPEATED
        ended = self._decisions.not_decidable(tracked)
        if ended is not None:
            await self._tell(reply, outcome_text(ended))
            return ReplyResult.TOLD
        answer = parse_reply(tracked.snapshot, reply.text)
        if answer is None:
            text, blocks = reply_help(interaction_id, reply_targets(tracked.snapshot.request))
            await self._tell(reply, text, blocks)
            return ReplyResult.TOLD
        verb = VERB_ANSWERED
        if answer.action is not None:
            verb = (
                f"Chose “{truncate(answer.action.label or answer.action.id, ACTION_LABEL_CHARS)}”"
            )
        decision = SlackDecision(
            actor=actor,
            at=self._clock(),
            verb=verb,
            via=THREAD_VIA,
            reply=SlackMessageRef(reply.channel, reply.ts),
        )
        body = ResolveInteractionBody(input_responses=[answer.response])
        outcome = await self._decisions.decide(interaction_id, body, decision)
        return await self._answered(reply, outcome)

    async def prune_receipts(self) -> int:
        return await self._store.prune_receipts(self._clock() - timedelta(days=RECEIPT_DAYS))

    async def _answered(self, reply: ThreadReply, outcome: DecisionOutcome) -> ReplyResult:
        if outcome.kind is OutcomeKind.DELIVERED:
            return ReplyResult.ANSWERED  # the decision service marked the reply ✅
        await self._tell(reply, outcome_text(outcome))
        return ReplyResult.QUEUED if outcome.kind is OutcomeKind.QUEUED else ReplyResult.TOLD

    async def _tell(
        self, reply: ThreadReply, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        """A word only the person who replied sees, in the thread they replied in."""
        try:
            await self._slack.post_ephemeral(
                reply.channel,
                reply.user_id,
                clean_text(defuse_mrkdwn(text)),
                thread_ts=reply.thread_ts,
                blocks=blocks,
            )
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("could not tell %s in the thread %s: %r", reply.user_id, reply.ts, exc)
