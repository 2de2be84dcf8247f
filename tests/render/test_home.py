"""The App Home tab: what waits on the person (with the message's own buttons), the
team's queue, what they decided; always a view Slack would publish."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.domain import SlackActor, SlackDecision
from bot.novo.models import Interaction
from bot.slack.ids import ActionId
from bot.slack.limits import MODAL_BLOCKS
from bot.slack.render.context import MessageContext
from bot.slack.render.home import (
    DECIDED_SHOWN,
    QUEUE_SHOWN,
    WAITING_SHOWN,
    DecidedItem,
    HomeFacts,
    QueueEntry,
    WaitingItem,
    home_title,
    message_actions,
    render_home,
    view_fingerprint,
)
from bot.slack.render.message import render_message
from novo_dev.localslack.validation import assert_valid_view
from tests.novo.conftest import question_wire
from tests.render.conftest import NOW, MakeApproval, finalized_fields
from tests.render.helpers import action_ids, all_text, assert_inert, block, mrkdwn_texts

OUR_CHANNELS = re.compile(r"<#C[0-9A-Z]+>")
LINK = "https://novo-local.slack.com/archives/C0APPROVALS/p1741944600000100"


def _waiting(interaction: Interaction, ctx: MessageContext, **fields: Any) -> WaitingItem:
    actions = message_actions(interaction.id, render_message(interaction, ctx))
    return WaitingItem(interaction, fields.pop("where", "C0APPROVALS"), actions, **fields)


def _decision(verb: str = "Approved") -> SlackDecision:
    return SlackDecision(SlackActor("U0ADA", "Ada"), NOW - timedelta(minutes=5), verb)


def test_an_empty_tab_says_so_in_each_section() -> None:
    view = render_home(HomeFacts(now=NOW))
    assert_valid_view(view)
    assert view["type"] == "home"
    shown = all_text(view)
    assert "Waiting on you" in shown and "Nothing is waiting on you" in shown
    assert "Your team's queue" in shown and "Nothing is waiting on anyone" in shown
    assert "Recently decided by you" in shown and "haven't decided anything" in shown
    assert action_ids(view) == []


def test_a_card_carries_the_messages_own_buttons(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    approval = make_approval(id="int_deploy")
    message = render_message(approval, ctx)
    view = render_home(HomeFacts(now=NOW, waiting=[_waiting(approval, ctx, link=LINK)]))
    assert_valid_view(view)
    from_message = [b for b in message["blocks"] if b["type"] == "actions"]
    assert len(from_message) == 1
    assert block(view, from_message[0]["block_id"]) == from_message[0]  # same ids, same values
    assert ActionId.APPROVE.value in action_ids(view) and ActionId.DENY.value in action_ids(view)
    card = block(view, "novo_home_card:int_deploy")["text"]["text"]
    assert f"*<{LINK}|Deploy service>*" in card
    assert "<#C0APPROVALS>" in card and "Decide by" in card


def test_a_question_card_carries_the_questions_buttons(ctx: MessageContext) -> None:
    question = Interaction.model_validate(question_wire("int_q1"))
    view = render_home(HomeFacts(now=NOW, waiting=[_waiting(question, ctx)]))
    assert_valid_view(view)
    assert block(view, "novo_q_actions:int_q1")["elements"]
    assert ActionId.ANSWER.value in action_ids(view)
    assert "Which environment?" in all_text(view)


def test_soonest_expiry_first_and_no_deadline_last(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    later = make_approval(id="int_later", expires_at=NOW + timedelta(hours=3))
    never = make_approval(id="int_never", expires_at=None)
    soon = make_approval(id="int_soon", expires_at=NOW + timedelta(minutes=3))
    items = [_waiting(i, ctx) for i in (later, never, soon)]
    view = render_home(HomeFacts(now=NOW, waiting=items))
    cards = [b["block_id"] for b in view["blocks"] if b["block_id"].startswith("novo_home_card:")]
    assert cards == [
        "novo_home_card:int_soon",
        "novo_home_card:int_later",
        "novo_home_card:int_never",
    ]


def test_an_ended_message_offers_nothing_to_take(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    ended = make_approval(**finalized_fields("resolved", "allow", None))
    assert message_actions(ended.id, render_message(ended, ctx)) == ()


def test_the_queue_counts_per_destination_and_rule(make_approval: MakeApproval) -> None:
    first = make_approval(id="int_1", expires_at=NOW + timedelta(minutes=20))
    queue = [
        QueueEntry("C0APPROVALS", "deploys", 3, first),
        QueueEntry("U0GRACE", "pager", 1, make_approval(id="int_2", expires_at=None)),
    ]
    view = render_home(HomeFacts(now=NOW, queue=queue))
    assert_valid_view(view)
    lines = block(view, "novo_home_queue:0")["text"]["text"].split("\n")
    assert lines[0].startswith("• <#C0APPROVALS> · rule _deploys_ — *3* waiting")
    assert "expires <!date^" in lines[0]
    assert lines[1].startswith("• DM to <@U0GRACE> · rule _pager_ — *1* waiting")
    assert lines[1].endswith("no deadline")
    assert block(view, "novo_home_queue")["text"]["text"] == "Your team's queue · 4"


def test_what_they_decided_newest_first_with_links(make_approval: MakeApproval) -> None:
    done = make_approval(**{**finalized_fields("resolved", "deny", "no"), "id": "int_done"})
    other = make_approval(**{**finalized_fields("resolved", "allow", None), "id": "int_other"})
    decided = [
        DecidedItem(done, _decision("Denied"), "C0APPROVALS", LINK),
        DecidedItem(other, _decision(), "C0APPROVALS", None),
    ]
    view = render_home(HomeFacts(now=NOW, decided=decided))
    assert_valid_view(view)
    lines = block(view, "novo_home_decided:0")["text"]["text"].split("\n")
    assert lines[0].startswith("❌ Denied *<" + LINK + "|")
    assert lines[1].startswith("✅ Approved *")


def test_every_section_is_capped_within_slacks_100_blocks(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    hostile = "<!channel> *bold* @here " + "x" * 400
    many = [
        make_approval(
            id=f"int_{n:03d}",
            preview={"title": hostile, **{f"k{i}": "v" * 500 for i in range(40)}},
            input={f"key{i}": "y" * 900 for i in range(30)},
            expires_at=NOW + timedelta(minutes=n + 1),
        )
        for n in range(40)
    ]
    waiting = [_waiting(i, ctx, link=LINK) for i in many]
    queue = [QueueEntry(f"C{n:08d}", hostile, n + 1, many[n % 40]) for n in range(50)]
    decided = [DecidedItem(many[n], _decision(hostile), "C0APPROVALS", LINK) for n in range(30)]
    view = render_home(HomeFacts(now=NOW, waiting=waiting, queue=queue, decided=decided))
    assert_valid_view(view)
    assert len(view["blocks"]) <= MODAL_BLOCKS
    cards = [b for b in view["blocks"] if b["block_id"].startswith("novo_home_card:")]
    assert len(cards) == WAITING_SHOWN
    shown = all_text(view)
    assert f"…and {40 - WAITING_SHOWN} more waiting on you." in shown
    assert f"…and {50 - QUEUE_SHOWN} more queues." in shown
    decided_lines = [
        line
        for b in view["blocks"]
        if b["block_id"].startswith("novo_home_decided:")
        for line in b["text"]["text"].split("\n")
    ]
    assert len(decided_lines) == DECIDED_SHOWN
    for text in mrkdwn_texts(view["blocks"]):
        assert_inert(OUR_CHANNELS.sub("", text), allow_links=True)


def test_the_fingerprint_changes_with_what_is_shown_only(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    approval = make_approval(expires_at=NOW + timedelta(hours=5, minutes=30))
    facts = HomeFacts(now=NOW, waiting=[_waiting(approval, ctx)])
    first = view_fingerprint(render_home(facts))
    # a few seconds later the words are the same: nothing to publish again
    assert view_fingerprint(render_home(replace(facts, now=NOW + timedelta(seconds=20)))) == first
    assert view_fingerprint(render_home(replace(facts, waiting=[]))) != first


def test_titles_follow_the_messages_headers(make_approval: MakeApproval) -> None:
    assert home_title(make_approval(preview=None, tool_name="deploy_service")) == "Deploy service"
    question = Interaction.model_validate(question_wire("int_q1"))
    assert home_title(question) == "Which environment?"
    odd = make_approval(kind="poll")
    assert home_title(odd) == "A poll interaction"
