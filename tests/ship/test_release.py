"""The release: one version, a wheel and an sdist that `twine check` passes, a wheel that
installs alone, and `.env.example` true to the settings model."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

from bot import __version__
from bot.cli import main
from bot.config import Settings, load_settings
from bot.envfile import render_env_example
from tests.ship.podman import REPO

CHANGELOG = REPO / "CHANGELOG.md"
ENV_EXAMPLE = REPO / ".env.example"
MANIFEST = REPO / "manifest.yml"
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", "bot")
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """`python -m build` on a copy of what makes the package: the sdist and the wheel.

    Without build isolation: the dev extras carry the same backend as
    `[build-system]`, so nothing is downloaded (`make dist` builds isolated).
    """
    source = tmp_path_factory.mktemp("source")
    for name in PACKAGE_FILES:
        if (REPO / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(REPO / name, source / name, ignore=ignore)
        else:
            shutil.copy2(REPO / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source))
    return sorted(out.iterdir())


def _run(*argv: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> str:
    ran = subprocess.run(
        argv, capture_output=True, text=True, timeout=240, env=env, cwd=cwd, check=False
    )
    assert ran.returncode == 0, f"{' '.join(argv)} exited {ran.returncode}:\n{ran.stderr}"
    return ran.stdout


def test_build_makes_an_sdist_and_a_wheel_twine_passes(built: list[Path]) -> None:
    assert [p.name for p in built] == [
        f"novo_slack-{__version__}-py3-none-any.whl",
        f"novo_slack-{__version__}.tar.gz",
    ]
    _run(str(BIN / "twine"), "check", "--strict", *map(str, built))


def test_the_wheel_holds_the_product_alone(built: list[Path]) -> None:
    """No stand-in, playground page or demo in what production installs, and nothing
    in it imports the dev kit or a test tool."""
    wheel = next(p for p in built if p.suffix == ".whl")
    with zipfile.ZipFile(wheel) as packed:
        names = packed.namelist()
        sources = {n: packed.read(n).decode() for n in names if n.endswith(".py")}
    assert "bot/slack/manifest.yml" in names  # `novo-slack manifest` prints it
    tops = {name.split("/")[0] for name in names}
    assert tops == {"bot", f"novo_slack-{__version__}.dist-info"}, tops
    stand_ins = ("localslack", "sim/", "demo/", "playground", "static/", ".js", ".html", ".css")
    assert not [n for n in names if any(part in n for part in stand_ins)]
    banned = re.compile(r"^\s*(from|import)\s+(novo_dev|playwright|pytest|hypothesis)\b", re.M)
    assert not [n for n, text in sources.items() if banned.search(text)]


@pytest.mark.timeout(300)  # pip fetches the dependencies (from its cache where it can)
def test_the_wheel_installs_alone_and_runs(built: list[Path], tmp_path: Path) -> None:
    wheel = next(p for p in built if p.suffix == ".whl")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    # this pip, into that virtualenv: no extras, and no pip of its own to install first
    _run(str(BIN / "pip"), "--python", str(venv / "bin" / "python"), "install", "--quiet",
         "--no-compile", str(wheel))  # fmt: skip
    command = str(venv / "bin" / "novo-slack")
    assert _run(command, "--version").strip() == f"novo-slack {__version__}"
    commands = _run(command, "--help")
    assert "run" in commands and "demo" not in commands and "sim" not in commands  # no dev kit
    env = {
        "PATH": os.environ["PATH"],
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s",
        "NOVO_API_URL": "http://127.0.0.1:9",
        "NOVO_API_KEY": "k",
        "NOVO_SLACK_CHANNEL": "C0123",
        "NOVO_SLACK_DB": str(tmp_path / "store.db"),
    }
    assert "(head)" in _run(command, "db", "upgrade", env=env, cwd=tmp_path)  # migrations packed
    # the app manifest `check`'s fixes point at, where no checkout is
    assert _run(command, "manifest", cwd=tmp_path) == MANIFEST.read_text(encoding="utf-8")


_RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def test_one_version_and_its_changelog_entry() -> None:
    """A release is a dated section of its own; a build between releases is not one."""
    text = CHANGELOG.read_text(encoding="utf-8")
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    released = _RELEASE.findall(text)
    assert released, "no dated release in CHANGELOG.md"
    last = Version(released[0][0])
    ours = Version(__version__)
    if unreleased.strip():  # changes since the last release: this build is not it
        assert ours > last, f"{ours} is not after the last release {last}"
        assert ours.is_devrelease or ours.local, f"{ours} reads as a release"
    else:
        assert ours == last
    assert (
        "version ="
        not in (REPO / "pyproject.toml")
        .read_text(encoding="utf-8")
        .split("[tool.setuptools.dynamic]")[0]
    ), "pyproject.toml names a version of its own"


def test_env_example_is_made_from_the_settings(capsys: pytest.CaptureFixture[str]) -> None:
    assert ENV_EXAMPLE.read_text(encoding="utf-8") == render_env_example(), (
        ".env.example is out of date: run `make env-example`"
    )
    # and the installed command prints it, where there is no checkout to read it from
    assert main(["settings"]) == 0
    assert capsys.readouterr().out == render_env_example()


def test_manifest_yml_is_what_novo_slack_manifest_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The repository's manifest.yml is the packaged one, byte for byte (`make manifest`):
    the README has people paste the file, `check`'s fixes have them run the command."""
    assert main(["manifest"]) == 0
    assert capsys.readouterr().out.encode() == MANIFEST.read_bytes(), (
        "manifest.yml is out of date: edit bot/slack/manifest.yml, then run `make manifest`"
    )
    assert main(["manifest", "--host", "slack.acme.test", "--socket-mode"]) == 0
    variant = yaml.safe_load(capsys.readouterr().out)
    settings = variant["settings"]
    assert settings["socket_mode_enabled"] is True
    assert settings["interactivity"]["request_url"] == "https://slack.acme.test/slack/events"
    assert settings["event_subscriptions"]["request_url"] == "https://slack.acme.test/slack/events"
    assert variant["features"]["slash_commands"][0]["url"].startswith("https://slack.acme.test/")


def test_every_setting_says_what_it_means() -> None:
    undescribed = [f.alias for f in Settings.model_fields.values() if not f.description]
    assert not undescribed, f"settings without a description (bot/config.py): {undescribed}"


def test_env_example_filled_in_is_a_working_env_file(tmp_path: Path) -> None:
    filled = {
        "SLACK_BOT_TOKEN": "xoxb-1-2",
        "SLACK_SIGNING_SECRET": "signing",
        "NOVO_API_URL": "https://novo.example",
        "NOVO_API_KEY": "key",
        "NOVO_SLACK_CHANNEL": "C0123ABCD",
    }
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
    required = [line.removesuffix("=") for line in lines if line and not line.startswith("#")]
    assert sorted(required) == sorted(filled)
    env_file = tmp_path / ".env"
    env_file.write_text(
        "\n".join(f"{line}{filled[line[:-1]]}" if line[:-1] in filled else line for line in lines)
    )
    settings = load_settings(_env_file=env_file)
    defaults = Settings.model_construct()
    for name in ("port", "host", "poll_seconds", "post_rate", "audit_days", "log_level"):
        assert getattr(settings, name) == getattr(defaults, name)
