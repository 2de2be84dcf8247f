"""The image, built once per session with `make image` (its layers cached by podman),
unless the caller built it just before from the same tree (.ci/run does, and says so in
NOVO_SLACK_TEST_IMAGE)."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from tests.ship.podman import REPO, podman_env, require_podman

TEST_IMAGE = "localhost/novo-slack:test"
BUILT = "NOVO_SLACK_TEST_IMAGE"
BUILD_SECONDS = 600.0  # a cold build downloads every dependency; a cached one takes seconds


@pytest.fixture(scope="session")
def image() -> str:
    """`make image` as a person would run it, tagged for the tests; its name."""
    require_podman()
    if os.environ.get(BUILT):
        return os.environ[BUILT]
    started = time.monotonic()
    built = subprocess.run(
        ["make", "--no-print-directory", "image", f"IMAGE={TEST_IMAGE}"],
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
    return TEST_IMAGE
