"""Agent text can never ping, link or break formatting, and no input makes Slack refuse us.

Agent-written fields (input, preview keys and values, tool name, ids) are
fed hostile and oversized values, by hand and by a hypothesis fuzz, and
every message and viewer page must pass the validators and stay inert.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.context import MessageContext, SlackDecision
from bot.slack.render.input_viewer import input_viewer_page_count, render_input_viewer
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view

from .conftest import ADA, DECIDED_AT, NOW, Case, approval_fields, state_cases
from .helpers import assert_inert, block, code_body, mrkdwn_texts

HOSTILE = [
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "@here",
    "@channel",
    "<@U0123ABC>",
    "<#C0123|general>",
    "<http://evil.example|click me>",
    "https://evil.example",
    "```",
    "````",
    "`",
    "*",
    "_",
    "~",
    ">",
    "<",
    "&",
    "&lt;",
    "\x00",
    "😀",
    "\n",
    "\r\n",
    "\u2028",
    "ü",
]
HOSTILE_TEXT = "".join(HOSTILE)


def rendered_states(interaction: Interaction) -> list[tuple[str, dict[str, Any]]]:
    """The message for `interaction` in every state (pending, decided, …)."""
    results = []
    base = interaction.model_dump()
    for name, (template, ctx) in state_cases().items():
        fields = template.model_dump()
        for key in ("input", "preview", "tool_name", "agent_id", "run_id", "thread_id"):
            fields[key] = base[key]
        fields["root_run_id"] = base["root_run_id"]
        fields["worker_ref"] = base["worker_ref"]
        record = Interaction.model_validate(fields)
        results.append((name, dict(render_approval_message(record, ctx))))
    return results


def check_message(message: dict[str, Any]) -> None:
    assert_valid_message(message)
    allowed = frozenset({f"<@{ADA.user_id}>"})
    for text in mrkdwn_texts(message["blocks"]):
        assert_inert(text, allowed)
    assert_inert(message["text"])
    if any(b["block_id"] == "novo_input" for b in message["blocks"]):
        code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")


def check_viewer(interaction: Interaction) -> None:
    for page in range(input_viewer_page_count(interaction)):
        view = render_input_viewer(interaction, page)
        assert_valid_view(view)
        for text in mrkdwn_texts(view["blocks"]):
            assert_inert(text)
        for b in view["blocks"]:
            if b["type"] == "section" and b["block_id"].startswith("novo_input_"):
                code_body(b["text"]["text"])


def hostile(**overrides: Any) -> Interaction:
    return Interaction.model_validate(approval_fields(**overrides))


ADVERSARIAL = {
    "mentions everywhere": hostile(
        tool_name=HOSTILE_TEXT,
        agent_id=HOSTILE_TEXT,
        run_id=HOSTILE_TEXT,
        root_run_id="<!here>",
        worker_ref="<@U0123ABC>",
        thread_id=HOSTILE_TEXT,
        input={HOSTILE_TEXT: [HOSTILE_TEXT, {"k": HOSTILE_TEXT}]},
        preview={HOSTILE_TEXT: HOSTILE_TEXT, "n": [HOSTILE_TEXT]},
    ),
    "200 KB input": hostile(input={"blob": "x" * 200_000}),
    "200 KB of escapes": hostile(input="&<>`" * 50_000),
    "5,000 small dicts": hostile(input=[{"id": n, "tag": "<!here>"} for n in range(5_000)]),
    "5,000-key preview": hostile(preview={f"<@U{n}>": n for n in range(5_000)}),
    "3,000-char tool name": hostile(tool_name="deploy_" * 430),
    "10,000-char preview value": hostile(preview={"plan": "```" + "<!channel> " * 1_000}),
    "unicode, emoji, NULs": hostile(
        tool_name="🚀\x00\u200d" * 100, input={"😀": "\x00" * 500, "é": "\u2028" * 50}
    ),
    "None input": hostile(input=None, preview=None),
    "list input": hostile(input=[1, "two", None, [3.5]]),
    "number input": hostile(input=42),
    "empty strings": hostile(tool_name="", input="", preview={"": ""}),
    "triple backticks closing": hostile(input={"cmd": "```\n<!channel>\n```"}),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_messages_are_valid_and_inert(name: str) -> None:
    for state, message in rendered_states(ADVERSARIAL[name]):
        try:
            check_message(message)
        except AssertionError as error:
            raise AssertionError(f"{name} / {state}: {error}") from error


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_viewer_pages_are_valid_and_inert(name: str) -> None:
    check_viewer(ADVERSARIAL[name])


def test_backticks_in_input_cannot_close_the_code_block() -> None:
    message = render_approval_message(
        ADVERSARIAL["triple backticks closing"], MessageContext(now=NOW)
    )
    body = code_body(block(message, "novo_input")["text"]["text"], "*Input*\n")
    assert "<!channel>" not in body and "&lt;!channel&gt;" in body


def test_hostile_note_and_verb_from_slack_are_escaped(cases: dict[str, Case]) -> None:
    interaction, _ = cases["approved_in_slack"]
    decision = SlackDecision(
        actor=ADA, at=DECIDED_AT, verb="Chose “<!channel>”", note="<!here> see <http://x|y>"
    )
    message = render_approval_message(
        interaction, MessageContext(now=NOW, decided_in_slack=decision)
    )
    check_message(dict(message))


def test_hostile_reason_from_the_api_is_escaped() -> None:
    fields = approval_fields(
        status="resolved",
        decision="deny",
        reason="<!channel> " * 300,
        expires_at=None,
        resolved_at=DECIDED_AT,
    )
    message = render_approval_message(Interaction.model_validate(fields), MessageContext(now=NOW))
    check_message(dict(message))


# --- fuzz -------------------------------------------------------------------

pieces = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
fuzz_text = st.lists(pieces, max_size=6).map("".join)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), fuzz_text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(fuzz_text, inner, max_size=6)
    ),
    max_leaves=25,
)
ids = fuzz_text.filter(bool)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    value=json_values,
    preview=st.one_of(st.none(), st.dictionaries(fuzz_text, json_values, max_size=12)),
    tool_name=fuzz_text,
    agent_id=ids,
    run_id=ids,
    worker_ref=st.one_of(st.none(), ids),
)
def test_fuzzed_interactions_render_valid_and_inert(
    value: Any,
    preview: dict[str, Any] | None,
    tool_name: str,
    agent_id: str,
    run_id: str,
    worker_ref: str | None,
) -> None:
    interaction = hostile(
        input=value,
        preview=preview,
        tool_name=tool_name,
        agent_id=agent_id,
        run_id=run_id,
        worker_ref=worker_ref,
    )
    for _, message in rendered_states(interaction):
        check_message(message)
    check_viewer(interaction)


def test_configured_names_and_links_cannot_ping() -> None:
    interaction = hostile(run_id="run_1> <!channel", preview={"title": HOSTILE_TEXT})
    ctx = MessageContext(
        now=NOW,
        agent_names={interaction.agent_id: "<!here> <@U0123ABC> *bold*"},
        run_link_template="https://novo.example.com/runs/{runId}",
    )
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    for text in mrkdwn_texts(message["blocks"]):
        assert_inert(text, allow_links=True)
    assert_inert(message["text"])
    context = block(message, "novo_context")["elements"][0]["text"]
    assert "<https://novo.example.com/runs/run_1%3E%20%3C%21channel|" in context
