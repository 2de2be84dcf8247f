"""`/healthz`, `/readyz` and `/metrics` answer in HTTP mode and in Socket Mode alike."""

from __future__ import annotations

from typing import Any

from tests.ops.conftest import Servers, sample
from tests.support import wait_until


async def _ready(servers: Servers, url: str, status: int) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        answer = await servers.http.get(f"{url}/readyz")
        body: dict[str, Any] = answer.json()
        return body if answer.status_code == status else None

    found: dict[str, Any] = await wait_until(probe, message=f"/readyz answering {status}")
    return found


async def test_http_mode_serves_all_three_and_names_a_failing_poll(servers: Servers) -> None:
    async with servers.bridge() as bridge:
        assert bridge.url is not None
        assert (await servers.http.get(f"{bridge.url}/healthz")).json() == {"ok": True}
        ready = await _ready(servers, bridge.url, 200)
        assert set(ready["checks"]) == {"poll", "store", "slack"}  # no socket in HTTP mode
        assert ready["failing"] == []
        assert "T0LOCAL" in ready["checks"]["slack"]["detail"]
        assert "takes writes" in ready["checks"]["store"]["detail"]
        metrics = await servers.http.get(f"{bridge.url}/metrics")
        assert metrics.status_code == 200
        assert "novo_slack_outbox_depth" in metrics.text

        await servers.fault(errorRate=1, status=503, routes="list")
        unready = await _ready(servers, bridge.url, 503)
        assert unready["failing"] == ["poll"]
        assert unready["checks"]["poll"]["ok"] is False
        await servers.fault()
        await _ready(servers, bridge.url, 200)


async def test_socket_mode_serves_all_three_and_reports_the_socket(servers: Servers) -> None:
    servers.slack.serve_socket()
    async with servers.bridge(SLACK_APP_TOKEN=servers.slack.app_token) as bridge:
        assert bridge.url is not None
        assert (await servers.http.get(f"{bridge.url}/healthz")).json() == {"ok": True}
        # Socket Mode takes no Slack events over HTTP: only the three operator routes
        events = await servers.http.post(f"{bridge.url}/slack/events", content=b"x")
        assert events.status_code == 404
        ready = await _ready(servers, bridge.url, 200)
        assert ready["checks"]["socket"] == {"ok": True, "detail": "Socket Mode connected"}
        metrics = (await servers.http.get(f"{bridge.url}/metrics")).text
        opened = {"method": "apps.connections.open", "error": "ok"}
        assert (sample(metrics, "novo_slack_slack_calls_total", **opened) or 0) >= 1

        # Slack drops the socket and hands out no new one: not ready, and says why
        servers.slack.socket_url = None
        await servers.slack.drop_sockets()
        unready = await _ready(servers, bridge.url, 503)
        assert unready["failing"] == ["socket"], unready
        assert unready["checks"]["socket"]["ok"] is False
