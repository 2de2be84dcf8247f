"""The image, built once per session with `make image` (its layers cached by podman) under
this checkout's own tag and removed at the end, unless the caller built it just before
from the same tree (.ci/run does, says so in NOVO_SLACK_TEST_IMAGE, and removes it)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.ship.podman import REPO, podman_env, require_podman
from tests.support import CHECKOUT_ID

TEST_IMAGE = f"localhost/novo-slack-test-{CHECKOUT_ID}:latest"
BUILT = "NOVO_SLACK_TEST_IMAGE"
BUILD_SECONDS = 600.0  # a cold build downloads every dependency; a cached one takes seconds


@pytest.fixture(scope="session")
def image() -> Iterator[str]:
    """`make image` as a person would run it, tagged for the tests; its name."""
    require_podman()
    if os.environ.get(BUILT):
        yield os.environ[BUILT]
        return
    started = time.monotonic()
    built = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "image",
            f"IMAGE={TEST_IMAGE}",
            f"COMMIT_TAG={TEST_IMAGE}",
        ],
        cwd=REPO,
        env=podman_env(),
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        check=False,
    )
    tail = built.stderr[-4000:] + built.stdout[-4000:]
    assert built.returncode == 0, f"make image failed:\n{tail}"
    print(f"make image: {time.monotonic() - started:.1f}s")
    try:
        yield TEST_IMAGE
    finally:
        subprocess.run(
            ["podman", "rmi", "--force", TEST_IMAGE],
            env=podman_env(),
            capture_output=True,
            timeout=BUILD_SECONDS,
            check=False,
        )
