"""The App Home tab: published when someone opens it, kept true while they use it.

A Home tab shows what was last published to it, so every change to what it
would show must be published again. Only for people who opened it in the
last `HOME_WINDOW`, though: a tab nobody looks at is brought up to date the
next time it is opened (an open always publishes).

`refresh_recent` re-renders each recent viewer's tab and publishes those
whose render differs from what was last published to them (the hash the
store keeps, whichever replica published it). views.publish is Tier 4
(100+ a minute for the app in a workspace), so a refresh publishes at most
`publishes_per_tick`; whoever has waited longest since a publish goes first,
and the rest follow at the next tick. It runs on the poller lease holder
only, so replicas never spend the allowance twice on the same change; an
open is served by whichever replica Slack sent it to.

Each person sees only what they may see (`Visibility`): *Waiting on you*
lists what they may decide, *Your team's queue* what they may decide or can
read in its channel — never a DM-only rule's interactions unless it DMs
them; a guest or someone of another workspace sees only what is addressed to
them or they may decide.

Forty people opening Home at once with hundreds open must not mean forty
times the work, so what tabs share is worked out once:

* the *board* — the open interactions, each one's route and card (its
  buttons as its message renders them, whether it still takes a decision,
  who voted) — once per version of what is open: the store's light read of
  the open interactions (records parsed once, `store.parsed`) says whether
  the board in hand is still true; concurrent opens of one version share
  one build. A card is kept while its message's hash stays the same.
* the *sections* a person's rights allow (the candidates waiting on them,
  the team queue) — once per (board, rights): people with the same rights
  share them.

What is left per person is cheap: their own votes, links, what they
decided lately, and the render. The board build and each render are heavy
work (`HeavyWork`): they take turns and give way to clicks, and an open
that takes longer than `OPEN_SECONDS` is left to the next refresh.

The buttons are the message's own (see `render.home`): a click in the tab
reaches the same listeners and service calls as one in the channel.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.domain import SlackActor
from bot.messages import Messages
from bot.outages import level
from bot.policy.routes import Route
from bot.services.allowances import AllowanceService
from bot.services.deciders import DeciderGate
from bot.services.heavy import HeavyWork
from bot.services.visibility import Place, Places, Rights, Viewer, Visibility, place_of
from bot.slack.gateway import SlackGateway, is_user_id
from bot.slack.links import MessageLinks
from bot.slack.render.context import MessageContext
from bot.slack.render.home import (
    DECIDED_SHOWN,
    WAITING_SHOWN,
    DecidedItem,
    HomeFacts,
    QueueEntry,
    WaitingItem,
    expiry_order,
    message_actions,
    render_home,
    view_fingerprint,
)
from bot.slack.render.message import render_message
from bot.slack.render.status import accepts_decisions
from bot.store import Store, TrackedInteraction
from bot.store.home import HomeViewer
from bot.store.locks import KeyedLocks
from bot.store.schema import MessageKind

log = logging.getLogger(__name__)

HOME_WINDOW = timedelta(hours=24)
"""Tabs opened within this long are kept true; older ones wait for their next open."""
PUBLISHES_PER_TICK = 3
"""At a tick every 2 s, 90 publishes a minute at most: under views.publish's Tier 4
(100+/min), with room left for the publishes that opens make."""
CARDS_PER_SLICE = 25
"""Cards rendered between two checkpoints of a board build (a few ms of CPU)."""
OPEN_SECONDS = 20.0
"""The longest an open works on its tab; the next refresh publishes it if this ran out."""
# Answers that say "not now": the same view is tried again at the next refresh. Any other
# refusal would come back for the same view, so it is recorded as published and waits
# for a change (or the next open).
_TRANSIENT = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)


@dataclass(frozen=True)
class _Card:
    """An open interaction as every tab shows it, from its message's render."""

    rendered_hash: str | None
    actions: tuple[dict[str, Any], ...]
    decidable: bool  # nobody decided it and no decision is on its way
    voters: frozenset[str]  # standing approvals towards a quorum


@dataclass(frozen=True)
class _Sections:
    """What the tabs of everyone with the same rights share."""

    waiting: list[TrackedInteraction]  # they may decide it and it takes a decision, soonest first
    queue: list[QueueEntry]


@dataclass
class _Board:
    """What every tab of one version of what is open shares."""

    version: list[tuple[Any, ...]]  # compared whole: equal lists, equal boards
    open: list[TrackedInteraction]
    routes: dict[str, Route]
    places: Places
    cards: dict[str, _Card]
    sections: dict[Rights, _Sections] = field(default_factory=dict)

    def place(self, tracked: TrackedInteraction) -> Place:
        return place_of(tracked, self.routes[tracked.id])


async def _shared(build: asyncio.Future[_Board]) -> _Board | None:
    """The board another open is building; None if that build was cut short (the caller
    builds it then), while a cancellation of the caller itself goes on up."""
    try:
        return await asyncio.shield(build)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return None
    except Exception:
        return None


def _still(card: _Card | None, tracked: TrackedInteraction) -> bool:
    """Whether a card still shows what the interaction's message shows (same hash)."""
    return (
        card is not None
        and card.rendered_hash is not None
        and (card.rendered_hash == tracked.rendered_hash)
    )


def _card(tracked: TrackedInteraction, ctx: MessageContext) -> _Card:
    message = render_message(tracked.snapshot, ctx)
    voters = frozenset(a.user_id for a in ctx.quorum.approvers) if ctx.quorum else frozenset()
    return _Card(
        rendered_hash=tracked.rendered_hash,
        actions=message_actions(tracked.id, message),
        decidable=accepts_decisions(tracked.snapshot, ctx),
        voters=voters,
    )


def _version(open_: list[TrackedInteraction], routes: list[Route]) -> list[tuple[Any, ...]]:
    """What a board is built from: each open interaction's stored state and its route."""
    return [
        (
            t.id,
            t.record_version,
            t.rendered_hash,
            t.channel,
            t.slack_channel,
            t.ts,
            t.group_id,
            t.decided_in_slack,
            route,
        )
        for t, route in zip(open_, routes, strict=True)
    ]


class HomeService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        publisher: Messages,
        gate: DeciderGate,
        links: MessageLinks,
        clock: Clock,
        visibility: Visibility,
        *,
        heavy: HeavyWork | None = None,
        publishes_per_tick: int = PUBLISHES_PER_TICK,
        allowances: AllowanceService | None = None,
    ) -> None:
        self._store = store
        self._allowances = allowances
        self._slack = slack
        self._publisher = publisher
        self._gate = gate
        self._visibility = visibility
        self._heavy = heavy or HeavyWork()
        self._links = links
        self._clock = clock
        self._per_tick = publishes_per_tick
        self._board_in_hand: _Board | None = None
        self._building: tuple[list[tuple[Any, ...]], asyncio.Future[_Board]] | None = None
        self._publishing = KeyedLocks()  # one publish per person at a time in this process

    async def opened(self, user_id: str) -> None:
        """They opened the tab: remember it, and publish what it should show now."""
        await self._store.record_home_opened(user_id, self._clock())
        try:
            async with asyncio.timeout(OPEN_SECONDS):
                board = await self._board()
                decided = await self._store.decided_by(user_id, DECIDED_SHOWN)
                await self._publish(user_id, board, decided, known=None)
        except TimeoutError:
            log.warning(
                "the Home tab of %s took over %.0fs; the next refresh publishes it",
                user_id,
                OPEN_SECONDS,
            )

    async def refresh_recent(self) -> int:
        """Publish every recent viewer's tab that changed, a few per call; how many went."""
        return await self._refresh(await self._store.home_viewers(self._clock() - HOME_WINDOW))

    async def refresh_while_watched(self) -> datetime | None:
        """`refresh_recent` as a waking job runs it; returns when it next has work: at the
        next tick while anyone opened Home within `HOME_WINDOW`, else not before someone
        opens it (the store tells of each open this process records)."""
        viewers = await self._store.home_viewers(self._clock() - HOME_WINDOW)
        if not viewers:
            return None
        await self._refresh(viewers)
        return self._clock()

    async def _refresh(self, viewers: list[HomeViewer]) -> int:
        if not viewers:
            return 0
        board = await self._board()
        decided = await self._store.decided_by_each([v.user_id for v in viewers], DECIDED_SHOWN)
        sent = 0
        for viewer in viewers:  # the longest since a publish first
            if sent >= self._per_tick:
                break
            user = viewer.user_id
            if await self._publish(user, board, decided[user], known=viewer.published_hash):
                sent += 1
        return sent

    # ------------------------------------------------------------------ the board

    async def _board(self) -> _Board:
        """The board for what is open now: the one in hand if still true, else built once
        for everyone asking for this version."""
        open_ = await self._store.open_interactions()
        routes = [self._visibility.route(t) for t in open_]
        version = _version(open_, routes)
        board = self._board_in_hand
        if board is not None and board.version == version:
            return board
        if self._building is not None and self._building[0] == version:
            shared = await _shared(self._building[1])
            if shared is not None:
                return shared
        future: asyncio.Future[_Board] = asyncio.get_running_loop().create_future()
        self._building = (version, future)
        try:
            board = await self._build(version, open_, routes)
        except BaseException as exc:
            if isinstance(exc, Exception):
                future.set_exception(exc)
                future.exception()  # retrieved: nobody else may be waiting
            else:
                future.cancel()
            raise
        finally:
            if self._building is not None and self._building[1] is future:
                self._building = None
        future.set_result(board)
        self._board_in_hand = board
        return board

    async def _build(
        self, version: list[tuple[Any, ...]], open_: list[TrackedInteraction], routes: list[Route]
    ) -> _Board:
        kept = self._board_in_hand.cards if self._board_in_hand is not None else {}
        cards: dict[str, _Card] = {}
        stale = [t for t in open_ if not _still(kept.get(t.id), t)]
        contexts = await self._publisher.contexts(stale)  # a few queries for all of them
        async with self._heavy.turn():
            for index, tracked in enumerate(open_):
                card = kept.get(tracked.id)
                if not _still(card, tracked):
                    card = _card(tracked, contexts[tracked.id])
                if index % CARDS_PER_SLICE == CARDS_PER_SLICE - 1:
                    await self._heavy.pause()
                assert card is not None
                cards[tracked.id] = card  # what ended is forgotten
        by_id = {t.id: route for t, route in zip(open_, routes, strict=True)}
        places: Places = {}
        for tracked, route in zip(open_, routes, strict=True):
            places.setdefault(place_of(tracked, route), (tracked, route))
        return _Board(version, open_, by_id, places, cards)

    def _sections(self, board: _Board, rights: Rights) -> _Sections:
        """What everyone with these rights is shown of the board (worked out once)."""
        found = board.sections.get(rights)
        if found is not None:
            return found
        waiting = sorted(
            (
                t
                for t in board.open
                if board.place(t) in rights.decides and board.cards[t.id].decidable
            ),
            key=lambda t: expiry_order(t.snapshot),
        )
        grouped: dict[Place, list[TrackedInteraction]] = {}
        for tracked in board.open:
            place = board.place(tracked)
            if place in rights.sees:
                grouped.setdefault(place, []).append(tracked)
        queue = [
            QueueEntry(
                where=where,
                rule=rule,
                count=len(members),
                next_up=min((m.snapshot for m in members), key=expiry_order),
            )
            for (where, rule), members in grouped.items()
        ]
        found = board.sections[rights] = _Sections(waiting, queue)
        return found

    # ------------------------------------------------------------------ one person's tab

    async def _facts(
        self, viewer: Viewer, board: _Board, decided: list[TrackedInteraction]
    ) -> HomeFacts:
        user_id = viewer.user_id
        rights = await self._visibility.rights(viewer, board.places)
        sections = self._sections(board, rights)
        mine = [t for t in sections.waiting if user_id not in board.cards[t.id].voters]
        links = await asyncio.gather(*(self._link(t, user_id) for t in mine[:WAITING_SHOWN]))
        waiting = [
            WaitingItem(
                interaction=t.snapshot,
                where=t.channel,
                actions=board.cards[t.id].actions,
                # only the cards shown get a link
                link=links[index] if index < WAITING_SHOWN else None,
            )
            for index, t in enumerate(mine)
        ]
        ended = [t for t in decided if t.decided_in_slack is not None]
        decided_links = await asyncio.gather(*(self._link(t, user_id) for t in ended))
        done = [
            DecidedItem(t.snapshot, t.decided_in_slack, t.channel, link)
            for t, link in zip(ended, decided_links, strict=True)
            if t.decided_in_slack is not None
        ]
        mine_allowed, team_allowed = (
            await self._allowances.visible_to(SlackActor(user_id, user_id))
            if self._allowances is not None
            else ([], [])
        )
        return HomeFacts(
            now=self._clock(),
            waiting=waiting,
            queue=sections.queue,
            decided=done,
            allowances=tuple(mine_allowed),
            team_allowances=tuple(team_allowed),
        )

    async def _link(self, tracked: TrackedInteraction, user_id: str) -> str | None:
        """Where this person can read the message: their own copy when it went to several
        DMs, the primary otherwise; a card of a step group is a reply in its thread."""
        channel, ts = tracked.shown_in, tracked.ts
        if is_user_id(tracked.channel) and tracked.channel != user_id:
            copy = await self._store.get_message(tracked.id, MessageKind.COPY, user_id)
            if copy is not None and copy.state == "posted" and copy.ts is not None:
                channel, ts = copy.shown_in, copy.ts
        if ts is None:
            return None
        thread = None
        if tracked.group_id is not None:
            group = await self._store.group(tracked.group_id)
            thread = group.ts if group is not None else None
        return await self._links.link(channel, ts, thread)

    # ------------------------------------------------------------------ publishing

    async def _publish(
        self,
        user_id: str,
        board: _Board,
        decided: list[TrackedInteraction],
        *,
        known: str | None,
    ) -> bool:
        """Render their tab and publish it unless it shows what `known` (a hash) says it
        already does; True when a publish was made or tried."""
        async with self._publishing.hold(user_id):
            viewer = await self._visibility.viewer(SlackActor(user_id, user_id))
            facts = await self._facts(viewer, board, decided)
            async with self._heavy.turn():
                view = render_home(facts)
                digest = view_fingerprint(view)
            if known is not None and digest == known:
                return False
            try:
                await self._slack.publish_view(user_id, view)
            except SlackApiError as exc:
                error = str(exc.response.get("error"))
                log.log(level(exc), "publishing the Home tab of %s failed: %s", user_id, error)
                if error in _TRANSIENT:
                    return True
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.log(level(exc), "publishing the Home tab of %s got no answer: %r", user_id, exc)
                return True
            await self._store.record_home_published(user_id, digest, self._clock())
            return True
