"""The handlers of the public Interactions API and the `/_sim` control API.

The semantics live in `state.py`; a handler only parses the request, calls
the state and serializes the answer. Refusals are raised as `SimError` (or
the rules' `ResolveRuleError`) and turned into error bodies by the server's
middleware, so no handler builds an error response itself.
"""

from __future__ import annotations

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
from bot.sim.errors import SimError, invalid_request
from bot.sim.paging import ListFilter
from bot.sim.spec import ExtendSpec, FaultSpec, InteractionSpec
from bot.sim.state import SimState

_M = TypeVar("_M", bound=BaseModel)


@dataclass
class SimControl:
    """What the control API changes besides the interactions: faults, the request log."""

    api_key: str | None
    rng: random.Random
    faults: FaultSpec = field(default_factory=FaultSpec)
    requests: list[dict[str, Any]] = field(default_factory=list)


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
    page = request.app[STATE].list_page(
        where, limit=_limit(request), cursor=_param(request, "cursor")
    )
    return web.json_response(
        {
            "object": "list",
            "data": [item.to_wire() for item in page.data],
            "hasMore": page.has_more,
            "nextCursor": page.next_cursor,
        }
    )


async def get_interaction(request: web.Request) -> web.Response:
    item = request.app[STATE].get(request.match_info["id"])
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


async def terminate_run(request: web.Request) -> web.Response:
    run_id = request.match_info["run_id"]
    pending = request.app[STATE].terminate(run_id)
    return web.json_response({"runId": run_id, "terminated": True, "pending": pending})


async def set_faults(request: web.Request) -> web.Response:
    control = request.app[CONTROL]
    spec = _parse_control(FaultSpec, await _json(request))
    if spec.seed is not None:
        control.rng.seed(spec.seed)
    control.faults = spec
    return web.json_response(spec.model_dump(by_alias=True, exclude={"seed"}))


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
    control.faults = FaultSpec()
    control.requests.clear()
    return web.json_response({"reset": True})
