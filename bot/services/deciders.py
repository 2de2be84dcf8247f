"""Who may decide an interaction, checked on every click before anything is recorded.

The policy names deciders (users, user groups, or anyone) per rule and keeps
guests and people of other workspaces out unless the rule allows them. The
check is made here, once, for every path that decides or opens a form, so it
does not matter which button a payload claims to be. It reads the policy in
force at the click (a reload applies to interactions already posted) and
refuses when Slack can't say who the person is: a decision let through
unchecked can't be taken back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TypeVar

from bot.clock import Clock
from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.outcomes import Refusal, RefusalKind
from bot.policy.file import Deciders
from bot.policy.live import LivePolicy
from bot.policy.routes import Route
from bot.slack.directory import DirectoryUnavailable, Person, SlackDirectory
from bot.store import Store

log = logging.getLogger(__name__)

T = TypeVar("T")

GUEST = Refusal(RefusalKind.GUEST)
EXTERNAL = Refusal(RefusalKind.EXTERNAL)
UNCHECKED = Refusal(RefusalKind.UNCHECKED)


async def _none() -> None:
    return None


async def _attempt(lookup: Awaitable[T]) -> T | DirectoryUnavailable:
    """A look-up's answer, or why Slack could not give it (the others still count)."""
    try:
        return await lookup
    except DirectoryUnavailable as exc:
        return exc


def not_a_decider(deciders: Deciders) -> Refusal:
    """Refused, naming the rule's deciders so the person knows whom to ask."""
    return Refusal(RefusalKind.NOT_A_DECIDER, tuple(deciders.users), tuple(deciders.groups))


class DeciderGate:
    def __init__(
        self,
        policy: LivePolicy,
        directory: SlackDirectory,
        home_team: str | None,
        *,
        store: Store,
        clock: Clock,
    ) -> None:
        self._policy = policy
        self._directory = directory
        self._home_team = home_team
        self._store = store
        self._clock = clock

    def route(self, interaction: Interaction) -> Route:
        return self._policy.route(interaction)

    async def refusal(
        self, interaction: Interaction, actor: SlackActor, *, audit: bool = True
    ) -> Refusal | None:
        """Why `actor` may not decide `interaction`, or None if they may.

        A refusal is an event: it is logged with the user id and, unless `audit` is
        False (a standing approval's granter, asked by the poll), written to the audit
        trail. (`may_decide` asks the same question quietly, for lists.)
        """
        route = self._policy.route(interaction)
        why = await self._judged(route, actor)
        if why is None:
            return None
        log.info(
            "refused %s on %s (rule %s): %s", actor.user_id, interaction.id, route.rule, why[0]
        )
        if not audit:
            return why[1]
        await self._store.record(
            "refused",
            self._clock(),
            interaction_id=interaction.id,
            actor_id=actor.user_id,
            rule=route.rule,
            why=why[0],
        )
        return why[1]

    async def _judged(self, route: Route, actor: SlackActor) -> tuple[str, Refusal] | None:
        try:
            return await self._why_not(route, actor)
        except DirectoryUnavailable as exc:
            log.warning("could not look %s up: %s", actor.user_id, exc)
            return f"could not look them up ({exc})", UNCHECKED

    async def may_decide(self, interaction: Interaction, actor: SlackActor) -> bool:
        """Whether `actor` may decide it, asked quietly (a list of what someone may decide)."""
        return await self._judged(self._policy.route(interaction), actor) is None

    async def no_longer_counts(self, interaction: Interaction, voter: SlackActor) -> str | None:
        """Why a standing vote's giver may not decide it today (the log's reason, which the
        message words), or None while they still may. Asked of every other vote when one
        would complete a quorum, fresh from Slack (`DirectoryUnavailable` when Slack can't
        say)."""
        route = self._policy.route(interaction)
        why = await self._why_not(route, voter, fresh=True)
        if why is None:
            return None
        return why[0]

    async def _why_not(
        self, route: Route, actor: SlackActor, *, fresh: bool = False
    ) -> tuple[str, Refusal] | None:
        """(a reason for the log, the refusal the person is told), or None when allowed.

        Slack is asked everything at once (the person, each group): one after another,
        three slow group look-ups alone would outlast Slack's 3 s.
        """
        if not route.allow_guests and self._foreign(actor.team_id):
            return f"user of team {actor.team_id}", EXTERNAL
        deciders = route.deciders
        listed = deciders.anyone or actor.user_id in deciders.users
        directory = self._directory
        person: Awaitable[Person | None] = (
            _none() if route.allow_guests else directory.person(actor.user_id, fresh=fresh)
        )
        groups = () if listed else tuple(deciders.groups)
        who, memberships = await asyncio.gather(
            _attempt(person),
            asyncio.gather(*(_attempt(directory.members(g, fresh=fresh)) for g in groups)),
        )
        if isinstance(who, DirectoryUnavailable):
            raise who
        if who is not None:
            if who.guest:
                return "a guest", GUEST
            if who.stranger or self._foreign(who.team_id):
                return f"user of team {who.team_id} (stranger)", EXTERNAL
        if listed:
            return None
        if any(not isinstance(m, DirectoryUnavailable) and actor.user_id in m for m in memberships):
            return None
        failed = next((m for m in memberships if isinstance(m, DirectoryUnavailable)), None)
        if failed is not None:
            raise failed
        return "not a decider", not_a_decider(deciders)

    def _foreign(self, team_id: str | None) -> bool:
        return bool(team_id and self._home_team and team_id != self._home_team)
