"""Answering a question by replying in its message's thread.

A reply is read as the answer it unambiguously stands for (see
`bot.slack.thread_answers`), but it is never sent on its own: people talk in
threads (`@grace do you know which customer this is?`), and only an explicit
"this is my answer" may decide. So a reply by someone who may decide gets an
offer, only to them, naming exactly what would be sent (`Send “EU” as your
answer to “Which region?”`) with a *Send* button; the parsed answer is kept in
the store (as a form's draft is, so the click may reach another replica). Only
that click decides, and it takes the same road as a form submission: the
policy's check, the outbox (recorded before the ack, delivered once,
redelivered after an outage), the same rewrite of the message. A reply whose
answer Novo took gets a ✅, for everyone to see. Someone who may not decide is
told so, and gets no offer.

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
from bot.domain import SlackActor, SlackMessageRef
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from bot.outages import level
from bot.outcomes import DecisionOutcome, OutcomeKind
from bot.services.acking import Acknowledge, window_of
from bot.services.deciders import DeciderGate
from bot.services.deciding import DecisionPath, not_decidable
from bot.services.decision_request import DecisionRequest, Means
from bot.services.decisions import ReplyMark
from bot.services.questions import CHOICE_GONE, answer_verb
from bot.services.shown import Shown, note_offer
from bot.slack.gateway import SlackGateway
from bot.slack.render.common import clean_text, defuse_mrkdwn
from bot.slack.render.outcomes import fact_text, outcome_text
from bot.slack.render.thread_reply import REACTION, reply_help, send_offer
from bot.slack.thread_answers import parse_reply, reply_targets
from bot.store import Store

log = logging.getLogger(__name__)

OFFER_PREFIX = "reply"
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
    OFFERED = "offered"  # the person was offered to send the answer it stands for


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
            log.log(
                level(exc), "could not add ✅ to reply %s in %s: %r", reply.ts, reply.channel, exc
            )

    return mark


@dataclass(frozen=True)
class ReplyOffer:
    """An offer to send a reply as its author's answer: which reply, by whom. Its `value`
    is the *Send* button's value and the key its answer is kept under."""

    channel: str
    thread_ts: str
    ts: str
    user_id: str

    @property
    def value(self) -> str:
        return "|".join((OFFER_PREFIX, self.channel, self.thread_ts, self.ts, self.user_id))

    @classmethod
    def parse(cls, value: str) -> ReplyOffer | None:
        parts = value.split("|")
        if len(parts) != 5 or parts[0] != OFFER_PREFIX or not all(parts):
            return None
        return cls(*parts[1:])


def offer_words(interaction: Interaction, response: InputResponse) -> tuple[str, str]:
    """(what would be sent, what it answers), as the offer names them."""
    request = interaction.request
    asked = request.title if request is not None else ""
    if request is not None:
        action = request.action(response.request_id)
        if action is not None:
            return action.label or action.id, asked or interaction.id
        question = next((q for q in request.questions if q.id == response.request_id), None)
        if question is not None:
            asked = question.prompt or asked
            option = next((o for o in question.options or [] if o.id == response.option_id), None)
            if option is not None:
                return option.label or option.id, asked or interaction.id
    return response.text or "", asked or interaction.id


class ThreadReplyService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        path: DecisionPath,
        gate: DeciderGate,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._path = path
        self._gate = gate
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
        ended = not_decidable(tracked)
        if ended is not None:
            await self._tell(reply, outcome_text(ended))
            return ReplyResult.TOLD
        answer = parse_reply(tracked.snapshot, reply.text)
        if answer is None:
            text, blocks = reply_help(interaction_id, reply_targets(tracked.snapshot.request))
            await self._tell(reply, text, blocks)
            return ReplyResult.TOLD
        refused = await self._gate.refusal(tracked.snapshot, actor)
        if refused is not None:
            await self._tell(reply, fact_text(refused))
            return ReplyResult.TOLD
        offer = ReplyOffer(reply.channel, reply.thread_ts, reply.ts, reply.user_id)
        await self._store.save_draft(
            offer.value, interaction_id, [answer.response.to_wire()], self._clock()
        )
        words, asked = offer_words(tracked.snapshot, answer.response)
        await self._tell(reply, *send_offer(words, asked, offer.value))
        return ReplyResult.OFFERED

    async def send(
        self, value: str, actor: SlackActor, acknowledge: Acknowledge | None = None
    ) -> tuple[str, DecisionOutcome]:
        """The *Send* click on an offer: decide with exactly the answer it named, as the
        person who replied (nobody else can send their reply)."""
        offer = ReplyOffer.parse(value)
        interaction_id = (
            await self._store.interaction_at(offer.channel, offer.thread_ts) if offer else None
        )
        saved = await self._store.load_draft(value) if offer and interaction_id else None
        if offer is None or interaction_id is None or not saved or offer.user_id != actor.user_id:
            if acknowledge is not None:
                await window_of(acknowledge)()
            return interaction_id or "", CHOICE_GONE
        tracked = await self._store.get(interaction_id)
        response = InputResponse.model_validate(saved[0])
        if tracked is not None:
            # what the person saw and clicked: the offer naming their reply, under it
            offered, _ = send_offer(*offer_words(tracked.snapshot, response), value)
            note_offer(Shown("thread reply", offered, offer.channel, offer.ts))
        request = DecisionRequest(
            decider=actor,
            interaction_id=interaction_id,
            verb=answer_verb(tracked.snapshot if tracked else None, response),
            body=ResolveInteractionBody(input_responses=[response]),
            means=Means.THREAD_REPLY,
            reply=SlackMessageRef(offer.channel, offer.ts),
        )
        outcome = await self._path.decide(request, acknowledge)
        if outcome.kind in (OutcomeKind.DELIVERED, OutcomeKind.QUEUED):
            await self._store.drop_draft(value)
        return interaction_id, outcome

    async def prune_receipts(self) -> int:
        return await self._store.prune_receipts(self._clock() - timedelta(days=RECEIPT_DAYS))

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
            log.log(
                level(exc), "could not tell %s in the thread %s: %r", reply.user_id, reply.ts, exc
            )
