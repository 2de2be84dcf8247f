"""Which failures are retried, how long the client waits, and when it gives up."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from bot.novo import errors
from bot.novo.client import NovoClient
from bot.novo.models import InputResponse, ResolveInteractionBody
from bot.novo.retry import RetryPolicy, parse_retry_after

from .conftest import FakeApi, approval_wire, error_response

OK = httpx.Response(200, json=approval_wire())
APPROVE = ResolveInteractionBody(
    input_responses=[InputResponse(request_id="int_a1", option_id="approve")]
)


async def test_429_honours_retry_after(
    api: FakeApi, client: NovoClient, sleeps: list[float]
) -> None:
    api.reply(error_response(429, "rate_limited", **{"Retry-After": "3"}), OK)
    interaction = await client.get("int_a1")
    assert interaction.id == "int_a1"
    assert sleeps == [3.0]
    assert len(api.requests) == 2


async def test_retry_after_is_capped_at_backoff_max(
    api: FakeApi, make_client: Callable[..., NovoClient], sleeps: list[float]
) -> None:
    api.reply(error_response(429, "rate_limited", **{"Retry-After": "120"}), OK)
    await make_client(backoff_max=2.5).get("int_a1")
    assert sleeps == [2.5]


async def test_429_without_retry_after_backs_off(
    api: FakeApi, client: NovoClient, sleeps: list[float]
) -> None:
    api.reply(error_response(429, "rate_limited"), OK)
    await client.get("int_a1")
    assert sleeps == [0.5]


async def test_5xx_backoff_doubles_up_to_the_cap(
    api: FakeApi, make_client: Callable[..., NovoClient], sleeps: list[float]
) -> None:
    api.reply(*[error_response(503, "internal_error")] * 5, OK)
    novo = make_client(max_retries=5, backoff_base=0.5, backoff_max=3.0)
    await novo.get("int_a1")
    assert sleeps == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert len(api.requests) == 6


async def test_jitter_stays_within_the_ceiling(
    api: FakeApi, make_client: Callable[..., NovoClient], sleeps: list[float]
) -> None:
    api.reply(*[error_response(500, "internal_error")] * 4, OK)
    await make_client(rng=random.Random(7)).get("int_a1")
    assert len(sleeps) == 4
    ceilings = [0.5, 1.0, 2.0, 4.0]
    assert all(0.0 <= s <= c for s, c in zip(sleeps, ceilings, strict=True))
    assert len(set(sleeps)) > 1  # jittered, not a constant


@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("eof")],
    ids=["connect", "timeout", "protocol"],
)
async def test_transport_failures_are_retried(
    api: FakeApi, client: NovoClient, sleeps: list[float], failure: Exception
) -> None:
    api.reply(failure, OK)
    assert (await client.get("int_a1")).id == "int_a1"
    assert len(api.requests) == 2
    assert len(sleeps) == 1


async def test_resolve_is_retried_with_the_same_body(api: FakeApi, client: NovoClient) -> None:
    api.reply(error_response(502, "internal_error"), httpx.ConnectError("reset"), OK)
    await client.resolve("int_a1", APPROVE)
    assert len(api.requests) == 3
    bodies = {r.content for r in api.requests}
    assert len(bodies) == 1


async def test_gives_up_after_max_retries_with_last_typed_error(
    api: FakeApi, make_client: Callable[..., NovoClient], sleeps: list[float]
) -> None:
    api.reply(*[error_response(503, "internal_error", f"try {n}") for n in range(10)])
    with pytest.raises(errors.InternalServerError) as caught:
        await make_client(max_retries=3).get("int_a1")
    assert caught.value.message == "try 3"
    assert len(api.requests) == 4
    assert len(sleeps) == 3


async def test_gives_up_on_timeouts_with_timeout_error(
    api: FakeApi, make_client: Callable[..., NovoClient]
) -> None:
    api.reply(httpx.ReadTimeout("slow"))
    with pytest.raises(errors.NovoTimeoutError):
        await make_client(max_retries=2).get("int_a1")
    assert len(api.requests) == 3


async def test_max_retries_zero_tries_once(
    api: FakeApi, make_client: Callable[..., NovoClient], sleeps: list[float]
) -> None:
    api.reply(error_response(500, "internal_error"))
    with pytest.raises(errors.InternalServerError):
        await make_client(max_retries=0).get("int_a1")
    assert len(api.requests) == 1
    assert sleeps == []


@pytest.mark.parametrize(
    ("status", "type_"),
    [
        (400, "invalid_body"),
        (400, "unknown_question_id"),
        (401, "unauthorized"),
        (404, "interaction_not_found"),
        (409, "idempotency_key_conflict"),
    ],
)
async def test_client_errors_are_never_retried(
    api: FakeApi, client: NovoClient, sleeps: list[float], status: int, type_: str
) -> None:
    api.reply(error_response(status, type_), OK)
    with pytest.raises(errors.NovoAPIStatusError) as caught:
        await client.resolve("int_a1", APPROVE)
    assert caught.value.status == status
    assert len(api.requests) == 1
    assert sleeps == []


async def test_each_retry_is_a_debug_line(
    api: FakeApi, client: NovoClient, caplog: pytest.LogCaptureFixture
) -> None:
    """An outage is said once by whoever keeps trying (bot.outages), not by every retry."""
    api.reply(error_response(503, "internal_error"), OK)
    caplog.set_level("DEBUG", logger="bot.novo.client")
    await client.get("int_a1")
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    debug = [r.getMessage() for r in caplog.records if r.levelname == "DEBUG"]
    assert any("/v1/interactions/int_a1 failed" in m and "retry 1 of" in m for m in debug)
    assert any("503" in m and "attempt 0" in m for m in debug)
    assert any("200" in m and "attempt 1" in m for m in debug)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("5", 5.0),
        ("0.25", 0.25),
        ("-3", 0.0),
        ("soon", None),
        ("nan", None),
        ("Thu, 02 Jan 2025 03:04:15 GMT", 10.0),
        ("Thu, 02 Jan 2025 03:04:00 GMT", 0.0),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == expected


def test_policy_refuses_negative_settings() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="backoff"):
        RetryPolicy(backoff_base=-0.1)
