"""The narrated demo: simulator + local Slack + bridge in one process."""

from novo_dev.demo.runner import run_demo

__all__ = ["run_demo"]
