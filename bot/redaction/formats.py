"""Known credential formats, found in any text: where each one is and what it is.

The formats come from detect-secrets (Yelp's scanner, maintained and used in
pre-commit hooks widely): its plugins' `denylist` expressions are the data we
use. Its scanning engine is not: it reads files line by line, keeps global
settings, and "verifies" a hit by calling the service with it, which a bridge
must never do. We need the position of each hit (to mask it in place), so
the expressions are run here with `finditer`.

Added by hand, each because detect-secrets 1.5 lacks it or is too narrow:
Google API keys, Anthropic keys, OpenAI keys of the current `sk-proj-` form
(its plugin knows only the legacy `T3BlbkFJ` form), Slack app-level and
refresh tokens (`xapp-`, `xoxe-`), Stripe test keys, `Authorization:`/
`Bearer …` values, and the password of a URL (its Basic Auth plugin skips
passwords holding `!$&'()*+,;=`, all legal in a URL's user info). Its
entropy and keyword plugins are left out on purpose: they flag git SHAs and
ordinary words, and secret-like names are `bot.redaction.keys`' job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector


@dataclass(frozen=True)
class Format:
    """One way a credential looks: `group` is the part to hide (0: the whole match).

    `triggers` are literals (lower case) at least one of which every match holds:
    a text holding none of them is not searched with this expression, which is
    what keeps a 200 KB input cheap. A format with no literal to require is
    searched in texts long enough to hold it (`LONG_TEXT`).
    """

    kind: str
    pattern: re.Pattern[str]
    triggers: tuple[str, ...]
    group: int = 0


@dataclass(frozen=True)
class Hit:
    """Where a value to hide sits in a text, and what kind of value it is."""

    start: int
    end: int
    kind: str


TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=.]*")
"""What may follow a token's detected start and still be part of it (a JWT's signature)."""
WORD_CHARS = re.compile(r"[A-Za-z0-9_\-]*")
"""What may follow a fixed-length format's match and is hidden with it: a longer key than
the format says must not leave its tail showing."""
_WHOLE = frozenset({"auth_header", "url_password", "secret_key"})
"""Kinds whose expression already takes the whole value."""
PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
LONG_TEXT = 34
"""The shortest text a format without triggers can match in (Twilio's 34 characters)."""


def _plugin(
    kind: str, detector: type[RegexBasedDetector], triggers: tuple[str, ...], group: int = 0
) -> list[Format]:
    """A plugin's expressions; `group` when the credential is one part of the match."""
    denylist: Iterable[re.Pattern[str]] = detector.denylist  # type: ignore[assignment]
    return [Format(kind, p, triggers, group if p.groups >= group else 0) for p in denylist]


_ASSIGNED_NAME = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|client[_-]?secret|secret[_-]?key|credentials?)"
)
_GITLAB = ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-")
_GITLAB_MORE = ("glptt-", "glagent-", "gloas-")

FORMATS: tuple[Format, ...] = (
    Format(
        "aws_access_key",
        AWSKeyDetector.denylist[0],
        ("a3t", "abia", "acca", "akia", "asia"),
    ),
    Format("aws_secret_key", AWSKeyDetector.denylist[1], ("aws",), 1),
    *_plugin("azure_storage_key", AzureStorageKeyDetector, ("accountkey=",)),
    *_plugin("discord_token", DiscordBotTokenDetector, ()),
    *_plugin("github_token", GitHubTokenDetector, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Format("github_token", re.compile(r"github_pat_[A-Za-z0-9_]{22,255}"), ("github_pat_",)),
    *_plugin("gitlab_token", GitLabTokenDetector, _GITLAB + _GITLAB_MORE),
    *_plugin("jwt", JwtTokenDetector, ("eyj",)),
    *_plugin("mailchimp_key", MailchimpDetector, ("-us",)),
    *_plugin("npm_token", NpmDetector, ("_authtoken=",), 1),
    Format("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",)),
    *_plugin("openai_key", OpenAIDetector, ("t3blbkfj",)),
    Format(
        "anthropic_key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[a-z]{3,8}\d{0,3}-[A-Za-z0-9_\-]{20,}"),
        ("sk-ant-",),
    ),
    Format(
        "openai_key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
        ("sk-proj-", "sk-svcacct-", "sk-admin-"),
    ),
    Format("google_api_key", re.compile(r"AIza[0-9A-Za-z_\-]{35}"), ("aiza",)),
    *_plugin("pypi_token", PypiTokenDetector, ("pypi-",)),
    *_plugin("sendgrid_key", SendGridDetector, ("sg.",)),
    *_plugin("slack_token", SlackDetector, ("xox", "hooks.slack.com")),
    Format(
        "slack_token", re.compile(r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", re.IGNORECASE), ("xapp-",)
    ),
    Format("slack_token", re.compile(r"xox[ep]-(?:\d+-)+[a-z0-9]+", re.IGNORECASE), ("xox",)),
    *_plugin("square_token", SquareOAuthDetector, ("sq0csp-",)),
    *_plugin("stripe_key", StripeDetector, ("_live_",)),
    Format("stripe_key", re.compile(r"(?:sk|rk|pk)_test_[0-9a-zA-Z]{24,}"), ("_test_",)),
    *_plugin("telegram_token", TelegramBotTokenDetector, ()),
    *_plugin("twilio_key", TwilioKeyDetector, ()),
    Format(
        "private_key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d"),
        ("private key", "putty-user-key"),
    ),
    Format(
        "auth_header",
        re.compile(
            r"\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest|bot)\s+)?([^\s\"',;]{8,})",
            re.IGNORECASE,
        ),
        ("authorization",),
        1,
    ),
    Format(
        "auth_header",
        re.compile(r"\bbearer\s+([A-Za-z0-9\-._~+/]{12,}=*)", re.IGNORECASE),
        ("bearer",),
        1,
    ),
    Format(
        "auth_header",
        re.compile(r"\b(?:set-)?cookie[\"']?\s*:\s*[\"']?([^\r\n\"']{4,})", re.IGNORECASE),
        ("cookie",),
        1,
    ),
    Format(
        "url_password",
        re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@\"'<>]*:([^\s/?#@\"'<>•]+)@(?=[^\s@/])"),
        ("://",),
        1,
    ),
    Format(
        "secret_key",
        re.compile(
            rf"{_ASSIGNED_NAME}[\"']?(?:\s*[=:]\s*|\s+(?=[\"']))[\"']?([^\s\"'`,;&<>]{{4,}})",
            re.IGNORECASE,
        ),
        ("pass", "secret", "token", "key", "credential"),
        1,
    ),
)
"""Every format, detect-secrets' first. `secret_key` here is `NAME=value` inside a text
(an `export API_TOKEN=…` in a shell command); a record's own keys are `keys`' job."""

_TRIGGERS = re.compile("|".join(sorted({re.escape(t) for f in FORMATS for t in f.triggers})))
"""Every trigger at once, searched in the lower-cased text: most texts hold none. (Lower
case first: the same expression with IGNORECASE is some five times slower.)"""
_TRIGGERED = tuple(f for f in FORMATS if f.triggers)
_UNTRIGGERED = tuple(f for f in FORMATS if not f.triggers)


def _extend(text: str, start: int, end: int, kind: str) -> int:
    """Where a hit really ends: a JWT's signature, a PEM block's END line."""
    if kind == "jwt":
        more = TOKEN_CHARS.match(text, end)
        return more.end() if more else end
    if kind == "private_key":
        closing = PEM_END.search(text, end)
        if closing is not None:
            return closing.end()
        line_end = text.find("\n\n", end)
        return len(text) if line_end < 0 else line_end
    if kind in _WHOLE:
        return end
    more = WORD_CHARS.match(text, end)
    return more.end() if more else end


def find_formats(text: str) -> Iterator[Hit]:
    """Every known credential in `text`; overlapping hits are `spans.merge`'s to settle."""
    if len(text) < 8:
        return
    formats = _TRIGGERED if _TRIGGERS.search(text.lower()) is not None else ()
    if len(text) >= LONG_TEXT:
        formats += _UNTRIGGERED
    for found in formats:
        for match in found.pattern.finditer(text):
            start, end = match.span(found.group)
            if start < 0 or start == end:
                continue
            if found.kind == "jwt" and not JwtTokenDetector.is_formally_valid(
                text[start : _extend(text, start, end, "jwt")]
            ):
                continue
            yield Hit(start, _extend(text, start, end, found.kind), found.kind)
