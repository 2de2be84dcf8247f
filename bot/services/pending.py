"""What is waiting for one person: the open interactions they may decide, soonest first.

"Pending for me" means what the policy lets this person decide, checked the
way a click is checked (`DeciderGate`, quietly: asking is not a refused
click), so a list never offers what a click would refuse. Words narrow it:
each must appear, in any case, in the agent's id, the name the policy gives
the agent, or the tool's name. Text is matched before anyone is looked up in
Slack, so a narrow search costs no lookups for what it leaves out.

Each check may wait on Slack (who the person is, their groups; cached once
answered), so the checks together get a deadline: past it, the list holds
what was confirmed so far and says it is not complete, rather than keep the
person waiting or pass off a slow Slack as "nothing for you".
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.policy.live import LivePolicy
from bot.services.deciders import DeciderGate
from bot.store import Store, TrackedInteraction


def matches(interaction: Interaction, words: Sequence[str], agent_names: Mapping[str, str]) -> bool:
    """Every word is in the agent id, the agent's configured name or the tool name."""
    haystack = " ".join(
        (interaction.agent_id, agent_names.get(interaction.agent_id, ""), interaction.tool_name)
    ).casefold()
    return all(word.casefold() in haystack for word in words)


def soonest_first(tracked: TrackedInteraction) -> tuple[bool, datetime, datetime, str]:
    """Expiring soonest first, those without a deadline last; then oldest asked."""
    snapshot = tracked.snapshot
    expires = snapshot.expires_at
    return (expires is None, expires or snapshot.created_at, snapshot.created_at, tracked.id)


CHECK_SECONDS = 10.0
"""How long the checks of one list may take together."""


@dataclass(frozen=True)
class Found:
    """What `actor` may decide, soonest first; `complete` False when the deadline cut the
    checks short (what is listed was confirmed; others may be missing)."""

    waiting: list[TrackedInteraction]
    complete: bool


class PendingFinder:
    def __init__(self, store: Store, gate: DeciderGate, policy: LivePolicy) -> None:
        self._store = store
        self._gate = gate
        self._policy = policy

    async def for_person(
        self, actor: SlackActor, words: Sequence[str], *, within: float = CHECK_SECONDS
    ) -> Found:
        """The open interactions `actor` may decide that match every word, soonest first."""
        names = self._policy.current.agents
        candidates = sorted(
            (
                tracked
                for tracked in await self._store.open_interactions()
                if matches(tracked.snapshot, words, names)
            ),
            key=soonest_first,
        )
        allowed: list[TrackedInteraction] = []
        try:
            async with asyncio.timeout(within):
                for tracked in candidates:
                    if await self._gate.may_decide(tracked.snapshot, actor):
                        allowed.append(tracked)
        except TimeoutError:
            return Found(allowed, complete=False)
        return Found(allowed, complete=True)
