"""Where an interaction's message goes.

Today every interaction goes to the configured default channel; routing by
agent or run would change this module only.
"""

from __future__ import annotations

from bot.novo.models import Interaction


class ChannelRouter:
    def __init__(self, default_channel: str) -> None:
        self._default = default_channel

    def channel_for(self, interaction: Interaction) -> str:
        return self._default
