"""The App Home tab end to end: opened over the Events API (HTTP and Socket Mode), what it
shows a decider and a non-decider, a decision taken from it, and keeping it true."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bot.clock import utc_now
from bot.messages.publisher import MessagePublisher
from bot.policy.live import LivePolicy
from bot.services.deciders import DeciderGate
from bot.services.home import HomeService
from bot.services.visibility import Visibility
from bot.slack.directory import SlackDirectory
from bot.slack.gateway import SlackGateway, build_web_client
from bot.slack.ids import ActionId, OverflowValue
from bot.slack.links import MessageLinks
from bot.slack.render.approval import approval_actions_block_id
from bot.slack.render.home import home_title
from bot.store import Store
from novo_dev.localslack import LocalSlack, StoredView, start_local_slack
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_deciders import ONLY_ADA
from tests.support import trigger_ttl, wait_until

DEPLOY: dict[str, Any] = {"toolName": "deploy_service", "input": {"service": "billing-api"}}
NOTHING_WAITING = "Nothing is waiting on you"


def _shown(view: StoredView) -> str:
    return json.dumps(view.blocks, ensure_ascii=False)


async def _home(loop: Loop, user: str, *needles: str, absent: tuple[str, ...] = ()) -> StoredView:
    """The user's Home tab once it shows every needle and none of `absent`."""

    def probe() -> StoredView | None:
        view = loop.slack.home_view(user)
        if view is None:
            return None
        shown = _shown(view)
        if all(n in shown for n in needles) and not any(a in shown for a in absent):
            return view
        return None

    found: StoredView = await wait_until(
        probe, message=f"{user}'s Home showing {needles}, without {absent}"
    )
    return found


def _block(view: StoredView, block_id: str) -> dict[str, Any]:
    found = [b for b in view.blocks if b.get("block_id") == block_id]
    assert len(found) == 1, [b.get("block_id") for b in view.blocks]
    return found[0]


def _action_ids(view: StoredView) -> list[str]:
    return [e["action_id"] for b in view.blocks if b["type"] == "actions" for e in b["elements"]]


async def _title(loop: Loop, interaction_id: str) -> str:
    tracked = await loop.tracked(interaction_id)
    assert tracked is not None
    return home_title(tracked.snapshot)


async def test_a_decider_sees_it_waiting_with_the_messages_buttons(loop: Loop) -> None:
    created = await loop.create(**DEPLOY)
    ts = await loop.posted(created["id"])
    response = await loop.driver.open_home("U0ADA")
    assert response.status_code == 200

    view = await _home(loop, "U0ADA", f"novo_home_card:{created['id']}")
    message = loop.slack.message(CHANNEL, ts)
    buttons = [b for b in message.blocks if b["type"] == "actions"]
    assert len(buttons) == 1
    assert _block(view, buttons[0]["block_id"]) == buttons[0]  # the very same block
    card = _block(view, f"novo_home_card:{created['id']}")["text"]["text"]
    link = f"https://novo-local.slack.com/archives/{CHANNEL}/p{ts.replace('.', '')}"
    assert f"<{link}|{await _title(loop, created['id'])}>" in card
    assert f"<#{CHANNEL}>" in card
    assert "— *1* waiting" in _shown(view)  # the team's queue counts it too

    # something new: the tab of someone who opened it lately is published again
    second = await loop.create(**DEPLOY, expiresInSeconds=60.0)
    await loop.posted(second["id"])
    view = await _home(loop, "U0ADA", f"novo_home_card:{second['id']}", "— *2* waiting")
    cards = [b["block_id"] for b in view.blocks if b["block_id"].startswith("novo_home_card:")]
    assert cards[0] == f"novo_home_card:{second['id']}"  # it expires first


async def test_a_non_decider_sees_it_only_in_the_teams_queue(loop: Loop) -> None:
    await loop.use_policy(ONLY_ADA)
    created = await loop.create(**DEPLOY)
    await loop.posted(created["id"])
    assert (await loop.driver.open_home("U0GRACE")).status_code == 200
    assert (await loop.driver.open_home("U0ADA")).status_code == 200

    grace = await _home(loop, "U0GRACE", NOTHING_WAITING, "rule _guarded_ — *1* waiting")
    assert f"novo_home_card:{created['id']}" not in _shown(grace)
    assert _action_ids(grace) == []
    ada = await _home(loop, "U0ADA", f"novo_home_card:{created['id']}")
    assert ActionId.APPROVE.value in _action_ids(ada)
    assert loop.slack.ephemerals("U0GRACE") == []  # looking is not a refusal


async def test_approve_from_home_resolves_it_and_updates_the_message(loop: Loop) -> None:
    created = await loop.create(**DEPLOY)
    interaction_id = created["id"]
    ts = await loop.posted(interaction_id)
    await loop.driver.open_home("U0ADA")
    view = await _home(loop, "U0ADA", f"novo_home_card:{interaction_id}")

    response = await loop.driver.click_view_button(
        "U0ADA", view.id, ActionId.APPROVE, value=interaction_id
    )
    assert response.status_code == 200
    record = await loop.api_get_final(interaction_id)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    assert len(await loop.resolve_calls(interaction_id)) == 1
    await loop.shows(ts, "Approved", "<@U0ADA>")
    assert ActionId.APPROVE not in loop.action_ids(ts)

    title = await _title(loop, interaction_id)
    home = await _home(
        loop, "U0ADA", "Approved *", title, NOTHING_WAITING, absent=("novo_home_card:",)
    )
    decided = next(b for b in home.blocks if b["block_id"].startswith("novo_home_decided:"))
    assert decided["text"]["text"].startswith("✅ Approved *<https://novo-local.slack.com/")
    assert loop.slack.ephemerals("U0ADA") == []  # delivered: the message says it all


async def test_a_refusal_from_home_is_told_in_the_interactions_channel(loop: Loop) -> None:
    created = await loop.create(**DEPLOY)
    await loop.posted(created["id"])
    await loop.driver.open_home("U0GRACE")
    view = await _home(loop, "U0GRACE", f"novo_home_card:{created['id']}")
    seen = list(view.blocks)
    await loop.use_policy(ONLY_ADA)  # the rule changes while her client shows the buttons

    await loop.driver.click_stale_view_button(
        "U0GRACE", view.id, seen, ActionId.APPROVE, value=created["id"]
    )
    told = await wait_until(lambda: loop.slack.ephemerals("U0GRACE"), message="Grace told")
    assert told[0].channel == CHANNEL and "Only <@U0ADA> can decide this." in told[0].text
    assert await loop.resolve_calls(created["id"]) == []


async def test_remind_me_from_home_answers_in_the_apps_dm(loop: Loop) -> None:
    created = await loop.create(**DEPLOY, expiresInSeconds=3600.0)
    await loop.posted(created["id"])
    await loop.driver.open_home("U0ADA")
    view = await _home(loop, "U0ADA", f"novo_home_card:{created['id']}")
    response = await loop.driver.choose_view_overflow(
        "U0ADA",
        view.id,
        ActionId.APPROVAL_OVERFLOW,
        OverflowValue.REMIND_15_MIN,
        block_id=approval_actions_block_id(created["id"]),
    )
    assert response.status_code == 200
    told = await wait_until(
        lambda: next(iter(loop.slack.messages("U0ADA")), None), message="a word in Ada's DM"
    )
    assert told.text.startswith("⏰ I'll remind you at") and "(in 15 min)" in told.text
    assert loop.bridge.services is not None
    waiting = await loop.bridge.services.store.snoozes_for(created["id"])
    assert [(s.user_id, s.state) for s in waiting] == [("U0ADA", "waiting")]
    assert loop.slack.ephemerals("U0ADA") == []


async def test_the_messages_tab_publishes_nothing(loop: Loop) -> None:
    assert (await loop.driver.open_home("U0ADA", tab="messages")).status_code == 200
    assert (await loop.driver.open_home("U0GRACE")).status_code == 200
    await _home(loop, "U0GRACE", NOTHING_WAITING)
    assert loop.slack.home_view("U0ADA") is None
    assert {c.args["user_id"] for c in loop.slack.calls("views.publish")} == {"U0GRACE"}


async def test_the_events_url_answers_slacks_challenge(loop: Loop) -> None:
    response = await loop.driver.verify_url("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")
    assert response.status_code == 200
    assert response.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}
    body = json.dumps({"type": "url_verification", "challenge": "x", "token": "t"}).encode()
    forged = await loop.driver.send_raw(
        body, signature="v0=" + "0" * 64, content_type="application/json"
    )
    assert forged.status_code == 401


async def test_home_opened_over_socket_mode(loop: Loop) -> None:
    loop.slack.serve_socket()
    await loop.restart(slack_app_token=SecretStr(loop.slack.app_token))
    await wait_until(lambda: loop.slack.socket_connections >= 1, message="Socket Mode connected")
    created = await loop.create(**DEPLOY)
    await loop.posted(created["id"])

    ack = await loop.driver.open_home_over_socket("U0ADA")
    assert ack.payload is None
    view = await _home(loop, "U0ADA", f"novo_home_card:{created['id']}")
    assert ActionId.APPROVE.value in _action_ids(view)

    # opened again: Slack sends the view it shows, and the tab is published afresh
    await loop.driver.open_home_over_socket("U0ADA")
    await wait_until(
        lambda: len(loop.slack.calls("views.publish")) >= 2, message="published on each open"
    )


# ---------------------------------------------------------------------- pacing


@pytest.fixture
async def home_parts(tmp_path: Path) -> AsyncIterator[tuple[Store, LocalSlack, HomeService]]:
    """A HomeService of its own over a store and the local Slack, no scheduler running."""
    async with (
        await start_local_slack(trigger_ttl=trigger_ttl()) as slack,
        await Store.open(tmp_path / "home.db") as store,
    ):
        gateway = SlackGateway(build_web_client(slack.bot_token, slack.api_url))
        policy = LivePolicy(CHANNEL)
        publisher = MessagePublisher(store, gateway, utc_now, policy=policy)
        directory = SlackDirectory(gateway.client)
        gate = DeciderGate(policy, directory, None, store=store, clock=utc_now)
        visibility = Visibility(gate, directory, None, policy)
        links = MessageLinks(gateway, "https://novo-local.slack.com/")
        yield store, slack, HomeService(store, gateway, publisher, gate, links, utc_now, visibility)


async def test_a_refresh_publishes_a_few_tabs_and_only_changed_ones(
    home_parts: tuple[Store, LocalSlack, HomeService],
) -> None:
    store, slack, home = home_parts
    people = [u.id for u in slack.users()]  # three in the local workspace
    slack.add_user("U0DAN", "dan", "Dan")
    slack.add_user("U0EVE", "eve", "Eve")
    people += ["U0DAN", "U0EVE"]
    for user in people:
        await store.record_home_opened(user, utc_now())

    assert await home.refresh_recent() == 3  # never published: first come, first served
    assert await home.refresh_recent() == 2
    assert await home.refresh_recent() == 0  # nothing changed: nothing sent
    assert sorted(c.args["user_id"] for c in slack.calls("views.publish")) == sorted(people)

    await home.opened(people[0])  # an open always publishes
    assert len(slack.calls("views.publish")) == 6
    assert await home.refresh_recent() == 0
