"""Answers `/novo`: help, what the caller may decide, one card, and how decisions went.

The listener has already acked (Slack's 3 seconds are kept whatever this
costs); the answer goes back through the command's response_url, seen only
by the caller. Everything here reads: nothing is decided or changed, so an
answer can be asked for again at no risk.

* `pending [words]`: `PendingFinder` — what the policy lets the caller
  decide, narrowed by the words — with a link to each message. A message in
  someone else's DM is no place to send the caller; their own copy is, and
  with neither the line has no link (its id still opens it with `show`).
* `show <id>`: the card exactly as the channel shows it (the publisher
  renders it from the store), buttons included; a click on them comes to the
  same listeners with the same checks. Only someone the policy lets decide
  it is shown it: the card holds the agent's input, and the command can be
  typed anywhere, by anyone in the workspace.
* `stats [24h|7d|30d]`: `reports.stats_by_rule` over what ended in the
  period that the caller may see (`Visibility`: what they may decide, what is
  addressed to them, what went to a channel they can read), each interaction
  under the rule the policy in force gives it. Nothing of a rule they may not
  see is counted, not even in the overall figures.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.clock import Clock
from bot.domain import SlackActor
from bot.messages import Messages
from bot.policy.live import LivePolicy
from bot.services.deciders import DeciderGate
from bot.services.pending import PendingFinder
from bot.services.reports import stats_by_rule
from bot.services.visibility import Visibility
from bot.slack.command_text import Help, Pending, Show, Stats, Unknown, parse
from bot.slack.gateway import is_user_id
from bot.slack.links import MessageLinks
from bot.slack.render.commands import (
    LIST_LIMIT,
    CommandMessage,
    PendingLine,
    help_message,
    not_found_message,
    not_shown_message,
    pending_message,
    show_which_message,
    stats_message,
)
from bot.slack.render.context import MessageContext
from bot.slack.render.thread_reply import without_reply_hint
from bot.store import Store, TrackedInteraction
from bot.store.schema import MessageKind

LINK_SECONDS = 2.0
"""How long one link may take (asked of Slack when it can't be built): a line
without its link is better than a list that keeps the caller waiting."""

Place = tuple[str, str, str | None]
"""Where a message is: (conversation, ts, the thread it is a reply in)."""


class CommandService:
    def __init__(
        self,
        store: Store,
        policy: LivePolicy,
        gate: DeciderGate,
        publisher: Messages,
        links: MessageLinks,
        clock: Clock,
        visibility: Visibility,
    ) -> None:
        self._store = store
        self._policy = policy
        self._gate = gate
        self._visibility = visibility
        self._publisher = publisher
        self._links = links
        self._clock = clock
        self._pending = PendingFinder(store, gate, policy)

    async def answer(self, text: str, actor: SlackActor) -> CommandMessage:
        """The answer to `/novo <text>` typed by `actor`."""
        command = parse(text)
        if isinstance(command, Pending):
            return await self._pending_list(actor, command.words)
        if isinstance(command, Show):
            return await self._show(actor, command.interaction_id)
        if isinstance(command, Stats):
            return await self._stats(command, actor)
        if isinstance(command, Unknown):
            return help_message(command.what)
        assert isinstance(command, Help)
        return help_message()

    # ------------------------------------------------------------------ pending

    async def _pending_list(self, actor: SlackActor, words: Sequence[str]) -> CommandMessage:
        found = await self._pending.for_person(actor, words)
        shown = found.waiting[:LIST_LIMIT]
        links = await asyncio.gather(*(self._link(t, actor) for t in shown))
        lines = [PendingLine(t.snapshot, link) for t, link in zip(shown, links, strict=True)]
        ctx = MessageContext(now=self._clock(), agent_names=self._policy.current.agents)
        return pending_message(lines, len(found.waiting), words, ctx, complete=found.complete)

    async def _link(self, tracked: TrackedInteraction, actor: SlackActor) -> str | None:
        place = await self._place_for(tracked, actor)
        if place is None:
            return None
        try:
            async with asyncio.timeout(LINK_SECONDS):
                return await self._links.link(*place)
        except TimeoutError:
            return None

    async def _place_for(self, tracked: TrackedInteraction, actor: SlackActor) -> Place | None:
        """The message `actor` can open: the channel's, or their own DM copy; None if neither."""
        if not is_user_id(tracked.channel):
            if tracked.ts is None:
                return None
            group = await self._store.group(tracked.group_id) if tracked.group_id else None
            return tracked.shown_in, tracked.ts, group.ts if group is not None else None
        if tracked.channel == actor.user_id and tracked.ts is not None:
            return tracked.shown_in, tracked.ts, None
        for message in await self._store.messages(tracked.id):
            mine = message.purpose == MessageKind.COPY and message.channel == actor.user_id
            if mine and message.state == "posted" and message.ts is not None:
                return message.shown_in, message.ts, None
        return None

    # ------------------------------------------------------------------ show

    async def _show(self, actor: SlackActor, interaction_id: str) -> CommandMessage:
        if not interaction_id:
            return show_which_message()
        tracked = await self._store.get(interaction_id)
        if tracked is None:
            return not_found_message(interaction_id)
        if not await self._gate.may_decide(tracked.snapshot, actor):
            return not_shown_message(interaction_id)
        card = await self._publisher.render(tracked)
        # an ephemeral card has no thread to reply in
        return {"text": card["text"], "blocks": without_reply_hint(card["blocks"])}

    # ------------------------------------------------------------------ stats

    async def _stats(self, command: Stats, actor: SlackActor) -> CommandMessage:
        viewer = await self._visibility.viewer(actor)
        ended = await self._visibility.visible(
            viewer, await self._store.ended_since(self._clock() - command.length)
        )
        by_rule = stats_by_rule(ended, lambda interaction: self._policy.route(interaction).rule)
        overall = stats_by_rule(ended, lambda _: "").get("")
        return stats_message(list(by_rule.values()), overall, command.words)
