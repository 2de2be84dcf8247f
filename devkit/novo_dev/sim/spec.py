"""The control API's request bodies (`/_sim/...`): what a test or demo asks the simulator for.

They are the control API's contract, built by tests and the demo feed and
consumed by the state and the handlers, so they live apart from both.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from bot.novo.models import InteractionKind, QuestionRequest

DEFAULT_STEP_NUMBER = 1
MAX_LATENCY_MS = 60_000
# Route name -> the fault group (`routes` of /_sim/faults) it belongs to.
FAULT_GROUPS = {"list": "list", "get": "get", "resolve": "resolve", "resolve_batch": "resolve"}


class InteractionSpec(BaseModel):
    """The control API's create body: what a run would put on a paused interaction.

    Unknown fields are refused (unlike the public models) because a typo in a
    test's spec should fail loudly rather than silently fall back to a default.
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True
    )

    kind: InteractionKind
    id: str | None = Field(default=None, min_length=1)
    run_id: str | None = Field(default=None, min_length=1)
    root_run_id: str | None = Field(default=None, min_length=1)
    worker_ref: str | None = Field(default=None, min_length=1)
    thread_id: str | None = Field(default=None, min_length=1)
    agent_id: str | None = Field(default=None, min_length=1)
    step_number: int = Field(default=DEFAULT_STEP_NUMBER, ge=0)
    tool_name: str | None = Field(default=None, min_length=1)
    tool_call_id: str | None = Field(default=None, min_length=1)
    hook_id: str | None = Field(default=None, min_length=1)
    input: Any = None
    preview: dict[str, Any] | None = None
    request: QuestionRequest | None = None
    expires_in_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _fits_kind(self) -> Self:
        if self.kind == "approval_request":
            if self.request is not None:
                raise ValueError("an approval_request carries no request")
            return self
        if self.request is None:
            raise ValueError("a question needs a request")
        if self.hook_id is not None or self.input is not None or self.preview is not None:
            raise ValueError("hookId, input and preview are for approvals only")
        ids = [q.id for q in self.request.questions] + [a.id for a in self.request.actions]
        if not ids:
            raise ValueError("a question's request needs at least one question or action")
        if any(not i for i in ids) or len(set(ids)) != len(ids):
            raise ValueError("question and action ids must be non-empty and unique")
        for question in self.request.questions:
            options = [o.id for o in question.options or []]
            if any(not o for o in options) or len(set(options)) != len(options):
                raise ValueError(f"question {question.id!r}: option ids must be unique")
        return self


class FaultSpec(BaseModel):
    """`POST /_sim/faults`: the defaults (an empty body) inject nothing."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True
    )

    error_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    status: int = Field(default=503, ge=400, le=599)
    latency_ms: float = Field(default=0.0, ge=0.0, le=MAX_LATENCY_MS)
    # covered requests get no answer until the faults change or the simulator closes
    hang: bool = False
    # one group, or several: ["list", "get"] fails reads while resolves still work
    routes: Literal["all", "list", "get", "resolve"] | list[Literal["list", "get", "resolve"]] = (
        "all"
    )
    endless_cursors: bool = False  # every list page says hasMore, with a fresh cursor
    # the request is applied first and only its answer is faulted: a resolve Novo took whose
    # answer was lost, late or never came (a gateway timeout, a client killed mid-call)
    after_apply: bool = False
    seed: int | None = None

    def covers(self, route_name: str | None) -> bool:
        group = FAULT_GROUPS.get(route_name or "")
        if group is None:
            return False
        if isinstance(self.routes, list):
            return group in self.routes
        return self.routes in ("all", group)


class ExtendSpec(BaseModel):
    """`POST /_sim/interactions/{id}/extend`: how many seconds to push `expiresAt` back."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seconds: float = Field(ge=0, allow_inf_nan=False)
