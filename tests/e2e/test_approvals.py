"""Approvals end to end: post once, decide in Slack, keep every message true."""

from __future__ import annotations

from pathlib import Path

from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

DEPLOY_INPUT = {"service": "billing-api", "sha": "9f1c2ab", "environment": "production"}


async def _approval(loop: Loop, **fields: object) -> tuple[str, str]:
    created = await loop.create(
        "approval_request", toolName="deploy_service", input=DEPLOY_INPUT, **fields
    )
    ts = await loop.posted(created["id"])
    return created["id"], ts


async def _resolved(loop: Loop, interaction_id: str) -> dict[str, object]:
    return await loop.api_get_final(interaction_id)


async def test_posts_each_pending_approval_once_with_its_buttons(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop, preview={"Service": "billing-api"})
    assert {ActionId.APPROVE, ActionId.DENY} <= set(loop.action_ids(ts))
    text = loop.message_text(ts)
    assert "deploy_service" in text and "billing-api" in text
    message = loop.slack.message(CHANNEL, ts)
    assert message.metadata is not None
    assert message.metadata["event_payload"]["interaction_id"] == interaction_id
    # several more polls: still exactly one message for it
    assert loop.bridge.jobs is not None
    await loop.bridge.jobs.poll()
    await loop.bridge.jobs.poll()
    posts = [c for c in loop.slack.calls("chat.postMessage") if c.response.get("ok")]
    assert len(posts) == 1


async def test_approve_resolves_with_the_approver_named_and_removes_buttons(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    response = await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert response.status_code == 200
    record = await _resolved(loop, interaction_id)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    assert record["resolution"]["inputResponses"] == [  # type: ignore[index]
        {"requestId": interaction_id, "optionId": "approve"}
    ]
    await loop.shows(ts, "Approved", "<@U0ADA>")
    assert ActionId.APPROVE not in loop.action_ids(ts)
    assert ActionId.DENY not in loop.action_ids(ts)


async def test_deny_with_a_reason_goes_through_the_modal(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.DENY)
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.DENY_MODAL), None
        ),
        message="deny modal opened",
    )
    response = await loop.driver.submit_view(
        "U0GRACE",
        view.id,
        {
            REASON_BLOCK_ID: {
                ActionId.REASON_INPUT: {
                    "type": "plain_text_input",
                    "value": "not during the freeze",
                }
            }
        },
    )
    assert response.status_code == 200
    record = await _resolved(loop, interaction_id)
    assert record["decision"] == "deny"
    assert record["reason"] == "Denied in Slack by U0GRACE (Grace Hopper): not during the freeze"
    await loop.shows(ts, "Denied", "<@U0GRACE>", "not during the freeze")
    assert ActionId.APPROVE not in loop.action_ids(ts)


async def test_approve_with_a_note_from_the_overflow(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.APPROVE_WITH_NOTE
    )
    view = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.APPROVE_NOTE_MODAL), None
        ),
        message="approve-with-note modal opened",
    )
    await loop.driver.submit_view(
        "U0ADA",
        view.id,
        {
            REASON_BLOCK_ID: {
                ActionId.REASON_INPUT: {"type": "plain_text_input", "value": "watch the error rate"}
            }
        },
    )
    record = await _resolved(loop, interaction_id)
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace): watch the error rate"
    await loop.shows(ts, "Approved", "watch the error rate")


async def test_resolved_through_the_api_updates_the_message(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    response = await loop.api_resolve(
        interaction_id,
        {
            "inputResponses": [{"requestId": interaction_id, "optionId": "deny"}],
            "reason": "rolled back by on-call",
        },
    )
    assert response.status_code == 200
    await loop.shows(ts, "Denied", "outside Slack", "rolled back by on-call")
    assert loop.action_ids(ts) == [] or ActionId.APPROVE not in loop.action_ids(ts)


async def test_expired_approval_says_so_and_loses_its_buttons(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    await loop.control.expire(interaction_id)
    await loop.shows(ts, "Expired")
    assert ActionId.APPROVE not in loop.action_ids(ts)


async def test_siblings_of_an_expired_interaction_are_cancelled_too(loop: Loop) -> None:
    first = await loop.create("approval_request", runId="run_siblings", expiresInSeconds=60)
    second = await loop.create("approval_request", runId="run_siblings", expiresInSeconds=600)
    ts_first = await loop.posted(first["id"])
    ts_second = await loop.posted(second["id"])
    await loop.control.expire(first["id"])
    await loop.shows(ts_first, "Expired")
    await loop.shows(ts_second, "Expired")
    assert ActionId.APPROVE not in loop.action_ids(ts_second)
    assert (await loop.api_get(second["id"]))["status"] == "cancelled"


async def test_agent_text_cannot_mention_anyone(loop: Loop) -> None:
    created = await loop.create(
        "approval_request",
        toolName="send_email",
        input={"body": "<!channel> ping <@U0ADA> and <!here> @here"},
        preview={"Note": "<!everyone> <#C0APPROVALS>"},
    )
    ts = await loop.posted(created["id"])
    message = loop.slack.message(CHANNEL, ts)
    assert message is not None
    raw = str(message.blocks) + message.text
    for live in ("<!channel>", "<@U0ADA>", "<!here>", "<!everyone>", "<#C0APPROVALS>"):
        assert live not in raw
    assert "&lt;!channel&gt;" in raw


async def test_huge_input_and_preview_still_post_valid_messages(loop: Loop) -> None:
    huge_input = {"rows": ["x" * 100 for _ in range(2_000)]}  # ~200 KB
    huge_preview = {f"field_{i}": f"value {i}" for i in range(5_000)}
    created = await loop.create("approval_request", input=huge_input, preview=huge_preview)
    ts = await loop.posted(created["id"])
    assert ActionId.VIEW_INPUT in loop.action_ids(ts)
    rejected = [c for c in loop.slack.calls("chat.postMessage") if not c.response.get("ok")]
    assert rejected == []
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.VIEW_INPUT)
    viewer = await wait_until(
        lambda: next(
            (v for v in loop.slack.views() if v.callback_id == CallbackId.INPUT_VIEWER), None
        ),
        message="input viewer opened",
    )
    assert "Page 1" in str(viewer.blocks) or "page 1" in str(viewer.blocks)


async def test_health_and_metrics_endpoints(loop: Loop) -> None:
    interaction_id, ts = await _approval(loop)
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await _resolved(loop, interaction_id)
    health = await loop.http.get(f"{loop.bridge.url}/healthz")
    assert health.status_code == 200 and health.json() == {"ok": True}

    async def delivered_counted() -> str | None:
        metrics = (await loop.http.get(f"{loop.bridge.metrics_url}/metrics")).text
        return (
            metrics
            if 'novo_slack_decisions_total{outcome="delivered",source="click"}' in metrics
            else None
        )

    metrics = await wait_until(delivered_counted, message="delivered decision counted")
    assert "novo_slack_messages_posted_total" in metrics


async def test_the_policy_file_names_agents_and_links_runs(loop: Loop, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(
        'agents:\n  agt_release: "Release bot"\n'
        'links:\n  run: "https://novo.example.com/runs/{runId}"\n',
        encoding="utf-8",
    )
    await loop.restart(config_path=policy)
    created = await loop.create("approval_request", agentId="agt_release", runId="run_42")
    ts = await loop.shown(created["id"])
    shown = await loop.shows(ts, "Release bot")
    assert "<https://novo.example.com/runs/run_42|" in shown
    message = loop.slack.message(CHANNEL, ts)
    assert "Release bot" in message.text  # the notification names it too
