"""Every fix `novo-slack check` prints can be followed where the bridge runs.

The image and a host the wheel was installed on hold no checkout: a fix naming
the repository's `manifest.yml` (or a page under `docs/`) points at nothing
there. A fix may name the settings, Slack's pages, and `novo-slack` commands,
each one a command the installed package has.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import bot.check
from bot.cli import BUILT_IN, _parser

CHECK = Path(bot.check.__file__)
_A_FILE = re.compile(r"[\w./-]+\.(?:ya?ml|md|toml|json|txt)\b|\bdocs/")
_A_COMMAND = re.compile(r"\bnovo-slack ([a-z][a-z-]*)")


def _fix_texts() -> list[str]:
    """The words of every fix in bot/check.py: `failed(name, detail, fix)`'s third argument,
    and every `fix` or `…_FIX` assigned; a name is read through the module constant it
    names, anything else computed shows as `{…}`."""
    tree = ast.parse(CHECK.read_text(encoding="utf-8"))
    constants = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }

    def words(node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(words(part) for part in node.values)
        if isinstance(node, ast.FormattedValue):
            return words(node.value)
        if isinstance(node, ast.Name) and node.id in constants:
            return words(constants[node.id])
        return "{…}"

    fixes: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "failed":
            fixes += node.args[2:3] + [k.value for k in node.keywords if k.arg == "fix"]
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and (t.id == "fix" or t.id.endswith("_FIX"))
            for t in node.targets
        ):
            fixes.append(node.value)
    return [words(fix) for fix in fixes]


def test_no_fix_names_a_file_of_the_checkout() -> None:
    fixes = _fix_texts()
    assert len([f for f in fixes if f != "{…}"]) > 20  # the walk found them
    assert [f for f in fixes if _A_FILE.search(f)] == []


def test_every_command_a_fix_names_is_one_the_package_has() -> None:
    named = {m.group(1) for fix in _fix_texts() for m in _A_COMMAND.finditer(fix)}
    assert "manifest" in named  # scopes and events: update the app from its output
    parser = _parser(plugins=False)
    subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert named <= set(subcommands.choices) and named <= BUILT_IN
