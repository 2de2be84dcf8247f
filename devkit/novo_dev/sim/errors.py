"""The simulator's refusals, kept apart so state, paging and routes share one type.

A `SimError` carries exactly what Part 2's error body needs, so the HTTP
layer turns it into a response without knowing which rule refused.
"""

from __future__ import annotations


class SimError(Exception):
    """A refusal the API answers with an error body (status, Part 2 error type, message)."""

    def __init__(self, status: int, type_: str, message: str) -> None:
        super().__init__(f"{status} {type_}: {message}")
        self.status = status
        self.type = type_
        self.message = message


def not_found(interaction_id: str) -> SimError:
    return SimError(404, "interaction_not_found", f"no interaction {interaction_id!r}")


def invalid_request(message: str) -> SimError:
    return SimError(400, "invalid_request", message)
