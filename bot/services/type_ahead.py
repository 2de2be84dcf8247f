"""Type-ahead in a question's searchable menus: the options matching what is typed.

Slack asks on every keystroke (`block_suggestion`) and waits 3 seconds for
the options. Each request:

* is answered only for someone who may decide the question (the one decider
  gate, asked quietly: a keystroke is not a refused click); anyone else gets
  no options, whatever the payload claims;
* reuses what earlier keystrokes built: the store keeps the parsed record
  while it is unchanged (`store.parsed`), and the menu's folded labels are
  kept here for as long as the store hands out that same parsed record;
* is heavy work (`HeavyWork`): it takes a turn, searches in slices with a
  pause between them, and answers within `TYPE_AHEAD_SECONDS` with what it
  found by then (a partial list is better than one Slack drops as late).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.services.deciders import DeciderGate
from bot.services.heavy import HeavyWork
from bot.slack.render.question_modal import (
    ModalRef,
    SearchableMenu,
    fold_query,
    searchable_menu,
)
from bot.store import Store

log = logging.getLogger(__name__)

TYPE_AHEAD_SECONDS = 2.0
"""Of Slack's 3 s for a block_suggestion answer."""
SLICE = 2_000
"""Options searched between two pauses: well under a millisecond of CPU."""
MENUS_KEPT = 64


class TypeAheadService:
    def __init__(self, store: Store, gate: DeciderGate, heavy: HeavyWork) -> None:
        self._store = store
        self._gate = gate
        self._heavy = heavy
        # (interaction id, action id, block id) -> the record it was built from, the menu
        self._menus: OrderedDict[tuple[str, str, str], tuple[Interaction, SearchableMenu]] = (
            OrderedDict()
        )

    async def options(
        self,
        private_metadata: str,
        action_id: str,
        block_id: str,
        query: str,
        actor: SlackActor,
    ) -> list[dict[str, Any]]:
        """The options to offer `actor` for `query`; none for a menu they may not answer."""
        found: list[int] = []
        menu: SearchableMenu | None = None
        try:
            async with asyncio.timeout(TYPE_AHEAD_SECONDS):
                menu = await self._menu(private_metadata, action_id, block_id, actor)
                if menu is not None:
                    await self._search(menu, fold_query(query), found)
        except TimeoutError:
            log.info("type-ahead for %s cut short after %.1fs", actor.user_id, TYPE_AHEAD_SECONDS)
        return menu.options(found) if menu is not None else []

    async def _menu(
        self, private_metadata: str, action_id: str, block_id: str, actor: SlackActor
    ) -> SearchableMenu | None:
        await self._heavy.pause()
        ref = ModalRef.decode(private_metadata)
        tracked = await self._store.get(ref.interaction_id) if ref else None
        if tracked is None:
            return None
        if not await self._gate.may_decide(tracked.snapshot, actor):
            log.info("no type-ahead for %s on %s: may not decide it", actor.user_id, tracked.id)
            return None
        key = (tracked.id, action_id, block_id)
        kept = self._menus.get(key)
        if kept is not None and kept[0] is tracked.snapshot:
            self._menus.move_to_end(key)
            return kept[1]
        async with self._heavy.turn():
            menu = searchable_menu(tracked.snapshot, action_id, block_id)
        if menu is not None:
            self._menus[key] = (tracked.snapshot, menu)
            while len(self._menus) > MENUS_KEPT:
                self._menus.popitem(last=False)
        return menu

    async def _search(self, menu: SearchableMenu, needle: str, found: list[int]) -> None:
        """Fill `found` with matching positions, a slice per turn of the loop."""
        async with self._heavy.turn():
            for start in range(0, len(menu.folded), SLICE):
                found.extend(menu.matches(needle, start, start + SLICE, menu.room - len(found)))
                if len(found) >= menu.room:
                    return
                await self._heavy.pause()
