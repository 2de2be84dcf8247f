"""When a claimed message is in doubt, and where a look for it starts: one rule for
every kind of message (primary, copy, escalation, step group).

A message is claimed just before its send and its ts recorded after; a crash or a lost
answer in between leaves the claim in doubt. Slack's answer says whether a post may
have happened (`nothing_posted`), and a look through the destination's history for it
starts just before it could have landed (`look_from`, `since_claim`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from slack_sdk.errors import SlackApiError

from bot.store import TrackedInteraction

CLAIM_MARGIN = timedelta(minutes=2)
"""How far before a claim the look for it starts: clocks differ a little."""

MAYBE_POSTED_ERRORS = frozenset(
    {"internal_error", "fatal_error", "request_timeout", "service_unavailable"}
)
"""Slack's answers after which a post may have been made all the same."""


def nothing_posted(exc: SlackApiError) -> bool:
    """Slack refused the post outright (bad channel, too long, rate-limited): it did nothing."""
    status = getattr(exc.response, "status_code", 200)
    return status < 500 and exc.response.get("error") not in MAYBE_POSTED_ERRORS


def since_claim(claimed_at: datetime) -> datetime:
    """Where a look for a message claimed at `claimed_at` starts."""
    return claimed_at - CLAIM_MARGIN


def look_from(claim: TrackedInteraction) -> float:
    """Where a look for an in-doubt claim starts (a Slack ts, in seconds): after the newest
    message of ours its channel had when it was claimed, or, if it had none, the margin
    before the claim."""
    if claim.after_ts is not None:
        return float(claim.after_ts)
    return since_claim(claim.claimed_at or datetime.now(tz=UTC)).timestamp()
