"""What `novo-slack run` says about Novo, and about a Slack URL that is not the Web API.

A key Novo refuses and a URL that does not answer as the Interactions API
are settings to fix: one line naming the setting, exit 2. A Novo that is
down is not: the bridge starts, says so once naming NOVO_API_URL, and says
again when Novo answers.
"""

from __future__ import annotations

from tests.lifecycle.conftest import World
from tests.lifecycle.test_startup_failures import _one_line_failure
from tests.support import wait_until


async def test_a_key_novo_refuses_stops_start_up_naming_it(world: World) -> None:
    bridge = await world.run(NOVO_API_KEY="not-the-key")
    line = await _one_line_failure(bridge, 2)
    assert line == f"NOVO_API_KEY was refused by Novo at {world.sim.url} (401)"


async def test_a_url_that_is_not_novos_api_stops_start_up_naming_it(world: World) -> None:
    not_novo = world.slack.url  # answers, but 404 for /v1/interactions
    bridge = await world.run(NOVO_API_URL=not_novo)
    line = await _one_line_failure(bridge, 2)
    assert line.startswith(
        f"NOVO_API_URL {not_novo} does not answer like Novo's Interactions API"
        " (GET /v1/interactions: HTTP 404)"
    ), line


async def test_a_slack_url_without_api_is_one_line(world: World) -> None:
    """The local Slack's URL without /api/: slack_sdk gets a text 404, not Slack's JSON."""
    bridge = await world.run(SLACK_API_URL=world.slack.url)
    line = await _one_line_failure(bridge, 2)
    assert line.startswith(
        "SLACK_API_URL does not answer like Slack's Web API (auth.test: HTTP 404)"
    ), line


async def _lists(world: World) -> int:
    log = await world.sim_log()
    return sum(1 for entry in log if entry["path"] == "/v1/interactions")


async def test_a_novo_that_is_down_is_said_once_and_again_when_it_answers(world: World) -> None:
    await world.fault(errorRate=1, status=503, routes="list")
    bridge = await world.run()
    await bridge.saw("bridge started")

    async def looked_four_times() -> bool:  # the look at start-up and three failed polls
        return await _lists(world) >= 4

    await wait_until(looked_four_times, message="the start-up look and three failed polls")
    down = [line for line in bridge.lines if "does not answer" in line]
    assert len(down) == 1, bridge.stderr
    assert f"Novo at {world.sim.url} (NOVO_API_URL) does not answer (HTTP 503); retrying" in down[0]
    assert not [line for line in bridge.lines if "poll failed" in line], bridge.stderr
    await world.fault()
    again = await bridge.saw(r"Novo at \S+ answers again")
    assert world.sim.url in again.string
    assert bridge.process.returncode is None
