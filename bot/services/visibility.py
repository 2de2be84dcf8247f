"""Who may see an interaction in a list: Home's team queue, `/novo stats`, and the like.

A list shows a person only what they could see anyway, so nothing about an
interaction reaches someone its rule keeps it from (a DM-only `hr_*` rule's
"Terminate Jane Doe (employee 4471)" is for the people it DMs, not for
everyone who opens Home). Someone sees an interaction when:

* they may decide it (the one decider gate, asked quietly); or
* it is addressed to them: a rule that DMs them (as the policy in force
  names its `dm:` people, or the DM it was posted to); or
* it went to a channel they can read: they are among its members
  (conversations.members, cached for five minutes, bounded; see
  `SlackDirectory.channel_members`) — unless they are a guest or of another
  workspace, who see only what is addressed to them or they may decide.

Whatever Slack can't confirm is not shown: a lookup that fails hides, it
never reveals. Everything here depends on an interaction only through its
destination and its rule, so a list of hundreds asks once per (destination,
rule): `Rights` is that answer for one person, and equal rights give equal
lists (Home shares one render of them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from bot.domain import SlackActor
from bot.policy.file import PolicyFile
from bot.policy.live import LivePolicy
from bot.policy.routes import Route
from bot.services.deciders import DeciderGate
from bot.slack.directory import DirectoryUnavailable, SlackDirectory
from bot.slack.gateway import is_user_id
from bot.store import TrackedInteraction

log = logging.getLogger(__name__)

ROUTES_KEPT = 20_000

Place = tuple[str, str]
"""(destination as the policy named it, rule): what seeing an interaction depends on."""
Places = dict[Place, tuple[TrackedInteraction, Route]]
"""Places, each with one interaction there and its route: what rights are asked of."""


def place_of(tracked: TrackedInteraction, route: Route) -> Place:
    return tracked.channel, route.rule


@dataclass(frozen=True)
class Viewer:
    """Someone looking at a list; an `outsider` (a guest, or of another workspace, or
    someone Slack could not tell about) sees only what is addressed to them or what
    they may decide."""

    actor: SlackActor
    outsider: bool

    @property
    def user_id(self) -> str:
        return self.actor.user_id


@dataclass(frozen=True)
class Rights:
    """Of a set of places, those one person may decide and those they may see."""

    decides: frozenset[Place]
    sees: frozenset[Place]


class Visibility:
    def __init__(
        self,
        gate: DeciderGate,
        directory: SlackDirectory,
        home_team: str | None,
        policy: LivePolicy,
    ) -> None:
        self._gate = gate
        self._directory = directory
        self._home_team = home_team
        self._policy = policy
        # id -> (record version, policy file, route): Home asks for every open one per open
        self._routes: dict[str, tuple[int, PolicyFile, Route]] = {}

    def route(self, tracked: TrackedInteraction) -> Route:
        """The route the policy in force gives it; kept while neither the record nor the
        policy changed."""
        policy = self._policy.current
        kept = self._routes.get(tracked.id)
        if kept is not None and kept[0] == tracked.record_version and kept[1] is policy:
            return kept[2]
        route = self._gate.route(tracked.snapshot)
        if len(self._routes) >= ROUTES_KEPT:
            self._routes.clear()  # a rare sweep, rebuilt by the next list
        self._routes[tracked.id] = (tracked.record_version, policy, route)
        return route

    async def viewer(self, actor: SlackActor) -> Viewer:
        """Who is looking: an outsider unless Slack says they are a full member here."""
        if actor.team_id and self._home_team and actor.team_id != self._home_team:
            return Viewer(actor, outsider=True)
        try:
            person = await self._directory.person(actor.user_id)
        except DirectoryUnavailable:
            return Viewer(actor, outsider=True)
        foreign = bool(person.team_id and self._home_team and person.team_id != self._home_team)
        return Viewer(actor, outsider=person.guest or person.stranger or foreign)

    def places(self, items: Iterable[TrackedInteraction]) -> Places:
        """The places of these interactions, each with the first of them there."""
        first: Places = {}
        for tracked in items:
            route = self.route(tracked)
            first.setdefault(place_of(tracked, route), (tracked, route))
        return first

    async def rights(self, viewer: Viewer, places: Places) -> Rights:
        """What `viewer` may decide and see of these places (see `places`)."""
        decides: set[Place] = set()
        sees: set[Place] = set()
        for place, (tracked, route) in places.items():
            if await self._gate.may_decide(tracked.snapshot, viewer.actor):
                decides.add(place)
                sees.add(place)
            elif await self._sees(viewer, tracked, route):
                sees.add(place)
        return Rights(frozenset(decides), frozenset(sees))

    async def visible(
        self, viewer: Viewer, items: Iterable[TrackedInteraction]
    ) -> list[TrackedInteraction]:
        """Those of `items` that `viewer` may see, in their order."""
        listed = list(items)
        rights = await self.rights(viewer, self.places(listed))
        return [t for t in listed if place_of(t, self.route(t)) in rights.sees]

    async def _sees(self, viewer: Viewer, tracked: TrackedInteraction, route: Route) -> bool:
        user = viewer.user_id
        if user == tracked.channel or user in route.dm:
            return True  # addressed to them
        if viewer.outsider or is_user_id(tracked.channel) or self._directory is None:
            return False  # someone else's DM, or an outsider's view of a channel
        try:
            return user in await self._directory.channel_members(tracked.shown_in)
        except DirectoryUnavailable as exc:
            log.info("not showing %s what %s shows: %s", user, tracked.shown_in, exc)
            return False
