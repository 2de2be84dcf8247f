"""Fixtures for the simulator's tests: a running simulator, an HTTP client, a fake clock."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from novo_dev.sim import SimServer, SimState, start_sim
from novo_dev.sim.control import SimControl
from tests.support import FakeClock

Json = dict[str, Any]
Create = Callable[..., Awaitable[Json]]
PARK_SECONDS = 900.0

# The doc's own example of a question's request (Part 2), plus an optional single choice.
_MIGRATION_REQUEST: Json = {
    "title": "Which environments should the migration run in?",
    "details": "Optional longer text (markdown).",
    "questions": [
        {
            "id": "q_env",
            "prompt": "Environments",
            "multiple": True,
            "options": [
                {"id": "staging", "label": "Staging"},
                {"id": "prod", "label": "Production", "description": "Needs a change ticket"},
            ],
        },
        {
            "id": "q_window",
            "prompt": "Maintenance window",
            "allowOther": True,
            "options": [
                {"id": "tonight", "label": "Tonight"},
                {"id": "weekend", "label": "Weekend"},
            ],
        },
        {
            "id": "q_notes",
            "prompt": "Anything the agent should know?",
            "multiline": True,
            "optional": True,
        },
        {
            "id": "q_size",
            "prompt": "Batch size",
            "options": [{"id": "small", "label": "Small"}, {"id": "large", "label": "Large"}],
            "optional": True,
        },
    ],
    "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
}


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC))


@pytest.fixture
def state(fake_clock: FakeClock) -> SimState:
    """A simulator state on a clock that moves only by `advance`."""
    return SimState(fake_clock, park_seconds=PARK_SECONDS)


@pytest.fixture
def advance(fake_clock: FakeClock) -> Callable[[float], None]:
    return fake_clock.advance


@pytest.fixture
def migration_request() -> Json:
    return copy.deepcopy(_MIGRATION_REQUEST)


@pytest.fixture
async def sim() -> AsyncIterator[SimServer]:
    async with await start_sim(port=0, seed=1) as server:
        yield server


@pytest.fixture
async def client(sim: SimServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=sim.url, timeout=5.0) as http:
        yield http


@pytest.fixture
def create(client: httpx.AsyncClient) -> Create:
    """Create an interaction through the control API and return it as the API shows it."""

    async def _create(**spec: Any) -> Json:
        return await SimControl(str(client.base_url), client).create(**spec)

    return _create
