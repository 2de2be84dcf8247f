"""SIGTERM and SIGINT end `novo-slack run` in bounded time, whatever Novo and Slack do.

An orchestrator sends SIGTERM and SIGKILLs after a grace period (often 10 s);
a bridge that outlives it loses what it was doing, so it must stop taking
requests, let work in flight finish or cut it at a bound, and exit 0.
"""

from __future__ import annotations

import signal
import socket

from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import API_KEY, CHANNEL, SIGNING_SECRET, Bridge, World
from tests.support import wait_until


async def _stops_cleanly(bridge: Bridge, sig: signal.Signals = signal.SIGTERM) -> None:
    """The signal ends the process with 0 and no traceback. What hangs (Novo, Slack's
    WebSocket) hangs for good, so a bridge that waited on it would never end: the wait's
    generous bound tells the two apart. How soon it stops is `bench/lifecycle.py`'s figure."""
    bridge.process.send_signal(sig)
    code = await bridge.exit_code()
    assert code == 0, bridge.stderr
    assert "Traceback" not in bridge.stderr


async def _held(world: World, path: str) -> bool:
    """Whether the simulator holds a request to `path`: received, not answered."""
    return any(r["status"] is None and r["path"] == path for r in await world.sim_log())


async def test_sigterm_while_novo_hangs_on_a_click_and_a_poll(world: World) -> None:
    interaction_id = (await world.control.approval())["id"]
    bridge = await world.run()
    url = await bridge.url()
    await wait_until(lambda: bool(world.slack.messages(CHANNEL)))
    ts = world.slack.messages(CHANNEL)[0].ts
    await world.fault(hang=True)  # Novo stops answering anything
    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
        clicked = await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
        assert clicked.status_code == 200
        resolve = f"/v1/interactions/{interaction_id}/resolve"
        await wait_until(lambda: _held(world, resolve), message="the click's resolve held")
        await wait_until(lambda: _held(world, "/v1/interactions"), message="a poll held")
        await _stops_cleanly(bridge)


async def test_sigint_stops_an_idle_bridge(world: World) -> None:
    bridge = await world.run()
    await bridge.url()
    await bridge.saw("bridge started")
    await _stops_cleanly(bridge, signal.SIGINT)
    assert any("bridge stopped" in line for line in bridge.lines)


async def test_sigterm_while_socket_mode_cannot_connect(world: World) -> None:
    """The app token is good, but Slack's WebSocket is out of reach: connecting goes on."""
    bridge = await world.run(SLACK_APP_TOKEN=world.slack.app_token)
    await wait_until(
        lambda: world.slack.calls("apps.connections.open"), message="a connection asked for"
    )
    await bridge.saw("Socket Mode is not connected")  # started without it, still trying
    await _stops_cleanly(bridge)


async def test_sigterm_while_slack_is_unreachable_at_start(world: World) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens here once closed
    bridge = await world.run(
        SLACK_APP_TOKEN=world.slack.app_token, SLACK_API_URL=f"http://127.0.0.1:{port}/api/"
    )
    await bridge.saw(r"Slack at \S+ does not answer \(auth.test: ")
    await _stops_cleanly(bridge)
    assert not world.slack.calls()
    assert API_KEY not in bridge.stderr
