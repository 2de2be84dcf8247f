"""`.env.example`, made from the settings model: every setting, its default and meaning.

`python -m bot.envfile > .env.example` (`make env-example`). The file is made,
not written, so it cannot drift from `bot.config`: a test compares the two.
Required settings are left to fill in; the others are commented out at their
defaults; each secret shows its `_FILE` form beside it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from pydantic.fields import FieldInfo

from bot.config import REQUIRED_UNLESS, Settings
from bot.secretfiles import DB_PASSWORD_FILE, DB_SETTING, FILE_SUFFIX, secret_names

WIDTH = 90
HEADER = """\
# novo-slack's settings, each with its meaning and default. Copy this file to .env where
# the bridge runs (or set the same names in its environment) and fill in the required ones.
# Made from the settings model (bot/config.py) by `make env-example`: change it there.
#
# Any secret can be a file instead: NAME_FILE=/run/secrets/name (its trailing newline is
# not part of the value). Giving both NAME and NAME_FILE is an error.
"""


def render_env_example() -> str:
    secrets = set(secret_names(Settings))
    blocks = [HEADER]
    for field in Settings.model_fields.values():
        name = field.alias
        if name is None:
            continue
        blocks.append(_block(name, field, secret=name in secrets))
    return "\n".join(blocks)


def _block(name: str, field: FieldInfo, *, secret: bool) -> str:
    meaning = field.description or "(no description in bot/config.py)"
    lines = textwrap.wrap(meaning, WIDTH, initial_indent="# ", subsequent_indent="# ")
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    unless = extra.get(REQUIRED_UNLESS)
    if field.is_required() or unless:
        needed = f"required unless {unless} is set" if unless else "required"
        lines += [f"# {needed}{'; a secret' if secret else ''}", f"{name}="]
    else:
        shown = _shown(field.default)
        lines += [f"# default: {shown or 'unset'}", f"# {name}={shown}"]
    if secret:
        lines.append(f"# {name}{FILE_SUFFIX}=/run/secrets/{name.lower()}")
    if name == DB_SETTING:
        lines.append("# the URL's password as a file instead (the URL then has none):")
        lines.append(f"# {DB_PASSWORD_FILE}=/run/secrets/db_password")
    return "\n".join(lines) + "\n"


def _shown(default: object) -> str:
    if default is None:
        return ""
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, Path):
        return str(default) if default.is_absolute() else f"./{default}"
    return str(default)


def main() -> None:
    print(render_env_example(), end="")


if __name__ == "__main__":
    main()
