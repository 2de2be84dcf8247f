"""Secrets as files, the way a platform mounts them: `NAME_FILE` names the file.

`novo-slack run` starts with every secret read from a file (a trailing newline
as `echo` writes it is not part of the value), and a secret given both ways
stops it with one line and exit 2.
"""

from __future__ import annotations

from pathlib import Path

from tests.lifecycle.conftest import World
from tests.lifecycle.test_startup_failures import _one_line_failure

SECRETS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "NOVO_API_KEY")


def _as_files(world: World, folder: Path) -> dict[str, str | None]:
    """The world's secrets moved from the environment into files, each ending in a newline."""
    folder.mkdir()
    moved: dict[str, str | None] = {}
    for name in SECRETS:
        path = folder / name.lower()
        path.write_text(world.env[name] + "\n", encoding="utf-8")
        moved[name] = None
        moved[f"{name}_FILE"] = str(path)
    return moved


async def test_the_bridge_starts_with_every_secret_read_from_a_file(
    world: World, tmp_path: Path
) -> None:
    bridge = await world.run(**_as_files(world, tmp_path / "secrets"))
    await bridge.saw("bridge started")
    assert bridge.process.returncode is None
    await bridge.kill()


async def test_a_secret_given_both_ways_is_one_line_and_exit_2(
    world: World, tmp_path: Path
) -> None:
    files = _as_files(world, tmp_path / "secrets")
    files["NOVO_API_KEY"] = world.env["NOVO_API_KEY"]
    bridge = await world.run(**files)
    line = await _one_line_failure(bridge, 2)
    assert line == "NOVO_API_KEY and NOVO_API_KEY_FILE are both set: give one"


async def test_a_secret_file_that_cannot_be_read_is_named(world: World, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "token"
    bridge = await world.run(SLACK_BOT_TOKEN=None, SLACK_BOT_TOKEN_FILE=str(missing))
    line = await _one_line_failure(bridge, 2)
    assert line == f"SLACK_BOT_TOKEN_FILE: cannot read {missing}: No such file or directory"
