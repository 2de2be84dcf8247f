"""A store that misbehaves under a running bridge: readiness says so, and nobody is told
their decision is saved when it is not."""

from __future__ import annotations

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until


async def test_the_sqlite_file_deleted_under_the_bridge_fails_readiness_and_refuses_clicks(
    loop: Loop,
) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    ready = await loop.readiness(200)
    assert "takes writes" in ready["checks"]["store"]["detail"]

    db = loop.settings.db_path
    assert not isinstance(db, str)
    db.unlink()  # an operator's mistake, a cleanup job, a volume remounted
    unready = await loop.readiness(503)
    # the poll may be failing too by then (it can't record what it claims): the store is
    # what the operator is pointed at
    assert "store" in unready["failing"]
    assert "was deleted" in unready["checks"]["store"]["detail"]

    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    told = await wait_until(
        lambda: loop.slack.ephemerals("U0ADA"), message="the clicker told what became of it"
    )
    words = " ".join(e.text for e in told)
    assert "couldn't be saved" in words
    assert "is saved" not in words
    assert await loop.resolve_calls(created["id"]) == []  # nothing reached the agent
    assert (await loop.api_get(created["id"]))["status"] == "pending"
