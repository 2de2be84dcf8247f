"""Keys whose name says the value is secret: the value is hidden, whatever it looks like.

A name is compared without case, `_` or `-` (`DB_Password`, `db-password`
and `dbpassword` are one name), and is secret when it *ends* with one of
`SECRET_NAMES`: `db_password` and `github_token` are, while `max_tokens`,
`token_count`, `password_policy` and `secretary` are not — ending-with keeps
ordinary fields of agent tools (an LLM call's `max_tokens`) readable.

The policy adds names of its own: a glob on the key's name (`*_dsn`) or a
dotted path from the top of `input` or `preview` (`customer.ssn`, list
positions left out), either also written with its `input.`/`preview.` prefix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

SECRET_NAMES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "clientsecret",
    "authorization",
    "cookie",
    "credential",
    "credentials",
)
_FOLD = re.compile(r"[_\-\s]")


def folded(name: str) -> str:
    """A key name without case, `_`, `-` or blanks: the form names are compared in."""
    return _FOLD.sub("", name).lower()


def is_secret_name(name: str) -> bool:
    return folded(name).endswith(SECRET_NAMES)


def named_by_policy(name: str, path: str, keys: Sequence[str]) -> bool:
    """Whether a policy entry names this key: a glob on its name, or its dotted path.

    `path` is the key's place without list positions, `input.customer.ssn`.
    """
    if not keys:
        return False
    lowered_name = name.lower()
    lowered_path = path.lower()
    relative = lowered_path.split(".", 1)[1] if "." in lowered_path else lowered_path
    for key in keys:
        wanted = key.lower()
        if "." in wanted:
            if fnmatchcase(lowered_path, wanted) or fnmatchcase(relative, wanted):
                return True
        elif fnmatchcase(lowered_name, wanted):
            return True
    return False
