"""`python -m bench.relay PORT TARGET`: a pass-through to a Web API that notes when calls arrive.

The local Slack is one Python process: it checks each view it is sent with
slack_sdk's models, ~35 ms for the largest form, one view after another.
Real Slack does not queue 300 people's modals behind each other, so when a
benchmark sends it hundreds at once, "when did Slack answer" measures the
local Slack, not the bridge. This relay, in its own process between the
bridge and the local Slack, notes the moment each `views.open` reaches it
(by its trigger_id, read without parsing the body) and forwards the call
unchanged. `GET /_arrivals` returns `{trigger_id: epoch seconds}`. So for
Home tabs: the moments each `views.publish` reached it, by the user it is
for; `GET /_publishes` returns `{user_id: [epoch seconds, ...]}`.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

TRIGGER = re.compile(rb'"trigger_id"\s*:\s*"([^"]+)"|trigger_id=([^&]+)')
USER = re.compile(rb'"user_id"\s*:\s*"([^"]+)"|user_id=([^&]+)')
_MAX_BODY = 4 * 1024 * 1024
SESSION = web.AppKey("session", aiohttp.ClientSession)


def relay_app(target: str) -> web.Application:
    arrivals: dict[str, float] = {}
    publishes: dict[str, list[float]] = {}
    app = web.Application(client_max_size=_MAX_BODY)

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        if request.match_info["method"] == "views.open":
            match = TRIGGER.search(body)
            if match:
                arrivals[(match.group(1) or match.group(2)).decode()] = time.time()
        if request.match_info["method"] == "views.publish":
            match = USER.search(body)
            if match:
                user = (match.group(1) or match.group(2)).decode()
                publishes.setdefault(user, []).append(time.time())
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host",)}
        url = f"{target}/api/{request.match_info['method']}"
        if request.query_string:  # slack_sdk sends some methods' arguments as query params
            url += f"?{request.query_string}"
        session = app[SESSION]
        async with session.request(request.method, url, data=body, headers=headers) as answer:
            content = await answer.read()
            kept = {k: v for k, v in answer.headers.items() if k.lower() == "retry-after"}
            return web.Response(
                body=content, status=answer.status, headers=kept, content_type=answer.content_type
            )

    async def list_arrivals(_: web.Request) -> web.Response:
        return web.json_response(arrivals)

    async def list_publishes(_: web.Request) -> web.Response:
        return web.json_response(publishes)

    async def session_context(app: web.Application) -> AsyncIterator[None]:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            app[SESSION] = session
            yield

    app.cleanup_ctx.append(session_context)
    app.router.add_route("*", "/api/{method}", forward)
    app.router.add_get("/_arrivals", list_arrivals)
    app.router.add_get("/_publishes", list_publishes)
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.relay", description=__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("target", help="the Web API's base URL, e.g. http://127.0.0.1:8123")
    args = parser.parse_args(argv)
    web.run_app(relay_app(args.target.rstrip("/")), host="127.0.0.1", port=args.port, print=None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
