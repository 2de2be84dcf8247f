"""Settings for a bridge wired to a local Novo simulator and a local Slack.

The demo, the end-to-end tests and the benchmarks all run this same trio, so
they build the bridge's settings in one place, as production does: through
the environment names of `bot.config`, never a `.env` file.
"""

from __future__ import annotations

from pathlib import Path

from bot.config import Settings, load_settings
from bot.localslack.server import LocalSlack
from bot.sim.server import SimServer


def local_bridge_settings(
    sim: SimServer,
    slack: LocalSlack,
    db: Path,
    *,
    signing_secret: str,
    api_key: str,
    channel: str,
    poll_seconds: float,
) -> Settings:
    return load_settings(
        SLACK_BOT_TOKEN=slack.bot_token,
        SLACK_SIGNING_SECRET=signing_secret,
        SLACK_API_URL=slack.api_url,
        NOVO_API_URL=sim.url,
        NOVO_API_KEY=api_key,
        NOVO_SLACK_CHANNEL=channel,
        NOVO_SLACK_DB=str(db),
        NOVO_SLACK_PORT=0,
        NOVO_SLACK_POLL_SECONDS=poll_seconds,
        _env_file=None,
    )
