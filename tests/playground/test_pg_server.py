"""The playground's JSON API over HTTP, no browser: what the page reads and what its intents do."""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId, CallbackId
from novo_dev.demo.screenshots import APPROVAL, CHANNEL, QUESTION, Stage
from novo_dev.playground import start_playground
from tests.support import wait_until


async def _state(scene: Stage, user: str = "U0ADA") -> dict[str, Any]:
    response = await scene.http.get(f"{scene.playground.url}/api/state", params={"user": user})
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


async def _intent(scene: Stage, **intent: Any) -> tuple[int, dict[str, Any]]:
    response = await scene.http.post(
        f"{scene.playground.url}/api/intent", json={"intent": {"user": "U0ADA", **intent}}
    )
    body: dict[str, Any] = response.json()
    return response.status_code, body


async def _posted(scene: Stage, interaction_id: str) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        for channel in (await _state(scene))["channels"]:
            for message in channel["messages"]:
                payload = (message.get("metadata") or {}).get("event_payload") or {}
                if payload.get("interaction_id") == interaction_id:
                    return {**message, "channel": channel["id"]}
        return None

    found: dict[str, Any] = await wait_until(probe, message=f"{interaction_id} on the page")
    return found


async def test_the_page_and_its_scripts_are_served(scene: Stage) -> None:
    page = await scene.http.get(scene.playground.url + "/")
    assert page.status_code == 200 and '<script type="module"' in page.text
    for name in ("app.js", "blocks.js", "inputs.js", "mrkdwn.js", "dom.js", "style.css"):
        assert (await scene.http.get(f"{scene.playground.url}/static/{name}")).status_code == 200


async def test_state_lists_people_channels_and_the_bridges_blocks(scene: Stage) -> None:
    approval = await scene.create(APPROVAL)
    message = await _posted(scene, approval)
    state = await _state(scene)
    assert {"U0ADA", "U0GRACE"} <= {u["id"] for u in state["users"]}
    assert state["channels"][0]["name"] == "agent-approvals"
    assert any(b["type"] == "actions" for b in message["blocks"])
    assert state["modal"] is None
    assert (await _state(scene, user="U0NOBODY"))["user"] is None


async def test_dms_get_their_own_channel_and_replies_sit_under_their_thread(
    scene: Stage,
) -> None:
    async def post(**args: Any) -> dict[str, Any]:
        response = await scene.http.post(
            scene.stack.slack.api_url + "chat.postMessage",
            json=args,
            headers={"Authorization": f"Bearer {scene.stack.slack.bot_token}"},
        )
        body: dict[str, Any] = response.json()
        assert body["ok"], body
        return body

    parent = await post(channel="U0GRACE", text="hello <@U0GRACE>")
    await post(channel="U0GRACE", text="a reply", thread_ts=parent["ts"])
    channels = (await _state(scene, user="U0GRACE"))["channels"]
    dm = next(c for c in channels if c["dm"])
    assert [m["text"] for m in dm["messages"]] == ["hello <@U0GRACE>"]
    assert [r["text"] for r in dm["messages"][0]["replies"]] == ["a reply"]
    # Grace's DM with the bot is hers: Ada, signed in as herself, does not see it
    assert not [c for c in (await _state(scene, user="U0ADA"))["channels"] if c["dm"]]
    assert not [c for c in (await _state(scene, user="U0NOBODY"))["channels"] if c["dm"]]


async def test_mentions_of_channels_and_groups_have_names_to_read(scene: Stage) -> None:
    scene.stack.slack.add_usergroup("S0SRE", "sre", ["U0ADA"])
    names = (await _state(scene))["names"]
    assert names["channels"][CHANNEL] == "agent-approvals"
    assert names["groups"] == {"S0SRE": "sre"}


async def test_a_click_is_signed_and_sent_and_narrated(scene: Stage) -> None:
    heard: list[str] = []
    approval = await scene.create(APPROVAL)
    message = await _posted(scene, approval)
    async with await start_playground(
        scene.stack.slack, scene.stack.driver, [CHANNEL], narrate=heard.append
    ) as playground:
        response = await scene.http.post(
            f"{playground.url}/api/intent",
            json={
                "intent": {
                    "kind": "click",
                    "user": "U0ADA",
                    "channel": message["channel"],
                    "ts": message["ts"],
                    "action_id": ActionId.APPROVE,
                }
            },
        )
    assert response.status_code == 200 and response.json()["status"] == 200
    assert heard == ["*click* Ada Lovelace presses Approve (on the playground)"]
    record = await wait_until(
        lambda: _resolved_or_none(scene, approval), message=f"{approval} resolved"
    )
    assert record["resolution"]["inputResponses"][0]["optionId"] == "approve"


async def _resolved_or_none(scene: Stage, interaction_id: str) -> dict[str, Any] | None:
    record = await scene.interaction(interaction_id)
    return record if record["status"] == "resolved" else None


async def test_what_slack_would_not_send_is_refused_before_the_bridge(scene: Stage) -> None:
    approval = await scene.create(APPROVAL)
    message = await _posted(scene, approval)
    status, body = await _intent(
        scene, kind="click", channel=message["channel"], ts=message["ts"], action_id="nope"
    )
    assert status == 409 and "no element" in body["error"]
    status, body = await _intent(scene, kind="teleport")
    assert status == 400 and "not an intent" in body["error"]
    assert (await scene.interaction(approval))["status"] == "pending"


async def test_closing_a_form_tells_the_bridge_only_when_it_asked(scene: Stage) -> None:
    question = await scene.create(QUESTION)
    approval = await scene.create(APPROVAL)
    q_message = await _posted(scene, question)
    a_message = await _posted(scene, approval)

    status, _ = await _intent(
        scene,
        kind="click",
        channel=q_message["channel"],
        ts=q_message["ts"],
        action_id="novo_answer",
    )
    assert status == 200
    modal = await wait_until(lambda: _modal(scene), message="the question form open")
    assert modal["callback_id"] == CallbackId.QUESTION_MODAL
    status, body = await _intent(scene, kind="close", view_id=modal["id"])
    assert status == 200 and body["status"] == 200  # view_closed: notify_on_close is set
    assert (await _state(scene))["modal"] is None

    status, _ = await _intent(
        scene, kind="click", channel=a_message["channel"], ts=a_message["ts"], action_id="novo_deny"
    )
    modal = await wait_until(lambda: _modal(scene), message="the deny form open")
    assert modal["callback_id"] == CallbackId.DENY_MODAL
    status, body = await _intent(scene, kind="close", view_id=modal["id"])
    assert status == 200 and body["status"] == 204  # nothing sent: Slack would not tell
    status, body = await _intent(scene, kind="close", view_id=modal["id"])
    assert status == 409 and "already closed" in body["error"]


async def _modal(scene: Stage) -> dict[str, Any] | None:
    modal: dict[str, Any] | None = (await _state(scene))["modal"]
    return modal
