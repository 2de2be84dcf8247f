"""views.* through slack_sdk's client: triggers, the modal stack, hashes, validation."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack import limits
from novo_dev.localslack import LocalSlack
from tests.localslack.conftest import START
from tests.localslack.kit import big_modal, modal, refusal, section, text_input
from tests.support import FakeClock


async def open_modal(client: AsyncWebClient, slack: LocalSlack, view: dict[str, Any]) -> str:
    response = await client.views_open(trigger_id=slack.issue_trigger(), view=view)
    view_id: str = response["view"]["id"]
    return view_id


async def test_big_modal_accepted_and_stored(client: AsyncWebClient, slack: LocalSlack) -> None:
    user = slack.users()[1].id
    response = await client.views_open(trigger_id=slack.issue_trigger(user), view=big_modal())
    shown = response["view"]
    assert shown["id"].startswith("V")
    assert shown["hash"]
    assert shown["state"] == {"values": {}}
    assert shown["root_view_id"] == shown["id"]
    stored = slack.view(shown["id"])
    assert stored.user_id == user
    assert stored.callback_id == "local_modal"
    assert len(stored.blocks) == limits.MODAL_BLOCKS
    assert [v.id for v in slack.views()] == [shown["id"]]


async def test_invalid_view_refused_with_pointer(client: AsyncWebClient, slack: LocalSlack) -> None:
    data = await refusal(
        client.views_open(trigger_id=slack.issue_trigger(), view=modal(section("x" * 3001)))
    )
    assert data["error"] == "invalid_arguments"
    assert data["response_metadata"]["messages"] == [
        "[ERROR] text attribute cannot exceed 3000 characters "
        "[json-pointer:/view/blocks/0/text/text]"
    ]
    no_submit = {**modal(text_input("r", "r")), "submit": None}
    data = await refusal(client.views_open(trigger_id=slack.issue_trigger(), view=no_submit))
    assert any(
        m.endswith("[json-pointer:/view/submit]") for m in data["response_metadata"]["messages"]
    )
    assert slack.views() == []


async def test_view_too_large(client: AsyncWebClient, slack: LocalSlack) -> None:
    view = modal(*[section("x" * 3000, block_id=f"s{i}") for i in range(90)])
    data = await refusal(client.views_open(trigger_id=slack.issue_trigger(), view=view))
    assert data["error"] == "view_too_large"


async def test_trigger_is_single_use(client: AsyncWebClient, slack: LocalSlack) -> None:
    trigger = slack.issue_trigger()
    await client.views_open(trigger_id=trigger, view=modal(section("a")))
    data = await refusal(client.views_open(trigger_id=trigger, view=modal(section("b"))))
    assert data["error"] == "exchanged_trigger_id"
    unknown = await refusal(client.views_open(trigger_id="1.2.nope", view=modal(section("c"))))
    assert unknown["error"] == "invalid_arguments"


async def test_trigger_expires(timed_slack: LocalSlack, clock: FakeClock) -> None:
    client = AsyncWebClient(token=timed_slack.bot_token, base_url=timed_slack.api_url)
    fresh = timed_slack.issue_trigger()
    stale = timed_slack.issue_trigger()
    clock.advance(limits.TRIGGER_TTL_SECONDS - 0.1)
    await client.views_open(trigger_id=fresh, view=modal(section("in time")))
    clock.advance(0.2)
    data = await refusal(client.views_open(trigger_id=stale, view=modal(section("too late"))))
    assert data["error"] == "expired_trigger_id"


async def test_trigger_ttl_is_configurable() -> None:
    async with LocalSlack(trigger_ttl=0.0, clock=FakeClock(START).seconds) as slack:
        client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
        # the fake clock does not move: an age of 0 is still within a TTL of 0
        await client.views_open(trigger_id=slack.issue_trigger(), view=modal(section("a")))


async def test_push_limit(client: AsyncWebClient, slack: LocalSlack) -> None:
    root = await open_modal(client, slack, modal(section("root")))
    second = await client.views_push(
        trigger_id=slack.issue_trigger(view_id=root), view=modal(section("second"))
    )
    assert second["view"]["root_view_id"] == root
    assert second["view"]["previous_view_id"] == root
    third = await client.views_push(
        trigger_id=slack.issue_trigger(view_id=second["view"]["id"]), view=modal(section("third"))
    )
    assert [v.id for v in slack.view_stack(root)] == [
        root,
        second["view"]["id"],
        third["view"]["id"],
    ]
    data = await refusal(
        client.views_push(trigger_id=slack.issue_trigger(view_id=root), view=modal(section("4")))
    )
    assert data["error"] == "push_limit_reached"
    assert len(slack.view_stack(root)) == limits.VIEW_STACK


async def test_push_needs_a_trigger_from_a_modal(client: AsyncWebClient, slack: LocalSlack) -> None:
    await open_modal(client, slack, modal(section("root")))
    data = await refusal(
        client.views_push(trigger_id=slack.issue_trigger(), view=modal(section("x")))
    )
    assert data["error"] == "invalid_arguments"


async def test_update_with_hash(client: AsyncWebClient, slack: LocalSlack) -> None:
    opened = await client.views_open(
        trigger_id=slack.issue_trigger(), view=modal(section("v1"), external_id="ext-1")
    )
    view_id, first_hash = opened["view"]["id"], opened["view"]["hash"]
    updated = await client.views_update(view_id=view_id, hash=first_hash, view=modal(section("v2")))
    assert updated["view"]["id"] == view_id
    assert updated["view"]["hash"] != first_hash
    assert slack.view(view_id).blocks[0]["text"]["text"] == "v2"
    stale = await refusal(
        client.views_update(view_id=view_id, hash=first_hash, view=modal(section("v3")))
    )
    assert stale["error"] == "hash_conflict"
    assert slack.view(view_id).blocks[0]["text"]["text"] == "v2"
    await client.views_update(external_id="ext-1", view=modal(section("v4")))
    assert slack.view(view_id).blocks[0]["text"]["text"] == "v4"
    missing = await refusal(client.views_update(view_id="V_NOPE", view=modal(section("x"))))
    assert missing["error"] == "not_found"
    invalid = await refusal(client.views_update(view_id=view_id, view=modal(section("x" * 3001))))
    assert invalid["error"] == "invalid_arguments"


async def test_duplicate_external_id(client: AsyncWebClient, slack: LocalSlack) -> None:
    await open_modal(client, slack, modal(section("a"), external_id="same"))
    data = await refusal(
        client.views_open(
            trigger_id=slack.issue_trigger(), view=modal(section("b"), external_id="same")
        )
    )
    assert data["error"] == "duplicate_external_id"


async def test_publish_home(client: AsyncWebClient, slack: LocalSlack) -> None:
    user = slack.users()[0].id
    home = {"type": "home", "blocks": [section("welcome")]}
    first = await client.views_publish(user_id=user, view=home)
    again = await client.views_publish(user_id=user, view=home, hash=first["view"]["hash"])
    assert again["view"]["id"] == first["view"]["id"]
    stale = await refusal(client.views_publish(user_id=user, view=home, hash=first["view"]["hash"]))
    assert stale["error"] == "hash_conflict"
    home_view = slack.home_view(user)
    assert home_view is not None and home_view.type == "home"
    assert (await refusal(client.views_publish(user_id="U0NOBODY", view=home)))["error"] == (
        "user_not_found"
    )
    wrong_type = await refusal(client.views_publish(user_id=user, view=modal(section("m"))))
    assert wrong_type["error"] == "invalid_arguments"
