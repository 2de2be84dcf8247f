"""Three replicas on one PostgreSQL database, judged by what Slack and Novo saw.

The promises a deployment of several replicas rests on: an interaction is
posted once whoever polls, a poller killed mid-burst is replaced (how soon is
`bench/failover.py`'s figure: three poll intervals on a quiet machine), and an
acknowledged click is resolved in Novo exactly
once even when Novo is down and the replica holding it is killed.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import datetime
from typing import Any

from bot.slack.ids import ActionId, CallbackId
from tests.lifecycle.conftest import API_KEY, CHANNEL, World
from tests.replicas.conftest import Replica, Replicas
from tests.support import PROCESS_TIMEOUT, wait_until

BURST = 24
CALM_CLICKS = 8  # clicked while Novo answers; the rest while it refuses resolves
LIST_PATH = "/v1/interactions"
DELIVERY_DEADLINE = 40.0
# the client's own retries (at most 0.5 + 1 + 2 + 4 s) and a redelivery backoff or two
STRANDED_DEADLINE = 10.0


async def _create(world: World, kind: str = "approval_request", **fields: Any) -> str:
    fields = {"toolName": "deploy_service", **fields}
    return str((await world.control.create(kind, **fields))["id"])


async def _novo_record(world: World, interaction_id: str) -> dict[str, Any]:
    response = await world.http.get(
        f"{world.sim.url}/v1/interactions/{interaction_id}",
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def _posted_ids(world: World) -> Counter[str]:
    """How many posts Slack accepted per interaction id (from the message metadata)."""
    return Counter(
        str(call.args["metadata"]["event_payload"]["interaction_id"])
        for call in world.slack.calls("chat.postMessage")
        if call.ok and isinstance(call.args.get("metadata"), dict)
    )


def _ts_of(world: World, interaction_id: str) -> str | None:
    for message in world.slack.messages(CHANNEL):
        payload = (message.metadata or {}).get("event_payload") or {}
        if payload.get("interaction_id") == interaction_id:
            return message.ts
    return None


def _resolves(log: list[dict[str, Any]], interaction_id: str, status: int) -> int:
    path = f"/v1/interactions/{interaction_id}/resolve"
    return sum(
        1 for r in log if r["method"] == "POST" and r["path"] == path and r["status"] == status
    )


async def _failover(replicas: Replicas, killed: Replica) -> tuple[float, float]:
    """Seconds from the kill to another replica taking the lease, and to its first listing."""
    assert killed.killed_at is not None
    kill_at = killed.killed_at

    def taken() -> float | None:
        times = [t for r in replicas.alive() for t in r.takeovers() if t >= kill_at - 0.01]
        if times:
            return min(times)
        # on a busy machine the lease can move between two live replicas (a renewal late
        # past its lease): taken before the kill, by one that took it after the killed one
        holder = replicas.holder()
        if holder is not None and max(holder.takeovers()) > max(killed.takeovers(), default=0):
            return kill_at
        return None

    taken_at: float = await wait_until(
        taken, timeout=PROCESS_TIMEOUT, message="another replica polling"
    )

    async def first_listing() -> float | None:
        for entry in await replicas.world.sim_log():
            if entry["method"] == "GET" and entry["path"] == LIST_PATH:
                at = _epoch(str(entry["at"]))
                if at >= kill_at:
                    return at
        return None

    listed_at: float = await wait_until(
        first_listing, timeout=PROCESS_TIMEOUT, message="a listing after kill"
    )
    return taken_at - kill_at, listed_at - kill_at


def _epoch(iso: str) -> float:
    """The simulator's log times (ISO 8601, UTC, milliseconds) as epoch seconds."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


async def _click_all(replicas: Replicas, ids: list[str], over: list[Replica]) -> None:
    """Approve each, round-robin over `over`; Slack must get its ack for every click."""
    for n, interaction_id in enumerate(ids):
        replica = over[n % len(over)]
        ts = _ts_of(replicas.world, interaction_id)
        assert ts is not None
        user = ("U0ADA", "U0GRACE")[n % 2]
        response = await replica.driver.click_message_button(user, CHANNEL, ts, ActionId.APPROVE)
        assert response.status_code == 200, (replica.name, response.text)


async def _refused_once(world: World, ids: list[str]) -> None:
    """Wait until Novo has refused a resolve of each: their decisions are queued, not sent."""

    async def refused() -> bool:
        log = await world.sim_log()
        return all(_resolves(log, i, 503) >= 1 for i in ids)

    await wait_until(refused, message="a refused resolve of every decision")


async def _all_resolved(world: World, ids: list[str], within: float) -> float:
    """Seconds until Novo shows every one resolved."""
    started = time.monotonic()

    async def resolved() -> bool:
        records = [await _novo_record(world, i) for i in ids]
        return all(r["status"] == "resolved" for r in records)

    await wait_until(resolved, timeout=within, message="every acknowledged click resolved")
    return time.monotonic() - started


async def _resolved_once_allowed(world: World, ids: list[str]) -> None:
    log = await world.sim_log()
    for interaction_id in ids:
        record = await _novo_record(world, interaction_id)
        assert record["decision"] == "allow", record
        assert _resolves(log, interaction_id, 200) == 1, f"{interaction_id} resolved twice"


async def test_kills_during_a_burst_and_an_outage_lose_and_repeat_nothing(
    replicas: Replicas,
) -> None:
    world = replicas.world
    first = await wait_until(replicas.holder, message="one replica polling")

    # a burst of new interactions; the poller dies while it is posting them
    ids = [await _create(world) for _ in range(BURST // 3)]
    await wait_until(lambda: any(i in _posted_ids(world) for i in ids), message="posting begun")
    await first.kill()
    ids += [await _create(world) for _ in range(BURST - len(ids))]
    took, listed = await _failover(replicas, first)
    print(f"\nfailover, poller killed mid-burst: lease taken {took:.3f}s, first list {listed:.3f}s")
    await wait_until(lambda: all(_ts_of(world, i) for i in ids), message="the burst all posted")

    # clicks spread over both survivors while Novo answers ...
    second = replicas.holder()
    assert second is not None and second is not first
    (last,) = [r for r in replicas.alive() if r is not second]
    await _click_all(replicas, ids[:CALM_CLICKS], [second, last])
    # ... and while it refuses every resolve, to the replica that will survive: one killed
    # while it delivers a decision strands it (see the test below)
    await world.fault(routes="resolve", errorRate=1.0, status=503)
    await _click_all(replicas, ids[CALM_CLICKS:], [last])
    await _refused_once(world, ids[CALM_CLICKS:])
    await second.kill()
    took2, listed2 = await _failover(replicas, second)
    print(f"failover, poller killed with decisions queued: lease {took2:.3f}s, list {listed2:.3f}s")
    await world.fault()
    delivered = await _all_resolved(world, ids, DELIVERY_DEADLINE)
    print(f"every queued decision resolved {delivered:.1f}s after Novo came back")

    posts = _posted_ids(world)
    assert {i: n for i, n in posts.items() if n != 1} == {}, "posted more than once"
    assert set(ids) <= set(posts)
    await _resolved_once_allowed(world, ids)


async def test_decisions_a_killed_replica_was_delivering_go_out_from_another(
    replicas: Replicas,
) -> None:
    world = replicas.world
    ids = [await _create(world) for _ in range(6)]
    await wait_until(lambda: all(_ts_of(world, i) for i in ids), message="all posted")
    doomed = replicas.members[0]
    await world.fault(routes="resolve", errorRate=1.0, status=503)
    await _click_all(replicas, ids, [doomed])
    await _refused_once(world, ids)
    await doomed.kill()
    await world.fault()
    await _all_resolved(world, ids, STRANDED_DEADLINE)
    await _resolved_once_allowed(world, ids)


async def test_a_form_paged_across_two_replicas_resolves_with_every_answer(
    replicas: Replicas,
) -> None:
    world = replicas.world
    questions = [
        {
            "id": f"q{i}",
            "prompt": f"Question {i}",
            "allowOther": True,
            "options": [{"id": f"q{i}-yes", "label": "Yes"}, {"id": f"q{i}-no", "label": "No"}],
        }
        for i in range(60)
    ]
    interaction_id = await _create(
        world, "question", request={"title": "Long", "questions": questions}
    )
    ts = await wait_until(lambda: _ts_of(world, interaction_id), message="the question posted")
    first, second = replicas.members[0], replicas.members[1]
    await first.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.ANSWER)
    view = await wait_until(
        lambda: next(
            (v for v in world.slack.views() if v.callback_id == CallbackId.QUESTION_MODAL), None
        ),
        message="question modal opened",
    )
    pages = 0
    for page, replica in enumerate([first, second, first, second, first, second]):
        response = await replica.driver.submit_view(
            "U0GRACE", view.id, _first_options(replica, view.id)
        )
        assert response.status_code == 200, response.text
        pages = page + 1
        ack = response.json() if response.content else {}
        if (ack.get("view") or {}).get("callback_id") != CallbackId.QUESTION_MODAL:
            break
    assert pages >= 2

    async def answered() -> dict[str, Any] | None:
        record = await _novo_record(world, interaction_id)
        return record if record["status"] == "resolved" else None

    record = await wait_until(answered, message="the paged form delivered")
    assert record["resolution"]["inputResponses"] == [
        {"requestId": f"q{i}", "optionId": f"q{i}-yes"} for i in range(60)
    ]


def _first_options(replica: Replica, view_id: str) -> dict[str, Any]:
    """The first option of every choice on the modal's current page."""
    answer = ActionId.ANSWER_INPUT.value
    view = replica.driver.slack.view(view_id)
    return {
        block["block_id"]: {
            answer: replica.driver.selected_option(view_id, block["block_id"], answer, "o0")
        }
        for block in view.blocks
        if block.get("type") == "input" and "options" in block["element"]
    }


async def test_the_same_click_at_two_replicas_is_resolved_once_however_slow_slack_is(
    replicas: Replicas,
) -> None:
    """Slack delivers a click to one replica and a retry of it to another, whose look-up
    of the decider outlasts the first one's delivery: Novo still hears of it once."""
    world = replicas.world
    first, second = replicas.members[0], replicas.members[1]
    earlier = await _create(world)  # the first replica knows Ada from an earlier decision
    ts = await wait_until(lambda: _ts_of(world, earlier), message="the earlier one posted")
    await first.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await _all_resolved(world, [earlier], DELIVERY_DEADLINE)

    asked = await _create(world)
    ts = await wait_until(lambda: _ts_of(world, asked), message="posted")
    await world.fault(routes="resolve", latencyMs=400)  # the first delivery takes a while
    response = await first.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    world.slack.delay_method("users.info", 1.2)  # the second replica has to ask who Ada is
    response = await second.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    world.slack.delay_method("users.info", 0)
    await _all_resolved(world, [asked], DELIVERY_DEADLINE)

    async def second_answered() -> bool:  # told, or its own decision went out too
        told = [e.text for e in world.slack.ephemerals("U0ADA")]
        return bool(told) or _resolves(await world.sim_log(), asked, 200) > 1

    await wait_until(second_answered, message="the second replica answered")
    await _resolved_once_allowed(world, [asked])
    assert [e.text for e in world.slack.ephemerals("U0ADA")] == [
        "It was already approved by <@U0ADA>."
    ]
