"""A page on loopback that shows the local Slack and lets a person click in it.

`novo-slack demo --ui` serves it beside the transcript; every click on the
page reaches the bridge as the signed payload Slack would send.
"""

from novo_dev.playground.server import DEFAULT_PORT, Playground, start_playground

__all__ = ["DEFAULT_PORT", "Playground", "start_playground"]
