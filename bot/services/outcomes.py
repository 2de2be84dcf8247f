"""The outcome facts live in `bot.outcomes`, low enough for rendering to read them.

This name stays only for the timed jobs' import of `OutcomeKind`; new code
imports `bot.outcomes`.
"""

from __future__ import annotations

from bot.outcomes import OutcomeKind as OutcomeKind

__all__ = ["OutcomeKind"]
