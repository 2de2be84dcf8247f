"""Cursor pagination over `Page<T>`, so callers never handle `nextCursor` themselves.

A pager is lazy: nothing is requested until it is awaited (first page) or
iterated (every item, page after page). It refuses to loop forever on a
server that repeats a cursor or claims more pages without giving one, since
either would otherwise hang an inbox refresh or silently drop items.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any, Generic, TypeVar

from bot.novo.errors import NovoError
from bot.novo.models import Page

T = TypeVar("T")

FetchPage = Callable[[str | None], Awaitable[Page[T]]]


class Pager(Generic[T]):
    """`await pager` → the first page; `async for item in pager` → every item."""

    def __init__(self, fetch: FetchPage[T]) -> None:
        self._fetch = fetch

    def __await__(self) -> Generator[Any, None, Page[T]]:
        return self._fetch(None).__await__()

    async def fetch(self, cursor: str | None) -> Page[T]:
        """One page at `cursor` (None: the first), for callers that page by hand."""
        return await self._fetch(cursor)

    def __aiter__(self) -> AsyncIterator[T]:
        return self._items()

    async def pages(self) -> AsyncIterator[Page[T]]:
        """Every page in order, following `nextCursor` until `hasMore` is false."""
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self._fetch(cursor)
            yield page
            if not page.has_more:
                return
            if page.next_cursor is None:
                raise NovoError("the API said hasMore but gave no nextCursor")
            if page.next_cursor in seen:
                raise NovoError("the API repeated a nextCursor; stopping to avoid a loop")
            seen.add(page.next_cursor)
            cursor = page.next_cursor

    async def all(self) -> list[T]:
        """Every item of every page, as one list."""
        return [item async for item in self]

    async def _items(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.data:
                yield item
