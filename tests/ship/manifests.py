"""The deployment files read as data: shared by the Kubernetes and compose tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.config import Settings
from bot.secretfiles import file_setting_names
from tests.ship.podman import REPO

KUBERNETES = REPO / "deploy" / "kubernetes"
CONTAINERFILE = REPO / "Containerfile"


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def setting_names() -> set[str]:
    """Every environment name the bridge reads: the settings and their `_FILE` forms."""
    names = {field.alias for field in Settings.model_fields.values() if field.alias}
    return names | set(file_setting_names(Settings))


def image_user() -> int:
    """The numeric user the Containerfile's final stage runs as."""
    users = re.findall(r"^USER (\d+)", CONTAINERFILE.read_text(encoding="utf-8"), re.MULTILINE)
    assert users, "the Containerfile names no numeric USER"
    return int(users[-1].split(":")[0])


def image_port() -> int:
    ports = re.findall(r"^EXPOSE (\d+)", CONTAINERFILE.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(ports) == 1
    return int(ports[0])
