"""When and how long the Novo client waits before trying a request again.

Reads and resolves are both safe to repeat (resolving with the same outcome
is idempotent, per the API doc), so one policy serves every call. Only
failures that may pass by themselves are retried: rate limiting, server
errors and transport failures. A 400/401/404/409 would fail the same way
again, so it is raised at once.

The sleep function and the random source are injected so that tests can
record the delays instead of waiting them out.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from bot.novo.errors import (
    InternalServerError,
    NovoConnectionError,
    NovoError,
    RateLimitedError,
)

DEFAULT_MAX_RETRIES = 4
DEFAULT_BACKOFF_BASE = 0.5  # seconds: the ceiling of the first jittered wait
DEFAULT_BACKOFF_MAX = 8.0  # seconds: no single wait is longer, Retry-After included
DEFAULT_TIMEOUT = 10.0  # seconds per attempt

Sleep = Callable[[float], Awaitable[None]]


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or HTTP-date).

    None when the header is absent or unreadable, so the caller falls back to
    its own backoff instead of trusting garbage.
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def is_retryable(error: NovoError) -> bool:
    """429, 5xx and transport failures may pass on their own; nothing else will."""
    return isinstance(error, RateLimitedError | InternalServerError | NovoConnectionError)


@dataclass(frozen=True)
class RetryPolicy:
    """Capped exponential backoff with full jitter, honouring `Retry-After`.

    Attempt numbers start at 0 for the first try; `max_retries` further tries
    follow a retryable failure before the last error is raised.
    """

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_base: float = DEFAULT_BACKOFF_BASE
    backoff_max: float = DEFAULT_BACKOFF_MAX
    sleep: Sleep = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.backoff_base < 0 or self.backoff_max < 0:
            raise ValueError("backoff_base and backoff_max must be >= 0")

    def should_retry(self, error: NovoError, attempt: int) -> bool:
        return attempt < self.max_retries and is_retryable(error)

    def delay(self, error: NovoError, attempt: int) -> float:
        """How long to wait after `attempt` failed with `error`.

        A server that says when to come back knows better than our guess, but
        it is still capped so a hostile or broken header cannot stall a click.
        """
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return min(error.retry_after, self.backoff_max)
        ceiling = min(self.backoff_max, self.backoff_base * (2**attempt))
        return self.rng.uniform(0.0, ceiling)
