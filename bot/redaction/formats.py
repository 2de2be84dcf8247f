"""Known credential formats, found in any text: where each one is and what it is.

The formats come from detect-secrets (Yelp's scanner, maintained and used in
pre-commit hooks widely): its plugins' `denylist` expressions are the data we
use. Its scanning engine is not: it reads files line by line, keeps global
settings, and "verifies" a hit by calling the service with it, which a bridge
must never do. We need the position of each hit (to mask it in place), so
the expressions are run here with `finditer`.

Added by hand, each because detect-secrets 1.5 lacks it or is too narrow:
some 130 vendors' prefixed formats (`bot.redaction.vendors`), Google API
keys, Slack app-level tokens, `Authorization:`/`Bearer …` values, PEM and
SSH2 private keys, and the password of a URL with any character in it (its
Basic Auth plugin skips passwords holding `!$&'()*+,;=@/:`, all of which
agents' URLs carry). Its AWS key id expression is used with a boundary in
front: without one it found "AWS key ids" inside other formats' keys. Its
entropy and keyword plugins are left out on purpose: they flag git SHAs and
ordinary words; names are `bot.redaction.named`'s job and unknown shapes
`bot.redaction.entropy`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

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

from bot.redaction.vendors import VENDORS


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
PEM_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
LONG_TEXT = 34
"""The shortest text a format without triggers can match in (Twilio's 34 characters)."""


def _plugin(
    kind: str, detector: type[RegexBasedDetector], triggers: tuple[str, ...], group: int = 0
) -> list[Format]:
    """A plugin's expressions; `group` when the credential is one part of the match."""
    denylist: Iterable[re.Pattern[str]] = detector.denylist  # type: ignore[assignment]
    return [Format(kind, p, triggers, group if p.groups >= group else 0) for p in denylist]


_GITLAB = ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-")

FORMATS: tuple[Format, ...] = (
    Format(
        "aws_access_key",
        re.compile(rf"(?<![A-Za-z0-9_\-])(?:{AWSKeyDetector.denylist[0].pattern})(?![A-Za-z0-9])"),
        ("a3t", "abia", "acca", "akia", "asia"),
    ),
    Format("aws_secret_key", AWSKeyDetector.denylist[1], ("aws",), 1),
    *_plugin("azure_storage_key", AzureStorageKeyDetector, ("accountkey=",)),
    *_plugin("discord_token", DiscordBotTokenDetector, ()),
    *_plugin("github_token", GitHubTokenDetector, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Format("github_token", re.compile(r"github_pat_[A-Za-z0-9_]{22,255}"), ("github_pat_",)),
    *_plugin("gitlab_token", GitLabTokenDetector, _GITLAB),
    *_plugin("jwt", JwtTokenDetector, ("eyj",)),
    *_plugin("mailchimp_key", MailchimpDetector, ("-us",)),
    *_plugin("npm_token", NpmDetector, ("_authtoken=",), 1),
    *_plugin("openai_key", OpenAIDetector, ("t3blbkfj",)),
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
    *_plugin("telegram_token", TelegramBotTokenDetector, ()),
    *_plugin("twilio_key", TwilioKeyDetector, ()),
    *(Format(v.kind, v.pattern(), v.triggers) for v in VENDORS),
    Format(
        "private_key",
        re.compile(
            r"-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}|PuTTY-User-Key-File-\d"
        ),
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
        re.compile(
            r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@\"'<>]*:([^\s\"'<>•]+)@"
            r"(?=[^\s@/\"'<>])"
        ),
        ("://",),
        1,
    ),
)
"""Every format, detect-secrets' first."""


def trie_pattern(words: Iterable[str]) -> str:
    """One expression for many literals, as a trie (`ab(?:c|d)`), longest first at each
    branch. Python's `re` tries each alternative of a flat `a|b|c` at every position, so 250
    triggers made every text cost 250 tries per character; a trie costs one or two."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def walk(node: dict[str, Any]) -> str:
        branches = [re.escape(c) + walk(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return walk(trie)


_ALL_TRIGGERS = sorted({t for f in FORMATS for t in f.triggers})
_TRIGGERS = re.compile(trie_pattern(_ALL_TRIGGERS))
"""Every trigger at once, searched in the lower-cased text: most texts hold none. (Lower
case first: the same expression with IGNORECASE is some five times slower.)"""
_BY_TRIGGER: dict[str, tuple[int, ...]] = {
    found: tuple(i for i, f in enumerate(FORMATS) if any(found.startswith(t) for t in f.triggers))
    for found in _ALL_TRIGGERS
}
"""The formats to search when a trigger is found: those of it and of each trigger it begins
with (`xoxe-` found means `xox`'s formats too)."""
_UNTRIGGERED = tuple(f for f in FORMATS if not f.triggers)


def _triggered(lowered: str) -> list[Format]:
    """The formats whose triggers `lowered` holds, in `FORMATS` order, each once: only these
    are searched, so a text costs a few expressions, not a hundred and fifty."""
    chosen: set[int] = set()
    at = 0
    while (found := _TRIGGERS.search(lowered, at)) is not None:
        chosen.update(_BY_TRIGGER[found.group(0)])
        at = found.start() + 1
    return [FORMATS[i] for i in sorted(chosen)]


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
    formats = _triggered(text.lower())
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
