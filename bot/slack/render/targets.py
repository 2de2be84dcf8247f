"""A Slack id as the mention Slack renders for it: the one place that knows the prefixes."""

from __future__ import annotations


def slack_target(slack_id: str) -> str:
    """A channel, user or user group id as the mention Slack renders for it."""
    if slack_id.startswith(("U", "W")):
        return f"<@{slack_id}>"
    if slack_id.startswith("S"):
        return f"<!subteam^{slack_id}>"
    return f"<#{slack_id}>"
