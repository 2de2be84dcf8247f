"""What a poll costs Novo: one list page per hundred pending, and a re-read of each
interaction that left the list, nothing more, however many wait."""

from __future__ import annotations

import math
from typing import Any

from tests.e2e.conftest import Loop
from tests.support import wait_until

PENDING = 105  # two pages of a hundred
ENDED = 3
LIST_PATH = "/v1/interactions"


async def _sim_log(loop: Loop) -> list[dict[str, Any]]:
    response = await loop.http.get(f"{loop.sim.url}/_sim/log")
    requests: list[dict[str, Any]] = response.json()["requests"]
    return requests


async def test_a_poll_reads_one_page_per_hundred_and_rereads_only_what_left(loop: Loop) -> None:
    created = [(await loop.create("approval_request"))["id"] for _ in range(PENDING)]
    await wait_until(
        lambda: set(created) <= set(loop.posted_ids()), timeout=60, message="all posted"
    )
    await loop.http.delete(f"{loop.sim.url}/_sim/log")
    ended = created[:ENDED]
    for interaction_id in ended:
        response = await loop.api_resolve(
            interaction_id,
            {"inputResponses": [{"requestId": interaction_id, "optionId": "deny"}], "reason": "no"},
        )
        assert response.status_code == 200

    async def polls_after_the_endings() -> list[dict[str, Any]] | None:
        log = await _sim_log(loop)
        firsts = [r for r in log if r["path"] == LIST_PATH and "cursor" not in r["query"]]
        return log if len(firsts) >= 4 else None

    log = await wait_until(polls_after_the_endings, timeout=30, message="four polls")
    reads = [r for r in log if r["method"] == "GET"]
    # a poll under way when the log was cleared leaves its later pages at the head
    first_page = next(
        i for i, r in enumerate(reads) if r["path"] == LIST_PATH and "cursor" not in r["query"]
    )
    straddled = [r for r in reads[:first_page] if r["path"] == LIST_PATH]
    lists = [r for r in reads[first_page:] if r["path"] == LIST_PATH]
    assert len(straddled) < math.ceil(PENDING / 100)
    polls = sum(1 for r in lists if "cursor" not in r["query"])
    pages = math.ceil(PENDING / 100)
    # every poll reads its pages; the one under way when the log was read may be short
    assert (polls - 1) * pages <= len(lists) <= polls * pages
    assert all(r["query"].get("limit") == "100" for r in lists)
    rereads = [r["path"].rsplit("/", 1)[-1] for r in reads if r["path"] != LIST_PATH]
    assert sorted(rereads) == sorted(ended)  # once each, and none of those still pending
