"""Refuses what did not come from Slack before Bolt reads a byte of it.

Bolt parses a request's body before it checks the signature, so junk posted
to `/slack/events` (unsigned, or not form-encoded JSON) failed inside Bolt as
a 500 with a traceback at ERROR: anyone who can reach the port could fill the
log. This aiohttp middleware sits in front of Bolt's handler and checks, in
order: a signature is there (401), the body is not oversized (400), the
signature is right and fresh (401), the body is what Slack sends (400).
Each refusal logs one line at DEBUG: a flood costs nothing to the log.

One request is answered here whether signed or not: Slack's `ssl_check`
(a form body `ssl_check=1&token=…`, sent to a slash command's Request URL to
check its certificate, without a signature) gets the 200 Slack asks for, as
Bolt's own `SslCheck` would answer it. It carries nothing and decides
nothing. `url_verification` (Events API, signed) goes on to Bolt, which
echoes its `challenge`; everything else unsigned is refused.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_sdk.signature import SignatureVerifier

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Slack-Signature"
TIMESTAMP_HEADER = "X-Slack-Request-Timestamp"
# Slack's largest payload is a view_submission of a 250 KB view, form-encoded:
# aiohttp's own request limit (1 MiB) is also where this one sits.
MAX_BODY_BYTES = 1024 * 1024
MAX_FORM_FIELDS = 100
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def slack_request_guard(signing_secret: str, path: str) -> Middleware:
    """The middleware guarding POSTs to `path`; other routes pass through untouched."""
    verifier = SignatureVerifier(signing_secret)

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path != path or request.method != "POST":
            return await handler(request)
        if await _is_ssl_check(request):
            log.debug("answered Slack's ssl_check on %s", path)
            return web.Response(status=200, text="")
        refusal = await _refusal(request, verifier)
        if refusal is not None:
            status, why = refusal
            log.debug("refused a request to %s: %s", path, why)
            return web.json_response({"error": why}, status=status)
        return await handler(request)

    return guard


SSL_CHECK_MAX_BYTES = 1024  # `ssl_check=1&token=…`: anything longer is not one


async def _is_ssl_check(request: web.Request) -> bool:
    """Slack's certificate check: a small form body with `ssl_check=1` and no payload."""
    length = request.content_length
    if request.content_type != FORM or length is None or length > SSL_CHECK_MAX_BYTES:
        return False
    body = await request.read()  # aiohttp keeps it: Bolt (or `_refusal`) reads it again
    try:
        form = parse_qs(body.decode("ascii"), keep_blank_values=True, max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        return False
    return form.get("ssl_check") == ["1"] and "payload" not in form and "command" not in form


async def _refusal(request: web.Request, verifier: SignatureVerifier) -> tuple[int, str] | None:
    timestamp = request.headers.get(TIMESTAMP_HEADER)
    signature = request.headers.get(SIGNATURE_HEADER)
    if not timestamp or not signature:
        return 401, "unsigned request"
    if (request.content_length or 0) > MAX_BODY_BYTES:
        return 400, "body too large"
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return 400, "body too large"
    if len(body) > MAX_BODY_BYTES:
        return 400, "body too large"
    if not _signed(verifier, body, timestamp, signature):
        return 401, "invalid signature"
    problem = _malformed(body.decode("utf-8"), request.content_type)
    return (400, problem) if problem is not None else None


def _signed(verifier: SignatureVerifier, body: bytes, timestamp: str, signature: str) -> bool:
    """Valid and at most 5 minutes old; a timestamp or body that can't be checked is not."""
    if not timestamp.isascii() or not timestamp.isdigit():
        return False
    try:
        return verifier.is_valid(body, timestamp, signature)
    except ValueError:  # a body that is not UTF-8 can't be what Slack signed
        return False


def _malformed(text: str, content_type: str) -> str | None:
    """Why a signed body is not something Slack sends, or None when it is."""
    if not text:
        return "empty body"
    if content_type == JSON:
        return _not_an_object(text, "body")
    if content_type != FORM:
        return f"unexpected content type {content_type!r}"
    try:
        form = parse_qs(
            text, keep_blank_values=True, strict_parsing=True, max_num_fields=MAX_FORM_FIELDS
        )
    except ValueError:
        return "body is not form-encoded"
    payloads = form.get("payload")
    if payloads is None:
        return None  # a slash command or ssl_check: plain form fields
    if len(payloads) != 1:
        return "payload given more than once"
    return _not_an_object(payloads[0], "payload")


def _not_an_object(text: str, what: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return f"{what} is not JSON"
    return None if isinstance(data, dict) else f"{what} is not a JSON object"
