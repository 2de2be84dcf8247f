"""Every non-2xx answer and transport failure becomes the matching typed error."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from bot.novo import errors
from bot.novo.client import NovoClient

from .conftest import FakeApi, approval_wire, error_response


@pytest.mark.parametrize(
    ("status", "type_", "expected"),
    [
        (400, "invalid_body", errors.InvalidBodyError),
        (400, "unknown_question_id", errors.UnknownQuestionIdError),
        (400, "invalid_request", errors.InvalidRequestError),
        (400, "something_new", errors.BadRequestError),
        (401, "unauthorized", errors.UnauthorizedError),
        (404, "interaction_not_found", errors.InteractionNotFoundError),
        (409, "idempotency_key_conflict", errors.ConflictError),
        (429, "rate_limited", errors.RateLimitedError),
        (500, "internal_error", errors.InternalServerError),
        (502, "internal_error", errors.InternalServerError),
        (503, "internal_error", errors.InternalServerError),
        (418, "teapot", errors.NovoAPIStatusError),
    ],
)
async def test_status_and_type_map_to_typed_error(
    api: FakeApi,
    make_client: Callable[..., NovoClient],
    status: int,
    type_: str,
    expected: type[errors.NovoAPIStatusError],
) -> None:
    api.reply(error_response(status, type_, "told you so"))
    novo = make_client(max_retries=0)
    with pytest.raises(expected) as caught:
        await novo.get("int_1")
    assert type(caught.value) is expected
    assert (caught.value.status, caught.value.type, caught.value.message) == (
        status,
        type_,
        "told you so",
    )


async def test_rate_limit_carries_retry_after(
    api: FakeApi, make_client: Callable[..., NovoClient]
) -> None:
    api.reply(error_response(429, "rate_limited", **{"Retry-After": "7"}))
    with pytest.raises(errors.RateLimitedError) as caught:
        await make_client(max_retries=0).get("int_1")
    assert caught.value.retry_after == 7.0


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(502, text="<html>Bad Gateway</html>"),
        httpx.Response(502, json={"detail": "not the API's error shape"}),
        httpx.Response(502),
    ],
    ids=["html", "other-json", "empty"],
)
async def test_error_body_not_in_api_shape_is_typed_unknown(
    api: FakeApi, make_client: Callable[..., NovoClient], reply: httpx.Response
) -> None:
    api.reply(reply)
    with pytest.raises(errors.InternalServerError) as caught:
        await make_client(max_retries=0).get("int_1")
    assert caught.value.status == 502
    assert caught.value.type == "unknown"
    assert caught.value.message  # never empty: text or the reason phrase


async def test_long_non_json_error_body_is_cut(
    api: FakeApi, make_client: Callable[..., NovoClient]
) -> None:
    api.reply(httpx.Response(404, text="x" * 5_000))
    with pytest.raises(errors.InteractionNotFoundError) as caught:
        await make_client().get("int_1")
    assert 0 < len(caught.value.message) <= 200


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, text="surely not json"),
        httpx.Response(200, json={"id": "int_1"}),
        httpx.Response(200, json=[1, 2, 3]),
    ],
    ids=["not-json", "missing-fields", "wrong-type"],
)
async def test_unparseable_success_body_is_novo_error_not_retried(
    api: FakeApi, client: NovoClient, reply: httpx.Response, sleeps: list[float]
) -> None:
    api.reply(reply)
    with pytest.raises(errors.NovoError) as caught:
        await client.get("int_1")
    assert not isinstance(caught.value, errors.NovoAPIStatusError | errors.NovoConnectionError)
    assert "GET" in str(caught.value) or "not an interaction" in str(caught.value)
    assert len(api.requests) == 1
    assert sleeps == []


async def test_connect_error_is_connection_error(
    api: FakeApi, make_client: Callable[..., NovoClient]
) -> None:
    api.reply(httpx.ConnectError("connection refused"))
    with pytest.raises(errors.NovoConnectionError) as caught:
        await make_client(max_retries=0).get("int_1")
    assert not isinstance(caught.value, errors.NovoTimeoutError)
    assert isinstance(caught.value.__cause__, httpx.ConnectError)


@pytest.mark.parametrize(
    "exc",
    [httpx.ReadTimeout("slow"), httpx.ConnectTimeout("slow"), httpx.PoolTimeout("busy")],
)
async def test_timeouts_are_timeout_errors(
    api: FakeApi, make_client: Callable[..., NovoClient], exc: Exception
) -> None:
    api.reply(exc)
    with pytest.raises(errors.NovoTimeoutError):
        await make_client(max_retries=0).get("int_1")


async def test_unknown_response_fields_are_tolerated(api: FakeApi, client: NovoClient) -> None:
    api.reply(httpx.Response(200, json=approval_wire(futureField={"x": 1})))
    interaction = await client.get("int_a1")
    assert interaction.id == "int_a1"
    assert interaction.model_extra == {"futureField": {"x": 1}}
