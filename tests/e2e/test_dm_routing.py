"""Routing by the policy: a channel, or a DM to each listed person, every copy kept true.

A rule with `dm: [U0ADA, U0GRACE]` puts the interaction in both DMs; a
decision taken in either, or an ending, shows in both. Everything Slack is
told about a DM message names the DM (`D…`), never the person, because real
Slack refuses a user id for updates, history and permalinks.
"""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId
from bot.store import TrackedMessage
from novo_dev.localslack.records import StoredMessage
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

PEOPLE = ("U0ADA", "U0GRACE")
DEPLOYS_TO_DMS = """
rules:
  - name: deploys
    match: {toolName: "deploy_*"}
    dm: [U0ADA, U0GRACE]
"""
OPS = "C0OPS"
QUESTIONS = "C0QUESTIONS"
# Methods that must name a conversation, never a person (Slack accepts a user id
# only where a message is first posted).
NAMES_A_CONVERSATION = ("chat.update", "conversations.history", "chat.getPermalink")


def _for(loop: Loop, where: str, interaction_id: str) -> list[StoredMessage]:
    """The messages about `interaction_id` in a channel or a person's DM (thread replies aside)."""
    return [
        m
        for m in loop.slack.messages(where)
        if ((m.metadata or {}).get("event_payload") or {}).get("interaction_id") == interaction_id
    ]


async def _messages(loop: Loop, interaction_id: str) -> list[TrackedMessage]:
    assert loop.bridge.services is not None
    return await loop.bridge.services.store.messages(interaction_id)


async def _in_each_dm(
    loop: Loop, interaction_id: str, people: tuple[str, ...] = PEOPLE
) -> dict[str, str]:
    """Wait until every message of the interaction is posted and recorded; the ts in each DM."""

    async def probe() -> bool:
        stored = await _messages(loop, interaction_id)
        return len(stored) == len(people) and all(m.state == "posted" for m in stored)

    await wait_until(probe, message=f"{interaction_id} posted to {people}")
    assert loop.bridge.jobs is not None
    await loop.bridge.jobs.poll()  # more polls change nothing: one message per DM
    await loop.bridge.jobs.poll()
    found = {person: [m.ts for m in _for(loop, person, interaction_id)] for person in people}
    assert all(len(ts) == 1 for ts in found.values()), found
    return {person: ts[0] for person, ts in found.items()}


def _buttons(loop: Loop, where: str, ts: str) -> list[str]:
    return [
        str(element.get("action_id"))
        for block in loop.slack.message(where, ts).blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    ]


async def _all_show(loop: Loop, shown: dict[str, str], *needles: str) -> None:
    """Wait until each message (by DM) shows every needle and has no decision button left."""

    def probe() -> bool:
        for where, ts in shown.items():
            text = loop.message_text_in(where, ts)
            if not all(n in text for n in needles):
                return False
            if {ActionId.APPROVE, ActionId.DENY} & set(_buttons(loop, where, ts)):
                return False
        return True

    await wait_until(probe, message=f"every copy showing {needles} without buttons")


def _named_people(loop: Loop) -> list[dict[str, Any]]:
    return [
        c.args
        for method in NAMES_A_CONVERSATION
        for c in loop.slack.calls(method)
        if str(c.args.get("channel", "")).startswith(("U", "W"))
    ]


async def test_a_dm_rule_asks_each_listed_person_and_nothing_else_moves(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    deploy = await loop.create("approval_request", toolName="deploy_service")
    other = await loop.create("approval_request", toolName="send_email")
    shown = await _in_each_dm(loop, deploy["id"])
    assert _for(loop, CHANNEL, deploy["id"]) == []
    await loop.posted(other["id"])
    assert len(_for(loop, CHANNEL, other["id"])) == 1
    assert all(_for(loop, p, other["id"]) == [] for p in PEOPLE)

    # the store keeps the destination as the policy named it, and where Slack put it
    primary = await loop.tracked(deploy["id"])
    assert primary is not None and (primary.channel, primary.shown_in) == ("U0ADA", "D0ADA")
    by_purpose = {(m.purpose, m.channel): m.shown_in for m in await _messages(loop, deploy["id"])}
    assert by_purpose == {("channel", "U0ADA"): "D0ADA", ("copy", "U0GRACE"): "D0GRACE"}
    assert {p: loop.slack.message(p, ts).channel for p, ts in shown.items()} == {
        "U0ADA": "D0ADA",
        "U0GRACE": "D0GRACE",
    }
    assert {ActionId.APPROVE, ActionId.DENY} <= set(_buttons(loop, "U0GRACE", shown["U0GRACE"]))


async def test_a_decision_in_one_dm_shows_in_every_copy(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    created = await loop.create("approval_request", toolName="deploy_service")
    shown = await _in_each_dm(loop, created["id"])
    await loop.driver.click_message_button("U0ADA", "D0ADA", shown["U0ADA"], ActionId.APPROVE)
    record = await loop.api_get_final(created["id"])
    assert record["decision"] == "allow"
    await _all_show(loop, shown, "Approved", "<@U0ADA>")
    assert len(await loop.resolve_calls(created["id"])) == 1
    assert _named_people(loop) == []


async def test_a_decision_from_a_copy_reaches_the_first_dm_too(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    created = await loop.create("approval_request", toolName="deploy_service")
    shown = await _in_each_dm(loop, created["id"])
    await loop.driver.click_message_button("U0GRACE", "D0GRACE", shown["U0GRACE"], ActionId.APPROVE)
    record = await loop.api_get_final(created["id"])
    assert record["decision"] == "allow"
    await _all_show(loop, shown, "Approved", "<@U0GRACE>")
    assert len(await loop.resolve_calls(created["id"])) == 1
    # a late click on the other copy (a client still showing buttons) is told, in that
    # DM, who decided; Novo hears nothing more
    await loop.driver.click_stale_button(
        "U0ADA", "D0ADA", shown["U0ADA"], _pending_blocks(loop, created["id"]), ActionId.APPROVE
    )
    (note,) = await wait_until(lambda: _dm_notes(loop, "U0ADA"), message="Ada told")
    assert "already approved by <@U0GRACE>" in note.text
    assert len(await loop.resolve_calls(created["id"])) == 1
    assert _named_people(loop) == []


def _pending_blocks(loop: Loop, interaction_id: str) -> list[dict[str, Any]]:
    """The blocks it was first posted with (buttons and all), as a stale client shows them."""
    first = next(
        c
        for c in loop.slack.calls("chat.postMessage")
        if c.ok
        and (c.args.get("metadata") or {}).get("event_payload", {}).get("interaction_id")
        == interaction_id
    )
    blocks: list[dict[str, Any]] = first.response["message"]["blocks"]
    return blocks


def _dm_notes(loop: Loop, person: str) -> list[StoredMessage]:
    """Plain words to `person` in their DM (no interaction metadata)."""
    return [m for m in loop.slack.messages(person) if not m.metadata]


async def test_an_expiry_shows_in_every_copy(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    created = await loop.create("approval_request", toolName="deploy_cache")
    shown = await _in_each_dm(loop, created["id"])
    await loop.control.expire(created["id"])
    await _all_show(loop, shown, "Expired", "Asked: <@U0ADA>, <@U0GRACE>.")  # everyone asked
    assert _named_people(loop) == []


async def test_rules_route_by_agent_and_by_kind(loop: Loop) -> None:
    await loop.use_policy(
        f"""
rules:
  - name: ops agent
    match: {{agentId: "agent_ops*"}}
    channel: {OPS}
  - name: questions
    match: {{kind: question}}
    channel: {QUESTIONS}
"""
    )
    ops = await loop.create("approval_request", agentId="agent_ops_eu")
    question = await loop.create(
        "question",
        agentId="agent_support",
        request={
            "title": "Which region?",
            "questions": [
                {"id": "q", "prompt": "Region?", "options": [{"id": "eu", "label": "EU"}]}
            ],
        },
    )
    plain = await loop.create("approval_request", agentId="agent_support")
    for interaction_id, where in (
        (ops["id"], OPS),
        (question["id"], QUESTIONS),
        (plain["id"], CHANNEL),
    ):
        await loop.posted(interaction_id)
        tracked = await loop.tracked(interaction_id)
        assert tracked is not None and tracked.channel == where
        assert len(_for(loop, where, interaction_id)) == 1
    assert _for(loop, CHANNEL, ops["id"]) == _for(loop, CHANNEL, question["id"]) == []


async def test_copies_lost_in_a_crash_are_found_not_posted_twice(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    # Slack posts both, but neither answer arrives: the store still says `posting`
    loop.slack.lose_answers("chat.postMessage", count=2)
    # and the old process's own retries can't look in the DMs: they stay `posting`, as a
    # process that died right after posting leaves them
    loop.slack.fail_method("conversations.history", count=1_000)
    created = await loop.create("approval_request", toolName="deploy_service")
    await wait_until(
        lambda: all(_for(loop, p, created["id"]) for p in PEOPLE), message="both posted in Slack"
    )
    assert {m.state for m in await _messages(loop, created["id"])} == {"posting"}
    loop.slack.fail_method("conversations.history", count=0)
    await loop.restart()  # the crash: what the old process meant to do is in the store
    shown = await _in_each_dm(loop, created["id"])
    looked_in = {c.args.get("channel") for c in loop.slack.calls("conversations.history")}
    assert {"D0ADA", "D0GRACE"} <= looked_in
    await loop.driver.click_message_button("U0GRACE", "D0GRACE", shown["U0GRACE"], ActionId.APPROVE)
    await _all_show(loop, shown, "Approved", "<@U0GRACE>")


async def test_copies_never_posted_before_a_crash_are_posted_once_after(loop: Loop) -> None:
    await loop.use_policy(DEPLOYS_TO_DMS)
    loop.slack.fail_method("chat.postMessage", count=2, error="internal_error")
    created = await loop.create("approval_request", toolName="deploy_service")
    await wait_until(
        lambda: len(loop.slack.calls("chat.postMessage")) >= 2, message="both posts tried"
    )
    assert all(_for(loop, p, created["id"]) == [] for p in PEOPLE)
    assert {m.state for m in await _messages(loop, created["id"])} == {"posting"}
    await loop.restart()
    await _in_each_dm(loop, created["id"])


def _routing_to(*people: str) -> str:
    return DEPLOYS_TO_DMS.replace("[U0ADA, U0GRACE]", "[" + ", ".join(people) + "]")


async def _reachable_asked(loop: Loop, interaction_id: str) -> dict[str, str]:
    """Wait until Ada and Grace each have their message; its ts by person."""

    async def probe() -> bool:
        stored = {m.channel: m.state for m in await _messages(loop, interaction_id)}
        return stored.get("U0ADA") == stored.get("U0GRACE") == "posted"

    await wait_until(probe, message="both reachable people asked")
    return {p: _for(loop, p, interaction_id)[0].ts for p in PEOPLE}


async def test_a_copy_slack_refuses_for_good_is_dropped_and_the_others_go_on(
    loop: Loop,
) -> None:
    # U0GONE is no user of this workspace: conversations.open answers user_not_found
    await loop.use_policy(_routing_to("U0ADA", "U0GONE", "U0GRACE"))
    created = await loop.create("approval_request", toolName="deploy_service")
    shown = await _reachable_asked(loop, created["id"])

    async def dropped() -> bool:
        return "U0GONE" not in {m.channel for m in await _messages(loop, created["id"])}

    await wait_until(dropped, message="the unreachable copy dropped, not retried forever")
    await loop.driver.click_message_button("U0ADA", "D0ADA", shown["U0ADA"], ActionId.APPROVE)
    await _all_show(loop, shown, "Approved", "<@U0ADA>")
    assert len(await loop.resolve_calls(created["id"])) == 1


async def test_a_copy_refused_for_good_after_a_passing_failure_is_dropped_too(
    loop: Loop,
) -> None:
    # each DM's first conversations.open fails for a moment: the copies' retries
    # look in the DM first, and the look itself meets `user_not_found` for U0GONE
    loop.slack.fail_method("conversations.open", count=3, error="internal_error")
    await loop.use_policy(_routing_to("U0ADA", "U0GONE", "U0GRACE"))
    created = await loop.create("approval_request", toolName="deploy_service")
    await _reachable_asked(loop, created["id"])

    async def dropped() -> bool:
        return "U0GONE" not in {m.channel for m in await _messages(loop, created["id"])}

    await wait_until(dropped, message="the unreachable copy dropped after its look, too")
    refused = [c for c in loop.slack.calls("conversations.open") if c.args.get("users") == "U0GONE"]
    assert len(refused) <= 3, refused  # the passing failure, then one refusal: no retrying


async def test_when_the_first_person_cant_be_reached_the_others_are_still_asked(
    loop: Loop,
) -> None:
    await loop.use_policy(_routing_to("U0GONE", "U0ADA", "U0GRACE"))
    decided = await loop.create("approval_request", toolName="deploy_service")
    ended = await loop.create("approval_request", toolName="deploy_service")
    shown = await _reachable_asked(loop, decided["id"])
    await loop.driver.click_message_button("U0GRACE", "D0GRACE", shown["U0GRACE"], ActionId.APPROVE)
    await _all_show(loop, shown, "Approved", "<@U0GRACE>")
    # ended outside Slack: the poll still finalises it, for the copies' sake
    ended_shown = await _reachable_asked(loop, ended["id"])
    await loop.api_resolve(
        ended["id"],
        {"inputResponses": [{"requestId": ended["id"], "optionId": "deny"}], "reason": "no"},
    )
    await _all_show(loop, ended_shown, "Denied")
    primary = await loop.tracked(decided["id"])
    # still tried, with back-off; never sent (its DM could not be opened), so never in doubt
    assert primary is not None and primary.state == "queued"
