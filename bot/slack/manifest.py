"""The Slack app manifest the bridge expects, as the installed package carries it.

`novo-slack check` names what is missing from the app (a scope, a bot event) and
says to update the app from the manifest; a fix that pointed at the repository's
`manifest.yml` would point at nothing in the image or on a host the wheel was
installed on. So the manifest is package data here, the one copy every other is
made from: `novo-slack manifest` prints it, and the repository's top-level
`manifest.yml` is that output (`make manifest`; a test keeps them equal).

What a person changes in it is printed in, not edited after: their host in the three
request URLs (`--host`), and Socket Mode on (`--socket-mode`). Both are replaced as
text so the comments that explain each line stay.
"""

from __future__ import annotations

from importlib.resources import files

EXAMPLE_HOST = "novo-slack.example.com"
"""The host the manifest names until someone puts theirs in its place."""
_HTTP_MODE = "  socket_mode_enabled: false\n"
_SOCKET_MODE = "  socket_mode_enabled: true\n"


def manifest_text(*, host: str | None = None, socket_mode: bool = False) -> str:
    """The manifest as packaged; `host` in place of the example host, Socket Mode on."""
    text = files("bot.slack").joinpath("manifest.yml").read_text(encoding="utf-8")
    if host is not None:
        text = text.replace(EXAMPLE_HOST, host)
    if socket_mode:
        assert _HTTP_MODE in text, "the manifest no longer says socket_mode_enabled: false"
        text = text.replace(_HTTP_MODE, _SOCKET_MODE)
    return text
