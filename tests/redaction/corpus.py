"""A corpus of credential formats and of harmless look-alikes, each planted where agents put them.

Each format is a template (`shpat_{hex:32}`): literal parts as the vendor
writes them, random parts drawn at test time from a seeded generator, so no
live-looking key is ever written in this repository and each run plants the
same values. A planting leaks when any 8 characters of a random part (or all
of a shorter one, 6 at least) reach what is shown: a mask keeps at most the
first 4 characters of a value, which are the format's literal prefix.

Formats are *alone* (recognisable standing alone: a vendor prefix, or a
random mix of cases and digits) or *named* (hex or UUID-shaped, like a git
SHA or a record id: only its name says it is a credential). Named formats
are planted only where their name goes with them; standing alone they are
indistinguishable from the hashes and ids a decider must read, and are shown.

`PLACEMENTS` are the nine places: a value under its conventional name, the
same nested deep, under a neutral key, a shell line, a config file, an env
file, a name/value pair, a question's details and an option label.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.novo.models import Interaction
from bot.redaction import hidden_count, redact_interaction

CHARSETS = {
    "an": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "b64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "url": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "up": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "low": "abcdefghijklmnopqrstuvwxyz0123456789",
    "dig": "0123456789",
    "lc": "abcdefghijklmnopqrstuvwxyz",
    "b32": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "pw": "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%*+-_@:/",
}
_PART = re.compile(r"\{(\w+):(\d+)\}")

# (format, conventional name, template); a template's literal text is written as vendors do.
ALONE: tuple[tuple[str, str, str], ...] = (
    ("aws_access_key_id", "AWS_ACCESS_KEY_ID", "AKIA{up:16}"),
    ("aws_sts_key_id", "AWS_ACCESS_KEY_ID", "ASIA{up:16}"),
    ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "{an:40}"),
    ("aws_bedrock", "AWS_BEARER_TOKEN_BEDROCK", "ABSK{b64:120}"),
    ("github_pat_classic", "GITHUB_TOKEN", "ghp_{an:36}"),
    ("github_oauth", "GH_OAUTH_TOKEN", "gho_{an:36}"),
    ("github_user_server", "GH_USER_TOKEN", "ghu_{an:36}"),
    ("github_app_installation", "GITHUB_APP_TOKEN", "ghs_{an:36}"),
    ("github_refresh", "GITHUB_REFRESH", "ghr_{an:36}"),
    ("github_fine_grained", "GITHUB_PAT", "github_pat_{an:22}_{an:59}"),
    ("gitlab_pat", "GITLAB_TOKEN", "glpat-{url:20}"),
    ("gitlab_deploy", "GITLAB_DEPLOY_TOKEN", "gldt-{url:20}"),
    ("gitlab_runner", "RUNNER_TOKEN", "glrt-{url:20}"),
    ("gitlab_feed", "GITLAB_FEED", "glft-{url:20}"),
    ("gitlab_trigger", "GITLAB_TRIGGER", "glptt-{hex:40}"),
    ("gitlab_oauth_secret", "GITLAB_APP_SECRET", "gloas-{hex:64}"),
    ("slack_bot", "SLACK_BOT_TOKEN", "xoxb-{dig:11}-{dig:12}-{an:24}"),
    ("slack_user", "SLACK_USER_TOKEN", "xoxp-{dig:11}-{dig:11}-{dig:12}-{hex:32}"),
    ("slack_app", "SLACK_APP_TOKEN", "xapp-1-A{up:10}-{dig:13}-{hex:64}"),
    ("slack_config", "SLACK_CONFIG_TOKEN", "xoxe.xoxp-1-{an:140}"),
    ("slack_refresh", "SLACK_REFRESH", "xoxe-1-{an:140}"),
    (
        "slack_webhook",
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/T{up:10}/B{up:10}/{an:24}",
    ),
    ("stripe_secret", "STRIPE_SECRET_KEY", "sk_live_{an:99}"),
    ("stripe_restricted", "STRIPE_RESTRICTED_KEY", "rk_live_{an:99}"),
    ("stripe_test", "STRIPE_TEST_KEY", "sk_test_{an:99}"),
    ("stripe_webhook", "STRIPE_WEBHOOK_SECRET", "whsec_{an:32}"),
    ("google_api", "GOOGLE_API_KEY", "AIza{url:35}"),
    ("google_oauth_access", "GOOGLE_ACCESS_TOKEN", "ya29.{url:150}"),
    ("google_oauth_refresh", "GOOGLE_REFRESH_TOKEN", "1//0{url:100}"),
    ("google_client_secret", "GOOGLE_CLIENT_SECRET", "GOCSPX-{url:28}"),
    ("openai_project", "OPENAI_API_KEY", "sk-proj-{url:156}"),
    ("openai_service", "OPENAI_SVC_KEY", "sk-svcacct-{url:156}"),
    ("openai_admin", "OPENAI_ADMIN_KEY", "sk-admin-{url:156}"),
    ("openai_legacy", "OPENAI_KEY", "sk-{an:20}T3BlbkFJ{an:20}"),
    ("anthropic_api", "ANTHROPIC_API_KEY", "sk-ant-api03-{url:93}AA"),
    ("anthropic_admin", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-{url:93}AA"),
    ("openrouter", "OPENROUTER_API_KEY", "sk-or-v1-{hex:64}"),
    ("groq", "GROQ_API_KEY", "gsk_{an:52}"),
    ("perplexity", "PERPLEXITY_API_KEY", "pplx-{an:48}"),
    ("xai", "XAI_API_KEY", "xai-{an:80}"),
    ("huggingface", "HF_TOKEN", "hf_{an:34}"),
    ("huggingface_org", "HF_ORG_TOKEN", "api_org_{an:34}"),
    ("replicate", "REPLICATE_API_TOKEN", "r8_{an:37}"),
    ("langsmith", "LANGSMITH_API_KEY", "lsv2_pt_{hex:32}_{hex:10}"),
    ("langfuse", "LANGFUSE_SECRET_KEY", "sk-lf-{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("pinecone", "PINECONE_API_KEY", "pcsk_{an:6}_{an:60}"),
    ("tavily", "TAVILY_API_KEY", "tvly-{an:32}"),
    ("firecrawl", "FIRECRAWL_API_KEY", "fc-{hex:32}"),
    ("cerebras", "CEREBRAS_API_KEY", "csk-{low:48}"),
    ("llamacloud", "LLAMA_CLOUD_API_KEY", "llx-{an:48}"),
    ("voyage", "VOYAGE_API_KEY", "pa-{url:43}"),
    ("jina", "JINA_API_KEY", "jina_{an:60}"),
    ("e2b", "E2B_API_KEY", "e2b_{hex:40}"),
    ("browserbase", "BROWSERBASE_API_KEY", "bb_live_{url:27}"),
    ("runpod", "RUNPOD_API_KEY", "rpa_{up:40}"),
    ("helicone", "HELICONE_API_KEY", "sk-helicone-{low:7}-{low:7}-{low:7}-{low:7}"),
    ("shopify_access", "SHOPIFY_ACCESS_TOKEN", "shpat_{hex:32}"),
    ("shopify_custom", "SHOPIFY_CUSTOM_APP", "shpca_{hex:32}"),
    ("shopify_private", "SHOPIFY_PRIVATE_APP", "shppa_{hex:32}"),
    ("shopify_shared", "SHOPIFY_SHARED_SECRET", "shpss_{hex:32}"),
    ("digitalocean_pat", "DIGITALOCEAN_TOKEN", "dop_v1_{hex:64}"),
    ("digitalocean_oauth", "DO_OAUTH_TOKEN", "doo_v1_{hex:64}"),
    ("digitalocean_refresh", "DO_REFRESH_TOKEN", "dor_v1_{hex:64}"),
    ("grafana_service_account", "GRAFANA_SA_TOKEN", "glsa_{an:32}_{hex:8}"),
    ("grafana_cloud", "GRAFANA_CLOUD_TOKEN", "glc_{b64:80}"),
    ("sentry_org", "SENTRY_AUTH_TOKEN", "sntrys_{b64:120}"),
    ("sentry_user", "SENTRY_USER_TOKEN", "sntryu_{hex:64}"),
    ("vault_service", "VAULT_TOKEN", "hvs.{url:90}"),
    ("vault_batch", "VAULT_BATCH_TOKEN", "hvb.{url:130}"),
    ("doppler_personal", "DOPPLER_TOKEN", "dp.pt.{an:43}"),
    ("doppler_service", "DOPPLER_SERVICE_TOKEN", "dp.st.prd.{an:40}"),
    ("doppler_scim", "DOPPLER_SCIM", "dp.scim.{an:40}"),
    ("postman", "POSTMAN_API_KEY", "PMAK-{hex:24}-{hex:34}"),
    ("linear", "LINEAR_API_KEY", "lin_api_{an:40}"),
    ("notion", "NOTION_TOKEN", "ntn_{dig:11}{an:35}"),
    ("heroku_new", "HEROKU_API_KEY", "HRKU-AA{url:58}"),
    ("alibaba", "ALIBABA_ACCESS_KEY_ID", "LTAI{an:20}"),
    ("tencent", "TENCENT_SECRET_ID", "AKID{an:32}"),
    ("amazon_mws", "MWS_AUTH_TOKEN", "amzn.mws.{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("age", "AGE_KEY", "AGE-SECRET-KEY-1{b32:58}"),
    ("atlassian", "ATLASSIAN_API_TOKEN", "ATATT3xFfGF0{url:180}={HEX:8}"),
    ("bitbucket", "BITBUCKET_APP_PASSWORD", "ATBB{an:32}"),
    ("airtable", "AIRTABLE_TOKEN", "pat{an:14}.{hex:64}"),
    ("adafruit", "ADAFRUIT_IO_KEY", "aio_{an:28}"),
    ("adobe", "ADOBE_CLIENT_SECRET", "p8e-{an:32}"),
    ("clojars", "CLOJARS_TOKEN", "CLOJARS_{low:60}"),
    ("cloudflare_origin_ca", "CF_ORIGIN_CA_KEY", "v1.0-{hex:24}-{hex:146}"),
    ("contentful", "CONTENTFUL_TOKEN", "CFPAT-{url:43}"),
    ("databricks", "DATABRICKS_TOKEN", "dapi{hex:32}"),
    ("dbt_cloud", "DBT_CLOUD_TOKEN", "dbtc_{url:40}"),
    ("dropbox", "DROPBOX_TOKEN", "sl.u.{url:140}"),
    ("duffel", "DUFFEL_TOKEN", "duffel_live_{url:43}"),
    ("dynatrace", "DT_API_TOKEN", "dt0c01.{up:24}.{an:64}"),
    ("easypost", "EASYPOST_API_KEY", "EZAK{an:54}"),
    ("facebook", "FB_ACCESS_TOKEN", "EAAB{an:120}"),
    ("square_access", "SQUARE_ACCESS_TOKEN", "EAAA{url:60}"),
    ("square_oauth", "SQUARE_OAUTH_SECRET", "sq0csp-{url:43}"),
    ("square_legacy", "SQUARE_TOKEN", "sq0atp-{url:22}"),
    ("flutterwave", "FLW_SECRET_KEY", "FLWSECK_TEST-{hex:32}-X"),
    ("frameio", "FRAMEIO_TOKEN", "fio-u-{url:64}"),
    ("gocardless", "GOCARDLESS_TOKEN", "live_{url:40}"),
    ("terraform", "TFE_TOKEN", "{an:14}.atlasv1.{url:67}"),
    ("hubspot", "HUBSPOT_TOKEN", "pat-na1-{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("infracost", "INFRACOST_API_KEY", "ico-{an:32}"),
    ("jfrog_api", "ARTIFACTORY_API_KEY", "AKCp{an:69}"),
    ("jfrog_reference", "JFROG_ACCESS_TOKEN", "cmVmdGtu{an:56}"),
    ("mailgun", "MAILGUN_API_KEY", "key-{hex:32}"),
    ("mapbox", "MAPBOX_SECRET_TOKEN", "sk.eyJ{url:60}.{url:22}"),
    ("newrelic_user", "NEW_RELIC_API_KEY", "NRAK-{up:27}"),
    ("newrelic_insert", "NEW_RELIC_INSERT_KEY", "NRII-{url:32}"),
    ("nuget", "NUGET_API_KEY", "oy2{low:43}"),
    ("onepassword_service", "OP_SERVICE_ACCOUNT_TOKEN", "ops_eyJ{url:250}"),
    ("onepassword_secret_key", "OP_SECRET_KEY", "A3-{up:6}-{up:6}-{up:5}-{up:5}-{up:5}-{up:5}"),
    ("planetscale", "PLANETSCALE_TOKEN", "pscale_tkn_{url:43}"),
    ("planetscale_password", "PLANETSCALE_PASSWORD", "pscale_pw_{url:43}"),
    ("prefect", "PREFECT_API_KEY", "pnu_{an:36}"),
    ("pulumi", "PULUMI_ACCESS_TOKEN", "pul-{hex:40}"),
    ("readme", "README_API_KEY", "rdme_{low:70}"),
    ("rubygems", "GEM_HOST_API_KEY", "rubygems_{hex:48}"),
    ("scalingo", "SCALINGO_TOKEN", "tk-us-{url:48}"),
    ("brevo", "BREVO_API_KEY", "xkeysib-{hex:64}-{an:16}"),
    ("shippo", "SHIPPO_TOKEN", "shippo_live_{hex:40}"),
    ("twitter_bearer", "TWITTER_BEARER_TOKEN", "AAAAAAAAAAAAAAAAAAAAA{an:30}%3D{an:50}"),
    ("typeform", "TYPEFORM_TOKEN", "tfp_{url:44}_{url:14}"),
    ("yandex_api", "YC_API_KEY", "AQVN{url:36}"),
    ("yandex_static", "YC_STATIC_KEY", "YC{url:38}"),
    ("supabase_pat", "SUPABASE_ACCESS_TOKEN", "sbp_{hex:40}"),
    ("supabase_secret", "SUPABASE_SECRET_KEY", "sb_secret_{url:32}"),
    ("vercel", "VERCEL_TOKEN", "vcp_{an:56}"),
    ("netlify", "NETLIFY_AUTH_TOKEN", "nfp_{an:36}"),
    ("render", "RENDER_API_KEY", "rnd_{an:32}"),
    ("fly", "FLY_API_TOKEN", "FlyV1 fm2_{b64:200}"),
    ("neon", "NEON_API_KEY", "napi_{low:64}"),
    ("xata", "XATA_API_KEY", "xau_{an:36}"),
    ("resend", "RESEND_API_KEY", "re_{an:8}_{an:24}"),
    ("figma", "FIGMA_TOKEN", "figd_{url:40}"),
    ("clickup", "CLICKUP_TOKEN", "pk_{dig:8}_{up:32}"),
    ("docker_hub", "DOCKERHUB_TOKEN", "dckr_pat_{url:27}"),
    ("sonarqube", "SONAR_TOKEN", "squ_{hex:40}"),
    ("buildkite", "BUILDKITE_API_TOKEN", "bkua_{hex:40}"),
    ("circleci", "CIRCLE_TOKEN", "CCIPAT_{an:22}_{hex:40}"),
    ("harness", "HARNESS_PAT", "pat.{url:22}.{an:24}.{an:20}"),
    ("octopus", "OCTOPUS_API_KEY", "API-{up:32}"),
    ("tailscale", "TS_AUTHKEY", "tskey-auth-{an:12}-{an:30}"),
    ("akamai", "AKAMAI_CLIENT_TOKEN", "akab-{low:16}-{low:16}"),
    ("plaid", "PLAID_ACCESS_TOKEN", "access-production-{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("braintree", "BRAINTREE_TOKEN", "access_token$production${low:16}${hex:32}"),
    ("razorpay", "RAZORPAY_KEY_ID", "rzp_live_{an:14}"),
    ("segment", "SEGMENT_TOKEN", "sgp_{an:64}"),
    ("posthog_personal", "POSTHOG_PERSONAL_KEY", "phx_{an:47}"),
    ("zapier_webhook", "ZAPIER_HOOK", "https://hooks.zapier.com/hooks/catch/{dig:8}/{low:7}/"),
    ("discord_webhook", "DISCORD_WEBHOOK", "https://discord.com/api/webhooks/{dig:18}/{url:68}"),
    (
        "teams_webhook",
        "TEAMS_WEBHOOK_URL",
        "https://acme.webhook.office.com/webhookb2/{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"
        "@{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}/IncomingWebhook/{hex:32}/"
        "{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}/V2{url:40}",
    ),
    ("twitch", "TWITCH_OAUTH", "oauth:{low:30}"),
    ("stytch", "STYTCH_SECRET", "secret-live-{url:36}"),
    ("pubnub_secret", "PUBNUB_SECRET_KEY", "sec-c-{b64:48}"),
    ("telnyx", "TELNYX_API_KEY", "KEY{HEX:32}_{an:22}"),
    ("flagsmith", "FLAGSMITH_SERVER_KEY", "ser.{an:22}"),
    ("fauna", "FAUNA_SECRET", "fnA{url:37}"),
    ("laravel", "APP_KEY", "base64:{b64:43}="),
    ("django", "DJANGO_SECRET_KEY", "django-insecure-{pw:50}"),
    ("modal", "MODAL_TOKEN_SECRET", "as-{an:22}"),
    ("firebase_fcm", "FCM_SERVER_KEY", "AAAA{url:7}:APA91b{url:134}"),
    ("azure_ad", "AZURE_CLIENT_SECRET", "{url:3}8Q~{url:34}"),
    (
        "azure_storage",
        "AZURE_STORAGE_CONNECTION_STRING",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={b64:86}==;EndpointSuffix=core.windows.net",
    ),
    (
        "azure_service_bus",
        "SERVICEBUS_CONNECTION",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={b64:43}=",
    ),
    (
        "azure_sas",
        "AZURE_SAS_URL",
        "https://acme.blob.core.windows.net/c/f.zip?sv=2022-11-02&se=2026-12-31&sr=b&sp=r&sig={b64:43}%3D",
    ),
    ("npm", "NPM_TOKEN", "npm_{an:36}"),
    ("npmrc", "NPMRC", "//registry.npmjs.org/:_authToken={hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("pypi", "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc{url:70}"),
    ("sendgrid", "SENDGRID_API_KEY", "SG.{url:22}.{url:43}"),
    ("discord_bot", "DISCORD_BOT_TOKEN", "M{an:25}.{url:6}.{url:38}"),
    ("telegram_bot", "TELEGRAM_BOT_TOKEN", "{dig:10}:AA{url:33}"),
    ("twilio_api_key", "TWILIO_API_KEY", "SK{hex:32}"),
    ("mailchimp", "MAILCHIMP_API_KEY", "{hex:32}-us{dig:2}"),
    ("jwt", "ID_TOKEN", "<jwt>"),
    ("jwe", "ENCRYPTED_TOKEN", "<jwe>"),
    ("pem_rsa", "RSA_KEY", "<pem:RSA PRIVATE KEY>"),
    ("pem_pkcs8", "SIGNING_KEY", "<pem:PRIVATE KEY>"),
    ("pem_ec", "EC_KEY", "<pem:EC PRIVATE KEY>"),
    ("pem_openssh", "SSH_KEY", "<pem:OPENSSH PRIVATE KEY>"),
    ("pem_encrypted", "ENCRYPTED_KEY", "<pem:ENCRYPTED PRIVATE KEY>"),
    ("pgp", "GPG_KEY", "<pem:PGP PRIVATE KEY BLOCK>"),
    ("ssh2", "SSH2_KEY", "<ssh2>"),
    ("putty", "PPK", "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n{b64:44}"),
    ("postgres_url", "DATABASE_URL", "postgresql://app:{pw:12}@{pw:8}@db.internal:5432/prod"),
    ("mysql_url", "MYSQL_URL", "mysql://root:{pw:14}@mysql.internal/app"),
    (
        "mongodb_url",
        "MONGODB_URI",
        "mongodb+srv://svc:{pw:16}@cluster0.ab1cd.mongodb.net/?retryWrites=true",
    ),
    ("redis_url", "REDIS_URL", "rediss://default:{an:32}@cache.internal:6380/0"),
    ("amqp_url", "AMQP_URL", "amqps://worker:{pw:14}@mq.internal/vhost"),
    ("basic_auth_url", "PRIVATE_REPO", "https://deploy:{an:20}@git.internal/acme/app.git"),
    ("bearer_header", "AUTH_HEADER", "Authorization: Bearer {url:40}"),
    ("basic_header", "BASIC_HEADER", "Authorization: Basic {b64:40}"),
    ("base64_pem", "TLS_KEY_B64", "<b64pem>"),
    ("base64_token", "TOKEN_B64", "<b64ghp>"),
    ("docker_auth", "DOCKER_AUTH", "<dockerauth>"),
    ("random_mixed", "SESSION_SECRET", "{an:48}"),
    ("random_urlsafe", "NEXTAUTH_SECRET", "{url:43}"),
    ("random_b64", "ENCRYPTION_KEY", "{b64:43}="),
    ("random_base32", "TOTP_SECRET", "{up:32}"),
    ("random_lower", "CONSUMER_SECRET", "{low:40}"),
)

# Named: hex or UUID-shaped values that only their name marks as credentials.
NAMED: tuple[tuple[str, str, str], ...] = (
    ("datadog_api", "DD_API_KEY", "{hex:32}"),
    ("datadog_app", "DD_APP_KEY", "{hex:40}"),
    ("heroku_legacy", "heroku_api_key_v2", "{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("digitalocean_legacy", "digitalocean_pat", "{hex:64}"),
    ("algolia_admin", "ALGOLIA_ADMIN_API_KEY", "{hex:32}"),
    ("cloudflare_global", "CLOUDFLARE_API_KEY", "{hex:37}"),
    ("okta", "OKTA_API_TOKEN", "00{url:40}"),
    ("snyk", "SNYK_TOKEN", "{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("rollbar", "ROLLBAR_ACCESS_TOKEN", "{hex:32}"),
    ("pagerduty", "PAGERDUTY_ROUTING_KEY", "{hex:32}"),
    ("wandb", "WANDB_API_KEY", "{hex:40}"),
    ("kaggle", "KAGGLE_KEY", "{hex:32}"),
    ("linode", "LINODE_TOKEN", "{hex:64}"),
    ("together", "TOGETHER_API_KEY", "{hex:64}"),
    ("mistral", "MISTRAL_API_KEY", "{an:32}"),
    ("rails", "SECRET_KEY_BASE", "{hex:128}"),
    ("encryption_key", "encryption_key", "{hex:64}"),
    ("secret_value", "secret_value", "{pw:16}"),
    ("pwd", "pwd", "{pw:14}"),
    ("db_password", "DB_PASSWORD", "{pw:18}"),
    ("passphrase", "GPG_PASSPHRASE", "{lc:6}-{lc:7}-{lc:6}-{lc:8}"),
    ("api_secret", "apiSecret", "{hex:32}"),
    ("x_api_key", "x-api-key", "{hex:32}"),
    ("client_secret", "client_secret", "{hex:8}-{hex:4}-{hex:4}-{hex:4}-{hex:12}"),
    ("webhook_secret", "WEBHOOK_SIGNING_SECRET", "{hex:48}"),
)

NAMED_PLACEMENTS = frozenset({"value", "nested", "shell", "config", "env", "pair"})
"""Where a named (hex or UUID-shaped) format's name goes with it."""
PLACEMENTS = (
    "value",
    "nested",
    "neutral",
    "shell",
    "config",
    "env",
    "pair",
    "details",
    "label",
)


@dataclass(frozen=True)
class Planted:
    """One credential of one format: its value, and the random parts that must never show."""

    format: str
    name: str
    value: str
    parts: tuple[str, ...]
    alone: bool


def _b64url(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _fill(template: str, rng: random.Random, parts: list[str]) -> str:
    def one(match: re.Match[str]) -> str:
        chars = CHARSETS[match.group(1)]
        text = "".join(rng.choice(chars) for _ in range(int(match.group(2))))
        parts.append(text)
        return text

    return _PART.sub(one, template)


def _special(kind: str, rng: random.Random, parts: list[str]) -> str:
    """The formats whose value is built, not drawn: tokens of JSON, PEM blocks, base64 of one."""
    if kind == "<jwt>":
        sig = _fill("{url:43}", rng, parts)
        sub = _fill("{an:16}", rng, parts)
        return f"{_b64url({'alg': 'RS256', 'typ': 'JWT'})}.{_b64url({'sub': sub})}.{sig}"
    if kind == "<jwe>":
        key, iv, body, tag = (_fill(f"{{url:{n}}}", rng, parts) for n in (342, 22, 120, 22))
        return f"{_b64url({'alg': 'RSA-OAEP', 'enc': 'A256GCM'})}.{key}.{iv}.{body}.{tag}"
    if kind.startswith("<pem:"):
        label = kind[5:-1]
        lines = [_fill("{b64:64}", rng, parts) for _ in range(4)]
        return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])
    if kind == "<ssh2>":
        lines = [_fill("{b64:64}", rng, parts) for _ in range(3)]
        begin, end = (
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
            "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
        )
        return "\n".join([begin, 'Comment: "ops"', *lines, end])
    if kind == "<b64pem>":
        inner: list[str] = []
        pem = _special("<pem:RSA PRIVATE KEY>", rng, inner)
        encoded = base64.b64encode(pem.encode()).decode()
        parts.append(encoded[16:80])
        return encoded
    if kind == "<b64ghp>":
        inner = []
        token = _fill("ghp_{an:36}", rng, inner)
        encoded = base64.b64encode(token.encode()).decode()
        parts.append(encoded[8:])
        return encoded
    if kind == "<dockerauth>":
        inner = []
        password = _fill("{an:20}", rng, inner)
        encoded = base64.b64encode(f"robot$ci:{password}".encode()).decode()
        parts.append(encoded[8:])
        return encoded
    raise ValueError(kind)


def build(format_name: str, name: str, template: str, alone: bool) -> Planted:
    rng = random.Random(format_name)
    parts: list[str] = []
    if template.startswith("<") and template.endswith(">"):
        value = _special(template, rng, parts)
    else:
        value = _fill(template, rng, parts)
    return Planted(format_name, name, value, tuple(p for p in parts if len(p) >= 6), alone)


def corpus() -> list[Planted]:
    """Every format, alone ones first."""
    return [build(f, n, t, True) for f, n, t in ALONE] + [
        build(f, n, t, False) for f, n, t in NAMED
    ]


def leaked(planted: Planted, shown: str) -> bool:
    """Whether any 8 characters of a random part (all of a shorter one) are in `shown`."""
    for part in planted.parts:
        size = min(8, len(part))
        if any(part[i : i + size] in shown for i in range(len(part) - size + 1)):
            return True
    return False


_SHELL: tuple[Callable[[str, str], str], ...] = (
    lambda n, v: f"export {n}='{v}' && ./deploy.sh --env prod",
    lambda n, v: f"curl -sS -u admin:{v} https://api.internal/v1/items",
    lambda n, v: f"curl -H 'Authorization: Bearer {v}' https://api.internal/v1/items",
    lambda n, v: f"./bin/sync --region eu-west-1 --token {v} --dry-run",
    lambda n, v: f"gh secret set {n} --body '{v}' --repo acme/app",
    lambda n, v: f"mysql -h db.internal -u root -p{v} app < dump.sql",
    lambda n, v: f"docker login -u ci -p '{v}' registry.internal",
    lambda n, v: f"{n}={v} python manage.py migrate",
    lambda n, v: f"helm upgrade app ./chart --set secrets.{n.lower()}={v}",
    lambda n, v: f'kubectl create secret generic app --from-literal={n.lower()}="{v}"',
)
_CONFIG: tuple[Callable[[str, str], str], ...] = (
    lambda n, v: f'service:\n  name: api\n  {n.lower()}: "{v}"\n  region: eu-west-1\n',
    lambda n, v: json.dumps({"service": "api", n: v, "replicas": 3}, indent=2),
    lambda n, v: f'[service]\nname = "api"\n{n.lower()} = "{v}"\n',
    lambda n, v: f'env:\n  - name: LOG_LEVEL\n    value: info\n  - name: {n}\n    value: "{v}"\n',
    lambda n, v: f"$config['{n.lower()}'] = '{v}';",
    lambda n, v: f'const {n.lower()} = "{v}";',
    lambda n, v: f'{n.lower()} := "{v}"',
    lambda n, v: f'config.{n.lower()} => "{v}"',
)


def plantings(planted: Planted, index: int) -> dict[str, tuple[str, Any]]:
    """placement → ("input" or "request", what the record carries there)."""
    n, v = planted.name, planted.value
    say = v if planted.alone else f"{n}={v}"
    pair_forms: tuple[Any, ...] = (
        {
            "containers": [
                {"env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": n, "value": v}]}
            ]
        },
        {"log": {"entries": [{"request": {"headers": [{"name": n, "value": v}]}}]}},
        {"args": [["--verbose", "1"], [n, v]]},
        {"Parameters": [{"ParameterKey": n, "ParameterValue": v}]},
    )
    return {
        "value": ("input", {n: v}),
        "nested": ("input", {"deploy": {"targets": [{"settings": {"service": {n.lower(): v}}}]}}),
        "neutral": ("input", {"data": v}),
        "shell": ("input", {"command": _SHELL[index % len(_SHELL)](n, v)}),
        "config": ("input", {"path": "config/app", "content": _CONFIG[index % len(_CONFIG)](n, v)}),
        "env": (
            "input",
            {"path": ".env", "text": f"APP_ENV=production\n{n}={v}\nLOG_LEVEL=info\n"},
        ),
        "pair": ("input", pair_forms[index % len(pair_forms)]),
        "details": (
            "request",
            {
                "title": "Rotate the leaked credential?",
                "details": f"Found in the build log:\n{say}\nRotate it now?",
                "questions": [{"id": "go", "options": [{"id": "yes", "label": "Yes"}]}],
            },
        ),
        "label": (
            "request",
            {
                "title": "Which credential should the job use?",
                "questions": [
                    {
                        "id": "which",
                        "options": [
                            {"id": "a", "label": f"Use {say}"},
                            {"id": "b", "label": "Use the vault's"},
                        ],
                    }
                ],
            },
        ),
    }


def record(where: str, carried: Any) -> Interaction:
    """An approval whose input is `carried`, or a question whose request is."""
    moment = datetime(2026, 12, 1, 20, tzinfo=UTC).isoformat()
    wire: dict[str, Any] = {
        "id": "int_corpus",
        "object": "interaction",
        "runId": "run_corpus",
        "rootRunId": "run_corpus",
        "threadId": "thr_corpus",
        "agentId": "agt_corpus",
        "status": "pending",
        "stepNumber": 1,
        "createdAt": moment,
        "updatedAt": moment,
    }
    if where == "input":
        wire.update(kind="approval_request", toolName="run", toolCallId="call_1", input=carried)
    else:
        wire.update(kind="question", toolName="ask", toolCallId="call_1", request=carried)
    return Interaction.from_wire(wire)


_EXTERNAL_SECRET = """\
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
spec:
  secretStoreRef:
    name: vault
  data:
    - secretKey: password
      remoteRef:
        key: prod/db
        property: password
"""
_ENV_FROM_SECRET = """\
- name: DB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: db
      key: password
"""

# Harmless values, each with the name it would sit under: placeholders and references
# (under secret names too), hashes and ids, URLs without user info, ordinary text.
BENIGN: tuple[tuple[str, str], ...] = (
    ("DB_PASSWORD", "${aws_db_instance.default.password}"),
    ("API_TOKEN", "${{ secrets.API_TOKEN }}"),
    ("GITHUB_TOKEN", "{{ .Values.github.token }}"),
    ("Authorization", "Bearer <token>"),
    ("password", "<your-password>"),
    ("SECRET_KEY", "$SECRET_KEY"),
    ("token", "os.environ['TOKEN']"),
    ("api_key", "process.env.API_KEY"),
    ("password", "********"),
    ("client_secret", "REDACTED"),
    ("secret", "null"),
    ("DB_PASSWORD", "$(cat /run/secrets/db_password)"),
    ("secretRef", "db-credentials"),
    ("password_policy", "min 12 chars, 1 digit"),
    ("max_tokens", "4096"),
    ("token_count", "18234"),
    ("secret_arn", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"),
    ("commit", "3f786850e387550fdab836ed7e6dc881de23001b"),
    ("short_sha", "3f78685"),
    ("sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("md5", "d41d8cd98f00b204e9800998ecf8427e"),
    ("digest", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (
        "integrity",
        "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    ),
    ("request_id", "123e4567-e89b-12d3-a456-426614174000"),
    ("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
    ("interaction", "int_01HZX3K9Q2W8E5R7T6Y4U1I0OP"),
    ("ulid", "01HZX3K9Q2W8E5R7T6Y4U1I0OP"),
    ("message_id", "msg_01XFDUDYJgAACzvnptvVoYEL"),
    ("tool_use", "toolu_01A09q90qw90lq917835lq9"),
    ("completion", "chatcmpl-8fK2mQ9xLp3R7tZ1vB6nW4yH"),
    ("customer", "cus_NffrFeUfNV2Hib"),
    ("charge", "ch_3MmlLrLkdIwHu7ix0snN0B15"),
    ("slack_channel", "C0123456789"),
    ("slack_user", "U024BE7LH"),
    ("ts", "1700000000.123456"),
    ("ami", "ami-0abcdef1234567890"),
    ("instance", "i-0123456789abcdef0"),
    ("subnet", "subnet-0bb1c79de3EXAMPLE"),
    ("role", "arn:aws:iam::123456789012:role/deploy"),
    ("bucket", "s3://acme-backups/2024/01/db.sql.gz"),
    ("repo", "https://github.com/acme/widgets/pull/42"),
    ("clone", "git@github.com:acme/widgets.git"),
    ("db_url", "postgresql://db.internal:5432/prod"),
    ("url", "https://api.example.com/v1/users?page=2&per_page=50"),
    ("signed_off", "https://user@example.com/repo.git"),
    ("image", "docker.io/library/postgres:15.4-alpine"),
    (
        "image_digest",
        "ghcr.io/acme/api@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ),
    ("version", "v1.2.3-rc.1+build.5"),
    ("path", "/usr/local/lib/python3.11/site-packages/botocore/data/endpoints.json"),
    ("windows_path", "C:\\Program Files\\Acme\\bin\\agent.exe"),
    ("module", "github.com/aws/aws-sdk-go-v2/service/secretsmanager"),
    ("class", "org.springframework.security.oauth2.client.registration"),
    ("function", "getUserAccountSettingsForTenant2"),
    ("constant", "MAX_RETRY_ATTEMPTS_BEFORE_BACKOFF"),
    ("hostname", "ip-10-0-4-12.eu-west-1.compute.internal"),
    ("k8s_pod", "web-7d9f8b6c5d-x2k4p"),
    ("k8s_secret_name", "db-credentials-v2"),
    ("manifest", _EXTERNAL_SECRET),
    ("k8s_env_ref", _ENV_FROM_SECRET),
    ("terraform", 'resource "aws_db_instance" "default" {\n  password = var.db_password\n}\n'),
    ("sql", "SELECT id, email FROM users WHERE created_at > now() - interval '7 days'"),
    ("sql_password_col", "UPDATE users SET password_hash = $1 WHERE id = $2"),
    ("kubectl", "kubectl rollout restart deployment/web -n prod"),
    ("terraform_cmd", "terraform apply -auto-approve -target=module.vpc"),
    ("git", "git push origin main --force-with-lease"),
    ("ssh", "ssh deploy@10.0.4.12 -p 2222"),
    ("find", "find . -name '*.pyc' -prune -o -print"),
    ("curl", "curl -sS -X POST -H 'Content-Type: application/json' https://api.internal/v1/jobs"),
    ("prose", "Rotate the staging password policy before Friday"),
    ("prose2", "The token count is 4096 tokens"),
    ("prose3", "Basic authentication is disabled for this service"),
    ("prose4", "Bearer of bad news: the deploy failed at step 3"),
    ("prose5", "Please reset my password; the old one expired yesterday."),
    ("prose6", "The API key rotation runbook lives in docs/ops/rotation.md"),
    ("number", "9007199254740993"),
    ("float", "3.14159"),
    ("phone", "+1-555-0100"),
    ("date", "2026-12-01T20:00:00.000Z"),
    ("email", "ops@example.com"),
    ("mailto", "mailto:ops@example.com"),
    ("ticket", "OPS-1234"),
    ("semver_range", ">=1.2.3 <2.0.0"),
    ("cron", "*/5 * * * *"),
    ("json_small", '{"enabled": true, "retries": 3}'),
    ("color", "#1f6feb"),
    ("ip", "10.0.4.12"),
    ("cidr", "10.0.0.0/16"),
    ("mac", "00:1A:2B:3C:4D:5E"),
    ("sentence_id", "release-2026.12-hotfix-3"),
    ("camel", "ThisIsAVeryLongCamelCaseClassName"),
    ("snake", "compute_monthly_active_users_by_region"),
    ("base64_text", "SGVsbG8sIHRoaXMgaXMgYW4gb3JkaW5hcnkgbWVzc2FnZS4="),
    ("word_list", "alpha beta gamma delta epsilon zeta eta theta"),
    ("secret_santa", "secret_santa"),
    ("secretary", "The secretary approved the budget"),
    ("keyboard", "keyboard layout: us-intl"),
    ("primary_key", "id"),
    ("sort_key", "created_at"),
    ("object_key", "uploads/2026/12/report.pdf"),
    ("tokenizer", "cl100k_base"),
    (
        "public_key",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops@host",
    ),
    (
        "certificate",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2\n-----END CERTIFICATE-----",
    ),
    ("gpg_fingerprint", "4AEE18F83AFDEB23"),
    ("aws_account", "123456789012"),
    ("access_key_id_label", "aws_access_key_id"),
    ("region", "eu-west-1"),
    ("placeholder_env", "API_KEY=<insert key here>"),
    ("placeholder_env2", "DB_PASSWORD=${DB_PASSWORD}"),
    ("placeholder_env3", "export GITHUB_TOKEN=$GH_TOKEN"),
    ("placeholder_flag", "--password-file /run/secrets/db"),
    ("xxx", "password: xxxxxxxx"),
)


def benign_plantings(name: str, value: str, index: int) -> dict[str, tuple[str, Any]]:
    """A harmless value in the same nine places (under its own name where one is used; the
    shell line passes it as an ordinary argument, not after a credential's flag)."""
    placed = plantings(Planted(f"benign_{index}", name, value, (), True), index)
    placed["shell"] = ("input", {"command": f"./bin/run --input '{value}' --verbose"})
    return placed


def shown_text(where: str, carried: Any) -> str:
    """All a renderer gets of a record carrying `carried`: its shown copy's wire form."""
    shown = redact_interaction(record(where, carried)).shown
    return json.dumps(shown.to_wire(), ensure_ascii=False)


def leaks_in(placement: str) -> list[str]:
    """The formats that leak in one placement (named formats only where their name goes)."""
    found = []
    for index, planted in enumerate(corpus()):
        if not planted.alone and placement not in NAMED_PLACEMENTS:
            continue
        where, carried = plantings(planted, index)[placement]
        if leaked(planted, shown_text(where, carried)):
            found.append(planted.format)
    return found


def over_masked() -> tuple[int, int, list[str]]:
    """(benign plantings masked, plantings, which as `placement:name`), in all nine places."""
    masked: list[str] = []
    total = 0
    for index, (name, value) in enumerate(BENIGN):
        for placement, (where, carried) in benign_plantings(name, value, index).items():
            total += 1
            if hidden_count(redact_interaction(record(where, carried)).shown) > 0:
                masked.append(f"{placement}:{name}")
    return len(masked), total, masked
