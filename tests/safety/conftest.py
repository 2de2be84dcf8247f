"""The end-to-end loop (simulator + local Slack + bridge) for the safety scenarios."""

from tests.e2e.conftest import loop

__all__ = ["loop"]
