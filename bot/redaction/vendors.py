"""Vendors' credential formats that detect-secrets does not know, one row each.

detect-secrets 1.5 knows some twenty services; agents carry keys of many more.
Each row here is a prefix the vendor puts on its keys (so the key names
itself) and the shape of what follows, as the vendor documents it and public
secret-scanning rule sets (gitleaks' rules among them) record it. A row
names its vendor in the mask only because the prefix is the vendor's own: a
shape without one is the fallback's (`bot.redaction.entropy`), never a guess
at a vendor.

Every expression starts at a boundary (no letter, digit or `_` before it), so
a format is never found in the middle of another value: the AWS key id that
detect-secrets finds inside an `AGE-SECRET-KEY-1…` is the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

AN = "A-Za-z0-9"
HEX = "a-fA-F0-9"
URLSAFE = "A-Za-z0-9_\\-"
B64 = "A-Za-z0-9+/"


@dataclass(frozen=True)
class Vendor:
    """One vendor format: `prefixes` start every key (the scan's triggers), `body` follows."""

    kind: str
    label: str
    prefixes: tuple[str, ...]
    body: str
    ignore_case: bool = False
    found_by: tuple[str, ...] = ()
    """Literals inside the body to search for, for a format with no prefix."""

    @property
    def triggers(self) -> tuple[str, ...]:
        return tuple(t.lower() for t in self.prefixes + self.found_by)

    def pattern(self) -> re.Pattern[str]:
        starts = "|".join(re.escape(p) for p in self.prefixes)
        flags = re.IGNORECASE if self.ignore_case else 0
        return re.compile(rf"(?<![A-Za-z0-9_])(?:{starts}){self.body}", flags)


def _v(
    kind: str, label: str, prefixes: str, body: str, ignore_case: bool = False, found_by: str = ""
) -> Vendor:
    return Vendor(kind, label, tuple(prefixes.split()), body, ignore_case, tuple(found_by.split()))


VENDORS: tuple[Vendor, ...] = (
    _v("shopify_token", "Shopify token", "shpat_ shpca_ shppa_ shpss_", f"[{HEX}]{{32}}"),
    _v("digitalocean_token", "DigitalOcean token", "dop_v1_ doo_v1_ dor_v1_", f"[{HEX}]{{64}}"),
    _v("grafana_token", "Grafana token", "glsa_", f"[{AN}]{{32}}_[{HEX}]{{8}}"),
    _v("grafana_token", "Grafana token", "glc_", f"[{B64}=_\\-]{{32,}}"),
    _v("huggingface_token", "Hugging Face token", "hf_ api_org_", f"[{AN}]{{30,}}"),
    _v("sentry_token", "Sentry token", "sntrys_", f"[{B64}=_\\-]{{40,}}"),
    _v("sentry_token", "Sentry token", "sntryu_", f"[{HEX}]{{64}}"),
    _v("vault_token", "Vault token", "hvs. hvb. hvr.", f"[{URLSAFE}]{{24,}}"),
    _v(
        "doppler_token",
        "Doppler token",
        "dp.pt. dp.st. dp.sa. dp.ct. dp.scim. dp.audit.",
        f"[{URLSAFE}.]{{20,}}",
    ),
    _v("postman_key", "Postman key", "PMAK-", f"[{HEX}]{{24}}-[{HEX}]{{34}}"),
    _v("linear_key", "Linear key", "lin_api_ lin_oauth_", f"[{AN}]{{32,}}"),
    _v("notion_token", "Notion token", "ntn_", f"[{AN}]{{40,}}"),
    _v("heroku_key", "Heroku key", "HRKU-", f"[{URLSAFE}]{{20,}}"),
    _v("aws_bedrock_key", "AWS Bedrock key", "ABSK", f"[{B64}]{{40,}}={{0,2}}"),
    _v("aws_mws_key", "Amazon MWS key", "amzn.mws.", f"[{HEX}-]{{36}}"),
    _v("alibaba_key", "Alibaba Cloud key id", "LTAI", f"[{AN}]{{12,24}}(?![{AN}])"),
    _v("tencent_key", "Tencent Cloud key id", "AKID", f"[{AN}]{{32}}"),
    _v("webhook_secret", "webhook signing secret", "whsec_", f"[{B64}=_\\-]{{24,}}"),
    _v("google_oauth_token", "Google OAuth token", "ya29.", f"[{URLSAFE}]{{20,}}"),
    _v("google_oauth_token", "Google OAuth token", "1//0", f"[{URLSAFE}]{{30,}}"),
    _v("google_oauth_secret", "Google OAuth client secret", "GOCSPX-", f"[{URLSAFE}]{{20,}}"),
    _v("age_key", "age secret key", "AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _v("atlassian_token", "Atlassian token", "ATATT3 ATCTT3", f"[{URLSAFE}=]{{40,}}"),
    _v("bitbucket_token", "Bitbucket token", "ATBB", f"[{AN}]{{28,}}"),
    _v("airtable_token", "Airtable token", "pat", f"[{AN}]{{14}}\\.[{HEX}]{{64}}"),
    _v("adafruit_key", "Adafruit key", "aio_", f"[{AN}]{{28}}"),
    _v("adobe_secret", "Adobe secret", "p8e-", f"[{AN}]{{32}}"),
    _v("clojars_token", "Clojars token", "CLOJARS_", f"[{AN}]{{40,}}"),
    _v("cloudflare_key", "Cloudflare origin CA key", "v1.0-", f"[{HEX}]{{24}}-[{HEX}]{{100,}}"),
    _v("contentful_token", "Contentful token", "CFPAT-", f"[{URLSAFE}]{{40,}}"),
    _v("databricks_token", "Databricks token", "dapi", f"[{HEX}]{{32}}(?:-\\d)?"),
    _v("dbt_token", "dbt Cloud token", "dbtc_ dbtu_", f"[{URLSAFE}]{{30,}}"),
    _v("dropbox_token", "Dropbox token", "sl.u. sl.", f"[{URLSAFE}=]{{100,}}"),
    _v("duffel_token", "Duffel token", "duffel_test_ duffel_live_", f"[{URLSAFE}=]{{40,}}"),
    _v("dynatrace_token", "Dynatrace token", "dt0c01.", f"[{AN}]{{24}}\\.[{AN}]{{64}}"),
    _v("easypost_key", "EasyPost key", "EZAK EZTK", f"[{AN}]{{50,}}"),
    _v("facebook_token", "Facebook token", "EAACEdEose0 EAAB EAAG EAAI", f"[{AN}]{{60,}}"),
    _v("square_token", "Square token", "EAAA", f"[{URLSAFE}]{{60}}"),
    _v("square_token", "Square token", "sq0atp-", f"[{URLSAFE}]{{22}}"),
    _v("flutterwave_key", "Flutterwave key", "FLWSECK_TEST- FLWSECK-", f"[{HEX}]{{32}}-X"),
    _v("frameio_token", "Frame.io token", "fio-u-", f"[{URLSAFE}=]{{64}}"),
    _v("gocardless_token", "GoCardless token", "live_", f"[{URLSAFE}=]{{40}}"),
    _v(
        "terraform_token",
        "Terraform Cloud token",
        "",
        f"[{AN}]{{14}}\\.atlasv1\\.[{URLSAFE}=]{{60,}}",
        found_by=".atlasv1.",
    ),
    _v("hubspot_token", "HubSpot token", "pat-na1- pat-eu1-", f"[{HEX}-]{{36}}"),
    _v("infracost_key", "Infracost key", "ico-", f"[{AN}]{{32}}"),
    _v("jfrog_token", "JFrog token", "AKCp", f"[{AN}]{{60,}}"),
    _v("jfrog_token", "JFrog token", "cmVmdGtu", f"[{AN}]{{56,}}"),
    _v("mailgun_key", "Mailgun key", "key-", f"[{HEX}]{{32}}"),
    _v("mapbox_token", "Mapbox token", "sk.eyJ", f"[{URLSAFE}]+\\.[{URLSAFE}]{{20,}}"),
    _v("newrelic_key", "New Relic key", "NRAK- NRII- NRAA- NRJS-", f"[{AN}]{{19,}}"),
    _v("nuget_key", "NuGet key", "oy2", "[a-z0-9]{43}"),
    _v("onepassword_token", "1Password token", "ops_eyJ", f"[{URLSAFE}=]{{100,}}"),
    _v("onepassword_secret_key", "1Password secret key", "A3-", "[A-Z0-9]{6}-[A-Z0-9-]{20,}"),
    _v(
        "planetscale_token",
        "PlanetScale token",
        "pscale_tkn_ pscale_pw_ pscale_oauth_",
        f"[{URLSAFE}.=]{{32,}}",
    ),
    _v("prefect_key", "Prefect key", "pnu_", f"[{AN}]{{36}}"),
    _v("pulumi_token", "Pulumi token", "pul-", f"[{HEX}]{{40}}"),
    _v("readme_key", "ReadMe key", "rdme_", "[a-z0-9]{70}"),
    _v("rubygems_key", "RubyGems key", "rubygems_", f"[{HEX}]{{48}}"),
    _v("scalingo_token", "Scalingo token", "tk-us-", f"[{URLSAFE}]{{48}}"),
    _v("brevo_key", "Brevo key", "xkeysib- xsmtpsib-", f"[{HEX}]{{64}}-[{AN}]{{16}}"),
    _v("shippo_token", "Shippo token", "shippo_live_ shippo_test_", f"[{HEX}]{{40}}"),
    _v("slack_token", "Slack token", "xoxe.xoxp- xoxe.xoxb- xoxe-", f"[{URLSAFE}]{{20,}}"),
    _v("twitter_token", "Twitter token", "AAAAAAAAAAAAAAAAAAAAA", f"[{AN}%]{{30,}}"),
    _v("typeform_token", "Typeform token", "tfp_", f"[{URLSAFE}.]{{50,}}"),
    _v("yandex_key", "Yandex key", "AQVN", f"[{URLSAFE}]{{35,38}}"),
    _v("yandex_key", "Yandex key", "YC", f"[{URLSAFE}]{{38}}(?![{URLSAFE}])"),
    _v("yandex_key", "Yandex key", "t1.", f"[A-Z0-9a-z_\\-]+[=]{{0,2}}\\.[{URLSAFE}]{{86}}"),
    _v("groq_key", "Groq key", "gsk_", f"[{AN}]{{48,}}"),
    _v("perplexity_key", "Perplexity key", "pplx-", f"[{AN}]{{40,}}"),
    _v("replicate_token", "Replicate token", "r8_", f"[{AN}]{{30,}}"),
    _v("xai_key", "xAI key", "xai-", f"[{AN}]{{70,}}"),
    _v("openrouter_key", "OpenRouter key", "sk-or-v1-", f"[{HEX}]{{64}}"),
    _v("langsmith_key", "LangSmith key", "lsv2_pt_ lsv2_sk_", f"[{HEX}]{{32}}_[{HEX}]{{10}}"),
    _v("langfuse_key", "Langfuse key", "sk-lf-", f"[{HEX}-]{{36}}"),
    _v("pinecone_key", "Pinecone key", "pcsk_", f"[{URLSAFE}]{{40,}}"),
    _v("tavily_key", "Tavily key", "tvly-", f"[{URLSAFE}]{{30,}}"),
    _v("firecrawl_key", "Firecrawl key", "fc-", f"[{HEX}]{{32}}"),
    _v("supabase_key", "Supabase key", "sbp_", f"[{HEX}]{{40}}"),
    _v("supabase_key", "Supabase key", "sb_secret_", f"[{URLSAFE}]{{20,}}"),
    _v("vercel_token", "Vercel token", "vcp_ vck_ vci_ vca_ vcr_", f"[{AN}]{{40,}}"),
    _v("netlify_token", "Netlify token", "nfp_", f"[{AN}]{{36,}}"),
    _v("render_key", "Render key", "rnd_", f"[{AN}]{{28,}}"),
    _v("fly_token", "Fly.io token", "FlyV1 fm1r_ fm2_ fo1_", f"[ ]?[{B64}=_\\-,]{{40,}}"),
    _v("neon_key", "Neon key", "napi_", f"[{AN}]{{60,}}"),
    _v("xata_key", "Xata key", "xau_", f"[{AN}]{{30,}}"),
    _v("resend_key", "Resend key", "re_", f"[{AN}]{{8}}_[{AN}]{{24,}}"),
    _v("figma_token", "Figma token", "figd_", f"[{URLSAFE}]{{38,}}"),
    _v("clickup_token", "ClickUp token", "pk_", "[0-9]{6,10}_[A-Z0-9]{32}"),
    _v("docker_token", "Docker Hub token", "dckr_pat_ dckr_oat_", f"[{URLSAFE}]{{27,}}"),
    _v("sonar_token", "SonarQube token", "squ_ sqp_ sqa_", f"[{HEX}]{{40}}"),
    _v("buildkite_token", "Buildkite token", "bkua_", f"[{HEX}]{{40}}"),
    _v("circleci_token", "CircleCI token", "CCIPAT_ CCIPRJ_", f"[{URLSAFE}]{{20,}}"),
    _v(
        "harness_token",
        "Harness token",
        "pat. sat.",
        f"[{URLSAFE}]{{22}}\\.[{AN}]{{24}}\\.[{AN}]{{20}}",
    ),
    _v("octopus_key", "Octopus Deploy key", "API-", "[A-Z0-9]{26,}"),
    _v("tailscale_key", "Tailscale key", "tskey-", f"[a-z]+-[{URLSAFE}]{{20,}}"),
    _v("akamai_token", "Akamai token", "akab-", f"[{AN}]{{16}}-[{AN}]{{16}}"),
    _v(
        "plaid_token",
        "Plaid token",
        "access-sandbox- access-development- access-production-",
        f"[{HEX}-]{{36}}",
    ),
    _v(
        "paypal_token",
        "PayPal/Braintree token",
        "access_token$production$ access_token$sandbox$",
        f"[{AN}]{{16}}\\$[{HEX}]{{32}}",
    ),
    _v("razorpay_key", "Razorpay key", "rzp_live_ rzp_test_", f"[{AN}]{{14}}"),
    _v("segment_token", "Segment token", "sgp_", f"[{AN}]{{64}}"),
    _v("posthog_key", "PostHog key", "phx_", f"[{AN}]{{40,}}"),
    _v("zapier_hook", "Zapier webhook", "hooks.zapier.com/hooks/catch/", f"[0-9]+/[{AN}]+/?"),
    _v(
        "discord_webhook",
        "Discord webhook",
        "discord.com/api/webhooks/ discordapp.com/api/webhooks/",
        f"[0-9]+/[{URLSAFE}]{{40,}}",
    ),
    _v(
        "teams_webhook",
        "Microsoft Teams webhook",
        "",
        f"[a-z0-9\\-]+\\.webhook\\.office\\.com/webhookb2/"
        f"[{HEX}\\-@]+/IncomingWebhook/[{HEX}]+/[{HEX}\\-]+(?:/[{URLSAFE}]+)?",
        found_by="webhook.office.com",
    ),
    _v("twitch_token", "Twitch token", "oauth:", "[a-z0-9]{30}"),
    _v("stytch_secret", "Stytch secret", "secret-live- secret-test-", f"[{URLSAFE}=]{{36,}}"),
    _v("pubnub_key", "PubNub secret key", "sec-c-", f"[{B64}=]{{40,}}"),
    _v("telnyx_key", "Telnyx key", "KEY", f"[{HEX}]{{32}}_[{AN}]{{22}}"),
    _v("flagsmith_key", "Flagsmith key", "ser.", f"[{AN}]{{22}}"),
    _v("fauna_key", "Fauna key", "fnA fnE", f"[{URLSAFE}]{{36,}}"),
    _v("laravel_key", "Laravel APP_KEY", "base64:", f"[{B64}]{{43}}="),
    _v("django_secret", "Django secret key", "django-insecure-", "[^\\s\"'`]{40,}"),
    _v("e2b_key", "E2B key", "e2b_", f"[{HEX}]{{40}}"),
    _v("cerebras_key", "Cerebras key", "csk-", f"[{AN}]{{40,}}"),
    _v("llamacloud_key", "LlamaCloud key", "llx-", f"[{AN}]{{40,}}"),
    _v("browserbase_key", "Browserbase key", "bb_live_ bb_test_", f"[{URLSAFE}]{{24,}}"),
    _v("runpod_key", "RunPod key", "rpa_", f"[{AN}]{{40,}}"),
    _v("voyage_key", "Voyage AI key", "pa-", f"[{URLSAFE}]{{40,}}"),
    _v("jina_key", "Jina key", "jina_", f"[{URLSAFE}]{{50,}}"),
    _v("helicone_key", "Helicone key", "sk-helicone-", f"[{URLSAFE}]{{20,}}"),
    _v("modal_token", "Modal token", "ak- as-", f"[{AN}]{{22}}(?![{AN}])"),
    _v(
        "firebase_key",
        "Firebase Cloud Messaging key",
        "AAAA",
        f"[{URLSAFE}]{{7}}:APA91b[{URLSAFE}]{{100,}}",
    ),
    _v("minisign_key", "minisign secret key", "RWRTY0Iy", f"[{B64}=]{{100,}}"),
    _v(
        "azure_ad_secret",
        "Azure AD client secret",
        "",
        f"[{URLSAFE}~.]{{3}}\\dQ~[{URLSAFE}~.]{{31,34}}",
        found_by="q~",
    ),
    _v("azure_sas", "Azure SAS signature", "sig=", "[A-Za-z0-9%+/]{30,}={0,2}(?:%3[Dd]){0,2}"),
    _v("azure_key", "Azure key", "SharedAccessKey= AccountKey=", "[A-Za-z0-9+/]{30,}={0,2}", True),
    _v(
        "jwe",
        "JWE",
        "eyJ",
        f"[{URLSAFE}]+\\.[{URLSAFE}]*\\.[{URLSAFE}]+\\.[{URLSAFE}]+\\.[{URLSAFE}]+",
    ),
    _v("sendgrid_key", "SendGrid key", "SG.", f"[{URLSAFE}]{{22}}\\.[{URLSAFE}]{{43}}"),
    _v("stripe_key", "Stripe key", "sk_live_ rk_live_ sk_test_ rk_test_", f"[{AN}]{{20,}}"),
    _v("npm_token", "npm token", "npm_", f"[{AN}]{{36}}"),
    _v(
        "gitlab_token",
        "GitLab token",
        "glffct- glsoat- glimt- glcbt- gldt- glrt- glptt- gloas-",
        f"[{URLSAFE}]{{20,}}",
    ),
    _v("anthropic_key", "Anthropic key", "sk-ant-", f"[a-z]{{3,8}}\\d{{0,3}}-[{URLSAFE}]{{20,}}"),
    _v(
        "openai_key", "OpenAI key", "sk-proj- sk-svcacct- sk-admin- sk-None-", f"[{URLSAFE}]{{20,}}"
    ),
    _v(
        "pypi_token",
        "PyPI token",
        "pypi-AgEIcHlwaS5vcmc pypi-AgENdGVzdC5weXBpLm9yZw",
        f"[{URLSAFE}]{{50,}}",
    ),
)
