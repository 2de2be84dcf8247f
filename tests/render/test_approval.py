"""The approval message: what it shows in each state and which buttons it offers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.ids import METADATA_EVENT_TYPE, ActionId, OverflowValue
from bot.slack.limits import MESSAGE_TEXT_BUDGET, MESSAGE_TOTAL_TEXT, SECTION_FIELDS
from bot.slack.render.approval import (
    INPUT_LARGE_LINES,
    INPUT_MAX_LINES,
    INPUT_PREVIEW_LINES,
    PREVIEW_MAX_FIELDS,
    PREVIEW_TEXT,
    TEXT_BUDGET,
    approval_actions_block_id,
    interaction_id_from_block_id,
    render_approval_message,
)
from bot.slack.render.common import date_token
from bot.slack.render.context import MessageContext, SlackDecision
from novo_dev.localslack.validation import assert_valid_message

from .conftest import ADA, DECIDED_AT, EXPIRES, NOW, Case, MakeApproval
from .helpers import action_ids, block, block_ids, buttons, code_body

DECISION_ACTIONS = [
    ActionId.APPROVE.value,
    ActionId.DENY.value,
    ActionId.APPROVAL_OVERFLOW.value,
]


def test_pending_shows_what_who_when_then_preview_then_input(
    approval: Interaction, ctx: MessageContext
) -> None:
    message = render_approval_message(approval, ctx)
    assert_valid_message(message)
    assert block_ids(message) == [
        "novo_header",
        "novo_status",
        "novo_preview_0",
        "novo_input",
        approval_actions_block_id(approval.id),
        "novo_context",
    ]
    assert block(message, "novo_header")["text"]["text"] == "🔧 Deploy service"
    status = block(message, "novo_status")["text"]["text"]
    assert (
        status == f"⏱️ Asked by `agt_deployer` · Decide by {date_token(EXPIRES)}"
        " · expires in less than 15 min"
    )
    fields = [f["text"] for f in block(message, "novo_preview_0")["fields"]]
    assert fields == ["*Service*\nbilling-api", "*Environment*\n_production_", "*Replicas*\n6"]
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert body == '"service": "billing-api"\n"environment": "production"\n"replicas": 6'
    context = block(message, "novo_context")["elements"][0]["text"]
    assert context == "Tool `deploy_service` · Run `run_7Q2` · Step 4"


def test_the_preview_title_leads_and_the_agent_is_named(make_approval: MakeApproval) -> None:
    preview = {"title": "Deploy **api-gateway** 2.4.1 to prod?", "estimatedRows": 18_400}
    ctx = MessageContext(now=NOW, agent_names={"agt_deployer": "Release Bot"})
    message = render_approval_message(make_approval(preview=preview), ctx)
    assert_valid_message(message)
    assert block(message, "novo_header")["text"]["text"] == "🔧 Deploy api-gateway 2.4.1 to prod?"
    assert message["text"] == (
        "Deploy api-gateway 2.4.1 to prod? — Release Bot asks for approval"
        " · expires in less than 15 min"
    )
    assert "Asked by *Release Bot*" in block(message, "novo_status")["text"]["text"]
    fields = [f["text"] for f in block(message, "novo_preview_0")["fields"]]
    assert fields == ["*Estimated rows*\n18,400"]


def test_a_long_title_is_cut_between_words(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    title = "Rotate " + "the production credentials " * 10
    message = render_approval_message(make_approval(preview={"title": title[:150]}), ctx)
    header = block(message, "novo_header")["text"]["text"]
    assert header.endswith("…") and title.startswith(header[2:-1] + " ")


def test_the_run_links_to_novo_when_a_template_is_set(make_approval: MakeApproval) -> None:
    template = "https://novo.example.com/runs/{runId}?thread={threadId}"
    ctx = MessageContext(now=NOW, run_link_template=template)
    message = render_approval_message(make_approval(thread_id="thr 1&x|y>"), ctx)
    context = block(message, "novo_context")["elements"][0]["text"]
    link = "https://novo.example.com/runs/run_7Q2?thread=thr%201%26x%7Cy%3E"
    assert context == f"Tool `deploy_service` · Run <{link}|run_7Q2> · Step 4"


@pytest.mark.parametrize(
    "template", ["javascript:alert(1)//{runId}", "https://novo.example.com/{nope}", "", None]
)
def test_a_template_that_cannot_make_a_safe_link_shows_the_id(
    template: str | None, approval: Interaction
) -> None:
    ctx = MessageContext(now=NOW, run_link_template=template)
    context = block(render_approval_message(approval, ctx), "novo_context")["elements"][0]["text"]
    assert "Run `run_7Q2`" in context and "<" not in context


def test_forty_recipients_take_one_line(make_approval: MakeApproval, ctx: MessageContext) -> None:
    recipients = [f"customer{n:03d}@example.com" for n in range(40)]
    interaction = make_approval(
        input={"to": recipients, "subject": "Maintenance"},
        preview={"title": "Email 40 customers", "to": recipients},
    )
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert len(body.split("\n")) == 2
    field = block(message, "novo_preview_0")["fields"][0]["text"]
    assert field.startswith("*To*\ncustomer000@example.com, ") and field.endswith(", +35 more")
    assert ActionId.VIEW_INPUT in action_ids(message)


def test_a_string_of_several_lines_shows_as_lines(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    """A script or a commit message reads as it was written, not as one line of `\\n`."""
    script = "set -e\nmake build\n  make deploy"
    interaction = make_approval(input={"script": script, "sha": "9f1c2ab"}, preview=None)
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert "\\n" not in body
    assert body.split("\n") == [
        "{",
        '  "script": |',
        "    set -e",
        "    make build",
        "      make deploy",
        '  "sha": "9f1c2ab"',
        "}",
    ]


def test_beside_a_preview_the_input_is_a_few_lines(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    interaction = make_approval(input={f"key{n}": n for n in range(INPUT_PREVIEW_LINES * 3)})
    message = render_approval_message(interaction, ctx)
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert body.split("\n") == [f'"key{n}": {n}' for n in range(INPUT_PREVIEW_LINES)] + ["…"]
    assert ActionId.VIEW_INPUT in action_ids(message)


def test_pending_buttons_carry_the_interaction(approval: Interaction, ctx: MessageContext) -> None:
    message = render_approval_message(approval, ctx)
    actions = block(message, approval_actions_block_id(approval.id))
    assert action_ids(message) == [ActionId.APPROVE, ActionId.DENY, ActionId.APPROVAL_OVERFLOW]
    approve, deny, overflow = actions["elements"]
    assert approve["style"] == "primary" and approve["value"] == approval.id
    assert deny["style"] == "danger" and deny["value"] == approval.id
    assert [o["value"] for o in overflow["options"]] == [
        OverflowValue.APPROVE_WITH_NOTE,
        OverflowValue.REMIND_BEFORE_EXPIRY,  # 14.5 min left: see test_remind_menu
    ]
    assert interaction_id_from_block_id(actions["block_id"]) == approval.id


@pytest.mark.parametrize(
    "block_id", ["novo_status", "novo_approval_actions", "novo_approval_actions:", "x:int_1"]
)
def test_other_block_ids_carry_no_interaction(block_id: str) -> None:
    assert interaction_id_from_block_id(block_id) is None


def test_worker_call_names_its_worker(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["pending_worker"]
    context = block(render_approval_message(interaction, ctx), "novo_context")
    text = context["elements"][0]["text"]
    assert text == "Tool `deploy_service` · Run `run_wk1` · Worker `wkr_builder` · Step 4"


def test_metadata_finds_the_interaction(approval: Interaction, ctx: MessageContext) -> None:
    assert render_approval_message(approval, ctx)["metadata"] == {
        "event_type": METADATA_EVENT_TYPE,
        "event_payload": {
            "interaction_id": approval.id,
            "kind": "approval_request",
            "status": "pending",
        },
    }


def test_fallback_text_is_a_plain_summary(approval: Interaction, ctx: MessageContext) -> None:
    text = render_approval_message(approval, ctx)["text"]
    assert text == "Deploy service — agt_deployer asks for approval · expires in less than 15 min"


def test_small_input_has_no_viewer_button(approval: Interaction, ctx: MessageContext) -> None:
    assert ActionId.VIEW_INPUT not in action_ids(render_approval_message(approval, ctx))


def test_long_input_is_cut_and_offers_the_viewer(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    interaction = make_approval(input={"rows": list(range(INPUT_MAX_LINES * 2))}, preview=None)
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert body.endswith("\n…")
    assert len(body.split("\n")) == INPUT_MAX_LINES + 1
    view = [b for b in buttons(message) if b["action_id"] == ActionId.VIEW_INPUT]
    assert [b["value"] for b in view] == [interaction.id]


def test_wide_input_is_cut_within_the_section(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    message = render_approval_message(make_approval(input={"blob": "x" * 10_000}), ctx)
    assert_valid_message(message)
    assert block(message, "novo_input")["text"]["text"].endswith("…\n```")
    assert ActionId.VIEW_INPUT in action_ids(message)


def test_large_but_whole_input_still_offers_the_viewer(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    rows = list(range(INPUT_LARGE_LINES))
    message = render_approval_message(make_approval(input=rows, preview=None), ctx)
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert json.loads(body) == rows
    assert ActionId.VIEW_INPUT in action_ids(message)


@pytest.mark.parametrize("preview", [None, {}])
def test_preview_is_optional(
    preview: dict[str, Any] | None, make_approval: MakeApproval, ctx: MessageContext
) -> None:
    message = render_approval_message(make_approval(preview=preview), ctx)
    assert_valid_message(message)
    assert not [i for i in block_ids(message) if i.startswith("novo_preview")]


def test_huge_preview_shows_what_fits_and_counts_the_rest(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    preview = {f"key {n}": f"value {n}" for n in range(5_000)}
    message = render_approval_message(make_approval(preview=preview), ctx)
    assert_valid_message(message)
    sections = [b for b in message["blocks"] if b["block_id"].startswith("novo_preview_")]
    shown = sum(len(s["fields"]) for s in sections)
    assert shown == PREVIEW_MAX_FIELDS
    assert all(len(s["fields"]) <= SECTION_FIELDS for s in sections)
    more = block(message, "novo_more_fields")["elements"][0]["text"]
    assert more == f"…and {5_000 - shown} more fields — see the full input"
    assert ActionId.VIEW_INPUT in action_ids(message)


def test_long_preview_values_share_the_budget(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    preview = {f"k{n}": "v" * 10_000 for n in range(4)}
    message = render_approval_message(make_approval(preview=preview), ctx)
    assert_valid_message(message)
    fields = block(message, "novo_preview_0")["fields"]
    assert [len(f["text"]) for f in fields] == [2_000, PREVIEW_TEXT - 2_000]
    assert fields[0]["text"].endswith("…")
    assert "2 more fields —" in block(message, "novo_more_fields")["elements"][0]["text"]


def test_non_string_preview_values_are_compact_json(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    preview = {"hosts": ["a", "b"], "limits": {"cpu": 2}, "dry": False, "none": None}
    message = render_approval_message(make_approval(preview=preview), ctx)
    fields = [f["text"] for f in block(message, "novo_preview_0")["fields"]]
    assert fields == ["*Hosts*\na, b", '*Limits*\n`{"cpu": 2}`', "*Dry*\nNo", "*None*\n—"]


def test_budgets_fit_slack_total() -> None:
    assert TEXT_BUDGET <= MESSAGE_TEXT_BUDGET < MESSAGE_TOTAL_TEXT


@pytest.mark.parametrize("name", ["approved_in_slack", "denied_in_slack"])
def test_decided_in_slack_names_the_person(name: str, cases: dict[str, Case]) -> None:
    interaction, ctx = cases[name]
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    assert action_ids(message) == [ActionId.VIEW_INPUT]
    status = block(message, "novo_status")["text"]["text"]
    assert ctx.decided_in_slack is not None
    verb = ctx.decided_in_slack.verb
    icon = "✅" if verb == "Approved" else "❌"
    assert status.startswith(f"{icon} {verb} by <@{ADA.user_id}> · {date_token(DECIDED_AT)}\n>")
    assert block(message, "novo_header")["text"]["text"] == "🔧 Deploy service"
    assert message["text"] == f"Deploy service · {verb} by Ada Lovelace"


@pytest.mark.parametrize(
    "name",
    [
        "approved_in_slack",
        "denied_in_slack",
        "approved_elsewhere",
        "denied_elsewhere",
        "expired",
        "cancelled",
        "gone",
    ],
)
def test_an_ended_message_keeps_header_outcome_and_details(
    name: str, cases: dict[str, Case]
) -> None:
    interaction, ctx = cases[name]
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    assert block_ids(message) == ["novo_header", "novo_status", "novo_details"]
    (details,) = buttons(message)
    assert (details["action_id"], details["value"]) == (ActionId.VIEW_INPUT, interaction.id)
    assert details["text"]["text"] == "Details"


def test_note_is_quoted_line_by_line(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["denied_in_slack"]
    status = block(render_approval_message(interaction, ctx), "novo_status")["text"]["text"]
    assert status.split("\n")[1:] == [">Not during the freeze.", ">Retry Monday"]


def test_resolved_elsewhere_shows_reason(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["approved_elsewhere"]
    message = render_approval_message(interaction, ctx)
    status = block(message, "novo_status")["text"]["text"]
    assert interaction.resolved_at is not None
    assert status == (
        f"✅ Approved outside Slack · {date_token(interaction.resolved_at)}"
        "\nReason: approved by on-call engineer"
    )
    assert ActionId.APPROVE not in action_ids(message)


def test_denied_elsewhere_without_reason(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["denied_elsewhere"]
    status = block(render_approval_message(interaction, ctx), "novo_status")["text"]["text"]
    assert status.startswith("❌ Denied outside Slack · ")
    assert "Reason" not in status


def test_expired(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["expired"]
    message = render_approval_message(interaction, ctx)
    status = block(message, "novo_status")["text"]["text"]
    assert status == f"⌛ Expired — nobody decided in time · {date_token(DECIDED_AT)}"
    assert action_ids(message) == [ActionId.VIEW_INPUT]
    assert message["metadata"]["event_payload"]["status"] == "cancelled"


def test_cancelled_shows_reason(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["cancelled"]
    status = block(render_approval_message(interaction, ctx), "novo_status")["text"]["text"]
    assert status == f"🚫 Cancelled · {date_token(DECIDED_AT)}\nReason: the run was cancelled"


def test_queued_decision_removes_decision_buttons(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["queued"]
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    status = block(message, "novo_status")["text"]["text"]
    assert status == (
        f"⏳ Approved by <@{ADA.user_id}> recorded — Novo is unreachable, delivering…"
    )
    assert not set(DECISION_ACTIONS) & set(action_ids(message))


def test_queued_keeps_the_viewer_for_a_large_input(make_approval: MakeApproval) -> None:
    interaction = make_approval(input=list(range(100)))
    queued = SlackDecision(actor=ADA, at=DECIDED_AT, verb="Denied")
    message = render_approval_message(interaction, MessageContext(now=NOW, queued=queued))
    assert action_ids(message) == [ActionId.VIEW_INPUT]


def test_gone_offers_only_details(cases: dict[str, Case]) -> None:
    interaction, ctx = cases["gone"]
    message = render_approval_message(interaction, ctx)
    assert block(message, "novo_status")["text"]["text"] == (
        "⚠️ This request no longer exists in Novo"
    )
    assert action_ids(message) == [ActionId.VIEW_INPUT]


def test_every_state_is_valid_with_unique_block_ids(cases: dict[str, Case]) -> None:
    for name, (interaction, ctx) in cases.items():
        message = render_approval_message(interaction, ctx)
        assert_valid_message(message)
        ids = block_ids(message)
        assert len(ids) == len(set(ids)), name


def test_render_is_deterministic(approval: Interaction, ctx: MessageContext) -> None:
    assert render_approval_message(approval, ctx) == render_approval_message(approval, ctx)


def test_countdown_follows_now(approval: Interaction) -> None:
    later = MessageContext(now=EXPIRES)
    message = render_approval_message(approval, later)
    assert block(message, "novo_status")["text"]["text"].endswith("· expired")
    assert message["text"].endswith("asks for approval · expired")


def test_whole_input_is_not_marked_cut(approval: Interaction, ctx: MessageContext) -> None:
    assert "…" not in block(render_approval_message(approval, ctx), "novo_input")["text"]["text"]
