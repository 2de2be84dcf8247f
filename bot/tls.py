"""The trust store HTTPS calls verify against, loaded once per process.

httpx loads the CA bundle (certifi's, or `SSL_CERT_FILE`/`SSL_CERT_DIR`) anew
for every client it builds, about 25 ms of CPU each; the bridge builds a Novo
client for its start-up probe and another for its work, and every restart of
an in-process bridge does so again. An `SSLContext` is safe to share between
clients, so one, made the way httpx makes its default, serves them all.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def trust_store() -> ssl.SSLContext:
    """httpx's default verification (the environment's CA settings honoured), made once."""
    return httpx.create_ssl_context()
