"""Rules that read the tool call (`when:`), over the whole loop: where each record is
posted, and whose click reaches Novo — also when a condition can't be evaluated."""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

FINANCE, PROD, FORCE, DBA, STAGING = "C0FINANCE", "C0PROD", "C0FORCE", "C0DBA", "C0STAGING"

REFUNDS = f"""
defaults:
  deciders: anyone
rules:
  - name: big-refunds
    match: {{toolName: issue_refund, when: 'input.amount > 500 && input.currency == "USD"'}}
    channel: {FINANCE}
    deciders: {{users: [U0ADA]}}
"""

STAGING_ANYONE = f"""
defaults:
  deciders: {{users: [U0ADA]}}
rules:
  - name: staging
    match: {{when: 'input.env == "staging"'}}
    channel: {STAGING}
    deciders: anyone
"""

ROUTES = f"""
rules:
  - name: refund-questions
    match: {{kind: question, when: 'request.title.contains("refund")'}}
    channel: {FINANCE}
  - name: prod-deploys
    match:
      kind: approval_request
      toolName: "deploy_*"
      when: 'input.env in ["prod", "production"]'
    channel: {PROD}
  - name: force-push
    match: {{kind: approval_request, toolName: git_push, when: "has(input.force) && input.force"}}
    channel: {FORCE}
  - name: drops
    match: {{kind: approval_request, toolName: sql_execute, when: 'preview.title.contains("DROP")'}}
    channel: {DBA}
"""


async def _posted_in(loop: Loop, interaction_id: str) -> tuple[str, str]:
    """(channel, ts) of its message once posted."""
    ts = await loop.posted(interaction_id)
    tracked = await loop.tracked(interaction_id)
    assert tracked is not None and tracked.channel is not None
    return tracked.channel, ts


async def _refused_then_decided_by(
    loop: Loop, record: dict[str, Any], channel: str, refused: str, decider: str
) -> None:
    """`refused` clicks Approve and nothing reaches Novo; `decider`'s click does."""
    where, ts = await _posted_in(loop, record["id"])
    assert where == channel
    await loop.driver.click_message_button(refused, channel, ts, ActionId.APPROVE)
    await wait_until(
        lambda: loop.slack.ephemerals(refused), message=f"{refused} told they may not decide"
    )
    assert await loop.resolve_calls(record["id"]) == []
    await loop.driver.click_message_button(decider, channel, ts, ActionId.APPROVE)
    final = await loop.api_get_final(record["id"])
    assert final["decision"] == "allow"
    assert str(final["reason"]).startswith(f"Approved in Slack by {decider}")


async def test_a_big_refund_goes_to_finance_and_only_finance_decides(loop: Loop) -> None:
    await loop.use_policy(REFUNDS)
    loop.slack.add_channel(FINANCE, "finance")
    big = await loop.create(toolName="issue_refund", input={"amount": 900, "currency": "USD"})
    await _refused_then_decided_by(loop, big, FINANCE, refused="U0GRACE", decider="U0ADA")

    small = await loop.create(toolName="issue_refund", input={"amount": 20, "currency": "USD"})
    where, ts = await _posted_in(loop, small["id"])
    assert where == CHANNEL  # the defaults: anyone decides
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    assert "U0GRACE" in str((await loop.api_get_final(small["id"]))["reason"])


async def test_string_list_has_preview_and_request_conditions_route_as_written(
    loop: Loop,
) -> None:
    await loop.use_policy(ROUTES)
    for channel in (FINANCE, PROD, FORCE, DBA):
        loop.slack.add_channel(channel, channel.lower())
    ok = [{"id": "a_ok", "label": "OK"}]
    refund_question = {"title": "Which refund should I issue?", "questions": [], "actions": ok}
    other_question = {"title": "Which region?", "questions": [], "actions": ok}
    expected = [
        (await loop.create("question", request=refund_question), FINANCE),
        (await loop.create("question", request=other_question), CHANNEL),
        (await loop.create(toolName="deploy_api", input={"env": "production"}), PROD),
        (await loop.create(toolName="deploy_api", input={"env": "staging"}), CHANNEL),
        (await loop.create(toolName="git_push", input={"force": True}), FORCE),
        (await loop.create(toolName="git_push", input={"branch": "main"}), CHANNEL),
        (
            await loop.create(
                toolName="sql_execute",
                input={"statement": "DROP TABLE users"},
                preview={"title": "DROP TABLE users", "summary": "drops it"},
            ),
            DBA,
        ),
        (
            await loop.create(
                toolName="sql_execute",
                input={"statement": "SELECT 1"},
                preview={"title": "SELECT", "summary": "reads"},
            ),
            CHANNEL,
        ),
    ]
    for record, channel in expected:
        where, _ = await _posted_in(loop, record["id"])
        assert where == channel, (record["toolName"], record.get("input"), where)


async def test_a_restricting_condition_in_error_is_decided_by_finance_alone(loop: Loop) -> None:
    await loop.use_policy(REFUNDS)
    loop.slack.add_channel(FINANCE, "finance")
    lots = await loop.create(toolName="issue_refund", input={"amount": "lots", "currency": "USD"})
    # true: only Ada; false: anyone → only Ada, posted where she decides
    await _refused_then_decided_by(loop, lots, FINANCE, refused="U0GRACE", decider="U0ADA")
    assert loop.bridge.services is not None
    entries = await loop.bridge.services.store.audit_entries(interaction_id=lots["id"])
    (unknown,) = [e for e in entries if e.event == "condition_unknown"]
    assert unknown.detail["rule"] == "big-refunds"
    (error,) = unknown.detail["errors"]
    assert error.startswith("rule 1 (big-refunds): when `input.amount > 500")
    assert "No matching overloads found" in error


async def test_a_loosening_condition_in_error_is_decided_by_the_defaults_deciders_alone(
    loop: Loop,
) -> None:
    await loop.use_policy(STAGING_ANYONE)
    loop.slack.add_channel(STAGING, "staging")
    staging = await loop.create(input={"env": "staging"})
    where, ts = await _posted_in(loop, staging["id"])
    assert where == STAGING  # the condition holds: anyone, Grace too
    await loop.driver.click_message_button("U0GRACE", STAGING, ts, ActionId.APPROVE)
    assert "U0GRACE" in str((await loop.api_get_final(staging["id"]))["reason"])

    # no `env`: true would let anyone decide, false only Ada → only Ada, where Ada decides
    unknown = await loop.create(input={"region": "eu"})
    await _refused_then_decided_by(loop, unknown, CHANNEL, refused="U0GRACE", decider="U0ADA")
