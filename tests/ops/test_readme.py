"""The README and docs/ as a new user reads them: nothing they point at is missing.

The README is a front page (at most 200 lines); every link in it and in
docs/ names a file of this repository (and a heading that is there), every
schema revision, `novo-slack` command, `make` target and setting they name
exists, the settings table in docs/operating.md is the bridge's settings,
and their marked shell blocks run verbatim.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
from pathlib import Path

import pytest

from bot.cli import _parser
from bot.config import Settings
from bot.secretfiles import file_setting_names
from bot.store.migrate import head_revision

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
MAX_README_LINES = 200
MARK = "<!-- runs-in-tests -->"
_BLOCK = re.compile(re.escape(MARK) + r"\s*```sh\n(.*?)```", re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)
# A command as written to be run: at the start of a code span or line, after `$ ` if shown.
_COMMAND = re.compile(r"^[ \t]*(?:\$[ \t]+)?(?:\.venv/bin/)?novo-slack ([a-z][^\n`#;&|>]*)", re.M)
_MAKE = re.compile(r"(?<![\w-])make ([a-z][a-z-]*)")
_SETTING = re.compile(r"\b(?:SLACK|NOVO)_[A-Z][A-Z0-9_]*\b")
_REVISION = re.compile(r"\brevision (\d{4})\b")
_HEAD = re.compile(r"\b(\d{4}) \((?:head|current)\)")
# Environment names the test suite reads (not the bridge): documented for whoever runs it.
TEST_ENVIRONMENT = (
    "NOVO_SLACK_TEST_DATABASE_URL",
    "NOVO_SLACK_REQUIRE_POSTGRES",
    "NOVO_SLACK_REQUIRE_BROWSER",
    "NOVO_SLACK_REQUIRE_PODMAN",
    "NOVO_SLACK_TEST_IMAGE",
    "NOVO_SLACK_TEST_TIME_SCALE",
)


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _code(text: str) -> list[str]:
    """Everything in code blocks and code spans: where commands are written."""
    return [block or span for block, span in _CODE.findall(text)]


def _anchors(page: Path) -> set[str]:
    """The heading ids GitHub gives a page's headings."""
    headings = re.findall(r"^#+ (.+)$", _text(page), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_readme_fits_on_a_screen() -> None:
    lines = _text(README).count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_names_a_file_of_the_repository(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_text(page)):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        if REPO not in found.parents and found != REPO:
            broken.append(f"{target}: outside the repository")
        elif not found.exists():
            broken.append(f"{target}: no such file")
        elif anchor and found.suffix == ".md" and anchor not in _anchors(found):
            broken.append(f"{target}: no such heading in {found.name}")
    for code in _code(_text(page)):  # a path written out, `../shared/api.md`, counts too
        for path in re.findall(r"(?<![\w/])(\.\./[\w./-]+)", code):
            if REPO not in (page.parent / path).resolve().parents:
                broken.append(f"{path}: outside the repository")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_documented_command_exists(page: Path) -> None:
    """`novo-slack …` parses with the real command line; `make …` is a Makefile target."""
    parser = _parser()
    targets = set(re.findall(r"^([a-z][\w.-]*):", _text(REPO / "Makefile"), re.MULTILINE))
    wrong = []
    for code in _code(_text(page)):
        for found in _COMMAND.finditer(code):
            words = found.group(1).replace("[", " ").replace("]", " ")
            if re.match(r"\d", words):
                continue  # a version, `novo-slack 0.1.0`
            try:
                argv = shlex.split(words)
            except ValueError:
                argv = words.split()
            argv = [word.split("|")[0] for word in argv]  # `csv|jsonl`: either
            try:
                parser.parse_args(argv)
            except SystemExit:
                wrong.append(f"novo-slack {found.group(1).strip()}")
        wrong += [f"make {t}" for t in _MAKE.findall(code) if t not in targets]
    assert wrong == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_documented_setting_exists(page: Path) -> None:
    names = {field.alias for field in Settings.model_fields.values() if field.alias}
    names |= set(file_setting_names(Settings))  # `SLACK_BOT_TOKEN_FILE`, …
    suite = "".join(_text(p) for p in (REPO / "tests").rglob("*.py")) + _text(REPO / ".ci/run")
    known = names | {name for name in TEST_ENVIRONMENT if name in suite}
    assert sorted(set(_SETTING.findall(_text(page))) - known) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_documented_revision_exists(page: Path) -> None:
    versions = {p.name[:4] for p in (REPO / "bot/store/migrations/versions").glob("0*.py")}
    head = head_revision()
    text = _text(page)
    for revision in _REVISION.findall(text) + _HEAD.findall(text):
        assert revision in versions, f"{page.name} names revision {revision}"
    for claimed in _HEAD.findall(text):
        assert claimed == head, f"{page.name} says {claimed} is the head: {head} is"


def test_every_setting_is_in_the_table() -> None:
    operating = _text(REPO / "docs" / "operating.md")
    rows = {m.group(1) for m in re.finditer(r"^\s*\| `([A-Z_]+)` \|", operating, re.MULTILINE)}
    names = {field.alias for field in Settings.model_fields.values() if field.alias}
    assert names - rows == set()
    assert rows - names == set()


async def test_the_marked_shell_blocks_run_verbatim() -> None:
    blocks = [block for page in PAGES for block in _BLOCK.findall(_text(page))]
    assert blocks, f"no block marked {MARK}"
    for block in blocks:
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-e",
            "-c",
            block,
            cwd=REPO,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: what it started goes with it
        )
        try:
            async with asyncio.timeout(30):
                out, err = await process.communicate()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        assert process.returncode == 0, f"{block}\n{out.decode()}\n{err.decode()}"
        assert out.decode().count('"status": "resolved"') == 2, out.decode()
