"""The API key goes in the Authorization header and nowhere else."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from bot.novo import errors
from bot.novo.client import NovoClient

from .conftest import API_KEY, BASE_URL, FakeApi, error_response


def _chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


async def test_key_is_sent_as_bearer_token(api: FakeApi, client: NovoClient) -> None:
    api.reply(error_response(404, "interaction_not_found"))
    with pytest.raises(errors.InteractionNotFoundError):
        await client.get("int_1")
    assert api.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


async def test_repr_hides_key(make_client: Callable[..., NovoClient]) -> None:
    novo = make_client()
    assert API_KEY not in repr(novo)
    assert API_KEY not in str(novo)
    assert BASE_URL in repr(novo)


@pytest.mark.parametrize(
    "reply",
    [
        # a misbehaving proxy that echoes the request's header back
        error_response(503, "internal_error", f"bad header Bearer {API_KEY}"),
        httpx.Response(401, text=f"Authorization: Bearer {API_KEY} rejected"),
        httpx.ConnectError(f"refused while sending {API_KEY}"),
        httpx.ReadTimeout("slow"),
    ],
    ids=["json-echo", "text-echo", "connect", "timeout"],
)
async def test_key_absent_from_logs_and_errors_of_a_failing_call(
    api: FakeApi,
    make_client: Callable[..., NovoClient],
    caplog: pytest.LogCaptureFixture,
    reply: httpx.Response | Exception,
) -> None:
    api.reply(reply)
    caplog.set_level("DEBUG")
    with pytest.raises(errors.NovoError) as caught:
        await make_client(max_retries=2).get("int_1")
    assert caplog.records  # the failing call was logged at all
    assert API_KEY not in caplog.text
    top = caught.value
    assert API_KEY not in str(top)
    assert API_KEY not in repr(top)
    if isinstance(top, errors.NovoAPIStatusError):
        assert API_KEY not in top.message
