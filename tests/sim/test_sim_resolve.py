"""Resolving over HTTP: every rule of Part 2, idempotency, cancel, terminated runs, batches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from novo_dev.sim.control import SimControl

Json = dict[str, Any]
Create = Callable[..., Awaitable[Json]]
SELF = "<self>"  # stands for the interaction's own id in the tables below


def entries(*answers: Json) -> Json:
    return {"inputResponses": list(answers)}


def own(body: Any, interaction_id: str) -> Any:
    """Replace SELF anywhere in `body` with the interaction's id."""
    if isinstance(body, dict):
        return {k: own(v, interaction_id) for k, v in body.items()}
    if isinstance(body, list):
        return [own(v, interaction_id) for v in body]
    return interaction_id if body == SELF else body


async def resolve(client: httpx.AsyncClient, interaction_id: str, body: Any) -> httpx.Response:
    return await client.post(f"/v1/interactions/{interaction_id}/resolve", json=body)


def error_type(response: httpx.Response) -> str:
    kind: str = response.json()["error"]["type"]
    return kind


APPROVE = entries({"requestId": SELF, "optionId": "approve"})

BAD_APPROVALS: list[tuple[str, Any, str]] = [
    ("empty body", {}, "invalid_body"),
    ("empty answers", {"inputResponses": []}, "invalid_body"),
    ("cancel false", {"cancel": False}, "invalid_body"),
    ("answers and cancel", {**APPROVE, "cancel": True}, "invalid_body"),
    ("long reason", {**APPROVE, "reason": "x" * 2001}, "invalid_body"),
    (
        "repeated requestId",
        entries(
            {"requestId": SELF, "optionId": "approve"}, {"requestId": SELF, "optionId": "deny"}
        ),
        "invalid_body",
    ),
    (
        "two entries",
        entries({"requestId": SELF, "optionId": "approve"}, {"requestId": "x", "optionId": "deny"}),
        "invalid_body",
    ),
    ("other requestId", entries({"requestId": "int_other", "optionId": "approve"}), "invalid_body"),
    ("unknown option", entries({"requestId": SELF, "optionId": "maybe"}), "invalid_body"),
    ("no option", entries({"requestId": SELF}), "invalid_body"),
    ("optionIds", entries({"requestId": SELF, "optionIds": ["approve"]}), "invalid_body"),
    ("text", entries({"requestId": SELF, "optionId": "approve", "text": "ok"}), "invalid_body"),
    ("empty requestId", entries({"requestId": "", "optionId": "approve"}), "invalid_body"),
    ("requestId a number", entries({"requestId": 5, "optionId": "approve"}), "invalid_body"),
    ("cancel a string", {"cancel": "true"}, "invalid_body"),
    ("answers a string", {"inputResponses": "approve"}, "invalid_body"),
    ("body a list", [APPROVE], "invalid_body"),
]

BAD_QUESTIONS: list[tuple[str, Any, str]] = [
    ("top-level id", entries({"requestId": SELF, "text": "hi"}), "unknown_question_id"),
    ("unknown id", entries({"requestId": "q_nope", "text": "hi"}), "unknown_question_id"),
    (
        "unknown option",
        entries({"requestId": "q_env", "optionId": "dev"}, {"requestId": "q_window", "text": "x"}),
        "invalid_body",
    ),
    (
        "unknown option among several",
        entries(
            {"requestId": "q_env", "optionIds": ["staging", "dev"]},
            {"requestId": "q_window", "optionId": "tonight"},
        ),
        "invalid_body",
    ),
    (
        "optionIds on single choice",
        entries(
            {"requestId": "q_env", "optionId": "prod"},
            {"requestId": "q_window", "optionIds": ["tonight", "weekend"]},
        ),
        "invalid_body",
    ),
    (
        "one option twice",
        entries(
            {"requestId": "q_env", "optionIds": ["prod", "prod"]},
            {"requestId": "q_window", "optionId": "tonight"},
        ),
        "invalid_body",
    ),
    (
        "optionId and optionIds",
        entries(
            {"requestId": "q_env", "optionId": "prod", "optionIds": ["prod"]},
            {"requestId": "q_window", "optionId": "tonight"},
        ),
        "invalid_body",
    ),
    (
        "text where none is accepted",
        entries(
            {"requestId": "q_env", "optionId": "prod"},
            {"requestId": "q_window", "optionId": "tonight"},
            {"requestId": "q_size", "text": "medium"},
        ),
        "invalid_body",
    ),
    (
        "required question left out",
        entries({"requestId": "q_env", "optionId": "prod"}),
        "invalid_body",
    ),
    (
        "entry selects nothing",
        entries({"requestId": "q_env"}, {"requestId": "q_window", "optionId": "tonight"}),
        "invalid_body",
    ),
    (
        "action with answers",
        entries({"requestId": "a_skip"}, {"requestId": "q_env", "optionId": "prod"}),
        "invalid_body",
    ),
    ("action with an option", entries({"requestId": "a_skip", "optionId": "prod"}), "invalid_body"),
    (
        "repeated question",
        entries(
            {"requestId": "q_window", "optionId": "tonight"},
            {"requestId": "q_window", "optionId": "weekend"},
        ),
        "invalid_body",
    ),
    ("neither answers nor cancel", {"reason": "just because"}, "invalid_body"),
]


@pytest.mark.parametrize(
    ("name", "body", "expected"), BAD_APPROVALS, ids=[c[0] for c in BAD_APPROVALS]
)
async def test_approval_rules(
    client: httpx.AsyncClient, create: Create, name: str, body: Any, expected: str
) -> None:
    item = await create(kind="approval_request")
    response = await resolve(client, item["id"], own(body, item["id"]))
    assert response.status_code == 400, name
    assert error_type(response) == expected
    assert (await client.get(f"/v1/interactions/{item['id']}")).json() == item


@pytest.mark.parametrize(
    ("name", "body", "expected"), BAD_QUESTIONS, ids=[c[0] for c in BAD_QUESTIONS]
)
async def test_question_rules(
    client: httpx.AsyncClient,
    create: Create,
    migration_request: Json,
    name: str,
    body: Any,
    expected: str,
) -> None:
    item = await create(kind="question", request=migration_request)
    response = await resolve(client, item["id"], own(body, item["id"]))
    assert response.status_code == 400, name
    assert error_type(response) == expected
    assert (await client.get(f"/v1/interactions/{item['id']}")).json() == item


async def test_malformed_json_is_invalid_request(client: httpx.AsyncClient, create: Create) -> None:
    item = await create(kind="approval_request")
    response = await client.post(f"/v1/interactions/{item['id']}/resolve", content=b"{nope")
    assert response.status_code == 400 and error_type(response) == "invalid_request"


async def test_unknown_id_is_404(client: httpx.AsyncClient) -> None:
    response = await resolve(client, "int_nope", {"cancel": True})
    assert response.status_code == 404 and error_type(response) == "interaction_not_found"


@pytest.mark.parametrize(("option", "decision"), [("approve", "allow"), ("deny", "deny")])
async def test_approval_decides(
    client: httpx.AsyncClient, create: Create, option: str, decision: str
) -> None:
    item = await create(kind="approval_request")
    body = {"inputResponses": [{"requestId": item["id"], "optionId": option}], "reason": "on-call"}
    response = await resolve(client, item["id"], body)
    assert response.status_code == 200
    done = response.json()
    assert (done["status"], done["decision"], done["reason"]) == ("resolved", decision, "on-call")
    assert done["resolution"] == body
    assert done["expiresAt"] is None and done["resolvedAt"] and done["updatedAt"]
    assert (await client.get(f"/v1/interactions/{item['id']}")).json() == done


@pytest.mark.parametrize(
    "answers",
    [
        [
            {"requestId": "q_env", "optionIds": ["staging", "prod"]},
            {"requestId": "q_window", "text": "Sunday 03:00"},
            {"requestId": "q_notes", "text": "Line one\nLine two"},
        ],
        [
            {"requestId": "q_env", "optionId": "prod"},
            {"requestId": "q_window", "optionId": "weekend"},
        ],
        [{"requestId": "a_skip"}],
    ],
)
async def test_question_answers(
    client: httpx.AsyncClient, create: Create, migration_request: Json, answers: list[Json]
) -> None:
    item = await create(kind="question", request=migration_request)
    response = await resolve(client, item["id"], {"inputResponses": answers})
    assert response.status_code == 200, response.text
    done = response.json()
    assert (done["status"], done["decision"], done["reason"]) == ("resolved", None, None)
    assert done["resolution"] == {"inputResponses": answers, "reason": None}


async def test_same_outcome_is_idempotent_and_another_conflicts(
    client: httpx.AsyncClient, create: Create
) -> None:
    item = await create(kind="approval_request")
    approve = {"inputResponses": [{"requestId": item["id"], "optionId": "approve"}]}
    first = (await resolve(client, item["id"], {**approve, "reason": "first"})).json()
    again = await resolve(client, item["id"], {**approve, "reason": "second"})
    assert again.status_code == 200 and again.json() == first
    assert again.json()["reason"] == "first"
    for different in (
        {"inputResponses": [{"requestId": item["id"], "optionId": "deny"}]},
        {"cancel": True},
    ):
        conflict = await resolve(client, item["id"], different)
        assert conflict.status_code == 409
        assert error_type(conflict) == "idempotency_key_conflict"
    invalid = await resolve(client, item["id"], {"inputResponses": [{"requestId": item["id"]}]})
    assert invalid.status_code == 400


async def test_question_idempotency_compares_answers(
    client: httpx.AsyncClient, create: Create, migration_request: Json
) -> None:
    item = await create(kind="question", request=migration_request)
    answers = [
        {"requestId": "q_env", "optionIds": ["staging", "prod"]},
        {"requestId": "q_window", "optionId": "tonight"},
    ]
    assert (await resolve(client, item["id"], {"inputResponses": answers})).status_code == 200
    reordered = [answers[1], {"requestId": "q_env", "optionIds": ["prod", "staging"]}]
    assert (await resolve(client, item["id"], {"inputResponses": reordered})).status_code == 200
    changed = [answers[0], {"requestId": "q_window", "optionId": "weekend"}]
    assert (await resolve(client, item["id"], {"inputResponses": changed})).status_code == 409


async def test_cancel(client: httpx.AsyncClient, create: Create, migration_request: Json) -> None:
    approval = await create(kind="approval_request")
    question = await create(kind="question", request=migration_request)
    body = {"cancel": True, "reason": "request withdrawn"}
    for item, decision in ((approval, "cancel"), (question, None)):
        done = (await resolve(client, item["id"], body)).json()
        assert (done["status"], done["decision"]) == ("cancelled", decision)
        assert done["resolution"] == body and done["reason"] == "request withdrawn"
        assert (await resolve(client, item["id"], {"cancel": True})).json() == done
    answer = {"inputResponses": [{"requestId": approval["id"], "optionId": "approve"}]}
    assert (await resolve(client, approval["id"], answer)).status_code == 409


async def test_terminated_run_is_resolved(client: httpx.AsyncClient, create: Create) -> None:
    item = await create(kind="approval_request", runId="run_gone")
    untouched = await create(kind="approval_request", runId="run_alive")
    await SimControl(str(client.base_url), client).terminate("run_gone")  # raises unless 200
    assert (await client.get(f"/v1/interactions/{item['id']}")).json()["status"] == "pending"
    body = {"inputResponses": [{"requestId": item["id"], "optionId": "approve"}]}
    done = await resolve(client, item["id"], body)
    assert done.status_code == 200
    assert (done.json()["status"], done.json()["decision"]) == ("resolved", "allow")
    cancelled = await resolve(client, untouched["id"], {"cancel": True})
    assert cancelled.json()["status"] == "cancelled"


async def batch(client: httpx.AsyncClient, root: str, items: Any) -> httpx.Response:
    return await client.post(f"/v1/runs/{root}/interactions/resolve", json={"items": items})


async def test_batch_statuses(
    client: httpx.AsyncClient, create: Create, migration_request: Json
) -> None:
    fresh = await create(kind="approval_request", runId="run_r")
    worker = await create(kind="approval_request", runId="run_w", rootRunId="run_r")
    done = await create(kind="approval_request", runId="run_r")
    question = await create(kind="question", runId="run_r", request=migration_request)
    elsewhere = await create(kind="approval_request", runId="run_x")

    def ok(item: Json, option: str = "approve") -> Json:
        return {"id": item["id"], "inputResponses": [{"requestId": item["id"], "optionId": option}]}

    assert (
        await resolve(client, done["id"], {k: v for k, v in ok(done).items() if k != "id"})
    ).is_success
    response = await batch(
        client,
        "run_r",
        [
            ok(fresh),
            {"id": worker["id"], "cancel": True, "reason": "request withdrawn"},
            ok(done),
            ok(done, "deny"),
            ok(elsewhere),
            {"id": "int_nope", "cancel": True},
            {"id": question["id"], "inputResponses": [{"requestId": question["id"], "text": "x"}]},
            {"cancel": True},
            {"id": 7, "cancel": True},
            "not an object",
        ],
    )
    assert response.status_code == 200
    assert response.json()["items"] == [
        {"id": fresh["id"], "status": "resolved"},
        {"id": worker["id"], "status": "resolved"},
        {"id": done["id"], "status": "already_resolved"},
        {"id": done["id"], "status": "conflict"},
        {"id": elsewhere["id"], "status": "not_found"},
        {"id": "int_nope", "status": "not_found"},
        {"id": question["id"], "status": "invalid_body"},
        {"id": None, "status": "invalid_body"},
        {"id": None, "status": "invalid_body"},
        {"id": None, "status": "invalid_body"},
    ]
    got = {i["id"]: i for i in (await client.get("/v1/interactions")).json()["data"]}
    assert got[fresh["id"]]["decision"] == "allow"
    assert (got[worker["id"]]["status"], got[worker["id"]]["reason"]) == (
        "cancelled",
        "request withdrawn",
    )
    assert got[elsewhere["id"]]["status"] == got[question["id"]]["status"] == "pending"


async def test_batch_over_twenty_applies_nothing(client: httpx.AsyncClient, create: Create) -> None:
    items = [await create(kind="approval_request", runId="run_big") for _ in range(21)]
    body = [
        {"id": i["id"], "inputResponses": [{"requestId": i["id"], "optionId": "approve"}]}
        for i in items
    ]
    response = await batch(client, "run_big", body)
    assert response.status_code == 400 and error_type(response) == "invalid_request"
    pending = await client.get("/v1/interactions", params={"status": "pending", "limit": 100})
    assert len(pending.json()["data"]) == 21
    assert (await batch(client, "run_big", body[:20])).status_code == 200


@pytest.mark.parametrize("content", [b"{oops", b"[]", b'{"items": {}}', b"{}"])
async def test_batch_envelope_must_be_right(client: httpx.AsyncClient, content: bytes) -> None:
    response = await client.post("/v1/runs/run_r/interactions/resolve", content=content)
    assert response.status_code == 400 and error_type(response) == "invalid_request"
