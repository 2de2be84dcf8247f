"""The floor of a post: what posting a card costs with nothing of the bridge around it.

`python -m bench.floor --api-url URL --token T --channels C1,C2 --count N --rate R` posts
N approval-like cards over the channels, each card a dict built in place, sent with
slack_sdk's async client over one keep-alive session, and recorded as one SQLite row
through aiosqlite (one INSERT, one commit). Each channel is paced at R posts a second as
the bridge's lanes are. It prints one JSON line: the posts Slack accepted and the CPU
seconds this process used while posting. `bench.burst` runs it beside the bridge, against
the same local Slack, in the same run, and prints the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import aiosqlite
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

EVENT_TYPE = "novo_interaction"


def card(interaction_id: str, n: int) -> dict[str, Any]:
    """An approval card as a dict: a header line, the tool and its input, two buttons."""
    return {
        "text": f"Approval needed: deploy_service ({interaction_id})",
        "blocks": [
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": f"*Approval needed* · `deploy_service` #{n}"},
            },
            {
                "type": "section",
                "fields": [
                    {"type": "mrkdwn", "text": "*Agent*\nagt_0"},
                    {"type": "mrkdwn", "text": "*Expires*\nin 1 hour"},
                ],
            },
            {
                "type": "actions",
                "block_id": f"decide:{interaction_id}",
                "elements": [
                    {
                        "type": "button",
                        "action_id": "approve",
                        "style": "primary",
                        "text": {"type": "plain_text", "text": "Approve"},
                        "value": interaction_id,
                    },
                    {
                        "type": "button",
                        "action_id": "deny",
                        "style": "danger",
                        "text": {"type": "plain_text", "text": "Deny"},
                        "value": interaction_id,
                    },
                ],
            },
        ],
        "metadata": {
            "event_type": EVENT_TYPE,
            "event_payload": {"interaction_id": interaction_id},
        },
    }


async def _lane(
    client: AsyncWebClient,
    db: aiosqlite.Connection,
    channel: str,
    ids: list[str],
    rate: float,
) -> int:
    accepted = 0
    next_at = time.monotonic()
    for n, interaction_id in enumerate(ids):
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        next_at += 1 / rate
        try:
            answer = await client.chat_postMessage(channel=channel, **card(interaction_id, n))
        except SlackApiError:
            continue
        await db.execute(
            "INSERT INTO posts (id, channel, ts, at) VALUES (?, ?, ?, ?)",
            (interaction_id, channel, answer["ts"], time.time()),
        )
        await db.commit()
        accepted += 1
    return accepted


async def post_floor(
    api_url: str, token: str, channels: list[str], count: int, rate: float, db_path: Path
) -> tuple[int, float]:
    """(posts accepted, CPU seconds of this process while posting)."""
    async with (
        aiosqlite.connect(db_path) as db,
        aiohttp.ClientSession() as session,
    ):
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute(
            "CREATE TABLE IF NOT EXISTS posts (id TEXT PRIMARY KEY, channel TEXT, ts TEXT, at REAL)"
        )
        await db.commit()
        client = AsyncWebClient(token=token, base_url=api_url, session=session)
        lanes = {c: [f"floor_{c}_{n}" for n in range(count // len(channels))] for c in channels}
        started = time.process_time()
        done = await asyncio.gather(*(_lane(client, db, c, ids, rate) for c, ids in lanes.items()))
        return sum(done), time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--api-url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--channels", required=True, help="comma-separated channel ids")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="novo-slack-floor-") as tmp:
        posts, cpu = asyncio.run(
            post_floor(
                args.api_url,
                args.token,
                args.channels.split(","),
                args.count,
                args.rate,
                Path(tmp) / "floor.db",
            )
        )
    print(json.dumps({"posts": posts, "cpu_seconds": cpu}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
