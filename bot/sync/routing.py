"""Where an interaction's messages go: the policy's route, asked once, when it is first posted.

The destination is recorded with the message, so a later change of policy
never moves a message that is already in Slack.
"""

from __future__ import annotations

from bot.novo.models import Interaction
from bot.policy.live import LivePolicy


class ChannelRouter:
    def __init__(self, policy: LivePolicy) -> None:
        self._policy = policy

    def destinations_for(self, interaction: Interaction) -> tuple[str, ...]:
        """A channel, or each listed user (their DMs); the first holds the primary message."""
        return self._policy.route(interaction).destinations

    def rule_for(self, interaction: Interaction) -> str:
        """The name of the policy rule it falls under now (metrics label by it)."""
        return self._policy.route(interaction).rule

    def unsure_for(self, interaction: Interaction) -> tuple[str, ...]:
        """The rules whose condition could not be evaluated on it, each with its error."""
        return self._policy.route(interaction).unsure

    def channel_for(self, interaction: Interaction) -> str:
        return self.destinations_for(interaction)[0]
