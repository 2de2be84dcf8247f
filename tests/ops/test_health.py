"""`/healthz`, `/readyz` and `/metrics` answer in HTTP mode and in Socket Mode alike, each on
its own port: the Slack port tells whoever reaches it only ready or not; the operator port
(`NOVO_SLACK_METRICS_PORT`) has the metrics and the detailed readiness."""

from __future__ import annotations

from typing import Any

from bot.bridge.runtime import Bridge
from tests.ops.conftest import API_KEY, SIGNING_SECRET, Servers, sample
from tests.support import wait_until


async def _ready(
    servers: Servers, url: str, status: int, failing: list[str] | None = None
) -> dict[str, Any]:
    """The detailed /readyz once it answers `status` (and names `failing`, if given: a busy
    machine may show a stale poll on the way there)."""

    async def probe() -> dict[str, Any] | None:
        answer = await servers.http.get(f"{url}/readyz")
        body: dict[str, Any] = answer.json()
        named = failing is None or body.get("failing") == failing
        return body if answer.status_code == status and named else None

    found: dict[str, Any] = await wait_until(probe, message=f"/readyz answering {status}")
    return found


async def _says(servers: Servers, url: str, body: dict[str, Any]) -> None:
    """Wait for the Slack port's short /readyz to say exactly `body` (a busy machine may
    show a stale poll on the way there)."""

    async def probe() -> bool:
        answer = await servers.http.get(f"{url}/readyz")
        return bool(answer.json() == body and answer.status_code == (200 if body["ready"] else 503))

    await wait_until(probe, message=f"/readyz saying {body}")


def _urls(bridge: Bridge) -> tuple[str, str]:
    assert bridge.url is not None and bridge.metrics_url is not None
    assert bridge.url != bridge.metrics_url
    return bridge.url, bridge.metrics_url


async def _tells_nothing(servers: Servers, slack_port: str) -> None:
    """What the Slack port says about the bridge: no metrics, and a readiness with nothing
    in it that names the store, the workspace, the disk or a credential."""
    assert (await servers.http.get(f"{slack_port}/metrics")).status_code == 404
    answer = await servers.http.get(f"{slack_port}/readyz")
    for told in (str(servers.tmp), "bridge.db", "T0LOCAL", "U0LOCALBOT", " MB", "C0OPS"):
        assert told not in answer.text, answer.text
    for secret in (SIGNING_SECRET, API_KEY, servers.slack.bot_token):
        assert secret not in answer.text


async def test_http_mode_splits_the_slack_port_from_the_operator_port(servers: Servers) -> None:
    async with servers.bridge() as bridge:
        slack_port, operator_port = _urls(bridge)
        for url in (slack_port, operator_port):
            assert (await servers.http.get(f"{url}/healthz")).json() == {"ok": True}
        assert await _ready(servers, slack_port, 200) == {"ready": True}
        await _tells_nothing(servers, slack_port)

        ready = await _ready(servers, operator_port, 200)
        assert set(ready["checks"]) == {"poll", "store", "slack"}  # no socket in HTTP mode
        assert ready["failing"] == []
        assert "T0LOCAL" in ready["checks"]["slack"]["detail"]
        assert "takes writes" in ready["checks"]["store"]["detail"]
        metrics = await servers.http.get(f"{operator_port}/metrics")
        assert metrics.status_code == 200
        assert "novo_slack_outbox_depth" in metrics.text
        # Slack's requests are taken on the Slack port alone
        events = await servers.http.post(f"{operator_port}/slack/events", content=b"x")
        assert events.status_code == 404

        await servers.fault(errorRate=1, status=503, routes="list")
        await _says(servers, slack_port, {"ready": False, "reason": "poll"})
        await _tells_nothing(servers, slack_port)
        unready = await _ready(servers, operator_port, 503, failing=["poll"])
        assert unready["checks"]["poll"]["ok"] is False
        await servers.fault()
        await _ready(servers, slack_port, 200)


async def test_socket_mode_serves_both_ports_and_reports_the_socket(servers: Servers) -> None:
    servers.slack.serve_socket()
    async with servers.bridge(SLACK_APP_TOKEN=servers.slack.app_token) as bridge:
        slack_port, operator_port = _urls(bridge)
        assert (await servers.http.get(f"{slack_port}/healthz")).json() == {"ok": True}
        # Socket Mode takes no Slack events over HTTP
        events = await servers.http.post(f"{slack_port}/slack/events", content=b"x")
        assert events.status_code == 404
        assert await _ready(servers, slack_port, 200) == {"ready": True}
        await _tells_nothing(servers, slack_port)
        ready = await _ready(servers, operator_port, 200)
        assert ready["checks"]["socket"] == {"ok": True, "detail": "Socket Mode connected"}
        metrics = (await servers.http.get(f"{operator_port}/metrics")).text
        opened = {"method": "apps.connections.open", "error": "ok"}
        assert (sample(metrics, "novo_slack_slack_calls_total", **opened) or 0) >= 1

        # Slack drops the socket and hands out no new one: not ready, and says why
        servers.slack.socket_url = None
        await servers.slack.drop_sockets()
        await _says(servers, slack_port, {"ready": False, "reason": "socket"})
        unready = await _ready(servers, operator_port, 503, failing=["socket"])
        assert unready["checks"]["socket"]["ok"] is False


async def test_socket_mode_runs_without_a_signing_secret(servers: Servers) -> None:
    servers.slack.serve_socket()
    async with servers.bridge(
        SLACK_APP_TOKEN=servers.slack.app_token, SLACK_SIGNING_SECRET=""
    ) as bridge:
        assert bridge.settings.slack_signing_secret is None
        _, operator_port = _urls(bridge)
        ready = await _ready(servers, operator_port, 200)
        assert ready["checks"]["socket"]["ok"] is True
