"""Pagination, filters and batch chunking through the client, against the simulator."""

from __future__ import annotations

import pytest

from bot.novo import errors
from bot.novo.client import NovoClient
from bot.novo.models import BatchResolveItem, InputResponse
from novo_dev.sim.control import SimControl


def approve(interaction_id: str) -> BatchResolveItem:
    return BatchResolveItem(
        id=interaction_id,
        input_responses=[InputResponse(request_id=interaction_id, option_id="approve")],
    )


def deny(interaction_id: str) -> BatchResolveItem:
    return BatchResolveItem(
        id=interaction_id,
        input_responses=[InputResponse(request_id=interaction_id, option_id="deny")],
    )


async def test_pages_are_followed_across_45_items(novo: NovoClient, control: SimControl) -> None:
    created = [(await control.approval(runId="run_many"))["id"] for _ in range(45)]
    await control.clear_log()

    listed = [i.id async for i in novo.list_interactions(run_id="run_many", limit=20)]
    assert listed == created  # oldest first, none lost, none twice
    calls = await control.log()
    assert [c["method"] for c in calls] == ["GET"] * 3
    assert [c["query"].get("limit") for c in calls] == ["20"] * 3
    assert "cursor" not in calls[0]["query"]
    assert all("cursor" in c["query"] for c in calls[1:])

    first = await novo.list_interactions(run_id="run_many", limit=20)
    assert [i.id for i in first.data] == created[:20]
    assert first.has_more and first.next_cursor


async def test_pages_survive_resolving_between_them(novo: NovoClient, control: SimControl) -> None:
    created = [(await control.approval(runId="run_live"))["id"] for _ in range(5)]
    pager = novo.list_interactions(run_id="run_live", status="pending", limit=2)
    seen: list[str] = []
    async for interaction in pager:
        seen.append(interaction.id)
        await novo.resolve(interaction.id, approve(interaction.id))
    assert seen == created


async def test_filters_combine(novo: NovoClient, control: SimControl) -> None:
    root = await control.approval(runId="run_root")
    worker = await control.question(
        {"title": "t", "questions": [{"id": "q", "prompt": "why?"}]},
        runId="run_worker",
        rootRunId="run_root",
        workerRef="wkr_1",
    )
    done = await control.approval(runId="run_root")
    await control.approval(runId="run_other")
    await novo.resolve(done["id"], approve(done["id"]))

    async def ids(**filters: str) -> list[str]:
        return [i.id async for i in novo.list_interactions(**filters)]  # type: ignore[arg-type]

    assert await ids(run_id="run_root") == [root["id"], worker["id"], done["id"]]
    assert await ids(run_id="run_worker") == [worker["id"]]
    assert await ids(run_id="run_root", status="pending") == [root["id"], worker["id"]]
    assert await ids(run_id="run_root", kind="question") == [worker["id"]]
    assert await ids(run_id="run_root", kind="approval_request", status="resolved") == [done["id"]]
    assert await ids(run_id="run_nobody") == []


async def test_bad_limit_is_invalid_request_not_retried(
    novo: NovoClient, control: SimControl
) -> None:
    with pytest.raises(errors.InvalidRequestError) as caught:
        await novo.list_interactions(limit=0)
    assert (caught.value.status, caught.value.type) == (400, "invalid_request")
    assert len(await control.log()) == 1


async def test_batch_of_45_is_three_calls_with_statuses_in_order(
    novo: NovoClient, control: SimControl
) -> None:
    ids = [(await control.approval(runId="run_batch"))["id"] for _ in range(43)]
    stranger = (await control.approval(runId="run_elsewhere"))["id"]
    # some already approved (same outcome again), some denied (a different outcome)
    for interaction_id in ids[:3]:
        await novo.resolve(interaction_id, approve(interaction_id))
    for interaction_id in ids[3:5]:
        await novo.resolve(interaction_id, deny(interaction_id))
    await control.clear_log()

    items = [approve(i) for i in ids[:39]]
    items.insert(10, approve("int_missing"))
    items.insert(20, approve(stranger))  # belongs to another root run
    items.insert(30, BatchResolveItem(id=ids[39], cancel=False))  # bad shape: refused here
    items.insert(31, BatchResolveItem(id=ids[40], input_responses=[InputResponse(request_id="x")]))
    items.append(BatchResolveItem(id=ids[41], cancel=True, reason="withdrawn"))
    items.append(deny(ids[42]))
    assert len(items) == 45

    result = await novo.resolve_batch("run_batch", items)

    assert [r.id for r in result.items] == [i.id for i in items]
    expected = ["resolved"] * 45
    expected[0:3] = ["already_resolved"] * 3
    expected[3:5] = ["conflict"] * 2
    expected[10] = expected[20] = "not_found"
    expected[30] = expected[31] = "invalid_body"
    assert [r.status for r in result.items] == expected

    calls = await control.log()
    assert [c["method"] for c in calls] == ["POST"] * 3
    assert all(c["path"] == "/v1/runs/run_batch/interactions/resolve" for c in calls)
    assert (await novo.get(stranger)).status == "pending"
    assert (await novo.get(ids[39])).status == "pending"
    assert (await novo.get(ids[40])).status == "pending"
    assert (await novo.get(ids[41])).status == "cancelled"
    assert (await novo.get(ids[42])).decision == "deny"
    assert (await novo.get(ids[3])).decision == "deny"  # a conflict changes nothing
