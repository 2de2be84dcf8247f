"""One bad record, one bad interaction: the rest of the loop keeps going.

Novo (or something between it and us) can list records the bridge cannot
read: a kind it does not know, a missing field, a malformed timestamp, input
nested hundreds of levels deep. Each is served verbatim by the simulator;
the test judges by what Slack and Novo saw.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.novo.models import format_timestamp
from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.novo.conftest import approval_wire
from tests.support import wait_until


def _record(interaction_id: str, **fields: Any) -> dict[str, Any]:
    """A pending approval Novo might list, expiring in ten minutes."""
    later = format_timestamp(datetime.now(UTC) + timedelta(minutes=10))
    return approval_wire(interaction_id, **{"expiresAt": later, **fields})


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"next": value}
    return value


async def test_unreadable_records_are_skipped_and_the_rest_posted(loop: Loop) -> None:
    no_tool = _record("int_no_tool")
    del no_tool["toolName"]
    await loop.serve_raw(
        _record("int_null_status", status=None),
        no_tool,
        _record("int_bad_expiry", expiresAt="next tuesday"),
        "not even an object",
    )
    good = [await loop.create("approval_request") for _ in range(3)]
    for created in good:
        await loop.shown(created["id"])
    # finalising still works while the bad records stay listed
    await loop.api_resolve(
        good[0]["id"],
        {"inputResponses": [{"requestId": good[0]["id"], "optionId": "approve"}], "reason": "ok"},
    )
    await loop.shows(await loop.shown(good[0]["id"]), "outside Slack")
    assert loop.bridge.jobs is not None
    await loop.bridge.jobs.poll()
    assert await loop.metric("novo_slack_unreadable_records_total") == 4  # each once
    assert sorted(loop.posted_ids()) == sorted(c["id"] for c in good)
    named = (await loop.readiness(200))["unreadable_records"]  # skipped, and still ready
    assert {"int_null_status", "int_no_tool", "int_bad_expiry"} <= set(named)
    assert "expiresAt" in named["int_bad_expiry"]


async def test_unknown_kind_gets_one_plain_message_kept_true(loop: Loop) -> None:
    survey = _record("int_survey", kind="survey", hookId=None)
    await loop.serve_raw(survey)
    ts = await loop.shown("int_survey")
    await loop.shows(ts, "can't show a", "survey", "resolve it in Novo")
    assert not any(a.startswith("novo_") and "approve" in a for a in loop.action_ids(ts))
    # it is answered in Novo: it leaves the pending list and reads as resolved
    await loop.stop_serving_raw()
    ended = {**survey, "status": "resolved", "resolvedAt": survey["updatedAt"]}
    await loop.serve_raw(ended, listed=False)
    await loop.shows(ts, "Resolved outside Slack")
    assert loop.posted_ids().count("int_survey") == 1


async def test_unknown_status_counts_as_not_pending(loop: Loop) -> None:
    created = await loop.create("approval_request")
    ts = await loop.shown(created["id"])
    assert ActionId.APPROVE in loop.action_ids(ts)
    # Novo stops listing it as pending and reports a status this bridge never heard of
    await loop.serve_raw({**created, "status": "archived"}, listed=False)
    await loop.api_resolve(
        created["id"],
        {"inputResponses": [{"requestId": created["id"], "optionId": "deny"}], "reason": "x"},
    )
    await wait_until(lambda: ActionId.APPROVE not in loop.action_ids(ts), message="buttons removed")


async def test_input_nested_hundreds_deep_is_posted_once_and_decidable(loop: Loop) -> None:
    await loop.serve_raw(_record("int_deep", input=_nested(300)))
    after = await loop.create("approval_request")
    ts = await loop.shown("int_deep")
    await loop.shown(after["id"])
    assert loop.bridge.jobs is not None
    for _ in range(3):  # later polls neither re-post nor choke on it
        await loop.bridge.jobs.poll()
    assert loop.posted_ids().count("int_deep") == 1
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(lambda: loop.resolve_calls("int_deep"), message="the click reached Novo")
