"""podman for the image's tests: found or skipped (failed where CI requires it), and run
without blocking the event loop that serves the simulator and the local Slack."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.support import REPO, Ran, run

__all__ = ["REPO", "Ran", "run"]  # the tests here ask podman and compose through these

REQUIRED = "NOVO_SLACK_REQUIRE_PODMAN"
"""Set (to 1) by .ci/run: a machine without podman fails these tests instead of skipping."""
CONTAINERS_CONF = REPO / "deploy" / "podman" / "containers.conf"


def require_podman() -> None:
    """Skip, saying why, where podman or runc is missing; fail instead under .ci/run."""
    missing = [tool for tool in ("podman", "runc") if shutil.which(tool) is None]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not installed: the image can't be built or run here"
    if os.environ.get(REQUIRED):
        pytest.fail(f"{reason} ({REQUIRED} is set)")
    pytest.skip(reason)


def podman_env() -> dict[str, str]:
    """This machine's podman settings (runc, no default ulimits) unless the caller has some."""
    env = dict(os.environ)
    env.setdefault("CONTAINERS_CONF", str(CONTAINERS_CONF))
    return env


async def podman(*args: str, timeout: float = 60.0, check: bool = True) -> Ran:
    """`podman --runtime runc ARGS`; raises with its stderr if it fails and `check`."""
    return await run(
        "podman", "--runtime", "runc", *args, timeout=timeout, check=check, env=podman_env()
    )
