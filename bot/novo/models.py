"""Pydantic models for every shape the Interactions API names.

Field names are snake_case in Python and camelCase on the wire (the API's own
spelling); every model tolerates unknown fields, because the platform adds
fields over time and a bridge that broke on a new field would lose decisions.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    field_validator,
)
from pydantic.alias_generators import to_camel

InteractionKind = Literal["approval_request", "question"]
InteractionStatus = Literal["pending", "resolved", "cancelled"]
Decision = Literal["allow", "deny", "cancel"]
BatchItemStatus = Literal["resolved", "already_resolved", "conflict", "not_found", "invalid_body"]

KNOWN_KINDS: tuple[str, ...] = ("approval_request", "question")

APPROVE_OPTION = "approve"
DENY_OPTION = "deny"
TIMEOUT_REASON = "interaction_timeout"


def format_timestamp(value: datetime) -> str:
    """ISO 8601 in UTC with a `Z` suffix and millisecond precision, as Part 2 requires."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


Timestamp = Annotated[datetime, PlainSerializer(format_timestamp, return_type=str)]


class NovoModel(BaseModel):
    """Base for wire models: camelCase aliases, unknown fields kept, names accepted too."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict the API speaks: camelCase, unset optionals left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class QuestionOption(NovoModel):
    id: str
    label: str = ""
    description: str | None = None


class Question(NovoModel):
    id: str
    prompt: str = ""
    multiple: bool = False
    options: list[QuestionOption] | None = None
    multiline: bool = False
    allow_other: bool = False
    optional: bool = False

    @property
    def accepts_text(self) -> bool:
        """Part 2: free-form text is accepted with no options, or when multiline/allowOther."""
        return not self.options or self.multiline or self.allow_other

    def option(self, option_id: str) -> QuestionOption | None:
        return next((o for o in self.options or [] if o.id == option_id), None)


class QuestionAction(NovoModel):
    id: str
    label: str = ""
    style: str | None = None


class QuestionRequest(NovoModel):
    title: str = ""
    details: str | None = None
    questions: list[Question] = Field(default_factory=list)
    actions: list[QuestionAction] = Field(default_factory=list)

    @field_validator("questions", "actions", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)

    def action(self, action_id: str) -> QuestionAction | None:
        return next((a for a in self.actions if a.id == action_id), None)


class InputResponse(NovoModel):
    request_id: str
    option_id: str | None = None
    option_ids: list[str] | None = None
    text: str | None = None


class ResolveInteractionBody(NovoModel):
    input_responses: list[InputResponse] | None = None
    cancel: bool | None = None
    reason: str | None = None


class Interaction(NovoModel):
    """One interaction as the API reported it.

    `kind` and `status` are plain strings, not the documented literals: a
    record of a kind or status this bridge does not know must still be
    tracked (shown as "resolve it in Novo", or counted as not pending)
    rather than make a whole page of the listing unreadable.
    """

    # the record exactly as received (set by `from_wire`), so what is stored
    # and compared is what Novo said, whatever our models could serialise
    _raw: dict[str, Any] | None = PrivateAttr(default=None)

    id: str
    object: Literal["interaction"] = "interaction"
    run_id: str
    root_run_id: str
    worker_ref: str | None = None
    thread_id: str
    agent_id: str
    kind: str
    status: str
    step_number: int
    tool_name: str
    tool_call_id: str
    hook_id: str | None = None
    input: Any = None
    preview: dict[str, Any] | None = None
    decision: Decision | None = None
    reason: str | None = None
    request: QuestionRequest | None = None
    resolution: dict[str, Any] | None = None
    expires_at: Timestamp | None = None
    created_at: Timestamp
    resolved_at: Timestamp | None = None
    updated_at: Timestamp

    @classmethod
    def from_wire(cls, data: Any) -> Interaction:
        """Parse a record as received and keep it, so `to_wire` gives it back unchanged."""
        interaction = cls.model_validate(data)
        if isinstance(data, dict):
            interaction._raw = data
        return interaction

    def to_wire(self) -> dict[str, Any]:
        """The API's record keeps its nulls (`workerRef`, `decision`, `expiresAt`, ...).

        A record read from the wire is given back as received: re-serialising
        it could fail (pydantic caps nesting depth) or drift from what Novo said.
        """
        if self._raw is not None:
            return self._raw
        return self.model_dump(mode="json", by_alias=True)

    @property
    def is_known_kind(self) -> bool:
        """A kind this bridge can show and resolve; others get a plain "resolve it in Novo"."""
        return self.kind in KNOWN_KINDS

    @property
    def is_pending(self) -> bool:
        """Pending only when Novo says so: an unknown status counts as not pending."""
        return self.status == "pending"

    @property
    def ending_reason(self) -> str | None:
        """Why it ended: the echoed `reason`, else the resolution's.

        The API puts an expiry's `interaction_timeout` in `resolution.reason`
        only (the top-level `reason` is an echo of what a resolver passed, null
        for an expiry), so reading the top level alone misses every expiry.
        """
        for reason in (self.reason, (self.resolution or {}).get("reason")):
            if isinstance(reason, str) and reason:
                return reason
        return None

    @property
    def timed_out(self) -> bool:
        """Cancelled because nobody answered before `expiresAt`."""
        return self.status == "cancelled" and self.ending_reason == TIMEOUT_REASON

    def resolution_body(self) -> ResolveInteractionBody | None:
        """The recorded response parsed back into a body (None while pending)."""
        if self.resolution is None:
            return None
        return ResolveInteractionBody.model_validate(self.resolution)


T = TypeVar("T")


class Page(NovoModel, Generic[T]):
    object: Literal["list"] = "list"
    data: list[T]
    has_more: bool = False
    next_cursor: str | None = None


class BatchResolveItem(ResolveInteractionBody):
    id: str


class BatchResolveRequest(NovoModel):
    items: list[BatchResolveItem]


class BatchItemResult(NovoModel):
    id: str | None
    status: BatchItemStatus


class BatchResolveResult(NovoModel):
    items: list[BatchItemResult]


class ErrorDetail(NovoModel):
    type: str
    message: str = ""


class ErrorBody(NovoModel):
    error: ErrorDetail
