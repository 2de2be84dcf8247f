"""Guests, external users, user groups and DMs, as Slack reports them to the app."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from novo_dev.localslack import LocalSlack, SlackDriver
from tests.localslack.conftest import CapturedRequest, FakeBridge
from tests.localslack.kit import actions, button, modal, refusal, section, text_input

ALICE, BOB, CHEN = "U0LOCAL01", "U0LOCAL02", "U0LOCAL03"
GUEST, SOLO, OUTSIDER = "U0GUEST", "U0SOLO", "U0OUTSIDE"
OTHER_TEAM = "T0PARTNER"
CHANNEL = "C0APPROVALS"
GROUP = "S0DEPLOYERS"
# Named here rather than taken from the defaults, which follow manifest.yml.
BASE_SCOPES = ("chat:write", "users:read")
PEOPLE_SCOPES = (*BASE_SCOPES, "usergroups:read", "im:write", "mpim:write")


def payload_of(request: CapturedRequest) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(parse_qs(request.body.decode())["payload"][0])
    return payload


def add_people(slack: LocalSlack) -> None:
    slack.add_user(GUEST, "gus", "Gus", is_restricted=True)
    slack.add_user(SOLO, "sol", "Sol", is_ultra_restricted=True)
    slack.add_user(OUTSIDER, "olga", "Olga", team_id=OTHER_TEAM, is_stranger=True)


async def post_button(client: AsyncWebClient, channel: str) -> tuple[str, str]:
    posted = await client.chat_postMessage(
        channel=channel,
        text="Deploy?",
        blocks=[section("Deploy?"), actions(button("approve", "int_1", "Approve"))],
    )
    return str(posted["channel"]), str(posted["ts"])


# ---------------------------------------------------------------------- users


async def test_users_info_reports_guests_and_foreign_teams(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    add_people(slack)
    member = (await client.users_info(user=ALICE))["user"]
    assert (member["is_restricted"], member["is_ultra_restricted"]) == (False, False)
    assert member["team_id"] == slack.identity.team_id
    assert "is_stranger" not in member

    guest = (await client.users_info(user=GUEST))["user"]
    assert (guest["is_restricted"], guest["is_ultra_restricted"]) == (True, False)
    # A single-channel guest is a restricted account too: Slack sets both flags.
    solo = (await client.users_info(user=SOLO))["user"]
    assert (solo["is_restricted"], solo["is_ultra_restricted"]) == (True, True)

    outsider = (await client.users_info(user=OUTSIDER))["user"]
    assert outsider["team_id"] == OTHER_TEAM
    assert outsider["is_stranger"] is True


def test_add_user_keeps_its_positional_arguments(slack: LocalSlack) -> None:
    user = slack.add_user("U0ADA", "ada", "Ada", "Ada Lovelace", "Europe/London")
    assert (user.real_name, user.tz, user.team_id, user.is_restricted) == (
        "Ada Lovelace",
        "Europe/London",
        None,
        False,
    )


# ---------------------------------------------------------------------- clicks


async def test_a_click_from_another_team_carries_that_team(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    add_people(slack)
    channel, ts = await post_button(client, CHANNEL)
    await driver.click_message_button(OUTSIDER, channel, ts, "approve")
    await driver.click_message_button(ALICE, channel, ts, "approve")
    outsider, member = (payload_of(r) for r in bridge.received)
    assert outsider["user"] == {
        "id": OUTSIDER,
        "username": "olga",
        "name": "olga",
        "team_id": OTHER_TEAM,
    }
    assert outsider["team"]["id"] == slack.identity.team_id  # the app's, as in a shared channel
    assert member["user"]["team_id"] == slack.identity.team_id


async def test_a_modal_submission_from_another_team_carries_that_team(
    driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient, slack: LocalSlack
) -> None:
    add_people(slack)
    opened = await client.views_open(
        trigger_id=slack.issue_trigger(OUTSIDER), view=modal(text_input("reason", "why"))
    )
    await driver.submit_view(OUTSIDER, opened["view"]["id"], {"reason": {"why": {"value": "ok"}}})
    payload = payload_of(bridge.received[0])
    assert payload["type"] == "view_submission"
    assert payload["user"]["team_id"] == OTHER_TEAM
    assert payload["team"]["id"] == slack.identity.team_id


@pytest.mark.parametrize("address", [ALICE, "D0LOCAL01"])
async def test_a_dm_button_is_clicked_in_the_dm(
    address: str, driver: SlackDriver, bridge: FakeBridge, client: AsyncWebClient
) -> None:
    channel, ts = await post_button(client, ALICE)
    assert channel == "D0LOCAL01"
    await driver.click_message_button(ALICE, address, ts, "approve")
    payload = payload_of(bridge.received[0])
    assert payload["channel"] == {"id": "D0LOCAL01", "name": "directmessage"}
    assert payload["container"]["channel_id"] == "D0LOCAL01"
    assert payload["message"]["ts"] == ts


# ---------------------------------------------------------------------- user groups


async def test_usergroup_members_are_listed_and_follow_changes(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    slack.add_usergroup(GROUP, "deployers", [ALICE, BOB])
    listed = await client.usergroups_users_list(usergroup=GROUP)
    assert listed.data == {"ok": True, "users": [ALICE, BOB]}

    slack.set_usergroup_members(GROUP, [CHEN])
    assert (await client.usergroups_users_list(usergroup=GROUP, include_disabled=True))[
        "users"
    ] == [CHEN]
    assert slack.usergroup(GROUP).handle == "deployers"
    assert [c.args["usergroup"] for c in slack.calls("usergroups.users.list")] == [GROUP, GROUP]


async def test_an_unknown_usergroup_is_no_such_subteam(
    client: AsyncWebClient, slack: LocalSlack
) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    refused = await refusal(client.usergroups_users_list(usergroup="S0NOPE"))
    assert refused == {"ok": False, "error": "no_such_subteam"}


async def test_usergroups_need_their_scope(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.set_scopes(*BASE_SCOPES)
    slack.add_usergroup(GROUP, "deployers", [ALICE])
    refused = await refusal(client.usergroups_users_list(usergroup=GROUP))
    assert refused == {
        "ok": False,
        "error": "missing_scope",
        "needed": "usergroups:read",
        "provided": "chat:write,users:read",
    }
    assert not slack.calls("usergroups.users.list")[0].ok


def test_a_usergroup_names_only_known_people(slack: LocalSlack) -> None:
    with pytest.raises(ValueError, match="U0NOBODY"):
        slack.add_usergroup(GROUP, "deployers", [ALICE, "U0NOBODY"])
    with pytest.raises(KeyError):
        slack.set_usergroup_members("S0NOPE", [ALICE])


# ---------------------------------------------------------------------- conversations.open


async def test_open_gives_the_dm_posts_land_in(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    opened = await client.conversations_open(users=BOB)
    assert opened.data == {"ok": True, "channel": {"id": slack.channel_id(BOB)}}
    posted = await client.chat_postMessage(channel=opened["channel"]["id"], text="psst")
    assert [m.ts for m in slack.messages(BOB)] == [posted["ts"]]

    again = await client.conversations_open(users=BOB, return_im=True)
    assert (again["no_op"], again["already_open"]) == (True, True)
    im = again["channel"]
    assert (im["id"], im["is_im"], im["user"]) == (slack.channel_id(BOB), True, BOB)
    resumed = await client.conversations_open(channel=slack.channel_id(BOB))
    assert resumed["channel"] == {"id": slack.channel_id(BOB)}
    assert len(slack.calls("conversations.open")) == 3


async def test_open_a_multi_person_dm(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    first = await client.conversations_open(users=f"{ALICE},{BOB}")
    mpim = first["channel"]["id"]
    assert mpim.startswith("G")
    same = await client.conversations_open(users=f"{BOB},{ALICE}", return_im=True)
    assert same["channel"]["id"] == mpim and same["channel"]["is_mpim"] is True
    assert same["channel"]["members"] == [slack.identity.bot_user_id, ALICE, BOB]
    await client.chat_postMessage(channel=mpim, text="both of you")
    assert [m.text for m in slack.messages(mpim)] == ["both of you"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"users": "U0NOBODY"}, "user_not_found"),
        ({"users": f"{ALICE},U0NOBODY"}, "user_not_found"),
        ({}, "users_list_not_supplied"),
        ({"users": "U0LOCALBOT"}, "not_enough_users"),
        ({"channel": "C0LOCALGEN"}, "method_not_supported_for_channel_type"),
    ],
)
async def test_open_refusals(
    args: dict[str, str], error: str, client: AsyncWebClient, slack: LocalSlack
) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    # api_call: slack_sdk's conversations_open itself refuses to send no users at all.
    assert (await refusal(client.api_call("conversations.open", params=args)))["error"] == error


async def test_open_refuses_more_than_eight(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.set_scopes(*PEOPLE_SCOPES)
    many = [f"U0MANY{i}" for i in range(9)]
    for user in many:
        slack.add_user(user, user.lower(), user)
    refused = await refusal(client.conversations_open(users=",".join(many)))
    assert refused["error"] == "too_many_users"


async def test_open_needs_im_write_or_mpim_write(client: AsyncWebClient, slack: LocalSlack) -> None:
    slack.set_scopes(*BASE_SCOPES, "mpim:write")
    refused = await refusal(client.conversations_open(users=BOB))
    assert (refused["error"], refused["needed"]) == ("missing_scope", "im:write")
    slack.set_scopes(*BASE_SCOPES, "im:write")
    refused = await refusal(client.conversations_open(users=f"{ALICE},{BOB}"))
    assert (refused["error"], refused["needed"]) == ("missing_scope", "mpim:write")
