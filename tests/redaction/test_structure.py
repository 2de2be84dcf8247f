"""What the shape of a record says: siblings, pairs, keys, lines of one text, encodings, labels.

The corpus proves nothing leaks; these prove each reading does its part and
names what it hides correctly (a fallback would hide most of these values
too, but as "credential-like", and not a hex key under a name).
"""

from __future__ import annotations

import base64
from typing import Any

from bot.novo.models import Interaction
from bot.redaction import redact_interaction
from bot.redaction.masks import DOTS
from bot.redaction.text import redact_text
from tests.redaction.corpus import record

HEX_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
"""A 32-hex credential: it looks like an MD5, so only what is around it can name it."""


def _shown(carried: dict[str, Any]) -> Any:
    return redact_interaction(record("input", carried)).shown.input


def _kinds(carried: dict[str, Any]) -> list[str]:
    return [f.kind for f in redact_interaction(record("input", carried)).findings]


def test_a_value_named_by_its_sibling_is_hidden_and_an_ordinary_one_is_not() -> None:
    shown = _shown(
        {
            "env": [
                {"name": "DD_API_KEY", "value": HEX_KEY},
                {"name": "BUILD_SHA", "value": HEX_KEY},
                {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db"}}},
            ],
            "headers": [{"Name": "Authorization", "Value": "Basic cm9ib3Q6aHVudGVyMg=="}],
        }
    )
    assert shown["env"][0]["value"] == f"{DOTS} (hidden)"
    assert shown["env"][1]["value"] == HEX_KEY
    assert shown["env"][2]["valueFrom"] == {"secretKeyRef": {"name": "db"}}
    assert shown["headers"][0]["Value"] == f"{DOTS} (hidden)"


def test_a_name_value_pair_in_a_list_is_read_as_one() -> None:
    shown = _shown({"args": [["DD_API_KEY", HEX_KEY], ["BUILD_SHA", HEX_KEY]]})
    assert shown["args"] == [["DD_API_KEY", f"{DOTS} (hidden)"], ["BUILD_SHA", HEX_KEY]]


def test_a_credential_used_as_a_key_is_masked_in_the_key() -> None:
    token = "glpat-" + "Xy7Kp2Qw9Lm4Zn8Rt5Vb"
    shown = _shown({"owners": {token: "ci", "ada": "admin"}})
    assert list(shown["owners"]) == ["glpa… (GitLab token hidden)", "ada"]


def test_a_private_key_split_into_lines_is_hidden_as_one() -> None:
    lines = [
        "-----BEGIN PRIVATE KEY-----",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAA",
        "-----END PRIVATE KEY-----",
    ]
    shown = _shown({"key_lines": lines, "hosts": ["web-1", "web-2"]})
    assert all(line.startswith(DOTS) for line in shown["key_lines"])
    assert shown["hosts"] == ["web-1", "web-2"]
    assert _kinds({"key_lines": lines}) == ["private_key"]


def test_base64_of_a_known_format_is_named_by_it() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n"
    encoded = base64.b64encode(pem.encode()).decode()
    assert _kinds({"data": {"payload": encoded}}) == ["private_key"]
    docker = base64.b64encode(b"robot$ci:Tq8nVx2Lk5").decode()
    assert _kinds({"blob": docker}) == ["auth_header"]
    prose = base64.b64encode(b"Hello, this is an ordinary message.").decode()
    assert _kinds({"blob": prose}) == []


def test_a_name_ending_in_key_hides_only_a_credential_like_value() -> None:
    shown = _shown({"kaggle_key": HEX_KEY, "sort_key": "created_at", "cache_key": "user:42"})
    assert shown == {
        "kaggle_key": f"{DOTS} (hidden)",
        "sort_key": "created_at",
        "cache_key": "user:42",
    }
    assert redact_text(f'kaggle_key = "{HEX_KEY}"')[1] == ["secret_key"]
    assert redact_text('sort_key = "created_at"')[1] == []


def test_a_format_inside_another_is_not_named_for_it() -> None:
    age = "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2
    shown, kinds = redact_text(age[:74])
    assert kinds == ["age_key"] and "AWS" not in shown


def test_an_option_shown_by_its_id_shows_the_masked_id() -> None:
    token = "ghp_" + "Pq7ZwX0r9Vt2Lm8Ns4Bc6Dk1Fj3Hg5Yu0aXy"
    request = {
        "title": "Which token?",
        "questions": [{"id": "q", "options": [{"id": token}, {"id": "none", "label": "None"}]}],
        "actions": [{"id": token}],
    }
    interaction: Interaction = redact_interaction(record("request", request)).shown
    assert interaction.request is not None
    option = (interaction.request.questions[0].options or [])[0]
    assert option.id == token  # what goes back to Novo
    assert option.label == "ghp_… (GitHub token hidden)"
    assert interaction.request.actions[0].label == "ghp_… (GitHub token hidden)"


def test_references_to_secrets_stay_readable_even_under_secret_names() -> None:
    carried = {
        "DB_PASSWORD": "${aws_db_instance.default.password}",
        "Authorization": "Bearer <token>",
        "token": "{{ secrets.DEPLOY_TOKEN }}",
        "command": "export GITHUB_TOKEN=$GH_TOKEN && DB_PASSWORD=$(cat /run/secrets/db) ./run",
    }
    assert _shown(carried) == carried


def test_a_glued_name_that_says_what_it_is_about_stays_readable() -> None:
    carried = {"secretref": "db-credentials", "tokenurl": "https://auth.example.com/token"}
    assert _shown(carried) == carried
    assert _shown({"dbpassword": "hunter2-x"}) == {"dbpassword": f"{DOTS} (hidden)"}


def test_ids_of_records_and_resources_stay_readable() -> None:
    for text in (
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "chatcmpl-8fK2mQ9xLp3R7tZ1vB6nW4yH",
        "subnet-0bb1c79de3EXAMPLE",
        "toolu_01A09q90qw90lq917835lq9",
    ):
        assert redact_text(f"see {text}") == (f"see {text}", [])


def test_a_known_prefix_inside_another_token_is_no_match() -> None:
    assert redact_text("id XAKIAZ7QW3PQ7ZWX04LMN") == ("id XAKIAZ7QW3PQ7ZWX04LMN", [])
    assert redact_text("id AKIAZ7QW3PQ7ZWX04LMN")[1] == ["aws_access_key"]


def test_command_lines_hide_what_their_flags_name() -> None:
    for line, shown in (
        ("mysql -u root -ppw app", "mysql -u root -p••• (hidden) app"),
        ("curl -u admin:Hunter2x https://x", "curl -u admin:••• (hidden) https://x"),
        ("gh secret set API --body s3cr3t-v", "gh secret set API --body ••• (hidden)"),
        ("ssh deploy@10.0.4.12 -p 2222", "ssh deploy@10.0.4.12 -p 2222"),
        ("find . -prune -o -print", "find . -prune -o -print"),
    ):
        assert redact_text(line)[0] == shown
