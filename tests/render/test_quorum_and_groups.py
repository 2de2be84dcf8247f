"""The quorum line on an approval, the step group message and Deny all's form."""

from __future__ import annotations

from dataclasses import replace

from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.slack.ids import ActionId, OverflowValue
from bot.slack.render.context import MessageContext, QuorumState, RenderedMessage
from bot.slack.render.group import ITEM_LINES, GroupFacts, GroupItem, render_group
from bot.slack.render.message import render_message
from bot.slack.render.modals import render_deny_all_modal
from bot.slack.render.quorum import people_text
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view
from tests.render.conftest import MakeApproval, finalized_fields


def _text(rendered: object) -> str:
    return str(rendered)


def _overflow_values(rendered: RenderedMessage) -> list[str]:
    for block in rendered["blocks"]:
        for element in block.get("elements", []):
            if element.get("type") == "overflow":
                return [o["value"] for o in element["options"]]
    return []


def test_no_one_is_named_before_the_first_approval(
    approval: Interaction, ctx: MessageContext
) -> None:
    quorum = QuorumState(needed=2, others="<@U0ALICE> or members of <!subteam^S0SRE>")
    rendered = render_message(approval, replace(ctx, quorum=quorum))
    assert_valid_message(rendered)
    assert "Needs 2 approvals" in _text(rendered)
    assert "U0ALICE" not in _text(rendered)  # a first post notifies whoever it mentions
    assert OverflowValue.WITHDRAW_APPROVAL.value not in _overflow_values(rendered)


def test_the_count_who_approved_and_who_still_may(
    approval: Interaction, ctx: MessageContext
) -> None:
    quorum = QuorumState(
        needed=3,
        approvers=(SlackActor("U0ALICE", "Alice"),),
        others=people_text(["U0BOB"], ["S0SRE"]),
    )
    rendered = render_message(approval, replace(ctx, quorum=quorum))
    assert_valid_message(rendered)
    assert (
        "Approvals: 1 of 3 — <@U0ALICE> ✓ · Can still approve: <@U0BOB> or members of"
        " <!subteam^S0SRE>" in _text(rendered)
    )
    assert OverflowValue.WITHDRAW_APPROVAL.value in _overflow_values(rendered)


def test_votes_close_with_the_interaction(make_approval: MakeApproval, ctx: MessageContext) -> None:
    ended = make_approval(**finalized_fields("cancelled", None, "interaction_timeout"))
    quorum = QuorumState(needed=2, approvers=(SlackActor("U0ALICE", "Alice"),), others="<@U0BOB>")
    rendered = render_message(ended, replace(ctx, quorum=quorum))
    assert "Approvals: 1 of 2 — <@U0ALICE> ✓ (voting closed)" in _text(rendered)
    assert "Can still approve" not in _text(rendered)


def test_many_approvers_are_counted_not_listed(approval: Interaction, ctx: MessageContext) -> None:
    many = tuple(SlackActor(f"U0P{n:03d}", f"P{n}") for n in range(15))
    rendered = render_message(approval, replace(ctx, quorum=QuorumState(needed=20, approvers=many)))
    assert_valid_message(rendered)
    assert "and 5 more" in _text(rendered) and "U0P010" not in _text(rendered)


def test_a_group_lists_its_items_and_offers_the_batch_buttons(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    pending = [make_approval(id=f"int_{n}", tool_name=f"deploy_{n}") for n in range(25)]
    denied = make_approval(**{**finalized_fields("resolved", "deny", "no"), "id": "int_x"})
    items = [GroupItem(i, ctx) for i in [denied, *pending]]
    rendered = render_group(
        GroupFacts("run_1#3#C1", 3, "Approve all by <@U0ADA>: 3 approved."), items
    )
    assert_valid_message(rendered)
    text = _text(rendered)
    assert "paused step 3 on 26 tool calls" in text
    assert f"…and {26 - ITEM_LINES} more in the thread" in text
    assert "Approve all (25)" in text and "Deny all (25)" in text
    assert "Approve all by <@U0ADA>: 3 approved." in text
    assert rendered["metadata"]["event_payload"]["group_id"] == "run_1#3#C1"


def test_a_group_with_nothing_waiting_has_no_buttons(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    done = [
        make_approval(**{**finalized_fields("resolved", "allow", None), "id": f"int_{n}"})
        for n in range(2)
    ]
    rendered = render_group(GroupFacts("g", 1), [GroupItem(i, ctx) for i in done])
    assert_valid_message(rendered)
    assert ActionId.APPROVE_ALL.value not in _text(rendered)
    assert "none waiting" in rendered["text"]


def test_deny_all_asks_one_reason() -> None:
    view = render_deny_all_modal("run_1#3#C1", 4)
    assert_valid_view(view)
    assert view["private_metadata"] == "run_1#3#C1"
    assert "Deny 4" in _text(view)
