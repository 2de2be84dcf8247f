"""The expiry line and the escalation message, worded from what the store recorded."""

from __future__ import annotations

from datetime import datetime, timedelta

from slack_sdk.models.blocks import Block

from bot.domain import SlackDecision
from bot.novo.models import Interaction
from bot.slack.render.common import date_token
from bot.slack.render.context import MessageContext, Nudge
from bot.slack.render.ending import waited
from bot.slack.render.escalation import EscalationFacts, render_escalation
from bot.slack.render.reminder import reminder_text, time_left
from bot.slack.render.status import status_block

from .conftest import ADA, CREATED, NOW, MakeApproval, finalized_fields

REMINDED = CREATED + timedelta(minutes=10)
ESCALATED = CREATED + timedelta(minutes=11)
LINK = "https://acme.slack.com/archives/C0APPROVALS/p1"


def _expired() -> Interaction:
    fields = finalized_fields("cancelled", None, "interaction_timeout")
    fields["expires_at"] = CREATED + timedelta(minutes=15)
    return Interaction.model_validate(fields)


def _time(when: datetime) -> str:
    return date_token(when, "{time}")


def test_an_expiry_says_when_how_long_where_and_every_nudge() -> None:
    ctx = MessageContext(
        now=NOW,
        asked_in="C0APPROVALS",
        nudges=(Nudge("remind", REMINDED), Nudge("escalate", ESCALATED, ("C0MANAGERS", "U0BOSS"))),
    )
    text = status_block(_expired(), ctx)["text"]["text"]
    expired = CREATED + timedelta(minutes=15)
    assert text == (
        f"⌛ Expired {_time(expired)} after 15 min. Asked: <#C0APPROVALS>."
        f" Reminded {_time(REMINDED)}; escalated to <#C0MANAGERS>, <@U0BOSS> {_time(ESCALATED)}."
    )


def test_an_expiry_without_nudges_says_nobody_was_reminded() -> None:
    ctx = MessageContext(now=NOW, asked_in="C0APPROVALS")
    assert status_block(_expired(), ctx)["text"]["text"].endswith(
        "Asked: <#C0APPROVALS>. Nobody was reminded."
    )


def test_an_expiry_names_who_could_have_decided_as_well_as_where() -> None:
    ctx = MessageContext(now=NOW, asked_in="C0APPROVALS", deciders=("U0ALICE", "S0SRE"))
    assert (
        "Asked: <@U0ALICE>, <!subteam^S0SRE> in <#C0APPROVALS>. Nobody was reminded."
        in (status_block(_expired(), ctx)["text"]["text"])
    )


def test_waits_and_time_left_read_as_people_say_them() -> None:
    assert [waited(s) for s in (40, 900, 7500, 7200)] == ["40 s", "15 min", "2 h 5 min", "2 h"]
    assert time_left(NOW + timedelta(seconds=299), NOW) == "5 minutes"
    assert time_left(NOW + timedelta(seconds=1), NOW) == "1 second"
    assert reminder_text(NOW + timedelta(minutes=5), NOW, ["<!here>"]) == (
        "⏰ 5 minutes left — <!here>"
    )
    assert reminder_text(NOW + timedelta(hours=1), NOW, []) == "⏰ 1 hour left"


def _escalation_text(interaction: Interaction, ctx: MessageContext) -> str:
    facts = EscalationFacts(escalated_at=ESCALATED, link=LINK, groups=("S0LEADS",))
    message = render_escalation(interaction, ctx, facts)
    for block in Block.parse_all(message["blocks"]):
        block.to_dict()  # valid Block Kit
    return "\n".join(
        b["text"]["text"] for b in message["blocks"] if b["type"] in ("section", "header")
    )


def test_a_pending_escalation_says_what_waits_for_whom_and_links_it(
    make_approval: MakeApproval,
) -> None:
    ctx = MessageContext(now=NOW, asked_in="C0APPROVALS", nudges=(Nudge("remind", REMINDED),))
    text = _escalation_text(make_approval(), ctx)
    assert "🔺 Still waiting for a decision <!subteam^S0LEADS>" in text
    assert "`agt_deployer`" in text and f"waiting since {date_token(CREATED)}" in text
    assert "*Expires:* <!date^" in text
    assert f"*Asked:* <#C0APPROVALS> · *Reminded:* {_time(REMINDED)}" in text
    assert f"<{LINK}|Open the request>" in text


def test_an_ended_escalation_says_how_relative_to_it(make_approval: MakeApproval) -> None:
    decided = Interaction.model_validate(finalized_fields("resolved", "allow", None))
    decision = SlackDecision(actor=ADA, at=ESCALATED + timedelta(minutes=2), verb="Approved")
    ctx = MessageContext(now=NOW, asked_in="C0APPROVALS", decided_in_slack=decision)
    assert "✅ Approved by <@U0ADA1> 2 min after escalation" in _escalation_text(decided, ctx)
    assert "⌛ Expired · 🔺 escalated" in _escalation_text(_expired(), ctx)
    elsewhere = _escalation_text(decided, MessageContext(now=NOW))
    assert "Approved outside Slack" in elsewhere and "after escalation" in elsewhere
