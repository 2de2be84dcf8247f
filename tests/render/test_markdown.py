"""Agent Markdown reaches Slack as mrkdwn that formats and never acts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.slack.render.markdown import agent_mrkdwn, fit_markdown, markdown_plain

from .helpers import assert_inert

Z = "\u200b"


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("Deploy **api-gateway** 2.4.1", "Deploy *api-gateway* 2.4.1"),
        ("__bold__ and _it_ and *it* and ~~gone~~", "*bold* and _it_ and _it_ and ~gone~"),
        ("run `rm -rf <dir>` now", "run `rm -rf &lt;dir&gt;` now"),
        (
            "see [the docs](https://x.example/a?b=1&c=2)",
            "see <https://x.example/a?b=1&amp;c=2|the docs>",
        ),
        ("- one\n* two\n+ three", "• one\n• two\n• three"),
        ("1. first\n2) second", "1. first\n2. second"),
        ("# Plan\n## Steps", "*Plan*\n*Steps*"),
        ("> quoted", ">quoted"),
        ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
        ("snake_case_name stays", "snake_case_name stays"),
    ],
)
def test_common_markdown_becomes_mrkdwn(source: str, shown: str) -> None:
    assert agent_mrkdwn(source) == shown


def test_fenced_code_keeps_its_lines_escaped() -> None:
    shown = agent_mrkdwn("before\n```sql\nSELECT * FROM t WHERE a < 1;\n```\nafter")
    assert shown == "before\n```\nSELECT * FROM t WHERE a &lt; 1;\n```\nafter"


def test_an_unclosed_fence_is_closed() -> None:
    assert agent_mrkdwn("```\n<!here>").endswith("\n```")


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "mailto:a@b.c", "ftp://x.example/f", "slack://open"]
)
def test_only_http_links_become_links(url: str) -> None:
    shown = agent_mrkdwn(f"[click]({url})")
    assert "<" not in shown and "click" in shown


def test_a_link_cannot_smuggle_a_mention_in_its_text() -> None:
    shown = agent_mrkdwn("[<!channel> |<@U1>](https://x.example)")
    assert shown.startswith("<https://x.example|")
    assert "<!channel>" not in shown and "<@U1>" not in shown


def test_stray_marks_cannot_pair_up() -> None:
    assert agent_mrkdwn("2 * 3 and 4 * 5") == f"2 *{Z} 3 and 4 *{Z} 5"
    assert agent_mrkdwn("**unclosed") == f"*{Z}*{Z}unclosed"


def test_plain_drops_the_markup() -> None:
    assert markdown_plain("Deploy **api** to [prod](https://x.example) `now`") == (
        "Deploy api to prod now"
    )


def test_fit_cuts_the_source_never_the_result() -> None:
    text = "[link](https://example.com/aaaaaaaa) " * 20 + "&" * 50
    for limit in (10, 41, 60, 100, 333):
        shown = fit_markdown(text, limit)
        assert len(shown) <= limit
        assert shown.count("<") == shown.count(">")
        assert "&am…" not in shown


def test_fit_prefers_a_word_break() -> None:
    assert fit_markdown("alpha beta gamma delta " * 10, 30) == "alpha beta gamma delta alpha…"


HOSTILE = st.sampled_from(
    [
        "<!channel>",
        "@here",
        "<@U0123ABC>",
        "<#C1|x>",
        "<http://e|x>",
        "[a](",
        "](http://e.x)",
        "**",
        "*",
        "_",
        "~~",
        "`",
        "```",
        "\n",
        "# ",
        "- ",
        "> ",
        "&",
        "|",
        "https://e.x/",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(HOSTILE, st.text(max_size=8)), max_size=20).map("".join))
def test_nothing_written_can_act(text: str) -> None:
    shown = agent_mrkdwn(text)
    links = [part for part in shown.split("<")[1:] if part.startswith(("http://", "https://"))]
    for link in links:
        url = link.split("|", 1)[0]
        assert " " not in url and "\n" not in url
    assert_inert(shown, allow_links=True)
    assert len(fit_markdown(text, 50)) <= 50
