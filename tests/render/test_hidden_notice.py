"""A message whose record had values masked says so (`🔒 2 values hidden`), so a decider
knows the input shown is not all there is; a record with nothing hidden says nothing."""

from __future__ import annotations

import json

from bot.redaction import redact_interaction
from bot.slack.render.context import MessageContext
from bot.slack.render.input_viewer import render_input_viewer
from bot.slack.render.message import render_message
from tests.redaction.planted import SECRETS

from .conftest import MakeApproval


def test_the_message_and_the_viewer_say_how_many_values_were_hidden(
    make_approval: MakeApproval, ctx: MessageContext
) -> None:
    raw = make_approval(
        input={"password": SECRETS["secret_key"], "token": SECRETS["github_token"], "n": 6},
        preview={"Service": "billing-api", "Token": SECRETS["github_token"]},
    )
    shown = redact_interaction(raw).shown
    message = json.dumps(render_message(shown, ctx), ensure_ascii=False)
    assert "🔒 3 values hidden" in message
    assert SECRETS["github_token"][4:] not in message and SECRETS["secret_key"] not in message
    viewer = json.dumps(render_input_viewer(shown, 0), ensure_ascii=False)
    assert "🔒 3 values hidden" in viewer and SECRETS["secret_key"] not in viewer


def test_nothing_hidden_says_nothing(make_approval: MakeApproval, ctx: MessageContext) -> None:
    shown = redact_interaction(make_approval()).shown
    assert "🔒" not in json.dumps(render_message(shown, ctx), ensure_ascii=False)


def test_one_value_is_singular(make_approval: MakeApproval, ctx: MessageContext) -> None:
    shown = redact_interaction(make_approval(input={"api_key": "k-123456"})).shown
    assert "🔒 1 value hidden" in json.dumps(render_message(shown, ctx), ensure_ascii=False)
