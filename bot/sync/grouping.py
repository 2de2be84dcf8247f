"""Which new approvals form a step group: siblings of one run's step, routed to one channel.

Approvals sharing `rootRunId` and `stepNumber` and pending together are one
decision for the people asked ("may the agent do these four things?"), so
they are shown as one entry in the channel. A group forms when two or more
arrive in the same poll; one arriving later joins the group its siblings
formed, and one alone stays a plain card. Anything routed to people's DMs
stays on its own (each DM holds its own copies).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.novo.models import Interaction
from bot.slack.gateway import is_user_id
from bot.store import Store
from bot.store.groups import group_key
from bot.sync.routing import ChannelRouter


async def form_groups(
    new: Iterable[Interaction], store: Store, router: ChannelRouter, now: datetime
) -> dict[str, str]:
    """Interaction id → the id of the step group it joins (claimed in the store here)."""
    buckets: dict[tuple[str, int, str], list[Interaction]] = {}
    for interaction in new:
        if interaction.kind != "approval_request" or not interaction.is_pending:
            continue
        destinations = router.destinations_for(interaction)
        if len(destinations) != 1 or is_user_id(destinations[0]):
            continue
        key = (interaction.root_run_id, interaction.step_number, destinations[0])
        buckets.setdefault(key, []).append(interaction)
    # a lone approval joins only a group its siblings formed in an earlier poll
    lone = [group_key(*key) for key, siblings in buckets.items() if len(siblings) < 2]
    formed = await store.groups_among(lone) if lone else set()
    joined: dict[str, str] = {}
    for (root, step, channel), siblings in buckets.items():
        group_id = group_key(root, step, channel)
        if len(siblings) < 2 and group_id not in formed:
            continue
        await store.claim_group(root, step, channel, siblings[0].agent_id, now)
        joined.update({s.id: group_id for s in siblings})
    return joined
