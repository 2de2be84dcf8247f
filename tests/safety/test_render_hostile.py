"""Whatever an agent or a server writes, what we render is safe to send and to show.

Lone surrogates, NUL, bidi controls and absurd nesting go through every
surface: messages in every state, their fingerprint, the modals, the input
viewer, the question form and its searchable options, notices and the
sentences people are told.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.bridge.presenter import ephemeral_text
from bot.domain import SlackActor, SlackDecision
from bot.outcomes import BadAnswer, DecisionOutcome, Ended, OutcomeKind
from bot.slack.ids import ActionId
from bot.slack.render.common import ELLIPSIS, REPLACEMENT, _cleaned, clean_rendered, clean_text
from bot.slack.render.context import MessageContext
from bot.slack.render.input_viewer import input_viewer_page_count, render_input_viewer
from bot.slack.render.message import fingerprint, render_message
from bot.slack.render.modals import ReasonIntent, render_notice_modal, render_reason_modal
from bot.slack.render.outcomes import describe_final_state, outcome_text
from bot.slack.render.question_modal import (
    question_modal_page_count,
    render_question_modal,
    search_external_options,
)
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view

from .helpers import (
    HOSTILE,
    LONE_SURROGATE,
    NOW,
    RLO,
    assert_clean,
    hostile_request,
    mrkdwn_of,
    nested,
    record,
)

ADA = SlackActor("U0ADA", "Ada " + HOSTILE)
CHOSE = SlackDecision(ADA, NOW, "Chose “" + HOSTILE + "”", note=HOSTILE)


def contexts() -> list[MessageContext]:
    return [
        MessageContext(now=NOW),
        MessageContext(now=NOW, decided_in_slack=CHOSE),
        MessageContext(now=NOW, queued=CHOSE),
        MessageContext(now=NOW, gone=True),
    ]


def test_clean_text_rules() -> None:
    assert clean_text("a" + LONE_SURROGATE + "b") == "a" + REPLACEMENT + "b"
    assert clean_text("a\x00b") == "ab"
    assert clean_text(f"x{RLO}y\u2066z\u2069") == f"x{REPLACEMENT}y{REPLACEMENT}z{REPLACEMENT}"
    assert clean_text("\u200fabc\u200e\u061c") == "abc"
    assert clean_text("plain ascii") == "plain ascii"
    assert clean_text("😀 ü") == "😀 ü"


@pytest.mark.parametrize(
    "value",
    [
        {"text": "nul\x00", "k\x00": "v"},
        {"type": "mrkdwn", "text": ""},
        {"type": "plain_text", "text": "\x00"},
        ["rlm\u200f", {"deep": ["\u202eevil", "lone \ud800"]}],
        {"fine": ["ascii", "ünïcode 🙂", 1.5, None, True]},
        {"quoted": 'a "text": "" inside'},
        ("a tuple is left as it is", "\x00"),
    ],
)
def test_the_quick_look_cleans_exactly_what_the_walk_does(value: object) -> None:
    """Nothing to clean is found by one search of the serialised value; whatever it lets
    through must be what walking every string would have given."""
    assert clean_rendered(value) == _cleaned(value)


@pytest.mark.parametrize("kind", ["approval_request", "question", "handoff_" + HOSTILE])
def test_messages_in_every_state_are_clean_and_fingerprint_never_raises(kind: str) -> None:
    """Each kind's renderer cleans what it returns (a kind this bridge can't show too)."""
    for ctx in contexts():
        message = render_message(record(kind), ctx)
        assert_valid_message(message)
        assert_clean(message)
        assert len(fingerprint(message)) == 64
        for text in [message["text"], *mrkdwn_of(message)]:  # plain_text is never interpreted
            assert "<!channel>" not in text and "<https://evil" not in text


def test_fingerprint_of_unclean_text_does_not_raise() -> None:
    message = render_message(record("approval_request"), MessageContext(now=NOW))
    raw = message.copy()
    raw["text"] = "posted" + LONE_SURROGATE
    assert fingerprint(raw) != fingerprint(message)


def test_the_header_cannot_be_made_to_read_backwards() -> None:
    title = "Deploy " + RLO + "noitcudorp ot\u202c"
    interaction = record(request={**hostile_request(), "title": title})
    header = render_message(interaction, MessageContext(now=NOW))["blocks"][0]["text"]["text"]
    assert RLO not in header
    assert "noitcudorp ot" in header  # shown in the order it was written, visibly marked


@pytest.mark.parametrize("depth", [300, 5_000])
def test_input_nested_deeper_than_shown_is_cut_not_raised(depth: int) -> None:
    interaction = record(
        "approval_request", input={"deep": nested(depth)}, preview={"p": nested(depth)}
    )
    message = render_message(interaction, MessageContext(now=NOW))
    assert_valid_message(message)
    assert ELLIPSIS in str(message)
    fingerprint(message)
    for page in range(input_viewer_page_count(interaction)):
        view = render_input_viewer(interaction, page)
        assert_valid_view(view)
        assert_clean(view)


def test_modals_and_options_are_clean() -> None:
    approval = record("approval_request")
    intents: list[ReasonIntent] = ["deny", "approve_note"]
    for intent in intents:
        view = render_reason_modal(approval, intent)
        assert_valid_view(view)
        assert_clean(view)
    for page in range(input_viewer_page_count(approval)):
        assert_clean(render_input_viewer(approval, page))
    question = record(request=hostile_request(options=150))
    assert question.request is not None
    for page in range(question_modal_page_count(question.request)):
        view = render_question_modal(question, page, errors_note=HOSTILE)
        assert_valid_view(view)
        assert_clean(view)
        assert all("<!channel>" not in text for text in mrkdwn_of(view))
    found = search_external_options(question, ActionId.ANSWER_INPUT, "q0", "")
    assert found
    assert_clean(found)


def test_notice_keeps_our_mentions_and_escapes_each_piece_once() -> None:
    text = f"It was already denied by <@U0ADA> (a &amp; b). {HOSTILE}"
    view = render_notice_modal("Nothing to answer", text)
    assert_valid_view(view)
    assert_clean(view)
    shown = mrkdwn_of(view)[0]
    assert "<@U0ADA>" in shown
    assert "a &amp; b" in shown and "&amp;amp;" not in shown
    assert "<!channel>" not in shown and "<https://evil" not in shown
    assert "&lt;!channel&gt;" in shown


def test_already_chose_names_the_label_escaped() -> None:
    resolved = record(
        status="resolved", expiresAt=None, resolvedAt=(NOW + timedelta(1)).isoformat()
    )
    text = describe_final_state(resolved, CHOSE)
    assert text.startswith("<@U0ADA> already chose “")
    assert "<!channel>" not in text and "<https://evil" not in text
    said = ephemeral_text(
        outcome_text(DecisionOutcome(OutcomeKind.NOT_WAITING, Ended(resolved, CHOSE)))
    )
    assert said == ephemeral_text(text)
    assert_clean(said)
    assert "<@U0ADA>" in said and "&amp;amp;" not in said


def test_novo_error_text_is_escaped_once() -> None:
    outcome = DecisionOutcome(
        OutcomeKind.REJECTED, BadAnswer("<!channel> a & b <https://x|y>", by_novo=True)
    )
    text = outcome_text(outcome)
    assert text == "Novo refused that answer: &lt;!channel&gt; a &amp; b &lt;https://x|y&gt;"
    assert outcome.detail == "<!channel> a & b <https://x|y>"
    assert ephemeral_text(text) == text
    # a text built before escaping was wired in is still defused on the way out
    raw = "Novo refused that answer: <!channel> & co"
    assert ephemeral_text(raw) == "Novo refused that answer: &lt;!channel&gt; &amp; co"
