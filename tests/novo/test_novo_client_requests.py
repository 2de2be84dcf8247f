"""What the client puts on the wire and how it reads pages and batches back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from bot.novo import errors, rules
from bot.novo.client import NovoClient
from bot.novo.models import (
    BatchResolveItem,
    InputResponse,
    Interaction,
    ResolveInteractionBody,
)

from .conftest import BASE_URL, FakeApi, approval_wire, question_wire


def page(ids: list[str], cursor: str | None) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "object": "list",
            "data": [approval_wire(i) for i in ids],
            "hasMore": cursor is not None,
            "nextCursor": cursor,
        },
    )


def body_of(request: httpx.Request) -> Any:
    return json.loads(request.content)


async def test_get_quotes_the_id_in_the_path(api: FakeApi, client: NovoClient) -> None:
    api.reply(httpx.Response(200, json=approval_wire("int_a1")))
    await client.get("int/../x?y=1#z")
    request = api.requests[0]
    assert request.method == "GET"
    assert request.url.raw_path == b"/v1/interactions/int%2F..%2Fx%3Fy%3D1%23z"
    assert str(request.url).startswith(BASE_URL)


async def test_trailing_slash_of_base_url_is_ignored(api: FakeApi) -> None:
    api.reply(httpx.Response(200, json=approval_wire()))
    async with httpx.AsyncClient(transport=httpx.MockTransport(api.handler)) as http:
        novo = NovoClient(BASE_URL + "/", "k", http_client=http)
        await novo.get("int_a1")
    assert api.requests[0].url.raw_path == b"/v1/interactions/int_a1"


async def test_resolve_posts_camel_case_without_nulls(api: FakeApi, client: NovoClient) -> None:
    api.reply(httpx.Response(200, json=approval_wire(status="resolved", decision="allow")))
    body = ResolveInteractionBody(
        input_responses=[InputResponse(request_id="int_a1", option_id="approve")],
        reason="on-call ok",
    )
    resolved = await client.resolve("int_a1", body)
    assert resolved.decision == "allow"
    request = api.requests[0]
    assert request.method == "POST"
    assert request.url.raw_path == b"/v1/interactions/int_a1/resolve"
    assert request.headers["Content-Type"] == "application/json"
    assert body_of(request) == {
        "inputResponses": [{"requestId": "int_a1", "optionId": "approve"}],
        "reason": "on-call ok",
    }


@pytest.mark.parametrize(
    "body",
    [
        ResolveInteractionBody(),
        ResolveInteractionBody(input_responses=[]),
        ResolveInteractionBody(
            input_responses=[InputResponse(request_id="int_a1", option_id="approve")],
            cancel=True,
        ),
        ResolveInteractionBody(cancel=True, reason="x" * (rules.MAX_REASON_CHARS + 1)),
        ResolveInteractionBody(
            input_responses=[
                InputResponse(request_id="q", text="a"),
                InputResponse(request_id="q", text="b"),
            ]
        ),
    ],
    ids=["empty", "empty-list", "answers-and-cancel", "long-reason", "duplicate-id"],
)
async def test_bad_shape_is_refused_unsent(
    api: FakeApi, client: NovoClient, body: ResolveInteractionBody
) -> None:
    with pytest.raises(errors.ResolveRuleError) as caught:
        await client.resolve("int_a1", body)
    assert caught.value.type == "invalid_body"
    assert api.requests == []


async def test_kind_rules_apply_when_the_interaction_is_given(
    api: FakeApi, client: NovoClient
) -> None:
    question = Interaction.model_validate(question_wire())
    top_level = ResolveInteractionBody(
        input_responses=[InputResponse(request_id=question.id, text="hi")]
    )
    with pytest.raises(errors.ResolveRuleError) as caught:
        await client.resolve(question.id, top_level, interaction=question)
    assert caught.value.type == "unknown_question_id"
    assert api.requests == []
    # the same body without the interaction is left to the server to judge
    api.reply(httpx.Response(400, json={"error": {"type": "unknown_question_id"}}))
    with pytest.raises(errors.UnknownQuestionIdError):
        await client.resolve(question.id, top_level)
    assert len(api.requests) == 1


async def test_list_sends_filters_and_awaiting_gives_first_page(
    api: FakeApi, client: NovoClient
) -> None:
    api.reply(page(["int_1", "int_2"], "c1"))
    first = await client.list_interactions(
        run_id="run_9", status="pending", kind="question", limit=2
    )
    assert [i.id for i in first.data] == ["int_1", "int_2"]
    assert first.has_more and first.next_cursor == "c1"
    assert len(api.requests) == 1
    assert dict(api.requests[0].url.params) == {
        "runId": "run_9",
        "status": "pending",
        "kind": "question",
        "limit": "2",
    }


async def test_pager_is_lazy(api: FakeApi, client: NovoClient) -> None:
    client.list_interactions()
    assert api.requests == []


async def test_iterating_follows_cursors_across_pages(api: FakeApi, client: NovoClient) -> None:
    api.reply(page(["int_1", "int_2"], "c1"), page(["int_3", "int_4"], "c2"), page(["int_5"], None))
    ids = [i.id async for i in client.list_interactions(status="pending", limit=2)]
    assert ids == ["int_1", "int_2", "int_3", "int_4", "int_5"]
    cursors = [r.url.params.get("cursor") for r in api.requests]
    assert cursors == [None, "c1", "c2"]
    assert all(r.url.params["status"] == "pending" for r in api.requests)


async def test_all_collects_every_page(api: FakeApi, client: NovoClient) -> None:
    api.reply(page(["int_1"], "c1"), page([], None))
    assert [i.id for i in await client.list_interactions().all()] == ["int_1"]


@pytest.mark.parametrize(
    "replies",
    [
        [page(["int_1"], "c1"), page(["int_2"], "c1")],
        [
            httpx.Response(
                200, json={"object": "list", "data": [], "hasMore": True, "nextCursor": None}
            )
        ],
    ],
    ids=["repeated-cursor", "more-without-cursor"],
)
async def test_broken_paging_raises_instead_of_looping(
    api: FakeApi, client: NovoClient, replies: list[httpx.Response]
) -> None:
    api.reply(*replies)
    with pytest.raises(errors.NovoError, match="nextCursor"):
        await client.list_interactions().all()
    assert len(api.requests) <= 2


def _batch_echo(request: httpx.Request) -> httpx.Response:
    """Answers `resolved` for even-numbered ids and `conflict` for odd ones."""
    items = body_of(request)["items"]
    statuses = ["resolved" if int(i["id"].split("_")[1]) % 2 == 0 else "conflict" for i in items]
    return httpx.Response(
        200,
        json={
            "items": [{"id": i["id"], "status": s} for i, s in zip(items, statuses, strict=True)]
        },
    )


def _approve(interaction_id: str) -> BatchResolveItem:
    return BatchResolveItem(
        id=interaction_id,
        input_responses=[InputResponse(request_id=interaction_id, option_id="approve")],
    )


async def test_batch_is_chunked_and_merged_in_input_order(api: FakeApi, client: NovoClient) -> None:
    api.reply(_batch_echo)
    items = [_approve(f"int_{n}") for n in range(45)]
    items[7] = BatchResolveItem(id="int_7")  # neither answers nor cancel: refused locally
    result = await client.resolve_batch("run/root", items)
    assert [r.id for r in result.items] == [f"int_{n}" for n in range(45)]
    expected = ["resolved" if n % 2 == 0 else "conflict" for n in range(45)]
    expected[7] = "invalid_body"
    assert [r.status for r in result.items] == expected
    sizes = [len(body_of(r)["items"]) for r in api.requests]
    assert sizes == [20, 20, 4]
    assert all(r.url.raw_path == b"/v1/runs/run%2Froot/interactions/resolve" for r in api.requests)
    sent_ids = [i["id"] for r in api.requests for i in body_of(r)["items"]]
    assert "int_7" not in sent_ids
    assert body_of(api.requests[0])["items"][0] == {
        "id": "int_0",
        "inputResponses": [{"requestId": "int_0", "optionId": "approve"}],
    }


async def test_batch_with_only_bad_items_sends_nothing(api: FakeApi, client: NovoClient) -> None:
    result = await client.resolve_batch("run_1", [BatchResolveItem(id="", cancel=False)])
    assert [(r.id, r.status) for r in result.items] == [(None, "invalid_body")]
    assert api.requests == []
    assert (await client.resolve_batch("run_1", [])).items == []


async def test_batch_answer_of_wrong_length_is_an_error(api: FakeApi, client: NovoClient) -> None:
    api.reply(httpx.Response(200, json={"items": []}))
    with pytest.raises(errors.NovoError, match="1 sent"):
        await client.resolve_batch("run_1", [_approve("int_0")])


async def test_aclose_closes_only_an_owned_http_client() -> None:
    async with NovoClient(BASE_URL, "k") as owned:
        http = owned._http
    assert http.is_closed
    async with httpx.AsyncClient() as lent:
        await NovoClient(BASE_URL, "k", http_client=lent).aclose()
        assert not lent.is_closed


async def test_timeout_applies_to_every_request(
    api: FakeApi, make_client: Callable[..., NovoClient]
) -> None:
    api.reply(httpx.Response(200, json=approval_wire()))
    await make_client(timeout=1.5).get("int_a1")
    timeouts = api.requests[0].extensions["timeout"]
    assert timeouts == {"connect": 1.5, "read": 1.5, "write": 1.5, "pool": 1.5}
