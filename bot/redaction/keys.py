"""Names that say a value is secret: a key, a sibling `name`, a `NAME=` in a text, a `--flag`.

A name is split into its words (`DB_Password`, `db-password`, `dbPassword`
and `DBPASSWORD` all hold the word `password`; `heroku_api_key_v2` holds
`api`, `key` and a version, which is dropped) and is secret when:

- one of its words is a secret word (`password`, `pwd`, `token`, `secret`,
  `pat`, `auth`, …), or it is glued of them (`apikey`, `dbpassword`); or
- a key word (`key`, `keydata`) follows a word that makes it a credential
  (`api`, `private`, `encryption`, `tls`, …): `encryption_key`, `tls.key`;

and its last word does not say it holds something else *about* the secret
(`password_policy`, `token_count`, `secret_arn`, `token_url`): those stay
readable, as do `max_tokens`, `secretary`, `keyboard` and `primary_key`.
Reading words, not endings, is what catches `secret_value`,
`digitalocean_pat` and `heroku_api_key_v2`, which an ending test missed.

The policy adds names of its own: a glob on the key's name (`*_dsn`) or a
dotted path from the top of `input` or `preview` (`customer.ssn`, list
positions left out), either also written with its `input.`/`preview.` prefix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase
from functools import lru_cache

SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "creds",
        "apikey",
        "pat",
        "auth",
        "authorization",
        "cookie",
        "privatekey",
        "secretkey",
        "accesskey",
        "clientsecret",
        "sas",
        "sig",
        "signature",
        "bearer",
    }
)
"""Words that make any name secret (unless its last word is one of `ABOUT`)."""
GLUED = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "credential",
    "authkey",
)
"""Secret words found inside a glued word (`DBPASSWORD`, `xapikey`, `authtoken`)."""
KEY_WORDS = frozenset({"key", "keydata", "keys"})
KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "private",
        "secret",
        "encryption",
        "encrypt",
        "decryption",
        "signing",
        "sign",
        "master",
        "client",
        "ssh",
        "tls",
        "ssl",
        "license",
        "account",
        "service",
        "deploy",
        "session",
        "webhook",
        "app",
        "consumer",
        "hmac",
        "shared",
        "storage",
        "subscription",
        "admin",
        "server",
        "write",
        "root",
        "rsa",
        "ed25519",
        "pgp",
        "gpg",
        "aes",
        "jwt",
        "cipher",
        "crypto",
        "fernet",
        "auth",
        "sdk",
        "mgmt",
        "management",
        "ingest",
        "routing",
        "integration",
        "personal",
        "live",
        "test",
        "prod",
    }
)
"""Words that, before `key`, make it a credential: `api_key`, `tls.key`, `x-api-key`.
(`primary_key`, `sort_key`, `object_key` and `cache_key` are not credentials.)"""
ABOUT = frozenset(
    {
        "policy",
        "policies",
        "count",
        "length",
        "len",
        "size",
        "type",
        "types",
        "url",
        "uri",
        "endpoint",
        "name",
        "names",
        "id",
        "ids",
        "arn",
        "ref",
        "reference",
        "path",
        "file",
        "filename",
        "dir",
        "version",
        "expiry",
        "expires",
        "expiration",
        "expired",
        "ttl",
        "hint",
        "format",
        "field",
        "location",
        "prefix",
        "rotation",
        "rotated",
        "required",
        "enabled",
        "reset",
        "strength",
        "manager",
        "store",
        "provider",
        "source",
        "column",
        "limit",
        "header",
        "param",
        "env",
        "var",
        "mode",
        "scope",
        "scopes",
        "kind",
        "label",
        "description",
        "updated",
        "created",
        "at",
        "age",
        "used",
        "usage",
        "fingerprint",
        "algorithm",
        "santa",
        "user",
        "username",
        "email",
        "login",
        "host",
        "port",
        "method",
        "methods",
        "server",
        "domain",
        "timeout",
        "status",
        "level",
        "rate",
        "col",
        "hash",
        "hashed",
        "salt",
        "digest",
        "checksum",
        "table",
    }
)
"""Last words that say the value is something about a secret, not the secret."""
_WORDS = re.compile(r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")
_NOT_GLUED = ("secretar", "tokeniz")
"""Words that hold a secret word and are none: `secretary`, `tokenizer`."""
_GLUED_ABOUT = tuple(sorted(a for a in ABOUT if len(a) >= 3))
"""`secretref`, `tokenurl`, `passwordpolicy`: a glued name that ends telling what it is about."""
_ENV_STYLE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NOT_PASS = frozenset({"bypass", "compass", "overpass", "underpass", "surpass"})
_VERSION = re.compile(r"v?[0-9]+")


@lru_cache(maxsize=4096)
def words(name: str) -> tuple[str, ...]:
    """A name's words, lower case, versions and numbers left out (`api`, `key` of `ApiKeyV2`)."""
    found = [w.lower() for w in _WORDS.findall(name)]
    return tuple(w for w in found if not _VERSION.fullmatch(w))


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a value under this name is a credential, whatever it looks like."""
    parts = words(name)
    if not parts or parts[-1] in ABOUT:
        return False
    if parts[-1] in KEY_WORDS and len(parts) > 1 and _ENV_STYLE.fullmatch(name):
        return True  # `KAGGLE_KEY`, `MAILGUN_KEY`: an environment variable named *_KEY
    if parts[-1].endswith("pass") and parts[-1] not in _NOT_PASS:  # `PGPASS`, `db_pass`
        return True
    for i, word in enumerate(parts):
        if word in SECRET_WORDS:
            return True
        if word in KEY_WORDS and i > 0 and parts[i - 1] in KEY_QUALIFIERS:
            return True
        if len(word) > 6 and any(g in word for g in GLUED) and not word.startswith(_NOT_GLUED):
            return not any(word.endswith(about) for about in _GLUED_ABOUT)
    return False


def is_key_name(name: str) -> bool:
    """A name that ends in `key` (`kaggle_key`, `license-key`), secret or not by itself
    (`sort_key`): a value under it is hidden when it also looks like a credential."""
    parts = words(name)
    return bool(parts) and parts[-1] in KEY_WORDS


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
