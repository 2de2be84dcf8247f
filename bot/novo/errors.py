"""Typed errors of the Novo client.

NovoError
├── ResolveRuleError                   body refused before sending (see rules.py)
├── NovoAPIStatusError(status, type, message)
│   ├── BadRequestError                400
│   │   ├── InvalidBodyError           invalid_body
│   │   ├── UnknownQuestionIdError     unknown_question_id
│   │   └── InvalidRequestError        invalid_request
│   ├── UnauthorizedError              401
│   ├── InteractionNotFoundError       404
│   ├── ConflictError                  409 idempotency_key_conflict
│   ├── RateLimitedError               429
│   └── InternalServerError            5xx
└── NovoConnectionError                no usable response
    └── NovoTimeoutError
"""

from __future__ import annotations

from typing import Literal

RuleErrorType = Literal["invalid_body", "unknown_question_id"]


class NovoError(Exception):
    """Anything the Novo client raises."""


class ResolveRuleError(NovoError, ValueError):
    """A resolve body that breaks a rule of rules.py; `type` is the API error type it maps to.

    The client raises it before sending, the simulator turns it into a 400
    with the same type, so one handler serves both.
    """

    def __init__(self, type_: RuleErrorType, message: str) -> None:
        super().__init__(message)
        self.type: RuleErrorType = type_
        self.message = message


class NovoAPIStatusError(NovoError):
    """The API answered with a non-2xx status and an error body."""

    def __init__(self, status: int, type_: str, message: str) -> None:
        super().__init__(f"{status} {type_}: {message}")
        self.status = status
        self.type = type_
        self.message = message


class BadRequestError(NovoAPIStatusError):
    pass


class InvalidBodyError(BadRequestError):
    pass


class UnknownQuestionIdError(BadRequestError):
    pass


class InvalidRequestError(BadRequestError):
    pass


class UnauthorizedError(NovoAPIStatusError):
    pass


class InteractionNotFoundError(NovoAPIStatusError):
    pass


class ConflictError(NovoAPIStatusError):
    pass


class RateLimitedError(NovoAPIStatusError):
    def __init__(
        self, status: int, type_: str, message: str, retry_after: float | None = None
    ) -> None:
        super().__init__(status, type_, message)
        self.retry_after = retry_after


class InternalServerError(NovoAPIStatusError):
    pass


class NovoConnectionError(NovoError):
    """The request got no usable answer: refused, reset, DNS, TLS."""


class NovoTimeoutError(NovoConnectionError):
    """The request timed out."""


_BY_TYPE: dict[str, type[NovoAPIStatusError]] = {
    "invalid_body": InvalidBodyError,
    "unknown_question_id": UnknownQuestionIdError,
    "invalid_request": InvalidRequestError,
}
_BY_STATUS: dict[int, type[NovoAPIStatusError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    404: InteractionNotFoundError,
    409: ConflictError,
    429: RateLimitedError,
}


def status_error(
    status: int, type_: str, message: str, retry_after: float | None = None
) -> NovoAPIStatusError:
    """The one place that maps a status and error type to an exception class."""
    if status == 429:
        return RateLimitedError(status, type_, message, retry_after)
    if status == 400 and type_ in _BY_TYPE:
        return _BY_TYPE[type_](status, type_, message)
    if status >= 500:
        return InternalServerError(status, type_, message)
    return _BY_STATUS.get(status, NovoAPIStatusError)(status, type_, message)


__all__ = [
    "BadRequestError",
    "ConflictError",
    "InteractionNotFoundError",
    "InternalServerError",
    "InvalidBodyError",
    "InvalidRequestError",
    "NovoAPIStatusError",
    "NovoConnectionError",
    "NovoError",
    "NovoTimeoutError",
    "RateLimitedError",
    "ResolveRuleError",
    "UnauthorizedError",
    "UnknownQuestionIdError",
    "status_error",
]
