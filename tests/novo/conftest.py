"""Fixtures of the Novo client tests: a scripted fake API for unit tests."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from bot.novo.client import NovoClient
from novo_dev.sim.control import SimControl

API_KEY = "sk-test-5ecret-key-do-not-leak"
BASE_URL = "https://novo.test"
TIMESTAMP = "2025-01-02T03:04:05.000Z"

Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def approval_wire(interaction_id: str = "int_a1", **fields: Any) -> dict[str, Any]:
    """An interaction record as the API sends it, with every field Part 1 lists: the one
    builder of records. An approval unless `fields` say otherwise (`question_wire` is a
    question); `fields` override any top-level field."""
    wire: dict[str, Any] = {
        "id": interaction_id,
        "object": "interaction",
        "runId": "run_1",
        "rootRunId": "run_1",
        "workerRef": None,
        "threadId": "thr_1",
        "agentId": "agt_1",
        "kind": "approval_request",
        "status": "pending",
        "stepNumber": 1,
        "toolName": "delete_file",
        "toolCallId": "call_1",
        "hookId": "hook_1",
        "input": {"path": "/tmp/x"},
        "preview": None,
        "decision": None,
        "reason": None,
        "request": None,
        "resolution": None,
        "expiresAt": TIMESTAMP,
        "createdAt": TIMESTAMP,
        "resolvedAt": None,
        "updatedAt": TIMESTAMP,
    }
    wire.update(fields)
    return wire


def question_wire(interaction_id: str = "int_q1", **fields: Any) -> dict[str, Any]:
    request = {
        "title": "Which environment?",
        "questions": [
            {"id": "q_env", "prompt": "Env", "options": [{"id": "staging"}, {"id": "prod"}]}
        ],
        "actions": [{"id": "a_skip", "label": "Skip"}],
    }
    base = approval_wire(
        interaction_id,
        kind="question",
        toolName="ask_question",
        hookId=None,
        input=None,
        request=request,
    )
    base.update(fields)
    return base


def error_response(
    status: int, type_: str, message: str = "nope", **headers: str
) -> httpx.Response:
    return httpx.Response(
        status, json={"error": {"type": type_, "message": message}}, headers=headers
    )


class FakeApi:
    """Answers from a script, one reply per request; the last reply repeats forever."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.script: list[Reply] = []

    def reply(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        assert self.script, f"unexpected request {request.method} {request.url}"
        item = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(item, Exception):
            raise item
        if isinstance(item, httpx.Response):
            return item
        return item(request)


class MaxRandom(random.Random):
    """Always picks the top of the jitter range, so the backoff ceiling is observable."""

    def uniform(self, a: float, b: float) -> float:
        return b


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
async def make_client(
    api: FakeApi, sleeps: list[float]
) -> AsyncIterator[Callable[..., NovoClient]]:
    """Clients over the fake API whose backoff sleeps are recorded, never waited."""
    lent: list[httpx.AsyncClient] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    def make(**options: Any) -> NovoClient:
        http = httpx.AsyncClient(transport=httpx.MockTransport(api.handler))
        lent.append(http)
        options.setdefault("sleep", record)
        options.setdefault("rng", MaxRandom())
        return NovoClient(BASE_URL, API_KEY, http_client=http, **options)

    yield make
    for http in lent:
        await http.aclose()


@pytest.fixture
def client(make_client: Callable[..., NovoClient]) -> NovoClient:
    return make_client()


# -- end to end, against the simulator over real HTTP --------------------------------------

SIM_KEY = "sim-test-key-never-logged"


@pytest.fixture
async def sim() -> AsyncIterator[Any]:
    from novo_dev.sim.server import start_sim

    server = await start_sim(api_key=SIM_KEY)
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
async def control(sim: Any) -> AsyncIterator[SimControl]:
    async with httpx.AsyncClient(timeout=5.0) as http:
        yield SimControl(sim.url, http)


@pytest.fixture
async def novo(sim: Any, sleeps: list[float]) -> AsyncIterator[NovoClient]:
    """A client of the simulator that records its backoff instead of waiting it out."""

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    async with NovoClient(sim.url, SIM_KEY, timeout=5.0, sleep=record) as client:
        yield client
