"""The typed async client of the Novo Interactions API.

Every call goes through one retrying request path, so the error mapping,
logging and backoff cannot drift between endpoints. Resolve bodies are
checked against `rules.py` before they leave the process: a body the server
would refuse is refused here without a request, which keeps a bad click from
spending a rate-limit slot and gives the caller the same error type the
server would have used.

The API key is only ever placed in the request's Authorization header; it is
kept out of reprs, logs and exception messages (server text is scrubbed too,
in case a proxy echoes the header back).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from bot.novo import rules
from bot.novo.call_metrics import count_novo_call
from bot.novo.errors import (
    NovoAPIStatusError,
    NovoConnectionError,
    NovoError,
    NovoTimeoutError,
    ResolveRuleError,
    status_error,
)
from bot.novo.models import (
    BatchItemResult,
    BatchResolveItem,
    BatchResolveRequest,
    BatchResolveResult,
    ErrorBody,
    Interaction,
    InteractionKind,
    InteractionStatus,
    Page,
    ResolveInteractionBody,
)
from bot.novo.pagination import Pager
from bot.novo.records import ListedRecord, UnreadableRecord, parse_record
from bot.novo.retry import (
    DEFAULT_BACKOFF_BASE,
    DEFAULT_BACKOFF_MAX,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    RetryPolicy,
    Sleep,
    parse_retry_after,
)
from bot.tls import trust_store

log = logging.getLogger(__name__)

API_PREFIX = "/v1"
UNKNOWN_ERROR_TYPE = "unknown"
ERROR_TEXT_LIMIT = 200  # characters of an unreadable error body kept in the message
REDACTED = "[redacted]"

M = TypeVar("M", bound=BaseModel)

InteractionPager = Pager[Interaction]
RecordPager = Pager[ListedRecord]


def _quote(segment: str) -> str:
    """A path segment with `/`, `?` and friends escaped, so an id cannot change the route."""
    return quote(segment, safe="")


class NovoClient:
    """Async client of `/v1/interactions`; use as `async with NovoClient(...) as novo:`."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        http_client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_base: float = DEFAULT_BACKOFF_BASE,
        backoff_max: float = DEFAULT_BACKOFF_MAX,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(verify=trust_store())
        self._timeout = httpx.Timeout(timeout)
        self._retry = RetryPolicy(
            max_retries,
            backoff_base,
            backoff_max,
            sleep=sleep or asyncio.sleep,
            rng=rng or random.Random(),
        )

    def __repr__(self) -> str:
        return f"NovoClient(base_url={self._base_url!r})"

    @property
    def base_url(self) -> str:
        return self._base_url

    async def aclose(self) -> None:
        """Close the HTTP client, unless the caller lent us theirs."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- endpoints ---------------------------------------------------------

    def list_interactions(
        self,
        *,
        run_id: str | None = None,
        status: InteractionStatus | None = None,
        kind: InteractionKind | None = None,
        limit: int | None = None,
    ) -> InteractionPager:
        """A lazy pager: `await` it for the first page, `async for` it for every item.

        Records that cannot be parsed are left out (and logged at debug);
        `list_records` is for callers that must know about them.
        """
        records = self.list_records(run_id=run_id, status=status, kind=kind, limit=limit)

        async def fetch(cursor: str | None) -> Page[Interaction]:
            page = await records.fetch(cursor)
            readable = [r for r in page.data if isinstance(r, Interaction)]
            for record in page.data:
                if isinstance(record, UnreadableRecord):
                    log.debug("novo listed an unreadable record %s: %s", record.key, record.problem)
            return Page[Interaction](
                data=readable, has_more=page.has_more, next_cursor=page.next_cursor
            )

        return Pager(fetch)

    def list_raw(
        self, *, status: InteractionStatus | None = None, limit: int | None = None
    ) -> Pager[Any]:
        """Pages of records exactly as received, none parsed: for a caller that parses
        only what it has not seen before (`records.parse_record` parses one)."""
        filters: dict[str, str | int] = {}
        if status is not None:
            filters["status"] = status
        if limit is not None:
            filters["limit"] = limit

        async def fetch(cursor: str | None) -> Page[Any]:
            params = dict(filters) if cursor is None else {**filters, "cursor": cursor}
            data = await self._request("GET", f"{API_PREFIX}/interactions", params=params)
            return _parse(Page[Any], data, "a page of interactions")

        return Pager(fetch)

    def list_records(
        self,
        *,
        run_id: str | None = None,
        status: InteractionStatus | None = None,
        kind: InteractionKind | None = None,
        limit: int | None = None,
    ) -> RecordPager:
        """Like `list_interactions`, but every record is parsed on its own and kept."""
        filters: dict[str, str | int] = {}
        if run_id is not None:
            filters["runId"] = run_id
        if status is not None:
            filters["status"] = status
        if kind is not None:
            filters["kind"] = kind
        if limit is not None:
            filters["limit"] = limit

        async def fetch(cursor: str | None) -> Page[ListedRecord]:
            params = dict(filters) if cursor is None else {**filters, "cursor": cursor}
            data = await self._request("GET", f"{API_PREFIX}/interactions", params=params)
            envelope = _parse(Page[Any], data, "a page of interactions")
            return Page[ListedRecord](
                data=[parse_record(item) for item in envelope.data],
                has_more=envelope.has_more,
                next_cursor=envelope.next_cursor,
            )

        return Pager(fetch)

    async def get(self, interaction_id: str) -> Interaction:
        data = await self._request("GET", f"{API_PREFIX}/interactions/{_quote(interaction_id)}")
        return _parse_interaction(data, "an interaction")

    async def resolve(
        self,
        interaction_id: str,
        body: ResolveInteractionBody,
        *,
        interaction: Interaction | None = None,
    ) -> Interaction:
        """Resolve one interaction; a body that breaks a rule raises `ResolveRuleError` unsent.

        Pass the `interaction` when it is at hand so the kind-specific rules
        (option ids, required questions, approval shape) are checked too.
        """
        if interaction is not None:
            rules.check_resolve_body(interaction, body)
        else:
            rules.check_body_shape(body)
        path = f"{API_PREFIX}/interactions/{_quote(interaction_id)}/resolve"
        data = await self._request("POST", path, json=body.to_wire())
        return _parse_interaction(data, "the resolved interaction")

    async def resolve_batch(
        self, root_run_id: str, items: Sequence[BatchResolveItem]
    ) -> BatchResolveResult:
        """Resolve many siblings; results come back in the order of `items`.

        Items with a bad shape are answered `invalid_body` here and not sent,
        as the server would do, so their siblings still go. More items than
        one call may carry are split into several calls. If a call fails for
        good, the earlier calls have been applied; calling again with the
        same items is safe (the applied ones answer `already_resolved`).
        """
        results: list[BatchItemResult | None] = [None] * len(items)
        to_send: list[tuple[int, BatchResolveItem]] = []
        for index, item in enumerate(items):
            try:
                rules.check_body_shape(item)
            except ResolveRuleError as refused:
                log.debug("novo batch item %d refused locally: %s", index, refused.message)
                results[index] = BatchItemResult(id=item.id or None, status="invalid_body")
            else:
                to_send.append((index, item))
        path = f"{API_PREFIX}/runs/{_quote(root_run_id)}/interactions/resolve"
        for start in range(0, len(to_send), rules.MAX_BATCH_ITEMS):
            chunk = to_send[start : start + rules.MAX_BATCH_ITEMS]
            request = BatchResolveRequest(items=[item for _, item in chunk])
            data = await self._request("POST", path, json=request.to_wire())
            answer = _parse(BatchResolveResult, data, "a batch result")
            if len(answer.items) != len(chunk):
                raise NovoError(
                    f"batch resolve answered {len(answer.items)} items for {len(chunk)} sent"
                )
            for (index, _), result in zip(chunk, answer.items, strict=True):
                results[index] = result
        return BatchResolveResult(items=[r for r in results if r is not None])

    # -- transport ---------------------------------------------------------

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str | int] | None = None,
        json: dict[str, Any] | None = None,
    ) -> Any:
        """The decoded JSON of a 2xx answer, retrying what the policy allows."""
        attempt = 0
        while True:
            try:
                return await self._attempt(method, path, params, json, attempt)
            except NovoError as error:
                if not self._retry.should_retry(error, attempt):
                    raise
                delay = self._retry.delay(error, attempt)
                # DEBUG: an outage is said once, by whoever keeps trying (bot.outages)
                log.debug(
                    "novo %s %s failed (%s); retry %d of %d in %.2fs",
                    method,
                    path,
                    error,
                    attempt + 1,
                    self._retry.max_retries,
                    delay,
                )
                await self._retry.sleep(delay)
                attempt += 1

    async def _attempt(
        self,
        method: str,
        path: str,
        params: dict[str, str | int] | None,
        json: dict[str, Any] | None,
        attempt: int,
    ) -> Any:
        try:
            response = await self._http.request(
                method,
                self._base_url + path,
                params=params,
                json=json,
                headers={"Authorization": f"Bearer {self._api_key}", "Accept": "application/json"},
                timeout=self._timeout,
            )
        except httpx.TimeoutException as exc:
            count_novo_call(method, path, "timeout")
            log.debug("novo %s %s -> %s (attempt %d)", method, path, type(exc).__name__, attempt)
            raise NovoTimeoutError(f"{method} {path} timed out ({type(exc).__name__})") from exc
        except httpx.RequestError as exc:
            count_novo_call(method, path, "connection_error")
            log.debug("novo %s %s -> %s (attempt %d)", method, path, type(exc).__name__, attempt)
            raise NovoConnectionError(
                f"{method} {path} failed: {type(exc).__name__}: {self._scrub(str(exc))}"
            ) from exc
        count_novo_call(method, path, response.status_code)
        log.debug("novo %s %s -> %d (attempt %d)", method, path, response.status_code, attempt)
        if not response.is_success:
            raise self._status_error(response)
        try:
            return response.json()
        except (ValueError, RecursionError) as exc:
            raise NovoError(
                f"{method} {path} answered {response.status_code} with a body that is not JSON"
            ) from exc

    def _status_error(self, response: httpx.Response) -> NovoAPIStatusError:
        """The typed error of a non-2xx answer, even when its body is not the API's shape."""
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        try:
            detail = ErrorBody.model_validate_json(response.content).error
            type_, message = detail.type, detail.message
        except ValidationError:
            type_ = UNKNOWN_ERROR_TYPE
            message = response.text[:ERROR_TEXT_LIMIT] or response.reason_phrase
        return status_error(response.status_code, type_, self._scrub(message), retry_after)

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, REDACTED) if self._api_key else text


def _parse(model: type[M], data: Any, what: str) -> M:
    """A 2xx body as `model`; a body of the wrong shape is a `NovoError`, never a crash."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise NovoError(
            f"the API answered with something that is not {what} "
            f"({exc.error_count()} validation errors)"
        ) from exc


def _parse_interaction(data: Any, what: str) -> Interaction:
    """One record, kept as received (see `Interaction.from_wire`)."""
    record = parse_record(data)
    if isinstance(record, UnreadableRecord):
        raise NovoError(f"the API answered with something that is not {what} ({record.problem})")
    return record


__all__ = ["InteractionPager", "NovoClient", "RecordPager"]
