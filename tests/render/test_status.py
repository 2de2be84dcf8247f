"""The kind-neutral status part: which state wins, and how people and ids are written."""

from __future__ import annotations

import pytest

from bot.novo.models import Interaction
from bot.slack.render.context import MessageContext, SlackActor
from bot.slack.render.record import context_block, record_block
from bot.slack.render.status import (
    NO_DEADLINE_TEXT,
    accepts_decisions,
    actor_mention,
    actor_name,
    display_state,
    fenced_code,
    inline_code,
    status_block,
    status_summary,
)

from .conftest import NOW, Case, MakeApproval, MakeDecision, finalized_fields
from .helpers import code_body


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("pending", "pending"),
        ("approved_in_slack", "decided"),
        ("approved_elsewhere", "elsewhere"),
        ("expired", "expired"),
        ("cancelled", "cancelled"),
        ("queued", "queued"),
        ("gone", "gone"),
    ],
)
def test_each_case_shows_its_state(name: str, state: str, cases: dict[str, Case]) -> None:
    interaction, ctx = cases[name]
    assert display_state(interaction, ctx) == state
    assert accepts_decisions(interaction, ctx) is (state == "pending")


def test_final_record_beats_a_queued_decision(
    make_decision: MakeDecision,
) -> None:
    record = Interaction.model_validate(finalized_fields("resolved", "deny", "by API"))
    ctx = MessageContext(now=NOW, queued=make_decision("Approved"))
    assert display_state(record, ctx) == "elsewhere"


def test_timeout_beats_a_slack_decision(make_decision: MakeDecision) -> None:
    record = Interaction.model_validate(
        finalized_fields("cancelled", "cancel", "interaction_timeout")
    )
    ctx = MessageContext(now=NOW, decided_in_slack=make_decision("Approved"))
    assert display_state(record, ctx) == "expired"


def test_timeout_is_read_from_the_resolution_too() -> None:
    fields = finalized_fields("cancelled", "cancel", None)
    fields["resolution"] = {"reason": "interaction_timeout"}
    assert display_state(Interaction.model_validate(fields), MessageContext(now=NOW)) == "expired"


def test_gone_beats_everything(make_decision: MakeDecision, approval: Interaction) -> None:
    ctx = MessageContext(now=NOW, gone=True, decided_in_slack=make_decision())
    assert display_state(approval, ctx) == "gone"


def test_acknowledged_decision_on_a_stale_pending_read_offers_no_buttons(
    approval: Interaction, make_decision: MakeDecision
) -> None:
    ctx = MessageContext(now=NOW, decided_in_slack=make_decision("Denied"))
    assert not accepts_decisions(approval, ctx)
    assert status_block(approval, ctx)["text"]["text"].startswith("❌ Denied by <@U0ADA1>")


def test_icon_follows_novo_decision_not_the_verb(make_decision: MakeDecision) -> None:
    record = Interaction.model_validate(finalized_fields("resolved", "deny", None))
    ctx = MessageContext(now=NOW, decided_in_slack=make_decision("Approved"))
    assert status_block(record, ctx)["text"]["text"].startswith("❌ ")


def test_no_deadline(make_approval: MakeApproval) -> None:
    interaction = make_approval(expires_at=None)
    ctx = MessageContext(now=NOW)
    assert NO_DEADLINE_TEXT in status_block(interaction, ctx)["text"]["text"]
    assert status_summary(interaction, ctx) == "no deadline"


@pytest.mark.parametrize(
    ("name", "summary"),
    [
        ("approved_in_slack", "Approved by Ada Lovelace"),
        ("approved_elsewhere", "Approved outside Slack"),
        ("denied_elsewhere", "Denied outside Slack"),
        ("expired", "Expired — nobody decided in time"),
        ("cancelled", "Cancelled"),
        ("queued", "Approved by Ada Lovelace — delivering to Novo"),
        ("gone", "This request no longer exists in Novo"),
    ],
)
def test_summaries(name: str, summary: str, cases: dict[str, Case]) -> None:
    interaction, ctx = cases[name]
    assert status_summary(interaction, ctx) == summary


def test_only_real_user_ids_become_mentions() -> None:
    assert actor_mention(SlackActor("U0ADA1", "Ada")) == "<@U0ADA1>"
    forged = actor_mention(SlackActor("U1> <!channel", "<!channel> Eve"))
    assert "<" not in forged and "@channel" not in forged


def test_long_note_is_cut_but_the_date_token_stays_whole(
    approval: Interaction, make_decision: MakeDecision
) -> None:
    ctx = MessageContext(now=NOW, decided_in_slack=make_decision("Denied", "&" * 2_000))
    text = status_block(approval, ctx)["text"]["text"]
    assert len(text) <= 3_000
    first_line = text.split("\n")[0]
    assert first_line.endswith(">") and first_line.count("<") == first_line.count(">")
    assert text.endswith("…")


def test_inline_code_cannot_be_closed_or_broken() -> None:
    code = inline_code("a`b\nc<!here>*_~", 100)
    assert code.startswith("`") and code.endswith("`") and code.count("`") == 2
    assert "\n" not in code and "<" not in code
    assert "*_~" in code  # inert inside a code span: ids stay copyable


def test_inline_code_limit_bounds_the_escaped_text() -> None:
    assert len(inline_code("&" * 500, 100)) == 102


@pytest.mark.parametrize("run", [3, 4, 5, 6, 7, 10])
def test_fenced_code_survives_any_backtick_run(run: int) -> None:
    body = code_body(fenced_code("x" + "`" * run + "y", 3_000))
    assert body.replace("\u200b", "") == "x" + "`" * run + "y"


def test_context_escapes_ids(make_approval: MakeApproval) -> None:
    interaction = make_approval(
        agent_id="<!channel>", run_id="<@U1>", thread_id="<http://evil|click>"
    )
    ctx = MessageContext(now=NOW)
    for block in (context_block(interaction, ctx), record_block(interaction)):
        assert "<" not in block["elements"][0]["text"]


def test_pending_status_says_who_asks_then_by_when(make_approval: MakeApproval) -> None:
    interaction = make_approval()
    text = status_block(interaction, MessageContext(now=NOW))["text"]["text"]
    assert text.startswith("⏱️ Asked by `agt_deployer` · Decide by <!date^")
    named = MessageContext(now=NOW, agent_names={"agt_deployer": "Release **Bot**"})
    text = status_block(interaction, named)["text"]["text"]
    assert text.startswith("⏱️ Asked by *Release *​*​Bot*​*​* · Decide by")


def test_names_are_cut_between_words() -> None:
    long_name = "Augusta Ada King Countess of Lovelace " * 4
    shown = actor_name(SlackActor("not-a-user-id", long_name))
    assert shown.endswith("…") and len(shown) <= 80
    assert long_name.startswith(shown[:-1] + " ")
    assert actor_mention(SlackActor("not-a-user-id", long_name)) == shown
