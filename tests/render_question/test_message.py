"""The question message: what it offers while pending, what it records afterwards, and safety."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from bot.novo.models import TIMEOUT_REASON, Interaction
from bot.slack.ids import ActionId, OverflowValue
from bot.slack.limits import MESSAGE_TEXT_BUDGET, MESSAGE_TOTAL_TEXT
from bot.slack.question_answers import parse_action_choice, parse_quick_option
from bot.slack.render.context import MessageContext, SlackActor, SlackDecision
from bot.slack.render.question import (
    MAX_ACTION_BUTTONS,
    TEXT_BUDGET,
    interaction_id_from_block_id,
    render_question_message,
)
from bot.slack.render.question_encoding import action_id_pattern
from novo_dev.localslack.validation import assert_valid_message

from .conftest import INTERACTION_ID, NOW, make_interaction, options, question

ANN = SlackActor("U0ANN", "Ann")
REQUEST: dict[str, Any] = {
    "title": "Which environments should the migration run in?",
    "details": "Optional longer text (markdown).",
    "questions": [
        question(
            "q_env",
            prompt="Environments",
            multiple=True,
            options=[{"id": "staging", "label": "Staging"}, {"id": "prod", "label": "Production"}],
        ),
        question(
            "q_window",
            prompt="Maintenance window",
            allowOther=True,
            options=[{"id": "tonight", "label": "Tonight"}, {"id": "weekend", "label": "Weekend"}],
        ),
        question(
            "q_notes", prompt="Anything the agent should know?", multiline=True, optional=True
        ),
    ],
    "actions": [
        {"id": "a_skip", "label": "Skip the migration", "style": "danger"},
        {"id": "a_later", "label": "Ask me later", "style": "primary"},
    ],
}
ANSWERS = {
    "inputResponses": [
        {"requestId": "q_env", "optionIds": ["prod"]},
        {"requestId": "q_window", "text": "Sunday <!here>"},
    ]
}


def _render(interaction: Interaction, **ctx: Any) -> dict[str, Any]:
    message = render_question_message(interaction, MessageContext(now=NOW, **ctx))
    assert_valid_message(message)
    return dict(message)


def _mrkdwn(message: dict[str, Any]) -> Iterator[str]:
    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn":
                yield node["text"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    yield from walk(message["blocks"])


def _shown(message: dict[str, Any]) -> str:
    return "\n".join(_mrkdwn(message))


def _actions(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [b for b in message["blocks"] if b["type"] == "actions"]
    return [e for b in blocks for e in b["elements"]]


def assert_only_details(message: dict[str, Any]) -> None:
    """An ended message offers nothing but the Details button (the viewer's action)."""
    assert [(e["action_id"], e["value"]) for e in _actions(message)] == [
        (ActionId.VIEW_INPUT, INTERACTION_ID)
    ]


def _slack(verb: str, note: str | None = None) -> SlackDecision:
    return SlackDecision(actor=ANN, at=NOW, verb=verb, note=note)


def test_pending_message_offers_answer_actions_and_dismiss() -> None:
    message = _render(make_interaction(REQUEST))
    (block,) = [b for b in message["blocks"] if b["type"] == "actions"]
    assert interaction_id_from_block_id(block["block_id"]) == INTERACTION_ID
    answer, skip, later, dismiss, remind = block["elements"]
    assert (answer["action_id"], answer["value"], answer["style"]) == (
        ActionId.ANSWER,
        INTERACTION_ID,
        "primary",
    )
    assert skip["style"] == "danger" and "confirm" in skip
    assert later["style"] == "primary" and "confirm" not in later
    assert all(
        action_id_pattern(ActionId.QUESTION_ACTION).match(b["action_id"]) for b in (skip, later)
    )
    interaction = make_interaction(REQUEST)
    assert parse_action_choice(interaction, skip["value"]).request_id == "a_skip"  # type: ignore[union-attr]
    assert parse_action_choice(interaction, later["value"]).request_id == "a_later"  # type: ignore[union-attr]
    assert remind["action_id"] == ActionId.QUESTION_REMIND and "confirm" not in remind
    assert [o["value"] for o in remind["options"]] == [  # 30 min left
        OverflowValue.REMIND_15_MIN,
        OverflowValue.REMIND_BEFORE_EXPIRY,
    ]
    assert (dismiss["type"], dismiss["action_id"], dismiss["value"]) == (
        "button",
        ActionId.QUESTION_DISMISS,
        INTERACTION_ID,
    )
    assert dismiss["confirm"]["confirm"]["text"] == "Dismiss"
    assert [e["type"] for e in block["elements"]].count("overflow") == 1  # one ⋮ menu


def test_pending_message_summarises_each_question() -> None:
    many = question("q_many", prompt="Region", options=options(12))
    message = _render(make_interaction({**REQUEST, "questions": [*REQUEST["questions"], many]}))
    assert (
        message["blocks"][0]["text"]["text"] == "❓ Which environments should the migration run in?"
    )
    shown = _shown(message)
    assert "*Environments* — _choose several_: Staging, Production" in shown
    assert "*Maintenance window* — _choose one or write your own_: Tonight, Weekend" in shown
    assert "*Anything the agent should know?* — _free text, optional_" in shown
    assert "Option 4, +7 more" in shown
    assert "Optional longer text (markdown)." in shown
    assert "Asked by `agt_1` · Decide by" in shown and "Run `run_1` · Step 3" in shown
    assert "expires in less than an hour" in shown


def test_one_short_single_choice_question_is_answered_from_the_message() -> None:
    interaction = make_interaction(
        {
            "title": "Deploy?",
            "questions": [
                question(
                    "q_go",
                    options=[
                        {"id": "yes", "label": "Yes"},
                        {"id": "no", "label": "No"},
                        {"id": "a b/c?=&", "label": "Later"},
                    ],
                )
            ],
        }
    )
    elements = _actions(_render(interaction))
    quick = [e for e in elements if action_id_pattern(ActionId.QUICK_OPTION).match(e["action_id"])]
    assert [b["text"]["text"] for b in quick] == ["Yes", "No", "Later"]
    assert len({e["action_id"] for e in elements}) == len(elements)
    answer = parse_quick_option(interaction, quick[2]["value"])
    assert answer is not None and answer.option_id == "a b/c?=&"
    assert any(e["action_id"] == ActionId.ANSWER for e in elements)


@pytest.mark.parametrize(
    "fields",
    [
        {"options": options(6)},
        {"options": options(3), "multiple": True},
        {"options": options(3), "allowOther": True},
        {"options": options(3), "multiline": True},
        {},
    ],
)
def test_anything_else_needs_the_form(fields: dict[str, Any]) -> None:
    elements = _actions(
        _render(make_interaction({"title": "T", "questions": [question(**fields)]}))
    )
    assert not [e for e in elements if e["action_id"].startswith(ActionId.QUICK_OPTION)]
    two = make_interaction(
        {
            "title": "T",
            "questions": [question("a", options=options(2)), question("b", options=options(2))],
        }
    )
    assert not [
        e for e in _actions(_render(two)) if e["action_id"].startswith(ActionId.QUICK_OPTION)
    ]


def test_actions_beyond_the_cap_are_counted_not_shown() -> None:
    actions = [
        {"id": f"a{i}", "label": f"Action {i}", "style": "danger"}
        for i in range(MAX_ACTION_BUTTONS + 4)
    ]
    message = _render(
        make_interaction({"title": "T", "questions": [question()], "actions": actions})
    )
    buttons = [e for e in _actions(message) if e["action_id"].startswith(ActionId.QUESTION_ACTION)]
    assert len(buttons) == MAX_ACTION_BUTTONS
    assert "4 more actions" in _shown(message)


def _resolved(resolution: dict[str, Any], **fields: Any) -> Interaction:
    return make_interaction(REQUEST, status="resolved", resolution=resolution, **fields)


def test_answered_in_slack_shows_who_and_the_answers_by_label() -> None:
    message = _render(_resolved(ANSWERS), decided_in_slack=_slack("Answered"))
    shown = _shown(message)
    assert "✅ Answered by <@U0ANN> · <!date^" in shown
    assert "*Environments*: Production" in shown
    assert "*Maintenance window*: Other: Sunday &lt;!here&gt;" in shown
    assert "prod" not in shown.replace("Production", "")
    assert_only_details(message)


def test_answered_outside_slack_shows_the_answers() -> None:
    message = _render(_resolved(ANSWERS))
    shown = _shown(message)
    assert "Answered outside Slack · <!date^" in shown
    assert "*Environments*: Production" in shown
    assert_only_details(message)


def test_an_action_chosen_outside_slack_is_named() -> None:
    shown = _shown(_render(_resolved({"inputResponses": [{"requestId": "a_skip"}]})))
    assert "Chose “Skip the migration”" in shown


def test_an_action_chosen_in_slack_is_named_once() -> None:
    resolution = {"inputResponses": [{"requestId": "a_skip"}]}
    shown = _shown(
        _render(_resolved(resolution), decided_in_slack=_slack("Chose “Skip the migration”"))
    )
    assert shown.count("Chose “Skip the migration”") == 1
    shown = _shown(_render(_resolved(resolution), decided_in_slack=_slack("Answered")))
    assert "Chose “Skip the migration”" in shown


def test_dismissed_in_slack() -> None:
    interaction = make_interaction(REQUEST, status="cancelled", resolution={"cancel": True})
    message = _render(interaction, decided_in_slack=_slack("Dismissed", note="not needed"))
    shown = _shown(message)
    assert "Dismissed by <@U0ANN> · <!date^" in shown
    assert ">not needed" in shown
    assert_only_details(message)


def test_dismissed_outside_slack_shows_the_reason_escaped() -> None:
    interaction = make_interaction(
        REQUEST, status="cancelled", reason="run cancelled <!channel>", resolution={"cancel": True}
    )
    shown = _shown(_render(interaction))
    assert "🚫 Dismissed outside Slack · <!date^" in shown
    assert "Reason: run cancelled &lt;!channel&gt;" in shown


def test_expired() -> None:
    interaction = make_interaction(
        REQUEST, status="cancelled", resolution={"reason": TIMEOUT_REASON}
    )
    message = _render(interaction)
    assert "⌛ Expired — nobody answered in time" in _shown(message)
    assert "Expired — nobody answered in time" in message["text"]
    assert_only_details(message)


def test_gone() -> None:
    message = _render(make_interaction(REQUEST), gone=True)
    assert "no longer exists" in _shown(message)
    assert_only_details(message)


def test_queued_answer_shows_no_buttons() -> None:
    message = _render(make_interaction(REQUEST), queued=_slack("Answer"))
    shown = _shown(message)
    assert "⏳" in shown and "<@U0ANN>" in shown and "delivering" in shown
    assert not _actions(message)


def test_unreadable_recorded_answers_are_said_so() -> None:
    message = _render(_resolved({"inputResponses": [{"optionId": "no request id"}]}))
    assert "could not be read" in _shown(message)


def test_fallback_text_and_metadata() -> None:
    message = _render(make_interaction(REQUEST))
    title = REQUEST["title"]
    assert message["text"] == f"{title} — agt_1 asks · expires in less than an hour"
    assert message["metadata"]["event_payload"] == {
        "interaction_id": INTERACTION_ID,
        "kind": "question",
        "status": "pending",
    }


HOSTILE = "<!channel> <@U999> <#C1> <http://evil.example|click> @here *bold* `code` ```fence"


@pytest.mark.parametrize("status", ["pending", "resolved"])
def test_agent_text_is_shown_never_executed(status: str) -> None:
    request = {
        "title": HOSTILE,
        "details": HOSTILE,
        "questions": [
            question(
                "q_h", prompt=HOSTILE, allowOther=True, options=[{"id": "o", "label": HOSTILE}]
            )
        ],
        "actions": [{"id": "a", "label": HOSTILE, "style": "danger"}],
    }
    resolution = {"inputResponses": [{"requestId": "q_h", "optionId": "o", "text": HOSTILE}]}
    interaction = make_interaction(
        request, status=status, resolution=resolution if status == "resolved" else None
    )
    message = _render(interaction)
    texts = [*_mrkdwn(message), message["text"]]
    for text in texts:
        for token in ("<!channel>", "<@U999>", "<#C1>", "<http://evil", "@here"):
            assert token not in text
    assert any("&lt;!channel&gt;" in text for text in texts)
    header = message["blocks"][0]["text"]
    assert header["type"] == "plain_text" and "<!channel>" in header["text"]


def test_text_budget_is_under_slacks_total() -> None:
    assert TEXT_BUDGET <= MESSAGE_TEXT_BUDGET < MESSAGE_TOTAL_TEXT


@pytest.mark.parametrize("status", ["pending", "resolved"])
def test_everything_at_its_largest_still_posts(status: str) -> None:
    huge = "&<>*_" * 2_000
    opts = [{"id": "x" * 300 + str(i), "label": huge, "description": huge} for i in range(500)]
    questions = [
        question(f"q{i}", prompt=huge, options=opts, multiple=bool(i % 2), allowOther=True)
        for i in range(60)
    ]
    actions = [{"id": f"a{i}", "label": huge, "style": "danger"} for i in range(40)]
    resolution = {
        "inputResponses": [
            {
                "requestId": f"q{i}",
                "text": huge,
                **({"optionIds": [opts[1]["id"]]} if i % 2 else {"optionId": opts[0]["id"]}),
            }
            for i in range(60)
        ]
    }
    interaction = make_interaction(
        {"title": huge, "details": huge, "questions": questions, "actions": actions},
        status=status,
        resolution=resolution if status == "resolved" else None,
        agentId="agt_" + huge,
        reason=huge if status == "resolved" else None,
    )
    message = _render(
        interaction,
        decided_in_slack=_slack("Answered", note=huge) if status == "resolved" else None,
    )
    if status == "pending":
        assert len(json.dumps(message)) > 10_000


@pytest.mark.parametrize(
    ("status", "resolution", "ctx"),
    [
        ("resolved", ANSWERS, {"decided_in_slack": _slack("Answered")}),
        ("resolved", {"inputResponses": [{"requestId": "a_skip"}]}, {}),
        ("cancelled", {"cancel": True}, {"decided_in_slack": _slack("Dismissed")}),
        ("cancelled", {"reason": TIMEOUT_REASON}, {}),
        ("pending", None, {"gone": True}),
    ],
)
def test_an_ended_message_drops_details_and_options(
    status: str, resolution: dict[str, Any] | None, ctx: dict[str, Any]
) -> None:
    message = _render(make_interaction(REQUEST, status=status, resolution=resolution), **ctx)
    ids = [b["block_id"] for b in message["blocks"]]
    assert ids[:2] == ["novo_q_header", "novo_status"] and ids[-1] == "novo_details"
    assert all(i.startswith("novo_q_answers:") for i in ids[2:-1])
    shown = _shown(message)
    assert "Optional longer text" not in shown and "choose several" not in shown
    assert_only_details(message)


def test_markdown_in_the_request_is_shown_as_formatting() -> None:
    request = {
        "title": "Ship **api-gateway**?",
        "details": "Read [the plan](https://wiki.example/plan) and **confirm**.",
        "questions": [question("q_go", prompt="Go **now**?", options=options(7))],
    }
    message = _render(make_interaction(request), agent_names={"agt_1": "Release Bot"})
    assert message["blocks"][0]["text"]["text"] == "❓ Ship api-gateway?"
    shown = _shown(message)
    assert "Read <https://wiki.example/plan|the plan> and *confirm*." in shown
    assert "• *Go now?* — _choose one_" in shown
    assert message["text"] == "Ship api-gateway? — Release Bot asks · expires in less than an hour"
