"""The one place that tells a person how their decision went.

Services return a `DecisionOutcome`; this turns it into what the person sees.
A delivered decision needs no extra word (the message itself now shows it);
everything else (already decided, refused, queued, gone) is an ephemeral
message in the interaction's channel, visible only to them.
"""

from __future__ import annotations

import logging

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.services.outcomes import DecisionOutcome, OutcomeKind
from bot.slack.gateway import SlackGateway
from bot.slack.render.common import clean_text, defuse_mrkdwn
from bot.store import Store

log = logging.getLogger(__name__)


def ephemeral_text(outcome: DecisionOutcome) -> str:
    """The outcome's mrkdwn, made safe as everything we render is (see render.common)."""
    return clean_text(defuse_mrkdwn(outcome.text))


class Presenter:
    def __init__(self, store: Store, slack: SlackGateway) -> None:
        self._store = store
        self._slack = slack

    async def tell(
        self,
        user_id: str,
        interaction_id: str,
        outcome: DecisionOutcome,
        channel: str | None = None,
    ) -> None:
        if outcome.kind is OutcomeKind.DELIVERED:
            return
        if channel is None:
            tracked = await self._store.get(interaction_id)
            if tracked is None:
                log.warning(
                    "no channel to tell %s about %s: %s", user_id, interaction_id, outcome.text
                )
                return
            channel = tracked.channel
        try:
            await self._slack.post_ephemeral(channel, user_id, ephemeral_text(outcome))
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            # The decision itself is safe in the store; only the courtesy note is lost.
            log.warning(
                "could not tell %s about %s (%s): %r", user_id, interaction_id, outcome.kind, exc
            )
