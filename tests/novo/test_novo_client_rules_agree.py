"""Property: the client's own check and the simulator agree on every resolve body.

Interactions of both kinds and every question flavour are created through the
control API; bodies are valid ones and near misses. Each body is sent raw, so
the server judges exactly what a client that skipped the check would send.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.novo import rules
from bot.novo.errors import ResolveRuleError
from bot.novo.models import Interaction, ResolveInteractionBody

from .conftest import SIM_KEY

pytestmark = pytest.mark.timeout(60)

SELF = "$self"  # stands for the interaction's own id, known only once it is created
QUESTION_IDS = ["q1", "q2", "q3"]
ACTION_IDS = ["a1", "a2"]
OPTION_IDS = ["o1", "o2", "o3"]
MUTATIONS = [
    "wrong_id",
    "self_id",
    "empty_id",
    "option_ids",
    "text",
    "duplicate",
    "drop",
    "empty_list",
    "nothing",
    "cancel_too",
    "cancel_only",
    "cancel_false",
    "unknown_option",
    "add_action",
    "select_nothing",
    "both_option_fields",
    "repeat_option",
]
REASONS = st.one_of(
    st.none(),
    st.text(max_size=12),
    st.just("r" * rules.MAX_REASON_CHARS),
    st.just("r" * (rules.MAX_REASON_CHARS + 1)),
)
TEXTS = st.one_of(st.text(max_size=12), st.just("line one\nline two"))


@st.composite
def question_specs(draw: st.DrawFn, question_id: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"id": question_id, "prompt": f"Prompt {question_id}"}
    if draw(st.booleans()):
        options = draw(st.lists(st.sampled_from(OPTION_IDS), min_size=1, max_size=3, unique=True))
        spec["options"] = [{"id": o, "label": o.upper()} for o in options]
    for flag in ("multiple", "multiline", "allowOther", "optional"):
        if draw(st.booleans()):
            spec[flag] = True
    return spec


@st.composite
def interaction_specs(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"kind": "approval_request"}
    question_ids = draw(st.lists(st.sampled_from(QUESTION_IDS), max_size=3, unique=True))
    action_ids = draw(st.lists(st.sampled_from(ACTION_IDS), max_size=2, unique=True))
    if not question_ids and not action_ids:
        question_ids = ["q1"]
    return {
        "kind": "question",
        "request": {
            "title": "Pick",
            "questions": [draw(question_specs(q)) for q in question_ids],
            "actions": [{"id": a, "label": a.upper()} for a in action_ids],
        },
    }


def _options(question: dict[str, Any]) -> list[str]:
    return [o["id"] for o in question.get("options", [])]


def _accepts_text(question: dict[str, Any]) -> bool:
    return (
        not _options(question)
        or question.get("multiline", False)
        or question.get("allowOther", False)
    )


@st.composite
def valid_entries(draw: st.DrawFn, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Entries that answer `spec` correctly (before any mutation)."""
    if spec["kind"] == "approval_request":
        return [{"requestId": SELF, "optionId": draw(st.sampled_from(["approve", "deny"]))}]
    request = spec["request"]
    actions = [a["id"] for a in request["actions"]]
    if actions and (not request["questions"] or draw(st.booleans())):
        return [{"requestId": draw(st.sampled_from(actions))}]
    entries: list[dict[str, Any]] = []
    for question in request["questions"]:
        if question.get("optional") and draw(st.booleans()):
            continue
        entry: dict[str, Any] = {"requestId": question["id"]}
        options = _options(question)
        ways = (["option"] if options else []) + (["text"] if _accepts_text(question) else [])
        if options and _accepts_text(question):
            ways.append("both")
        way = draw(st.sampled_from(ways))
        if way in ("option", "both"):
            if question.get("multiple") and draw(st.booleans()):
                entry["optionIds"] = draw(
                    st.lists(st.sampled_from(options), min_size=1, unique=True)
                )
            else:
                entry["optionId"] = draw(st.sampled_from(options))
        if way in ("text", "both"):
            entry["text"] = draw(TEXTS.filter(bool))
        entries.append(entry)
    return list(draw(st.permutations(entries)))


def _mutate(draw: st.DrawFn, body: dict[str, Any], mutation: str) -> None:
    """Turn a valid body into a near miss (or, sometimes, another valid one)."""
    entries: list[dict[str, Any]] = body.setdefault("inputResponses", [])
    pick = draw(st.integers(0, max(len(entries) - 1, 0)))
    target = entries[pick] if entries else None
    if mutation == "wrong_id" and target:
        target["requestId"] = "nobody"
    elif mutation == "self_id" and target:
        target["requestId"] = SELF
    elif mutation == "empty_id" and target:
        target["requestId"] = ""
    elif mutation == "option_ids" and target:
        target.pop("optionId", None)
        target["optionIds"] = draw(st.lists(st.sampled_from(OPTION_IDS), min_size=1, max_size=2))
    elif mutation == "text" and target:
        target["text"] = draw(TEXTS)
    elif mutation == "duplicate" and target:
        entries.append(copy.deepcopy(target))
    elif mutation == "drop" and target:
        entries.remove(target)
    elif mutation == "empty_list":
        entries.clear()
    elif mutation == "nothing":
        body.clear()
    elif mutation == "cancel_too":
        body["cancel"] = True
    elif mutation == "cancel_only":
        body.pop("inputResponses")
        body["cancel"] = True
    elif mutation == "cancel_false":
        body["cancel"] = False
    elif mutation == "unknown_option" and target:
        target["optionId"] = draw(st.sampled_from(["nope", "approve", "deny", *OPTION_IDS]))
    elif mutation == "add_action":
        entries.append({"requestId": draw(st.sampled_from(ACTION_IDS))})
    elif mutation == "select_nothing" and target:
        for key in ("optionId", "optionIds", "text"):
            target.pop(key, None)
    elif mutation == "both_option_fields" and target:
        target["optionId"] = "o1"
        target["optionIds"] = ["o1"]
    elif mutation == "repeat_option" and target:
        target.pop("optionId", None)
        target["optionIds"] = ["o1", "o1"]


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = draw(interaction_specs())
    body: dict[str, Any] = {"inputResponses": draw(valid_entries(spec))}
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), max_size=2)):
        _mutate(draw, body, mutation)
    reason = draw(REASONS)
    if reason is not None:
        body["reason"] = reason
    return spec, body


def _with_id(value: Any, interaction_id: str) -> Any:
    if value == SELF:
        return interaction_id
    if isinstance(value, dict):
        return {k: _with_id(v, interaction_id) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_id(v, interaction_id) for v in value]
    return value


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    """A simulator on its own event loop thread, so hypothesis can drive it synchronously."""
    from novo_dev.sim.server import start_sim

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="sim-loop", daemon=True)
    thread.start()
    server = asyncio.run_coroutine_threadsafe(start_sim(api_key=SIM_KEY), loop).result(10)
    try:
        yield server.url
    finally:
        asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture(scope="module")
def http(sim_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sim_url, timeout=5.0) as client:
        yield client


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=cases())
def test_client_check_and_simulator_agree(
    http: httpx.Client, case: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    spec, raw_body = case
    created = http.post("/_sim/interactions", json=spec)
    assert created.status_code == 201, created.text
    interaction = Interaction.model_validate(created.json())
    body = _with_id(raw_body, interaction.id)

    expected: str | None = None
    try:
        rules.check_resolve_body(interaction, ResolveInteractionBody.model_validate(body))
    except ResolveRuleError as refused:
        expected = refused.type

    answer = http.post(
        f"/v1/interactions/{interaction.id}/resolve",
        json=body,
        headers={"Authorization": f"Bearer {SIM_KEY}"},
    )
    if expected is None:
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] in ("resolved", "cancelled")
    else:
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["type"] == expected


def test_generated_cases_cover_both_verdicts() -> None:
    """Guards the property above against generating only one kind of body."""
    verdicts: set[str | None] = set()

    @settings(max_examples=150, deadline=None, database=None)
    @given(case=cases())
    def collect(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
        spec, raw_body = case
        interaction = Interaction.model_validate(
            {
                "id": "int_x",
                "runId": "run_x",
                "rootRunId": "run_x",
                "threadId": "thr_x",
                "agentId": "agt_x",
                "kind": spec["kind"],
                "status": "pending",
                "stepNumber": 1,
                "toolName": "t",
                "toolCallId": "c",
                "request": spec.get("request"),
                "createdAt": "2025-01-01T00:00:00.000Z",
                "updatedAt": "2025-01-01T00:00:00.000Z",
            }
        )
        body = ResolveInteractionBody.model_validate(_with_id(raw_body, "int_x"))
        try:
            rules.check_resolve_body(interaction, body)
            verdicts.add(None)
        except ResolveRuleError as refused:
            verdicts.add(refused.type)

    collect()
    assert verdicts == {None, "invalid_body", "unknown_question_id"}
