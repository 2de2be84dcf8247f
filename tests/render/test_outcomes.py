"""The words for outcomes: every fact a service can report has them, and they read as
people have been reading them."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.outcomes import (
    BadAnswer,
    DecisionOutcome,
    Delivered,
    Ended,
    GroupOutcome,
    InFlight,
    ItemFate,
    Notice,
    OutcomeKind,
    Refusal,
    RefusalKind,
    Tally,
)
from bot.slack.render.context import QuorumState
from bot.slack.render.outcomes import (
    fact_text,
    group_reply_text,
    group_summary,
    not_waiting_text,
    outcome_text,
)
from bot.slack.render.quorum import dropped_text
from tests.render.conftest import finalized_fields


@pytest.mark.parametrize("notice", list(Notice))
def test_every_notice_has_words(notice: Notice) -> None:
    assert fact_text(notice).endswith(".")


@pytest.mark.parametrize("why", list(RefusalKind))
def test_every_refusal_has_words(why: RefusalKind) -> None:
    assert fact_text(Refusal(why, ("U0ADA",))).endswith(".")


def test_group_summary_words_every_fate() -> None:
    fates = Counter(dict.fromkeys(ItemFate, 1))
    summary = group_summary(GroupOutcome("U0ADA", True, fates))
    assert summary.startswith("Approve all by <@U0ADA>: 1 approved, 1 denied, 1 had already")
    assert "1 not sent: Slack couldn't confirm who you are just now" in summary
    assert summary.count(", 1 ") == len(ItemFate) - 1


def test_the_words_people_read() -> None:
    assert fact_text(Delivered("Chose “Skip”")) == "Chose “Skip”."
    assert fact_text(InFlight("U0BOB")) == (
        "<@U0BOB> already decided this one; their decision is being delivered."
    )
    assert fact_text(InFlight(None)).startswith("someone else already decided")
    assert fact_text(Tally(1, 3, counted=True)) == (
        "Your approval is counted: 1 of 3. It goes to the agent when 2 more deciders approve."
    )
    assert fact_text(Tally(2, 3, counted=True)).endswith("when 1 more decider approves.")
    assert fact_text(Tally(2, 3, counted=False)) == (
        "You already approved this one (2 of 3 approvals)."
    )
    assert fact_text(Refusal(RefusalKind.NOT_A_DECIDER, ("U0ADA",), ("S0SRE",))) == (
        "Only <@U0ADA> or members of <!subteam^S0SRE> can decide this."
    )
    assert fact_text(Refusal(RefusalKind.NOT_A_DECIDER)).startswith(
        "Nobody can decide this one in Slack"
    )
    assert fact_text(BadAnswer("x" * 900, by_novo=False)).startswith("That answer can't be sent: x")
    assert len(fact_text(BadAnswer("x" * 900, by_novo=True))) < 600


def test_a_refusal_that_quotes_a_credential_shows_it_masked() -> None:
    token = "ghp_" + "Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu0aXy"
    text = fact_text(BadAnswer(f"'{token}' is not an option of this question", by_novo=True))
    assert text == (
        "Novo refused that answer: 'ghp_… (GitHub token hidden)' is not an option of this question"
    )


def test_an_ending_reads_the_same_in_a_note_and_a_form() -> None:
    denied = Interaction.model_validate(finalized_fields("resolved", "deny", "too risky"))
    ended = Ended(denied, None)
    assert fact_text(ended) == "It was already denied outside Slack (too risky)."
    assert fact_text(Ended(denied, None, lost_race=True)) == (
        "Not applied. It was already denied outside Slack (too risky)."
    )
    assert not_waiting_text(ended) == (
        "Novo is no longer waiting for an answer. It was already denied outside Slack (too risky)."
    )
    assert not_waiting_text(Notice.GONE) == "This request no longer exists in Novo."


def test_a_group_reply_adds_what_arrived_later_or_says_why_nothing_went() -> None:
    outcome = GroupOutcome("U0ADA", False, Counter({ItemFate.DENIED: 2}), arrived_later=1)
    assert group_reply_text(outcome) == (
        "Deny all by <@U0ADA>: 2 denied. 1 call arrived after you looked: review them first."
    )
    changed = DecisionOutcome(OutcomeKind.REJECTED, Notice.GROUP_CHANGED)
    assert group_reply_text(changed) == outcome_text(changed)
    assert group_summary(GroupOutcome("U0ADA", True)) == (
        "Approve all by <@U0ADA>: nothing was waiting."
    )


def test_a_dropped_vote_is_worded_from_the_reason_kept() -> None:
    quorum = QuorumState(
        needed=2,
        approvers=(),
        others="",
        dropped=(
            (SlackActor("U0ADA", "Ada"), "not a decider"),
            (SlackActor("U0BOB", "Bob"), "a guest now"),  # a row worded before
        ),
    )
    assert dropped_text(quorum) == (
        "<@U0ADA>'s approval no longer counts: not a decider since the policy changed"
        " · <@U0BOB>'s approval no longer counts: a guest now"
    )
