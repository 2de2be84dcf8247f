"""The image, run as a platform would run it, decides an approval end to end.

The container runs `novo-slack run` (the image's own entrypoint and command)
on the host's network against a simulator and a local Slack this test
starts, its root filesystem read-only as deploy/kubernetes/ has it, every
secret mounted as a file and its store on a named volume at /data. The
test sees it as Slack and Novo would: the post, a signed click sent to the
container's HTTP endpoint, the resolve call, the updated message;
and as an operator would: /readyz, the process's user, `podman stop`'s
SIGTERM, and a new container on the same volume posting nothing twice.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot import __version__
from bot.slack.ids import ActionId
from novo_dev.demo.stack import ServersConfig, local_servers
from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer
from tests.e2e.conftest import _block_text
from tests.replicas.conftest import database_url
from tests.ship.podman import REPO, podman
from tests.support import PROCESS_TIMEOUT, trigger_ttl, wait_until

SIGNING_SECRET = "container-signing-secret"
API_KEY = "container-novo-key"
CHANNEL = "C0CONTAINER"
STOP_WITHIN_SECONDS = 10.0
MAX_IMAGE_BYTES = 200_000_000

__all__ = ["database_url"]  # a fresh PostgreSQL database per test, from the replica tests

# whichever test comes first may wait for a cold `make image` (where .ci/run did not build
# it); every wait inside has a deadline of its own
pytestmark = pytest.mark.timeout(600)


@dataclass
class Rig:
    """The simulator, the local Slack, and what a container of the image is given."""

    sim: SimServer
    slack: LocalSlack
    http: httpx.AsyncClient
    image: str
    secrets: Path
    volume: str
    port: int
    names: list[str]

    @property
    def url(self) -> str:
        return _url(self.port)

    async def start(self, *, port: int | None = None, db: str | None = None) -> str:
        """A container of the image with its default command (`run`); its name.

        Its store: the SQLite file on the rig's volume, or the database `db` names,
        its password then given as a file as deploy/kubernetes/ does.
        """
        name = f"novo-slack-test-{uuid.uuid4().hex[:10]}"
        port = port or self.port
        self.names.append(name)
        store = ["--volume", f"{self.volume}:/data"]
        if db is not None:
            store = [
                "--env", f"NOVO_SLACK_DB={db}",
                "--env", "NOVO_SLACK_DB_PASSWORD_FILE=/run/secrets/db_password",
            ]  # fmt: skip
        await podman(
            "run", "--detach", "--name", name, "--network=host", "--read-only",
            *store,
            "--volume", f"{self.secrets}:/run/secrets:ro",
            "--env", "SLACK_BOT_TOKEN_FILE=/run/secrets/slack_bot_token",
            "--env", "SLACK_SIGNING_SECRET_FILE=/run/secrets/slack_signing_secret",
            "--env", "NOVO_API_KEY_FILE=/run/secrets/novo_api_key",
            "--env", f"SLACK_API_URL={self.slack.api_url}",
            "--env", f"NOVO_API_URL={self.sim.url}",
            "--env", f"NOVO_SLACK_CHANNEL={CHANNEL}",
            "--env", "NOVO_SLACK_HOST=127.0.0.1",
            "--env", f"NOVO_SLACK_PORT={port}",
            "--env", "NOVO_SLACK_METRICS_PORT=0",  # replicas share the host's network
            "--env", "NOVO_SLACK_POLL_SECONDS=0.2",
            "--env", "NOVO_SLACK_POST_RATE=50",
            self.image,
        )  # fmt: skip
        await wait_until(
            lambda: self._ready(port), timeout=PROCESS_TIMEOUT, message=f"{name} ready"
        )
        return name

    async def _ready(self, port: int) -> bool:
        try:
            response = await self.http.get(f"{_url(port)}/readyz")
        except httpx.TransportError:
            return False
        return response.status_code == 200

    async def logs(self, name: str) -> str:
        ran = await podman("logs", name, check=False)
        return ran.out + ran.err

    async def create(self) -> str:
        return str((await SimControl(self.sim.url, self.http).approval(expiresInSeconds=600))["id"])

    async def record(self, interaction_id: str) -> dict[str, Any]:
        response = await self.http.get(
            f"{self.sim.url}/v1/interactions/{interaction_id}",
            headers={"Authorization": f"Bearer {API_KEY}"},
        )
        record: dict[str, Any] = response.json()
        return record

    def posts_of(self, interaction_id: str) -> list[str]:
        """The ts of every channel message the bridge posted for this interaction."""
        return [
            message.ts
            for message in self.slack.messages(CHANNEL)
            if ((message.metadata or {}).get("event_payload") or {}).get("interaction_id")
            == interaction_id
        ]


@pytest.fixture
async def rig(image: str, tmp_path: Path) -> AsyncIterator[Rig]:
    volume = f"novo-slack-test-{uuid.uuid4().hex[:10]}"
    await podman("volume", "create", volume)
    async with (
        local_servers(ServersConfig(api_key=API_KEY, trigger_ttl=trigger_ttl())) as servers,
        httpx.AsyncClient(timeout=5) as http,
    ):
        secrets = tmp_path / "secrets"
        secrets.mkdir(mode=0o755)
        for name, value in (
            ("slack_bot_token", servers.slack.bot_token),
            ("slack_signing_secret", SIGNING_SECRET),
            ("novo_api_key", API_KEY),
            ("db_password", "not-asked-for-by-trust-auth"),
        ):
            (secrets / name).write_text(value + "\n", encoding="utf-8")  # as `echo` writes it
        rig = Rig(servers.sim, servers.slack, http, image, secrets, volume, _free_port(), [])
        try:
            yield rig
        finally:
            for name in rig.names:
                await podman("rm", "--force", "--volumes", "--time", "0", name, check=False)
            await podman("volume", "rm", "--force", volume, check=False)


def _url(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_the_image_decides_an_approval_and_restarts_on_its_volume(rig: Rig) -> None:
    rig.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    first = await rig.start()

    pid = (await podman("inspect", "--format", "{{.State.Pid}}", first)).out.strip()
    uids = _status_ids(Path(f"/proc/{pid}/status"), "Uid")
    assert uids and all(uid != 0 for uid in uids), f"the bridge runs as uid {uids}"
    health = await podman("healthcheck", "run", first, check=False)
    assert health.code == 0, f"HEALTHCHECK failed: {health.err}{health.out}"

    asked = await rig.create()
    ts = (await wait_until(lambda: rig.posts_of(asked), message=f"{asked} posted"))[0]
    async with SlackDriver(rig.url, SIGNING_SECRET, rig.slack) as driver:
        answer = await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    assert answer.status_code == 200
    record = await wait_until(lambda: _resolved(rig, asked), message=f"{asked} resolved in Novo")
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    await wait_until(
        lambda: "Approved" in _shown(rig.slack, ts), message="the message shows the approval"
    )

    waiting = await rig.create()  # still pending when the container stops
    waiting_ts = (await wait_until(lambda: rig.posts_of(waiting), message=f"{waiting} posted"))[0]

    # SIGTERM, then SIGKILL after the grace: exit 0 says it stopped by itself before that
    await podman("stop", "--time", str(int(STOP_WITHIN_SECONDS)), first)
    code = (await podman("inspect", "--format", "{{.State.ExitCode}}", first)).out.strip()
    logs = await rig.logs(first)
    assert code == "0", f"exit {code} after SIGTERM:\n{logs}"
    assert "bridge stopped" in logs

    await rig.start()  # a new container, the same /data volume
    later = await rig.create()
    await wait_until(lambda: rig.posts_of(later), message=f"{later} posted after the restart")
    assert rig.posts_of(waiting) == [waiting_ts], "a pending interaction was posted again"
    assert rig.posts_of(asked) == [ts], "a decided interaction was posted again"
    assert len(rig.posts_of(later)) == 1


async def test_two_containers_share_a_postgresql_database_as_the_deployment_does(
    rig: Rig, database_url: str
) -> None:
    """deploy/kubernetes/'s shape: two replicas, one database, the password from a file."""
    rig.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    ports = (rig.port, _free_port())
    await asyncio.gather(*(rig.start(port=port, db=database_url) for port in ports))
    asked = await rig.create()
    ts = (await wait_until(lambda: rig.posts_of(asked), message=f"{asked} posted"))[0]
    for port in ports:  # the same click reaches each replica: Novo hears of it once
        async with SlackDriver(_url(port), SIGNING_SECRET, rig.slack) as driver:
            answer = await driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
        assert answer.status_code == 200
    record = await wait_until(lambda: _resolved(rig, asked), message=f"{asked} resolved")
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    assert rig.posts_of(asked) == [ts]
    log = await SimControl(rig.sim.url, rig.http).log()
    resolves = [r for r in log if r["path"] == f"/v1/interactions/{asked}/resolve"]
    assert len(resolves) == 1, resolves


async def _resolved(rig: Rig, interaction_id: str) -> dict[str, Any] | None:
    record = await rig.record(interaction_id)
    return record if record["status"] == "resolved" else None


def _shown(slack: LocalSlack, ts: str) -> str:
    message = slack.message(CHANNEL, ts)
    return message.text + "\n" + _block_text(message.blocks)


def _status_ids(status: Path, field: str) -> list[int]:
    """The real, effective, saved and filesystem ids on a /proc/PID/status line."""
    for line in status.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{field}:"):
            return [int(part) for part in line.split()[1:]]
    return []


async def test_the_image_is_small_and_keeps_nothing_of_its_build(image: str) -> None:
    inspected = json.loads((await podman("image", "inspect", image)).out)[0]
    config = inspected["Config"]
    assert inspected["Size"] < MAX_IMAGE_BYTES, f"{inspected['Size'] / 1e6:.0f} MB"
    assert config["User"].split(":")[0] != "0" and config["User"] not in ("", "root")
    assert config["Entrypoint"] == ["novo-slack"] and config["Cmd"] == ["run"]
    assert "/data" in config["Volumes"]
    assert "NOVO_SLACK_DB=/data/novo-slack.db" in config["Env"]
    assert inspected["Healthcheck"]["Test"][:2] == ["CMD", "python3"]  # kept: --format docker
    # what a platform team pins and traces, from `make image`
    labels = config["Labels"]
    assert labels["org.opencontainers.image.version"] == __version__
    assert re.fullmatch(r"[0-9a-f]{40}", labels["org.opencontainers.image.revision"])
    assert labels["org.opencontainers.image.source"]
    created = labels["org.opencontainers.image.created"]
    assert datetime.fromisoformat(created.replace("Z", "+00:00")).tzinfo is not None
    history = (await podman("history", "--no-trunc", "--format", "{{.CreatedBy}}", image)).out
    build_only = ("PIP_CERT", "ca-certificates.crt", "binutils", "pip install")
    assert not [word for word in build_only if word in history + json.dumps(config)]


async def test_the_image_prints_the_app_manifest_checks_fixes_name(image: str) -> None:
    """`check`'s fixes say to update the app from `novo-slack manifest`: there is no
    checkout in the image, so the command prints the manifest the package carries."""
    ran = await podman("run", "--rm", image, "manifest")
    assert ran.out == (REPO / "manifest.yml").read_text(encoding="utf-8")
