"""Golden files: compare what is rendered with the JSON stored beside the tests.

A difference fails with the file's name. After an intended change, run
``pytest --update-golden`` (option from ``tests/conftest.py``): every golden
file is rewritten from the current output; review them with ``git diff``.
A missing file fails the same way, never written silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

UPDATE_HINT = "run `pytest --update-golden` and review the diff"


def check_golden(directory: Path, name: str, produced: Any, *, update: bool) -> None:
    path = directory / f"{name}.json"
    text = json.dumps(produced, indent=2, ensure_ascii=False) + "\n"
    if update:
        directory.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.name}: {UPDATE_HINT}")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert expected == json.loads(text), f"{path.name} differs: {UPDATE_HINT}"


def stored_names(directory: Path) -> set[str]:
    return {path.stem for path in directory.glob("*.json")}
