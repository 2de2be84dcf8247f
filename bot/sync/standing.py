"""The poll's hook for standing approvals: the new pending approvals an allowance takes.

The poll asks before it posts anything, so an approval an allowance covers never
gets a message of its own. The sync layer only defines the question; the use
case (matching, recording the use once, queueing the approval in the outbox,
reporting it) lives above, in `bot.services.allowances`, and the bridge's
wiring plugs it in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.novo.models import Interaction


class StandingApprovals(Protocol):
    async def take(self, new: Sequence[Interaction]) -> set[str]:
        """Of this poll's new interactions, the ids a standing approval took (tracked,
        approved through the outbox): the poll posts none of them."""
        ...
