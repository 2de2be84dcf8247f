"""The fallback for shapes nobody listed: a random-looking token where a credential would be.

No list of formats is complete, so a token that has a credential's make-up
is hidden even when no format knows it: at least 20 characters of
`[A-Za-z0-9+/=_-.~]`, holding a run of 16 or more without a separator, that
run mixing lower case, upper case and digits (or, 32 long or more, letters
of one case and digits: base32, base36) with the class changing often, as
random text does and words, identifiers and version strings do not (`getUserAccountSettings2`,
`release-2026.12`). detect-secrets' entropy plugin was tried for this and
left: it scores whole quoted strings by Shannon entropy alone, so it hides
every git SHA and UUID while missing unquoted tokens.

Some random-looking values are not secrets and stay readable: hex (git
SHAs, hashes, UUIDs, AWS resource ids), a record's own ids (`int_…`,
`msg_…`, `req_…`), ULIDs, an SRI hash (`sha512-…`), and base64 that decodes
to ordinary text. Base64 that decodes to a known format is named by it (a
Kubernetes secret's `tls.key`: base64 of a PEM private key), and base64 of
`user:password` is a Docker or Basic credential.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from collections.abc import Callable, Iterator

CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-.~%])[A-Za-z0-9+/_\-.~]{20,}={0,2}")
"""A token: `=` only as base64's padding, so `NAME=value` is two."""
_SEGMENTS = re.compile(r"[/._\-~+=]")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_ID_PREFIX = re.compile(
    r"(?:id|int|run|thr|agt|msg|req|call|toolu|chatcmpl|evt|cus|ch|pi|pm|in|sub|txn|file|asst"
    r"|batch|resp|ord|obj|usr|acct|prod|price|seti|src|tok_test|cs_test|sess|trace|span|ref"
    r"|run_step|step|vs|ft|org|proj|user|team|app|dep|job|task|wf)_"
    r"|(?:chatcmpl|subnet|vpc|sg|vol|snap|eni|igw|rtb|acl|nat|lt|ami|i|r|pcx|tgw|fs)-"
)
"""A record's or a cloud resource's id: `msg_01XF…`, `chatcmpl-8fK2…`, `subnet-0bb1…`."""
_PUBLIC_KEY = re.compile(r"AAAA[BCE][0-9]N[zj]a")
"""An SSH public key's blob (`ssh-ed25519 AAAAC3NzaC1…`): public, and meant to be shared."""
_LOWER, _UPPER, _DIGIT = re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]")
_SRI = re.compile(r"sha(?:1|256|384|512)-")
_USER_PASS = re.compile(r"[^\s:]{1,64}:[^\s]{3,}")
KIND = "high_entropy"
MIN_RUN = 16
LONG_RUN = 32


def _transitions(run: str) -> float:
    """How often consecutive characters change class (lower, upper, digit): ~0.6 in random text."""
    classes = [0 if c.islower() else 1 if c.isupper() else 2 for c in run]
    changes = sum(1 for a, b in itertools.pairwise(classes) if a != b)
    return changes / max(1, len(run) - 1)


def looks_random(token: str) -> bool:
    """A credential's make-up: see the module's docstring for the rule and its exceptions."""
    if _ID_PREFIX.match(token) or _SRI.match(token) or _PUBLIC_KEY.match(token):
        return False
    runs = [r for r in _SEGMENTS.split(token) if len(r) >= MIN_RUN]
    for run in runs:
        if _HEX.fullmatch(run) is not None:
            continue
        lower = len(_LOWER.findall(run))
        upper = len(_UPPER.findall(run))
        digits = len(_DIGIT.findall(run))
        if lower >= 2 and upper >= 2 and digits >= 2 and _transitions(run) >= 0.3:
            return True
        mixed = (lower >= 4 or upper >= 4) and digits >= 4
        one_case = lower == 0 or upper == 0
        # base32 has 6 digits of 32, so its class changes less often
        if len(run) >= LONG_RUN and mixed and one_case and _transitions(run) >= 0.2:
            return True
    return False


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_KEYLIKE = re.compile(r"[A-Za-z0-9+/_\-.~]{20,}={0,2}")


def credential_like(value: str) -> bool:
    """A value with a credential's make-up, for a name that is secret only with one
    (`kaggle_key: 3f…`, not `sort_key: created_at`): random-looking, or 32 hex or more."""
    if _KEYLIKE.fullmatch(value) is None or _UUID.fullmatch(value) is not None:
        return False
    if looks_random(value):
        return True
    return any(len(run) >= LONG_RUN and _HEX.fullmatch(run) for run in _SEGMENTS.split(value))


def decoded(token: str) -> str | None:
    """The text a base64 token stands for, or None when it is not base64 of text."""
    body = token.rstrip("=")
    if len(body) < 16:
        return None
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=False)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\r\n\t" for c in text)
    return text if text and printable == len(text) else None


Named = Callable[[str], str | None]
"""What a decoded text is, by the other detectors: a kind, or None for nothing secret."""


def find_unknown(text: str, known: Named) -> Iterator[tuple[int, int, str]]:
    """Each random-looking token in `text` (start, end, kind): a decoded format's kind, or
    `KIND` for a shape no format knows."""
    for match in CANDIDATE.finditer(text):
        token = match.group(0).strip(".-/")
        if len(token) < 20 or _HEX.fullmatch(token) is not None:
            continue
        # base64 of anything mixes cases; a token in one case (a hex SHA, a host) is not decoded
        start = match.start() + match.group(0).find(token)
        mixed_case = _LOWER.search(token) is not None and _UPPER.search(token) is not None
        plain = decoded(token) if mixed_case else None
        if plain is not None:
            kind = known(plain)
            if kind is not None:
                yield start, start + len(token), kind
                continue
            if _USER_PASS.fullmatch(plain.strip()) is not None:
                yield start, start + len(token), "auth_header"
                continue
            if len(plain) >= 8 and sum(c.isalpha() or c == " " for c in plain) > len(plain) * 0.7:
                continue  # base64 of ordinary text
        if looks_random(token):
            yield start, start + len(token), KIND
