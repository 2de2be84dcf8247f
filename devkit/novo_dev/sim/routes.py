"""The handlers of the public Interactions API and the `/_sim` control API.

The semantics live in `state.py`; a handler only parses the request, calls
the state and serializes the answer. Refusals are raised as `SimError` (or
the rules' `ResolveRuleError`) and turned into error bodies by the server's
middleware, so no handler builds an error response itself.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any, TypeVar, get_args

from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot.novo.models import (
    BatchResolveResult,
    InteractionKind,
    InteractionStatus,
    ResolveInteractionBody,
)
from bot.novo.rules import PAGE_LIMIT_DEFAULT
from novo_dev.sim.errors import SimError, invalid_request
from novo_dev.sim.paging import ListFilter
from novo_dev.sim.spec import ExtendSpec, FaultSpec, InteractionSpec
from novo_dev.sim.state import SimState

_M = TypeVar("_M", bound=BaseModel)


@dataclass
class SimControl:
    """What the control API changes besides the interactions: faults, the request log."""

    api_key: str | None
    rng: random.Random
    faults: FaultSpec = field(default_factory=FaultSpec)
    requests: list[dict[str, Any]] = field(default_factory=list)
    # set when the faults change or the simulator closes: what hung requests wait for
    unhang: asyncio.Event = field(default_factory=asyncio.Event)
    # records served verbatim (malformed, unknown kinds, hostile): what a
    # buggy or newer Novo could send, which the models would never produce
    raw_records: list[Any] = field(default_factory=list)
    raw_by_id: dict[str, Any] = field(default_factory=dict)  # answered by GET only
    endless_pages: int = 0  # pages served by the endless-cursor fault so far
    in_flight: int = 0  # public requests received and not yet answered

    def replace_faults(self, faults: FaultSpec) -> None:
        """New faults; requests held by a `hang` fault are let go."""
        self.faults = faults
        self.release_hung()

    def release_hung(self) -> None:
        self.unhang.set()
        self.unhang = asyncio.Event()


STATE = web.AppKey("state", SimState)
CONTROL = web.AppKey("control", SimControl)


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "body"
    return f"{where}: {first['msg']}"


# -- public routes ----------------------------------------------------------------------------


def _param(request: web.Request, name: str) -> str | None:
    values = request.query.getall(name, [])
    if len(values) > 1:
        raise invalid_request(f"{name} is given more than once")
    if values and not values[0]:
        raise invalid_request(f"{name} must not be empty")
    return values[0] if values else None


def _choice(request: web.Request, name: str, allowed: tuple[str, ...]) -> Any:
    value = _param(request, name)
    if value is not None and value not in allowed:
        raise invalid_request(f"{name} must be one of {', '.join(allowed)}")
    return value


def _limit(request: web.Request) -> int:
    value = _param(request, "limit")
    if value is None:
        return PAGE_LIMIT_DEFAULT
    if not value.isascii() or not value.isdigit():
        raise invalid_request("limit must be an integer")
    return int(value)


async def _json(request: web.Request) -> Any:
    try:
        return json.loads(await request.read())
    except ValueError:
        raise invalid_request("the body is not JSON") from None


async def list_interactions(request: web.Request) -> web.Response:
    where = ListFilter(
        run_id=_param(request, "runId"),
        status=_choice(request, "status", get_args(InteractionStatus)),
        kind=_choice(request, "kind", get_args(InteractionKind)),
    )
    control = request.app[CONTROL]
    cursor = _param(request, "cursor")
    if control.faults.endless_cursors:
        # a broken server: every page claims another, under a cursor never seen before
        control.endless_pages += 1
        cursor = None
        next_cursor: str | None = f"endless-{control.endless_pages}"
    page = request.app[STATE].list_page(where, limit=_limit(request), cursor=cursor)
    data: list[Any] = list(page.data)
    if cursor is None:
        data.extend(control.raw_records)
    if not control.faults.endless_cursors:
        next_cursor = page.next_cursor
    return web.json_response(
        {
            "object": "list",
            "data": data,
            "hasMore": page.has_more or control.faults.endless_cursors,
            "nextCursor": next_cursor,
        }
    )


async def get_interaction(request: web.Request) -> web.Response:
    interaction_id = request.match_info["id"]
    control = request.app[CONTROL]
    if interaction_id in control.raw_by_id:
        return web.json_response(control.raw_by_id[interaction_id])
    for raw in control.raw_records:
        if isinstance(raw, dict) and raw.get("id") == interaction_id:
            return web.json_response(raw)
    item = request.app[STATE].get(interaction_id)
    return web.json_response(item.to_wire())


async def resolve_interaction(request: web.Request) -> web.Response:
    state = request.app[STATE]
    interaction_id = request.match_info["id"]
    data = await _json(request)
    state.get(interaction_id)  # an unknown id is 404 whatever the body says
    try:
        body = ResolveInteractionBody.model_validate(data, strict=True)
    except ValidationError as exc:
        raise SimError(400, "invalid_body", _describe(exc)) from None
    return web.json_response(state.resolve(interaction_id, body).to_wire())


async def resolve_batch(request: web.Request) -> web.Response:
    data = await _json(request)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise invalid_request("the body must be an object with an items list")
    results = request.app[STATE].resolve_batch(request.match_info["root_run_id"], items)
    body = BatchResolveResult(items=results).model_dump(mode="json", by_alias=True)
    return web.json_response(body)


# -- control routes ---------------------------------------------------------------------------


def _parse_control(model: type[_M], data: Any) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(_describe(exc)) from None


async def create_interaction(request: web.Request) -> web.Response:
    spec = _parse_control(InteractionSpec, await _json(request))
    return web.json_response(request.app[STATE].create(spec).to_wire(), status=201)


async def extend_interaction(request: web.Request) -> web.Response:
    spec = _parse_control(ExtendSpec, await _json(request))
    item = request.app[STATE].extend(request.match_info["id"], spec.seconds)
    return web.json_response(item.to_wire())


async def expire_interaction(request: web.Request) -> web.Response:
    item = request.app[STATE].expire_now(request.match_info["id"])
    return web.json_response(item.to_wire())


async def terminate_run(request: web.Request) -> web.Response:
    run_id = request.match_info["run_id"]
    pending = request.app[STATE].terminate(run_id)
    return web.json_response({"runId": run_id, "terminated": True, "pending": pending})


async def set_faults(request: web.Request) -> web.Response:
    control = request.app[CONTROL]
    spec = _parse_control(FaultSpec, await _json(request))
    if spec.seed is not None:
        control.rng.seed(spec.seed)
    control.replace_faults(spec)
    return web.json_response(spec.model_dump(by_alias=True, exclude={"seed"}))


async def add_raw_records(request: web.Request) -> web.Response:
    """`POST /_sim/raw` `{"records": [...], "listed": true}`: serve records verbatim.

    Listed records are added to the first page of every listing (and answer
    GET by their id); with `"listed": false` they only answer GET by id, as
    a record that left the pending list would.
    """
    data = await _json(request)
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise invalid_request("the body must be an object with a records list")
    control = request.app[CONTROL]
    if data.get("listed", True):
        control.raw_records.extend(records)
    else:
        for record in records:
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                raise invalid_request("a record served by id needs a string id")
            control.raw_by_id[record["id"]] = record
    return web.json_response({"records": len(control.raw_records) + len(control.raw_by_id)})


async def clear_raw_records(request: web.Request) -> web.Response:
    request.app[CONTROL].raw_records.clear()
    request.app[CONTROL].raw_by_id.clear()
    return web.json_response({"records": 0})


async def get_faults(request: web.Request) -> web.Response:
    faults = request.app[CONTROL].faults
    return web.json_response(faults.model_dump(by_alias=True, exclude={"seed"}))


async def get_log(request: web.Request) -> web.Response:
    return web.json_response({"requests": request.app[CONTROL].requests})


async def clear_log(request: web.Request) -> web.Response:
    request.app[CONTROL].requests.clear()
    return web.json_response({"requests": []})


async def reset(request: web.Request) -> web.Response:
    control = request.app[CONTROL]
    request.app[STATE].reset()
    control.replace_faults(FaultSpec())
    control.requests.clear()
    control.raw_records.clear()
    control.raw_by_id.clear()
    return web.json_response({"reset": True})
