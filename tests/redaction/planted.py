"""One credential of each kind the bridge must hide, and ordinary values it must not.

Each secret is distinctive, so finding any part of it past its first 4
characters (all a mask may keep) in what Slack received means it leaked.
"""

from __future__ import annotations

import base64
import json
from typing import Any


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


JWT = (
    f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64({'sub': 'pq7zw-x0r9-subject-77'})}"
    ".UHE3WndYMHI5VnQyTG04TnM0QmM2RGsx"
)
BODY = "Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu0aXyZw8Qe"
"""Random-looking characters, holding no word a mask's label uses."""
PEM_BEGIN, PEM_END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
PEM_BODY = "MIIEpAIBAAKCAQEApq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu0aXYZ"
SPLIT_PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Rt5Wq"

SECRETS: dict[str, str] = {
    "aws_access_key": "AKIAZ7QW3PQ7ZWX04LMN",
    "github_token": "ghp_" + BODY[:36],
    "gitlab_token": "glpat-Pq7ZwX0r9Vt2Lm8Ns4Bc",
    "slack_token": "xoxb-1234567890-0987654321-Pq7ZwX0r9Vt2Lm8Ns4",
    "slack_app_token": "xapp-1-A0PQ7ZWX-1234567890-pq7zwx0r9vt2lm8ns4bc6d",
    "stripe_key": "sk_live_" + BODY[:24],
    "google_api_key": "AIza" + BODY[:35],
    "openai_key": "sk-proj-Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu",
    "anthropic_key": "sk-ant-api03-Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu",
    "jwt": JWT,
    "private_key": PEM_BODY,
    "bearer": "Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3",
    "url_password": "Pq7Zw-X0r9!Vt2Lm",
    "secret_key": "pq7zw-x0r9-vt2lm-ns4bc",
    "shopify_token": "shpat_" + "7c0ffee5" * 3 + "d15ea5e5",
    "pair_value": "Wq4TnR8vXy2Lp6Zm3Kb9Hd5F",
    "key_token": "ghp_" + BODY[5:41],
    "split_pem": SPLIT_PEM_BODY,
}
"""kind → the value; what a shown text must never hold is each one past its 4th char."""

ORDINARY = {
    "commit": "3f786850e387550fdab836ed7e6dc881de23001b",
    "request_id": "123e4567-e89b-12d3-a456-426614174000",
    "host": "db.internal.example.com",
    "build": "4096",
    "ticket": "OPS-1234",
}


def leaked_parts() -> dict[str, str]:
    """What must not appear anywhere: each secret without the 4 characters a mask keeps."""
    return {kind: value[4:] for kind, value in SECRETS.items()}


def in_text() -> dict[str, str]:
    """Each secret as it would sit in free text (a command line, a note)."""
    return {
        **{
            k: v
            for k, v in SECRETS.items()
            if k not in {"private_key", "bearer", "url_password", "secret_key", "split_pem"}
        },
        "private_key": f"{PEM_BEGIN}\n{PEM_BODY}\n{PEM_END}",
        "split_pem": f"{PEM_BEGIN}\n{SPLIT_PEM_BODY}\n{PEM_END}",
        "bearer": f"Authorization: Bearer {SECRETS['bearer']}",
        "url_password": f"postgresql://app:{SECRETS['url_password']}@{ORDINARY['host']}:5432/prod",
        "secret_key": f"export DB_PASSWORD={SECRETS['secret_key']}",
    }


def approval_input() -> dict[str, Any]:
    """An approval's input holding every kind, beside ordinary values and key names."""
    texts = in_text()
    return {
        "db_url": texts["url_password"],
        "password": SECRETS["secret_key"],
        "command": " && ".join(
            texts[k] for k in ("aws_access_key", "github_token", "gitlab_token", "slack_token")
        ),
        "headers": {"X-Trace": ORDINARY["request_id"], "Note": texts["bearer"]},
        "keys": [texts[k] for k in ("stripe_key", "google_api_key", "openai_key", "anthropic_key")],
        "session": texts["jwt"],
        "app": texts["slack_app_token"],
        "deploy_key": texts["private_key"],
        "env": [
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "DB_PASSWORD", "value": SECRETS["pair_value"]},
        ],
        "owners": {SECRETS["key_token"]: "ci-bot"},
        "tls": [PEM_BEGIN, SPLIT_PEM_BODY, PEM_END],
        "store": SECRETS["shopify_token"],
        **ORDINARY,
    }


def approval_preview() -> dict[str, Any]:
    texts = in_text()
    return {
        "title": f"Migrate {ORDINARY['host']}",
        "db_url": texts["url_password"],
        "token": SECRETS["github_token"],
        "summary": " · ".join(texts[k] for k in SECRETS if k not in {"private_key", "split_pem"}),
        "commit": ORDINARY["commit"],
    }


def question_request() -> dict[str, Any]:
    """A question whose details hold every kind, and one option label per kind."""
    texts = in_text()
    return {
        "title": f"Which credential for {ORDINARY['host']}?",
        "details": "\n".join(texts.values()) + f"\ncommit {ORDINARY['commit']}",
        "questions": [
            {
                "id": "which",
                "prompt": "Pick one",
                "options": [
                    {"id": f"opt_{i}", "label": f"use {SECRETS[kind]}"}
                    for i, kind in enumerate(SECRETS)
                    if kind
                    not in {"private_key", "bearer", "url_password", "secret_key", "split_pem"}
                ]
                + [{"id": "opt_url", "label": texts["url_password"]}],
            }
        ],
    }
