"""Slack's bad days on demand: 429s on chat.postMessage and failing methods.

The bridge's retry and backoff paths are only as good as the failures they
were tested against, so tests script them here instead of hoping for them.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_WINDOW_SECONDS = 1.0  # "more than N posts per channel within a sliding second"


@dataclass(frozen=True)
class Failure:
    """An HTTP answer that replaces the method's normal one."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class _Scripted:
    remaining: int
    failure: Failure


class Faults:
    """Scripted failures, consumed one call at a time, plus an optional automatic rate limit."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._post_limits: dict[str, _Scripted] = {}
        self._method_failures: dict[str, _Scripted] = {}
        self._auto_per_second: int | None = None
        self._auto_retry_after = 1
        self._recent_posts: defaultdict[str, deque[float]] = defaultdict(deque)
        self._delays: dict[str, float] = {}
        self._holds: dict[str, asyncio.Event] = {}
        self._lost_answers: dict[str, int] = {}
        self.down: Failure | None = None  # while set, every Web API call answers it
        self.cut = False  # while set, every Web API call's connection is cut, unanswered
        # token-bucket mode: per channel (tokens, when last counted)
        self._auto_burst: float | None = None
        self._buckets: dict[str, tuple[float, float]] = {}

    def rate_limit_post_message(self, channel: str, *, count: int, retry_after: int) -> None:
        _script(self._post_limits, channel, count, _ratelimited(retry_after))

    def set_post_message_rate(
        self, per_second: int | None, *, retry_after: int, burst: int | None = None
    ) -> None:
        """Beyond `per_second` posts per channel, 429. Without `burst`: counted in a
        sliding second; with it: a token bucket of that size refilled at `per_second`
        (Slack's "about one a second, short bursts allowed")."""
        self._auto_per_second = per_second
        self._auto_retry_after = retry_after
        self._auto_burst = float(burst) if burst is not None else None
        self._recent_posts.clear()
        self._buckets.clear()

    def delay_method(self, method: str, seconds: float) -> None:
        if seconds > 0:
            self._delays[method] = seconds
        else:
            self._delays.pop(method, None)

    def hold_method(self, method: str) -> None:
        """Later calls of `method` wait, unanswered, until `release_method`."""
        self._holds.setdefault(method, asyncio.Event())

    def release_method(self, method: str) -> None:
        """The held calls of `method` go on, and later ones are no longer held."""
        held = self._holds.pop(method, None)
        if held is not None:
            held.set()

    def release_all(self) -> None:
        for method in list(self._holds):
            self.release_method(method)

    async def wait_while_held(self, method: str) -> None:
        held = self._holds.get(method)
        if held is not None:
            await held.wait()

    def lose_answers(self, method: str, count: int) -> None:
        self._lost_answers[method] = count

    def loses_answer(self, method: str) -> bool:
        """Whether this call, once carried out, drops its connection instead of answering."""
        left = self._lost_answers.get(method, 0)
        if left <= 0:
            return False
        self._lost_answers[method] = left - 1
        return True

    def delay_of(self, method: str) -> float:
        """How long this call of `method` waits before it is answered."""
        return self._delays.get(method, 0.0)

    def fail_method(self, method: str, *, count: int, error: str, http_status: int) -> None:
        body = {"ok": False, "error": error}
        _script(self._method_failures, method, count, Failure(http_status, body, {}))

    def go_down(self, http_status: int | None) -> None:
        """Every later call fails: answered `http_status`, or (None) cut off unanswered."""
        body = {"ok": False, "error": "service_unavailable"}
        self.down = Failure(http_status, body, {}) if http_status is not None else None
        self.cut = http_status is None

    def come_back(self) -> None:
        self.down, self.cut = None, False

    def before_call(self, method: str, channel: str | None) -> Failure | None:
        """The failure this call meets, if any; consumes one scripted failure."""
        if self.down is not None:
            return self.down
        failure = _consume(self._method_failures, method)
        if failure is not None or method != "chat.postMessage" or channel is None:
            return failure
        failure = _consume(self._post_limits, channel)
        if failure is not None:
            return failure
        return self._auto_limit(channel)

    def after_post(self, channel: str) -> None:
        """Counts an accepted post toward the sliding window (or takes its token)."""
        if self._auto_per_second is None:
            return
        if self._auto_burst is not None:
            tokens, at = self._bucket(channel)
            self._buckets[channel] = (tokens - 1.0, at)
            return
        self._recent_posts[channel].append(self._clock())

    def _bucket(self, channel: str) -> tuple[float, float]:
        assert self._auto_per_second is not None and self._auto_burst is not None
        now = self._clock()
        tokens, at = self._buckets.get(channel, (self._auto_burst, now))
        tokens = min(self._auto_burst, tokens + (now - at) * self._auto_per_second)
        self._buckets[channel] = (tokens, now)
        return tokens, now

    def _auto_limit(self, channel: str) -> Failure | None:
        if self._auto_per_second is None:
            return None
        if self._auto_burst is not None:
            tokens, _ = self._bucket(channel)
            # a little slack for the two clocks' jitter; a real excess is a whole post
            return _ratelimited(self._auto_retry_after) if tokens < 0.95 else None
        recent = self._recent_posts[channel]
        horizon = self._clock() - _WINDOW_SECONDS
        while recent and recent[0] <= horizon:
            recent.popleft()
        if len(recent) >= self._auto_per_second:
            return _ratelimited(self._auto_retry_after)
        return None


def _script(table: dict[str, _Scripted], key: str, count: int, failure: Failure) -> None:
    if count > 0:
        table[key] = _Scripted(count, failure)
    else:
        table.pop(key, None)


def _consume(table: dict[str, _Scripted], key: str) -> Failure | None:
    scripted = table.get(key)
    if scripted is None:
        return None
    scripted.remaining -= 1
    if scripted.remaining <= 0:
        del table[key]
    return scripted.failure


def _ratelimited(retry_after: int) -> Failure:
    return Failure(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)})
