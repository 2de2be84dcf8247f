"""The corpus: no credential format leaks in any of the nine placements, and few harmless
values are masked for nothing.

Judged by the shown copy as the renderers receive it (its wire form, keys and
values), never by the findings the redactor reports about itself.
"""

from __future__ import annotations

import json

import pytest

from tests.redaction.corpus import (
    ALONE,
    NAMED,
    PLACEMENTS,
    Planted,
    corpus,
    leaked,
    leaks_in,
    over_masked,
)

MAX_OVER_MASKED = 0.05


def test_the_corpus_is_large_and_holds_each_shape_the_review_found() -> None:
    formats = {f for f, _, _ in ALONE}
    assert len(formats) >= 150 and len(ALONE) == len(formats)
    assert {
        "shopify_access",
        "digitalocean_pat",
        "grafana_service_account",
        "huggingface",
        "sentry_org",
        "vault_service",
        "doppler_personal",
        "postman",
        "linear",
        "notion",
        "heroku_new",
        "aws_bedrock",
        "alibaba",
        "stripe_webhook",
        "google_oauth_access",
        "azure_sas",
        "jwe",
        "teams_webhook",
        "ssh2",
        "age",
        "base64_pem",
        "docker_auth",
    } <= formats
    assert {"heroku_legacy", "digitalocean_legacy", "encryption_key", "secret_value", "pwd"} <= {
        f for f, _, _ in NAMED
    }


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_no_format_leaks(placement: str) -> None:
    assert leaks_in(placement) == []


def test_few_harmless_values_are_masked() -> None:
    masked, total, which = over_masked()
    print(f"over-masked: {masked} of {total} benign plantings ({masked / total:.1%}): {which}")
    assert masked <= MAX_OVER_MASKED * total, which


def test_the_leak_check_sees_a_value_shown_as_it_is() -> None:
    """The corpus's own check is not blind: a value shown unmasked counts as a leak."""
    planted: Planted = corpus()[0]
    assert leaked(planted, json.dumps({"data": planted.value}))
    assert not leaked(planted, json.dumps({"data": planted.value[:4] + "…"}))
