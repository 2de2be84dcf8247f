"""How a hidden value is shown: a mask that says what was there, never what it was.

A known format keeps its first 4 characters when the value is at least 16
long (`ghp_`, `AKIA`, `xoxb`, `eyJh`: the format's public prefix, at most a
quarter of the value); anything else keeps nothing, so a short password
gives nothing away. Never a hash either: a short value's hash is brute-forced
in seconds. Masks hold no character a detector looks for, so a shown copy
scanned again finds nothing new.
"""

from __future__ import annotations

from typing import Any

from bot.redaction.vendors import VENDORS

DOTS = "•••"
KEEP = 4
KEEP_FROM = 16

LABELS = {
    "aws_access_key": "AWS access key id",
    "aws_secret_key": "AWS secret key",
    "azure_storage_key": "Azure storage key",
    "discord_token": "Discord token",
    "github_token": "GitHub token",
    "gitlab_token": "GitLab token",
    "jwt": "JWT",
    "mailchimp_key": "Mailchimp key",
    "npm_token": "npm token",
    "openai_key": "OpenAI key",
    "anthropic_key": "Anthropic key",
    "google_api_key": "Google API key",
    "pypi_token": "PyPI token",
    "sendgrid_key": "SendGrid key",
    "slack_token": "Slack token",
    "square_token": "Square token",
    "stripe_key": "Stripe key",
    "telegram_token": "Telegram token",
    "twilio_key": "Twilio key",
    **{vendor.kind: vendor.label for vendor in VENDORS},
    "high_entropy": "credential-like value",
    "private_key": "private key",
    "auth_header": "credential",
    "url_password": "password in URL",
    "secret_key": "secret-like key",
    "policy_key": "key named by the policy",
    "policy_pattern": "pattern of the policy",
}
"""Every kind of hidden value, as `policy explain` and the masks name it; the metric's
`kind` label is the key."""
_UNPREFIXED = frozenset(
    {"private_key", "secret_key", "policy_key", "policy_pattern", "high_entropy", "age_key"}
)


def reason(kind: str) -> str:
    return LABELS.get(kind, kind)


def mask_text(kind: str, value: str) -> str:
    """The mask for a value found inside a text."""
    if kind == "url_password":
        return DOTS  # the URL around it says what it was
    if kind in _UNPREFIXED:
        return f"{DOTS} ({reason(kind)} hidden)" if kind != "secret_key" else f"{DOTS} (hidden)"
    prefix = value[:KEEP] if len(value) >= KEEP_FROM else ""
    return f"{prefix}… ({reason(kind)} hidden)"


def mask_value(kind: str, value: Any) -> str:
    """The mask for a whole value under a secret key: nothing of it is kept."""
    del value
    return f"{DOTS} (hidden)" if kind == "secret_key" else f"{DOTS} ({reason(kind)} hidden)"
