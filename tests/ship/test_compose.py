"""compose.yaml: the bridge's two replicas on PostgreSQL with secrets as files, and the demo.

Read as data, and by `podman-compose config` (a dev dependency), which
resolves it as compose would: anchors, interpolation, profiles.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import __version__
from tests.ship.manifests import KUBERNETES, documents, setting_names
from tests.ship.podman import REPO, podman_env, require_podman, run

COMPOSE = REPO / "compose.yaml"
DEMO = REPO / "compose.demo.yaml"
IMAGE = f"novo-slack:{__version__}"


def _compose() -> dict[str, Any]:
    (resolved,) = documents(COMPOSE)
    return resolved


def test_two_bridge_replicas_on_postgresql_with_every_secret_a_file() -> None:
    compose = _compose()
    services, secrets = compose["services"], compose["secrets"]
    bridge = services["bridge"]
    assert bridge["deploy"]["replicas"] == 2
    assert bridge["command"] == ["run"]
    env = bridge["environment"]
    assert set(env) <= setting_names(), set(env) - setting_names()
    assert env["NOVO_SLACK_DB"].startswith("postgresql://") and "@postgres:" in env["NOVO_SLACK_DB"]
    assert services["migrate"]["command"] == ["db", "upgrade"]
    assert bridge["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for name, value in env.items():
        if name.endswith("_FILE"):
            secret = value.removeprefix("/run/secrets/")
            assert secret in bridge["secrets"] and "file" in secrets[secret], name
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "NOVO_API_KEY"):
        assert name not in env and f"{name}_FILE" in env
    postgres = services["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/db_password"
    assert "pgdata" in compose["volumes"]


def test_the_demo_runs_from_the_image_alone_and_says_it_is_healthy() -> None:
    (resolved,) = documents(DEMO)
    demo = resolved["services"]["demo"]
    assert demo["command"][0] == "demo" and "--ui" in demo["command"]
    assert "secrets" not in demo and "depends_on" not in demo
    # the dev kit is laid over the bridge's image: the bridge's image carries no stand-in
    assert demo["build"]["dockerfile"] == "devkit/Containerfile"
    assert (REPO / demo["build"]["dockerfile"]).is_file()
    assert "environment" not in demo
    # the image's own healthcheck asks NOVO_SLACK_PORT, which the demo's bridge does not take
    assert "8700" in " ".join(demo["healthcheck"]["test"])
    assert demo["image"].endswith(f":-novo-slack-demo:{__version__}}}")


def test_compose_refuses_to_start_without_its_required_settings() -> None:
    env = _compose()["x-bridge"]["environment"]
    for name in ("NOVO_API_URL", "NOVO_SLACK_CHANNEL"):
        assert env[name].startswith(f"${{{name}:?set {name} "), env[name]


def test_compose_and_kubernetes_run_this_release() -> None:
    assert _compose()["x-image"].endswith(f":-{IMAGE}}}")
    deployment = documents(KUBERNETES / "deployment.yaml")[0]["spec"]["template"]["spec"]
    images = {c["image"] for c in deployment["initContainers"] + deployment["containers"]}
    assert images == {IMAGE}


def _podman_compose() -> str:
    require_podman()  # podman-compose asks `podman version` first
    found = shutil.which("podman-compose") or str(Path(sys.executable).with_name("podman-compose"))
    if not Path(found).exists():
        pytest.skip("podman-compose is not installed")
    return found


async def test_podman_compose_resolves_it(tmp_path: Path) -> None:
    argv = [_podman_compose(), "-f", str(COMPOSE)]
    env = {k: v for k, v in podman_env().items() if not k.startswith(("NOVO_", "SLACK_"))}
    env["NOVO_API_URL"] = "https://novo.example"
    env["NOVO_SLACK_CHANNEL"] = "C0123ABCD"
    ran = await run(*argv, "config", timeout=30, env=env, cwd=tmp_path)
    services = yaml.safe_load(ran.out)["services"]
    assert services["bridge"]["image"] == IMAGE
    assert services["bridge"]["environment"]["NOVO_API_URL"] == "https://novo.example"
    assert services["bridge"]["secrets"] == services["migrate"]["secrets"]
    del env["NOVO_API_URL"]
    refused = await run(*argv, "config", timeout=30, env=env, cwd=tmp_path, check=False)
    assert refused.code != 0
    assert "set NOVO_API_URL to Novo's API base" in refused.out + refused.err
    demo = await run(_podman_compose(), "-f", str(DEMO), "config", timeout=30, cwd=tmp_path)
    assert yaml.safe_load(demo.out)["services"]["demo"]["image"] == f"novo-slack-demo:{__version__}"
