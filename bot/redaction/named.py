"""Values a text names as secret: `NAME=value`, `--password value`, `curl -u user:pw`, code.

A credential with no format of its own is still named where it is written:
a `.env` line, a YAML or JSON line, a connection string's `Pwd=`, a URL's
`?password=`, a command's `--token`/`--password`/`-u user:pw`/`-pPW`
(MySQL's glued form), `gh secret set NAME --body VALUE`, and code
(`password => "…"`, `token := "…"`, `secret("…")`, `"…" == my_password`).
Each name is judged by `keys.is_secret_name`, the same test a record's keys
get, so a name is secret or not in one place; a name ending in `key` that
is not secret by itself (`kaggle_key`) is when its value looks like a
credential (`entropy.credential_like`).

A value that only refers to a secret (`${DB_PASSWORD}`, `<token>`,
`{{ secrets.X }}`, `os.environ["X"]`, `$TOKEN`) is left as it is: hiding it
hides nothing and makes the command unreadable (`is_reference`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.redaction.entropy import credential_like
from bot.redaction.keys import is_key_name, is_secret_name

_VALUE = (
    r"""(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|`(?P<bq>[^`\n]+)`|(?P<bare>[^\s"'`,;&<>)\]}]+))"""
)
ASSIGNED = re.compile(
    r"(?<![\w.\-$:])(?=(?P<name>[A-Za-z_][\w.\-]{0,80})"
    r"(?:[\"']?\]?[ \t]*(?:=>|:=|==|=|:|[ \t](?=[\"']))|\((?=[\"'`]))[ \t]*" + _VALUE + ")"
)
"""`NAME=value`, `NAME: value`, `"NAME": "value"`, `NAME => "v"`, `NAME := "v"`, `NAME("v")`,
`$config['NAME'] = "v"`. A call takes a quoted argument right after its name: prose such as
`auth.test (Cannot connect)` is no call.
A lookahead, so that `x := secret("v")` is read at `x` and again at `secret`."""
FLAG = re.compile(r"(?<!\S)--?(?P<name>[A-Za-z][\w\-]{1,60})(?:=|\s+)" + _VALUE)
"""`--password value`, `--token=value`, `-password value` (a flag whose name is secret)."""
USER_PASS = re.compile(
    r"(?<!\S)(?:-u|--user|--proxy-user)(?:=|\s+)[\"']?[^\s:\"']*:(?P<bare>[^\s\"']+)"
)
"""`curl -u admin:pw`: the part after the colon."""
GLUED_P = re.compile(r"(?<!\S)(?:-p|--password=?)(?P<bare>[^\s\"'-][^\s\"']*)")
"""MySQL's `-pPASSWORD`, looked for only in a MySQL/MariaDB command (`-p` is a port elsewhere)."""
SPACED_P = re.compile(r"(?<!\S)-p\s+" + _VALUE)
"""`docker login -u me -p PASSWORD`, `sshpass -p PASSWORD`: looked for only after those."""
SECRET_SET = re.compile(r"\bsecrets?\s+set\s+\S+\s+(?:--body|-b)(?:=|\s+)" + _VALUE)
"""`gh secret set NAME --body VALUE` (and `-b`)."""
COMPARED = re.compile(r"""["'](?P<dq>[^"'\n]{3,})["']\s*[!=]==?\s*(?P<name>[A-Za-z_][\w.]*)""")
"""`"value" == my_super_password`: a literal compared with a secret-named variable."""
ENV_LINE = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_]\w{0,80})=(?P<bare>[^\"'\n$&|;<>][^\n$&|;<>]*)$"
)
"""A `.env` line: its value is the rest of the line, spaces and all (`NAME=a b c`); not a
shell line that goes on (`&&`, `|`, `;`, a redirection, a `$` expansion)."""
NAME_THEN_VALUE = re.compile(
    r"""\b(?:name|key|header)["']?[ \t]*[:=][ \t]*["']?(?P<name>[\w.\-]{2,80})["']?[ \t]*,?[ \t]*"""
    r"""\n?[ \t]*-?[ \t]*["']?value["']?[ \t]*[:=][ \t]*""" + _VALUE
)
"""A name/value pair written as text: a Kubernetes `env` entry in YAML (`- name: DB_PASSWORD`
then `value: …`), the same in JSON, or a HAR header copied into a message."""

_GLUED_P_TOOLS = ("mysql", "mariadb")
_SPACED_P_TOOLS = ("docker login", "podman login", "sshpass", "registry login", "nerdctl login")
TRIGGERS = re.compile(r"pass|pwd|secret|token|key|auth|cred|pat|sig|cookie|bearer|-u\b|--user")
"""A text holding none of these names nothing secret: most texts are skipped at once."""

_REFERENCE = re.compile(
    r"""\$\d+|\$\{.*\}|\$\(.*\)|\{\{.*\}\}|<[^<>]*>|%\(?\w*\)?s?|\$[A-Za-z_]\w*|\w+(?:\.\w+)*\s*[(\[].*"""
)
_SCHEME = re.compile(r"(?:bearer|basic|token|digest|bot)\s+(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
_NAME_LIKE = re.compile(r"[a-z]+(?:[_.\-][a-z]+)*")
_DOTTED = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NOTHING = frozenset(
    {
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "redacted",
        "hidden",
        "masked",
        "yes",
        "no",
    }
    | {"bearer", "basic", "token", "digest", "bot", "negotiate"}
)
"""Values that are no secret: empty words, and an `Authorization:` scheme (its credential
follows it and is the `auth_header` format's)."""


def is_reference(value: str) -> bool:
    """A value that names or stands for a secret without being one (`${X}`, `<token>`)."""
    text = value.strip()
    if not text:
        return True
    if text.lower() in _NOTHING or (len(text) >= 3 and set(text) <= set("*x•.#?X")):
        return True
    if _REFERENCE.fullmatch(text) is not None or "${" in text or "{{" in text:
        return True
    if text.endswith("hidden)") and ("…" in text or "•••" in text):
        return True  # a mask already: a shown copy scanned again finds nothing new
    if text.startswith("$("):  # a command substitution, cut at its first blank
        return True
    scheme = _SCHEME.fullmatch(text)
    if scheme is not None:  # `Bearer <token>`: the scheme, then a reference
        return is_reference(scheme.group("rest"))
    if _NAME_LIKE.fullmatch(text) is not None and is_secret_name(text):
        return True  # `secretKey: password`: the name of a secret, not one
    return _DOTTED.fullmatch(text) is not None or _ENV_NAME.fullmatch(text) is not None


def _value(match: re.Match[str], shortest: int = 3) -> tuple[int, int] | None:
    for group in ("dq", "sq", "bq", "bare"):
        if group in match.re.groupindex and match.group(group) is not None:
            start, end = match.span(group)
            value = match.group(group)
            if len(value.strip()) < shortest or is_reference(value):
                return None
            return start, end
    return None


def find_named(text: str) -> Iterator[tuple[int, int]]:
    """Where each value a text names as secret sits (start, end)."""
    lowered = text.lower()
    if TRIGGERS.search(lowered) is None:
        return
    for expression in (ASSIGNED, ENV_LINE, FLAG, COMPARED, NAME_THEN_VALUE):
        for match in expression.finditer(text):
            name = match.group("name")
            span = _value(match)
            if span is None:
                continue
            if is_secret_name(name) or (
                is_key_name(name) and credential_like(text[span[0] : span[1]])
            ):
                yield span
    expressions = [USER_PASS]
    if "secret" in lowered:
        expressions.append(SECRET_SET)
    if any(tool in lowered for tool in _GLUED_P_TOOLS):
        expressions.append(GLUED_P)
    if any(tool in lowered for tool in _SPACED_P_TOOLS):
        expressions.append(SPACED_P)
    for expression in expressions:
        for match in expression.finditer(text):
            # after MySQL's `-p` anything is the password, however short (`-ppw`)
            span = _value(match, 2 if expression is GLUED_P else 3)
            if span is not None:
                yield span
