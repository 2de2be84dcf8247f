"""Detection and masks: each kind hidden whole, at most 4 characters kept, ordinary values left.

The false-positive corpus is the promise that redaction does not make a
message unreadable: git SHAs, UUIDs, ids, hostnames, numbers, commands and
prose pass through untouched.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.novo.models import Interaction
from bot.redaction import RedactionRules, hidden_count, redact_interaction
from bot.redaction.keys import is_secret_name
from bot.redaction.masks import DOTS, LABELS
from bot.redaction.record import WITHHELD, withheld
from bot.redaction.text import redact_text
from tests.novo.conftest import approval_wire
from tests.redaction.planted import ORDINARY, SECRETS, approval_input, in_text, question_request

CORPUS = [
    *ORDINARY.values(),
    "3f78685",
    "int_01HZX3K9Q2W8E5R7T6Y4U1I0OP",
    "run_7f3a9c2e",
    "C0123456789",
    "U024BE7LH",
    "1700000000.123456",
    "api.github.com",
    "https://github.com/acme/widgets/pull/42",
    "https://user@example.com/repo.git",
    "postgresql://db.internal:5432/prod",
    "s3://acme-backups/2024/01/db.sql.gz",
    "arn:aws:iam::123456789012:role/deploy",
    "3.14159",
    "9007199254740993",
    "+1-555-0100",
    "2026-12-01T20:00:00.000Z",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "0123456789abcdef0123456789abcdef01234567",
    "deadbeefdeadbeefdeadbeefdeadbeef",
    "kubectl rollout restart deployment/web -n prod",
    "SELECT * FROM users WHERE id = 42",
    "terraform apply -auto-approve -target=module.vpc",
    "git push origin main --force-with-lease",
    "ssh deploy@10.0.4.12 -p 2222",
    "Rotate the staging password policy before Friday",
    "The token count is 4096 tokens",
    "max_tokens=4096",
    "Basic authentication is disabled",
    "Bearer of bad news",
    "docker.io/library/postgres:15.4-alpine",
    "ami-0abcdef1234567890",
    "i-0123456789abcdef0",
    "v1.2.3-rc.1+build.5",
    "e2e3f4a5-0000-4000-8000-000000000000",
    "task-runner-1 skip_test_foo secret_santa",
    "mailto:ops@example.com",
]


@pytest.mark.parametrize("value", CORPUS)
def test_ordinary_values_pass_untouched(value: str) -> None:
    assert redact_text(value) == (value, [])
    assert redact_text(f"before {value} after") == (f"before {value} after", [])


def test_the_corpus_in_a_record_is_the_record_itself() -> None:
    record = _approval(input={f"field_{i}": v for i, v in enumerate(CORPUS)}, preview=ORDINARY)
    redacted = redact_interaction(record)
    assert redacted.shown is record and redacted.findings == ()
    assert hidden_count(redacted.shown) == 0


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_hidden_whole_keeping_at_most_four_characters(kind: str) -> None:
    text = in_text()[kind]
    value = SECRETS[kind]
    shown, kinds = redact_text(f"start {text} end")
    assert len(kinds) == 1 and kinds[0] in LABELS
    assert shown.startswith("start ") and shown.endswith(" end")
    assert value[4:] not in shown
    for size in (5,):  # no piece of it past its first 4 characters
        assert all(value[i : i + size] not in shown for i in range(1, len(value) - size + 1))
    mask = re.search(r"(\S*)(?:…|•••)", shown)
    assert mask is not None and len(mask.group(1).split(":")[-1].split("=")[-1]) <= 4


def test_masks_say_what_was_hidden() -> None:
    assert redact_text(in_text()["github_token"])[0] == "ghp_… (GitHub token hidden)"
    assert redact_text(in_text()["url_password"])[0] == (
        "postgresql://app:•••@db.internal.example.com:5432/prod"
    )
    assert redact_text(SECRETS["aws_access_key"])[0] == "AKIA… (AWS access key id hidden)"


def test_a_short_value_keeps_nothing() -> None:
    shown, _ = redact_text("Authorization: Basic dXNlcjpw")
    assert shown == "Authorization: Basic … (credential hidden)"


def test_a_longer_key_than_its_format_leaves_no_tail() -> None:
    assert redact_text("sk_live_" + "a" * 30 + " ok")[0] == "sk_l… (Stripe key hidden) ok"


def test_a_masked_text_scanned_again_finds_nothing() -> None:
    for text in in_text().values():
        shown, _ = redact_text(text)
        assert redact_text(shown) == (shown, [])


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True),
        ("DB_Password", True),
        ("db-password", True),
        ("github_token", True),
        ("x-api-key", True),
        ("aws_secret_access_key", True),
        ("client_secret", True),
        ("Authorization", True),
        ("Set-Cookie", True),
        ("credentials", True),
        ("private_key", True),
        ("max_tokens", False),
        ("token_count", False),
        ("password_policy", False),
        ("secretary", False),
        ("keyboard", False),
        ("db_url", False),
    ],
)
def test_secret_like_key_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_a_secret_key_hides_its_value_whatever_it_looks_like() -> None:
    record = _approval(
        input={
            "password": "x",
            "nested": {"API_KEY": 12345, "token": None, "list": [{"secret": {"a": 1}}]},
        },
        preview={"Cookie": "", "dry_run": True},
    )
    redacted = redact_interaction(record)
    shown = redacted.shown.input
    assert shown["password"] == f"{DOTS} (hidden)"
    assert shown["nested"]["API_KEY"] == f"{DOTS} (hidden)"
    assert shown["nested"]["token"] is None  # nothing to hide
    assert shown["nested"]["list"][0]["secret"] == f"{DOTS} (hidden)"
    assert redacted.shown.preview == {"Cookie": "", "dry_run": True}
    assert [f.path for f in redacted.findings] == [
        "input.password",
        "input.nested.API_KEY",
        "input.nested.list[0].secret",
    ]
    assert all(f.reason == "secret-like key" for f in redacted.findings)
    assert hidden_count(redacted.shown) == 3
    assert record.input["password"] == "x"  # the raw record is never changed


def test_policy_keys_and_patterns_add_to_the_detectors() -> None:
    rules = RedactionRules(keys=("*_dsn", "customer.ssn"), patterns=(re.compile(r"ACME-[0-9]{8}"),))
    record = _approval(
        input={"cache_dsn": "redis://cache", "customer": {"ssn": "078-05-1120", "name": "Ada"}},
        preview={"Ticket": "see ACME-12345678 and OPS-1"},
    )
    redacted = redact_interaction(record, rules)
    assert [(f.path, f.reason) for f in redacted.findings] == [
        ("input.cache_dsn", "key named by the policy"),
        ("input.customer.ssn", "key named by the policy"),
        ("preview.Ticket", "pattern of the policy"),
    ]
    assert redacted.shown.input["customer"]["name"] == "Ada"
    assert redacted.shown.preview == {"Ticket": "see ••• (pattern of the policy hidden) and OPS-1"}


def test_redaction_off_returns_the_record() -> None:
    record = _approval(input=approval_input())
    assert redact_interaction(record, RedactionRules(enabled=False)).shown is record


def test_a_question_keeps_its_ids_and_masks_its_texts() -> None:
    record = _question(question_request())
    redacted = redact_interaction(record)
    assert redacted.shown.request is not None and record.request is not None
    shown, raw = redacted.shown.request, record.request
    assert [o.id for o in shown.questions[0].options or []] == [
        o.id for o in raw.questions[0].options or []
    ]
    text = shown.model_dump_json()
    assert not [k for k, v in SECRETS.items() if v[4:] in text]
    assert ORDINARY["commit"] in text and ORDINARY["host"] in text
    paths = {f.path for f in redacted.findings}
    assert "request.details" in paths and "request.questions[0].options[0].label" in paths
    assert redacted.shown.to_wire()["request"]["details"] == shown.details


def test_a_scan_that_fails_shows_none_of_the_agents_text() -> None:
    record = _question(question_request())
    shown = withheld(record)
    assert shown.request is not None
    assert shown.request.details == WITHHELD and shown.request.title == WITHHELD
    assert shown.request.questions[0].id == "which"
    assert hidden_count(shown) == 1


def _approval(**fields: Any) -> Interaction:
    return Interaction.from_wire(_wire("approval_request", **fields))


def _question(request: dict[str, Any]) -> Interaction:
    return Interaction.from_wire(_wire("question", request=request))


def _wire(kind: str, **fields: Any) -> dict[str, Any]:
    moment = "2026-12-01T20:00:00.000Z"
    return approval_wire(
        "int_1",
        **{
            "kind": kind,
            "toolName": "tool",
            "hookId": None,
            "input": None,
            "expiresAt": None,
            "createdAt": moment,
            "updatedAt": moment,
            **fields,
        },
    )


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(value=_JSON, planted=st.sampled_from(sorted(SECRETS)))
def test_any_input_is_scanned_without_failing_and_the_planted_value_never_shows(
    value: Any, planted: str
) -> None:
    record = _approval(input={"data": value, "note": in_text()[planted]})
    shown = redact_interaction(record).shown
    assert SECRETS[planted][4:] not in json.dumps(shown.to_wire(), ensure_ascii=False)
    assert shown.input["data"] == value or hidden_count(shown) > 1
