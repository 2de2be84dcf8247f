"""Standing approvals as messages show them: the overflow's offers, the lines on the
granting message with Revoke, the thread report, the App Home lists."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.domain import Allowance, AllowanceUse, SlackActor
from bot.novo.models import Interaction
from bot.slack.ids import ActionId, OverflowValue
from bot.slack.render.allowance import (
    StandingOffer,
    allowance_line,
    report_text,
)
from bot.slack.render.approval import render_approval_message
from bot.slack.render.common import date_token
from bot.slack.render.context import MessageContext
from bot.slack.render.home import HomeFacts, render_home
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view

from .conftest import NOW, MakeApproval, finalized_fields

OFFER = StandingOffer(("run", "tool"), 4 * 3600)
UNTIL = NOW + timedelta(hours=4)
ALLOWANCE = Allowance(
    id=3,
    rule="deploys",
    scope="run",
    agent_id="agt_deployer",
    tool_name="deploy_service",
    root_run_id="run_7Q2",
    granted_by=SlackActor("U0ALICE", "Alice"),
    granted_at=NOW,
    until=UNTIL,
    interaction_id="int_01HZX3",
)


def _overflow(message: Any) -> list[tuple[str, str]]:
    return [
        (option["text"]["text"], option["value"])
        for b in message["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["type"] == "overflow"
        for option in e["options"]
    ]


def test_a_rule_allowing_standing_approvals_offers_both_and_keeps_five_options(
    approval: Interaction,
) -> None:
    message = render_approval_message(approval, MessageContext(now=NOW, standing=OFFER))
    assert_valid_message(message)
    options = _overflow(message)
    assert options[:3] == [
        ("Approve with note…", OverflowValue.APPROVE_WITH_NOTE),
        ("Approve, and allow deploy_service for this run", OverflowValue.ALLOW_FOR_RUN),
        ("Approve, and allow deploy_service for 1 hour", OverflowValue.ALLOW_FOR_HOUR),
    ]
    assert len(options) <= 5


def test_a_short_max_shortens_the_tool_scope(approval: Interaction) -> None:
    offer = StandingOffer(("tool",), 30 * 60)
    message = render_approval_message(approval, MessageContext(now=NOW, standing=offer))
    values = [v for _, v in _overflow(message)]
    assert OverflowValue.ALLOW_FOR_RUN not in values
    assert ("Approve, and allow deploy_service for 30 min", OverflowValue.ALLOW_FOR_HOUR) in (
        _overflow(message)
    )


def test_nothing_is_offered_without_it(approval: Interaction) -> None:
    values = [v for _, v in _overflow(render_approval_message(approval, MessageContext(now=NOW)))]
    assert OverflowValue.ALLOW_FOR_RUN not in values and OverflowValue.ALLOW_FOR_HOUR not in values


def test_the_granting_message_shows_the_allowance_with_revoke(make_approval: MakeApproval) -> None:
    approved = make_approval(**finalized_fields("resolved", "allow", "Approved in Slack"))
    ctx = MessageContext(now=NOW, allowances=(ALLOWANCE,))
    message = render_approval_message(approved, ctx)
    assert_valid_message(message)
    (line,) = [b for b in message["blocks"] if b["block_id"] == "novo_allowance:3"]
    assert line["text"]["text"] == (
        f"🔓 <@U0ALICE> allowed `deploy_service` for this run, until {date_token(UNTIL, '{time}')}"
    )
    assert line["accessory"]["action_id"] == ActionId.REVOKE_ALLOWANCE
    assert line["accessory"]["value"] == "3"


def test_an_ended_allowance_says_why_and_offers_no_revoke(make_approval: MakeApproval) -> None:
    approved = make_approval(**finalized_fields("resolved", "allow", "Approved in Slack"))
    revoked = replace(ALLOWANCE, ended="revoked", ended_by="U0BOB", ended_at=NOW)
    message = render_approval_message(approved, MessageContext(now=NOW, allowances=(revoked,)))
    (line,) = [b for b in message["blocks"] if b["block_id"] == "novo_allowance:3"]
    assert line["text"]["text"].endswith("revoked by <@U0BOB>")
    assert "accessory" not in line
    expired = allowance_line(ALLOWANCE, UNTIL)
    assert expired.startswith("🔒") and "expired at" in expired
    stopped = allowance_line(replace(ALLOWANCE, ended="policy"), NOW)
    assert stopped.endswith("ended: the policy no longer allows it")


def test_one_report_lists_every_use_without_letting_a_tool_name_format() -> None:
    uses = [
        AllowanceUse("int_a", 3, "run_7Q2", 5, "deploy_status", NOW),
        AllowanceUse("int_b", 3, "run_7Q2", 6, "*bold* <!channel>", NOW),
    ]
    text = report_text(uses, "U0ALICE")
    lines = text.splitlines()
    assert (
        lines[0] == "✅ `deploy_status` (`run_7Q2`, step 5) approved under <@U0ALICE>'s allowance"
    )
    assert "<!channel>" not in lines[1] and lines[1].startswith("✅ `")


def test_app_home_lists_both_with_revoke() -> None:
    team = replace(ALLOWANCE, id=4, granted_by=SlackActor("U0BOB", "Bob"))
    view = render_home(HomeFacts(now=NOW, allowances=(ALLOWANCE,), team_allowances=(team,)))
    assert_valid_view(view)
    text = str(view["blocks"])
    assert "Your allowances" in text and "Allowances in your team's rules" in text
    revokes = [
        b["accessory"]["value"]
        for b in view["blocks"]
        if b.get("accessory", {}).get("action_id") == ActionId.REVOKE_ALLOWANCE
    ]
    assert revokes == ["3", "4"]
