"""Credentials never reach Slack: what an agent put in a record is scanned before it is shown.

An agent's tool call carries whatever the agent put in it (a database URL with
its password, an API key, a bearer token). Slack keeps what the bridge posts
in history, search, exports and notifications for as long as the workspace
lives, so every string the bridge would show from an interaction's input,
preview, request, reason and resolution is scanned first and each value that
looks like a credential is replaced by a labelled mask
(`ghp_… (GitHub token hidden)`, `postgresql://app:•••@db:5432/prod`).

This package knows the interaction record and nothing of Slack or rendering:
`redact_interaction` turns a record into the copy that may be shown, with a
list of what was hidden and why (never the values). The raw record stays in
the store; the bridge needs it for nothing it shows.
"""

from bot.redaction.record import (
    Finding,
    Redacted,
    ShownInteraction,
    hidden_count,
    redact_interaction,
)
from bot.redaction.rules import DEFAULT_RULES, RedactionRules, Reveal
from bot.redaction.text import redact_text

__all__ = [
    "DEFAULT_RULES",
    "Finding",
    "Redacted",
    "RedactionRules",
    "Reveal",
    "ShownInteraction",
    "hidden_count",
    "redact_interaction",
    "redact_text",
]
