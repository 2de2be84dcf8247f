"""Who may decide: the policy's deciders, user groups, guests and other workspaces.

Every refusal is judged by what Slack and Novo saw: the person gets a word
only they can see, no modal opens, and Novo receives nothing.
"""

from __future__ import annotations

from bot.slack.ids import ActionId, OverflowValue
from bot.slack.render.question_encoding import action_id_pattern
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_questions import ANSWER, _open_modal, _options, _question
from tests.support import wait_until

ONLY_ADA = """
rules:
  - name: guarded
    match: {}
    deciders: {users: [U0ADA]}
"""


async def _told(loop: Loop, user: str, count: int, needle: str) -> None:
    """`user` has been told `count` times, each time with `needle` in the words."""

    def probe() -> bool | None:
        told = [e.text for e in loop.slack.ephemerals(user)]
        assert all(needle in text for text in told), told
        return len(told) >= count or None

    await wait_until(probe, message=f"{user} told {count} time(s): {needle}")


async def test_a_non_decider_is_refused_on_every_action(loop: Loop) -> None:
    await loop.use_policy(ONLY_ADA)
    refusal = "Only <@U0ADA> can decide this."
    approval = await loop.create()
    ts = await loop.posted(approval["id"])
    views_before = len(loop.slack.views())
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.DENY)
    await loop.driver.choose_overflow(
        "U0GRACE", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.APPROVE_WITH_NOTE
    )
    await _told(loop, "U0GRACE", 3, refusal)

    q = {"id": "q_go", "prompt": "Go ahead?", "options": _options("yes", "no")}
    actions = [{"id": "a_skip", "label": "Skip"}]
    question_id, question_ts = await _question(loop, q, actions=actions)
    ids = loop.action_ids(question_ts)
    quick = next(a for a in ids if action_id_pattern(ActionId.QUICK_OPTION).match(a))
    skip = next(a for a in ids if action_id_pattern(ActionId.QUESTION_ACTION).match(a))
    await loop.driver.click_message_button("U0GRACE", CHANNEL, question_ts, quick)
    await loop.driver.click_message_button("U0GRACE", CHANNEL, question_ts, skip)
    await loop.driver.click_message_button("U0GRACE", CHANNEL, question_ts, ActionId.ANSWER)
    await loop.driver.click_message_button(
        "U0GRACE", CHANNEL, question_ts, ActionId.QUESTION_DISMISS
    )
    await _told(loop, "U0GRACE", 7, refusal)
    assert len(loop.slack.views()) == views_before  # no form opened for her

    # a form Ada opened, submitted as Grace: checked again, refused in the form itself
    view = await _open_modal(loop, "U0ADA", question_ts)
    selected = loop.driver.selected_option(view.id, "q0", ANSWER, "o0")
    response = await loop.driver.submit_view("U0GRACE", view.id, {"q0": {ANSWER: selected}})
    assert response.status_code == 200
    assert refusal in str(loop.slack.view(view.id).payload)

    for interaction_id in (approval["id"], question_id):
        assert await loop.resolve_calls(interaction_id) == []
        assert (await loop.api_get(interaction_id))["status"] == "pending"

    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    record = await loop.api_get_final(approval["id"])
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"


async def test_a_member_of_a_decider_group_may_decide(loop: Loop) -> None:
    loop.slack.add_usergroup("S0SRE", "sre", ["U0GRACE"])
    await loop.use_policy(
        "rules:\n  - name: prod\n    match: {toolName: 'deploy_*'}\n"
        "    deciders: {users: [U0BOB], groups: [S0SRE]}\n"
    )
    created = await loop.create(toolName="deploy_api")
    ts = await loop.posted(created["id"])
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await _told(loop, "U0ADA", 1, "Only <@U0BOB> or members of <!subteam^S0SRE> can decide")
    assert await loop.resolve_calls(created["id"]) == []
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    record = await loop.api_get_final(created["id"])
    assert record["reason"] == "Approved in Slack by U0GRACE (Grace Hopper)"
    # outside the rule anyone decides
    other = await loop.create(toolName="read_file")
    await loop.driver.click_message_button(
        "U0ADA", CHANNEL, await loop.posted(other["id"]), ActionId.APPROVE
    )
    assert (await loop.api_get_final(other["id"]))["decision"] == "allow"


async def test_guests_and_people_of_other_workspaces_are_refused(loop: Loop) -> None:
    loop.slack.add_user("U0GUEST", "guest", "Gus Guest", is_restricted=True)
    loop.slack.add_user("U0SINGLE", "single", "Sam Single", is_ultra_restricted=True)
    loop.slack.add_user("U0EXT", "ext", "Ext Partner", team_id="T0OTHER")
    created = await loop.create()
    ts = await loop.posted(created["id"])
    for user in ("U0GUEST", "U0SINGLE"):
        await loop.driver.click_message_button(user, CHANNEL, ts, ActionId.APPROVE)
        await _told(loop, user, 1, "Guests can't decide this one")
    await loop.driver.click_message_button("U0EXT", CHANNEL, ts, ActionId.DENY)
    await _told(loop, "U0EXT", 1, "People from other workspaces can't decide this one.")
    assert await loop.resolve_calls(created["id"]) == []

    await loop.use_policy("defaults:\n  allow_guests: true\n")
    await loop.driver.click_message_button("U0GUEST", CHANNEL, ts, ActionId.APPROVE)
    record = await loop.api_get_final(created["id"])
    assert record["reason"] == "Approved in Slack by U0GUEST (Gus Guest)"
