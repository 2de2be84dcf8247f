"""`/novo`'s answers as pure renders, and how what is typed is read.

Every answer must be a message Slack takes (`assert_valid_message`), show
nothing an agent or the caller wrote as live mrkdwn, and stay within Block
Kit's limits however long the list or the policy.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from bot.services.reports import RuleStats
from bot.slack.command_text import Help, Pending, Show, Stats, Unknown, parse
from bot.slack.render.commands import (
    LIST_LIMIT,
    SLOW_TEXT,
    STATS_RULES,
    CommandMessage,
    PendingLine,
    help_message,
    not_found_message,
    not_shown_message,
    pending_message,
    show_which_message,
    stats_message,
)
from bot.slack.render.context import MessageContext
from novo_dev.localslack.validation import assert_valid_message
from tests.render.conftest import NOW, MakeApproval
from tests.render.helpers import BARE_BROADCAST, texts

HOSTILE = "<!channel> *bold* <@U0ADA1> <https://evil.example|click> @here"


def shown(message: CommandMessage) -> str:
    return "\n".join([message["text"], *texts(message["blocks"])])


def valid(message: CommandMessage) -> str:
    assert_valid_message({**message})
    text = shown(message)
    for live in ("<!channel>", "<@U0ADA1>", "<https://evil.example"):
        assert live not in text
    assert not BARE_BROADCAST.search(text)
    return text


# ---------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("", Help()),
        ("   ", Help()),
        ("help", Help()),
        ("HELP me", Help()),
        ("pending", Pending()),
        ("Pending  billing   deploy ", Pending(("billing", "deploy"))),
        ("show int_01", Show("int_01")),
        ("show", Show("")),
        ("show int_01 int_02", Unknown("show int_01 int_02")),
        ("stats", Stats("24h")),
        ("stats 7D", Stats("7d")),
        ("stats 30d", Stats("30d")),
        ("stats 1y", Unknown("stats 1y")),
        ("stats 7d extra", Unknown("stats 7d extra")),
        ("approve int_01", Unknown("approve")),
    ],
)
def test_what_is_typed_is_read_as_one_subcommand(typed: str, command: object) -> None:
    assert parse(typed) == command


def test_stats_windows_say_their_length() -> None:
    assert Stats("7d").length == timedelta(days=7)
    assert Stats().words == "24 hours"


# ---------------------------------------------------------------------- help


def test_help_lists_every_subcommand() -> None:
    text = valid(help_message())
    for line in ("/novo pending [text]", "/novo show &lt;id&gt;", "/novo stats [24h|7d|30d]"):
        assert line in text
    assert "I don't know" not in text


def test_help_shows_back_what_was_not_understood_defused() -> None:
    text = valid(help_message(HOSTILE + " " + "x" * 500))
    assert "I don't know `&lt;!channel&gt;" in text
    assert len(text) < 2_000  # what was typed is cut


# ---------------------------------------------------------------------- pending


def ctx() -> MessageContext:
    return MessageContext(now=NOW, agent_names={"agt_deployer": "Deploy bot"})


def lines(make_approval: MakeApproval, count: int, **fields: Any) -> list[PendingLine]:
    return [
        PendingLine(
            make_approval(id=f"int_{i:02}", expires_at=NOW + timedelta(minutes=i + 1), **fields),
            f"https://novo-local.slack.com/archives/C0APPROVALS/p17000000000{i:02}",
        )
        for i in range(count)
    ]


def test_a_pending_line_links_its_title_and_says_who_asks_by_when(
    make_approval: MakeApproval,
) -> None:
    text = valid(pending_message(lines(make_approval, 1), 1, (), ctx()))
    assert "*1 request you can decide*" in text
    assert "<https://novo-local.slack.com/archives/C0APPROVALS/p1700000000000|" in text
    assert "Asked by *Deploy bot*" in text
    assert "expires in less than 5 min" in text
    assert "Tool `deploy_service` · Id `int_00`" in text
    assert "/novo show &lt;id&gt;" in text


def test_a_line_without_a_link_still_names_it(make_approval: MakeApproval) -> None:
    line = PendingLine(make_approval(), None)
    text = valid(pending_message([line], 1, ("deploy",), ctx()))
    assert "<http" not in text
    assert "matching `deploy`" in text


def test_agent_text_in_a_line_is_inert(make_approval: MakeApproval) -> None:
    interaction = make_approval(
        tool_name=HOSTILE, agent_id=HOSTILE, preview={"title": HOSTILE}, id=HOSTILE
    )
    valid(pending_message([PendingLine(interaction, "https://x.slack.com/a")], 1, (), ctx()))


def test_a_long_list_shows_the_soonest_and_counts_the_rest(make_approval: MakeApproval) -> None:
    many = lines(make_approval, LIST_LIMIT + 5)
    message = pending_message(many[:LIST_LIMIT], len(many), (HOSTILE,), ctx())
    text = valid(message)
    assert f"*{LIST_LIMIT + 5} requests you can decide*" in text
    assert "…and 5 more, later to expire" in text
    assert f"int_{LIST_LIMIT - 1:02}" in text and f"int_{LIST_LIMIT:02}" not in text


def test_nothing_pending_is_said_plainly() -> None:
    assert shown(pending_message([], 0, (), ctx())).startswith("Nothing is waiting for you")
    narrowed = valid(pending_message([], 0, ("deploy", "<!here>"), ctx()))
    assert "Nothing you can decide matches `deploy` `&lt;!here&gt;`." in narrowed


def test_a_list_cut_short_by_a_slow_slack_says_so(make_approval: MakeApproval) -> None:
    assert SLOW_TEXT in valid(pending_message([], 0, (), ctx(), complete=False))
    partial = valid(pending_message(lines(make_approval, 2), 2, (), ctx(), complete=False))
    assert SLOW_TEXT in partial and "int_01" in partial


# ---------------------------------------------------------------------- show


def test_show_answers_for_a_missing_or_withheld_card() -> None:
    assert "Which one?" in valid(show_which_message())
    assert "No request `int_x` is known here" in valid(not_found_message("int_x"))
    assert "isn't shown to you" in valid(not_shown_message(HOSTILE))


# ---------------------------------------------------------------------- stats


def figures(rule: str, waits: list[float], **outcomes: int) -> RuleStats:
    return RuleStats(rule, Counter(outcomes), waits)


def test_stats_give_outcomes_waits_and_expiry_per_rule() -> None:
    deploys = figures("deploys", [30, 90, 600], approved=2, denied=1, expired=1)
    defaults = figures("defaults", [], expired=2)
    overall = figures("", [30, 90, 600], approved=2, denied=1, expired=3)
    text = valid(stats_message([defaults, deploys], overall, "7 days"))
    assert "Decisions in the last 7 days" in text
    assert (
        "*All rules* — 6 ended\nApproved 2 · Denied 1 · Expired 3\n"
        "Time to decision: p50 1 min · p90 10 min · Expiry rate 50%"
    ) in text
    assert (
        "*deploys* — 4 ended\nApproved 2 · Denied 1 · Expired 1\n"
        "Time to decision: p50 1 min · p90 10 min · Expiry rate 25%"
    ) in text
    assert "*defaults* — 2 ended\nExpired 2\nTime to decision: nobody decided one" in text


def test_one_rule_needs_no_total_and_none_says_so() -> None:
    only = figures("deploys", [5], approved=1)
    text = valid(stats_message([only], only, "24 hours"))
    assert "All rules" not in text
    empty = valid(stats_message([], None, "24 hours"))
    assert "Nothing ended in the last 24 hours." in empty


def test_many_rules_stay_within_block_kit() -> None:
    rules = [figures(f"{HOSTILE} rule {i:03}", [1.0], approved=1) for i in range(STATS_RULES + 7)]
    overall = figures("", [1.0] * len(rules), approved=len(rules))
    text = valid(stats_message(rules, overall, "30 days"))
    assert "…and 7 more rules (7 ended)." in text
