"""What did not come from Slack, or not from this workspace, decides nothing and logs little.

Anyone who can reach `/slack/events` can post to it. Unsigned or badly
signed requests get 401, signed but malformed ones 400, each with at most a
DEBUG line; a signed payload from another team or app, or with no user, is
acked and ignored with one line, and Novo never hears of it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.bridge.runtime import Bridge
from bot.slack.ids import ActionId
from novo_dev.localslack.driver import FORM, SlackDriver
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.e2e.conftest import CHANNEL, SIGNING_SECRET, open_loop
from tests.support import wait_until

SECRET = SIGNING_SECRET
JUNK_REQUESTS = 200


@dataclass
class Rig:
    sim: SimServer
    slack: LocalSlack
    bridge: Bridge
    driver: SlackDriver
    http: httpx.AsyncClient

    @property
    def events_url(self) -> str:
        return self.driver.events_url

    async def resolves(self) -> list[dict[str, Any]]:
        log = await SimControl(self.sim.url, self.http).log()
        return [r for r in log if str(r["path"]).endswith("/resolve")]

    async def posted_approval(self) -> tuple[str, str]:
        created = await SimControl(self.sim.url, self.http).approval()
        interaction_id = created["id"]
        await wait_until(lambda: bool(self.slack.messages(CHANNEL)))
        return interaction_id, self.slack.messages(CHANNEL)[-1].ts


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async with open_loop(tmp_path) as loop:
        yield Rig(loop.sim, loop.slack, loop.bridge, loop.driver, loop.http)


def _sign(body: bytes, timestamp: str, secret: str = SECRET) -> str:
    """Slack's v0 signature over raw bytes (the driver's helper wants UTF-8 text)."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def _junk(now: int) -> list[tuple[int, bytes, dict[str, str]]]:
    """(expected status, body, headers) for each shape of junk."""
    ts = str(now)
    action = b"payload=" + json.dumps({"type": "block_actions"}).encode()

    def signed(body: bytes, content_type: str = FORM) -> tuple[bytes, dict[str, str]]:
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": _sign(body, ts),
        }
        return body, headers

    def sent_with(timestamp: str, signature: str | None = None) -> dict[str, str]:
        headers = {"Content-Type": FORM, "X-Slack-Request-Timestamp": timestamp}
        return headers if signature is None else {**headers, "X-Slack-Signature": signature}

    form = {"Content-Type": FORM}
    stale = str(now - 600)
    return [
        (401, b"", form),
        (401, action, form),
        (401, b"{not json", {"Content-Type": "application/json"}),
        (401, action, sent_with(ts)),
        (401, action, sent_with(ts, "v0=00")),
        (401, action, sent_with(stale, _sign(action, stale))),
        (401, action, sent_with("soon", _sign(action, "soon"))),
        (401, action, sent_with(ts, _sign(action, ts, "another-secret"))),
        (401, *signed(b"payload=\xff\xfe")),  # not UTF-8: not what Slack signs
        (400, *signed(b"payload=%7Bnot-json")),
        (400, *signed(b"payload=%5B1%2C2%5D")),  # a JSON list
        (400, *signed(b"payload=%22text%22")),
        (400, *signed(b"payload=7")),
        (400, *signed(b"payload=%7B%7D&payload=%7B%7D")),
        (400, *signed(b"no-equals-sign&&")),
        (400, *signed(b"")),
        (400, *signed(b"[1, 2]", "application/json")),
        (400, *signed(b"{oops", "application/json")),
        (400, *signed(b"payload=%7B%7D", "text/plain")),
        (400, *signed(b"payload=" + b"a" * (2 * 1024 * 1024))),
    ]


async def test_junk_gets_401_or_400_and_no_error_in_the_log(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    shapes = _junk(int(time.time()))
    statuses: list[tuple[int, int]] = []
    for n in range(JUNK_REQUESTS):
        expected, body, headers = shapes[n % len(shapes)]
        response = await rig.http.post(rig.events_url, content=body, headers=headers)
        statuses.append((expected, response.status_code))
    wrong = [(n, pair) for n, pair in enumerate(statuses) if pair[0] != pair[1]]
    assert not wrong, wrong
    loud = [r for r in caplog.records if r.levelno >= logging.INFO and "slack" in r.name]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not [r for r in caplog.records if r.exc_info], caplog.text
    assert "Traceback" not in caplog.text
    assert not [r for r in loud if "refused" in r.getMessage()]
    assert not await rig.resolves()


async def test_a_click_from_another_team_resolves_nothing(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    interaction_id, ts = await rig.posted_approval()
    async with SlackDriver(rig.bridge.url or "", SECRET, rig.slack, team_id="T0OTHER") as other:
        response = await other.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200  # acked, so Slack does not retry it
    await wait_until(lambda: "T0OTHER" in caplog.text, message="the refusal logged")
    assert "is not this bot's team T0LOCAL" in caplog.text
    assert not await rig.resolves()
    # the same click from this workspace does resolve: the refusal was about the team
    await rig.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(rig.resolves, message="the genuine click resolved")
    assert interaction_id in str((await rig.resolves())[0]["path"])


async def test_a_click_through_another_app_resolves_nothing(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    _, ts = await rig.posted_approval()
    async with SlackDriver(rig.bridge.url or "", SECRET, rig.slack, api_app_id="A0OTHER") as other:
        response = await other.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    await wait_until(lambda: "A0OTHER" in caplog.text, message="the refusal logged")
    assert not await rig.resolves()


async def test_a_signed_payload_without_a_user_resolves_nothing(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    interaction_id, ts = await rig.posted_approval()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0LOCAL", "domain": "novo-local"},
        "api_app_id": "A0LOCAL",
        "container": {"type": "message", "channel_id": CHANNEL, "message_ts": ts},
        "channel": {"id": CHANNEL},
        "actions": [{"type": "button", "action_id": ActionId.APPROVE, "value": interaction_id}],
    }
    response = await rig.driver.send_raw(rig.driver.encode(payload))
    assert response.status_code == 200
    await wait_until(lambda: "no user" in caplog.text, message="the refusal logged")
    assert not await rig.resolves()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_slacks_ssl_check_gets_200_and_nothing_else_unsigned_passes(rig: Rig) -> None:
    # Slack checks a slash command's certificate with an unsigned `ssl_check=1` POST
    form = {"Content-Type": FORM}
    check = await rig.http.post(rig.events_url, content=b"ssl_check=1&token=abc", headers=form)
    assert check.status_code == 200
    # the same shape with anything more, or unsigned housekeeping of another kind, is refused
    for body, content_type in (
        (b"ssl_check=1&token=abc&command=%2Fnovo&text=pending", FORM),
        (b"ssl_check=0&token=abc", FORM),
        (b'{"type":"url_verification","challenge":"abc"}', "application/json"),
    ):
        response = await rig.http.post(
            rig.events_url, content=body, headers={"Content-Type": content_type}
        )
        assert response.status_code == 401, body
    # url_verification as Slack sends it (signed) is answered with its challenge
    verified = await rig.driver.verify_url("ch4llenge")
    assert verified.status_code == 200
    assert "ch4llenge" in verified.text
    assert not await rig.resolves()
