"""Claimed late, reconciled once: after a crash, one look per channel finds what was sent.

A lane claims a message just before it sends it, so a crash leaves in doubt
only what the lanes were sending; after a restart every such claim of a
channel is looked for with one walk of its history, shared by all of them,
and each interaction is in Slack exactly once.
"""

from __future__ import annotations

from collections import Counter

from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

IN_DOUBT = 3


async def _all_posted(loop: Loop, ids: list[str]) -> None:
    async def probe() -> bool:
        for interaction_id in ids:
            tracked = await loop.tracked(interaction_id)
            if tracked is None or tracked.state != "posted":
                return False
        return True

    await wait_until(probe, message="every interaction recorded as posted")


async def test_a_restart_finds_a_channels_posts_in_doubt_with_one_history_walk(
    loop: Loop,
) -> None:
    # Slack posts each, but no answer arrives: every claim is left in doubt
    loop.slack.lose_answers("chat.postMessage", count=IN_DOUBT)
    created = [(await loop.create("approval_request"))["id"] for _ in range(IN_DOUBT)]
    await wait_until(lambda: len(set(loop.posted_ids())) == IN_DOUBT, message="all posted in Slack")
    # the first process looks for a post whose answer it lost, as soon as it lost it: on a
    # busy machine it may find some of them before the restart, so the restart's own walk
    # is the one counted
    before = len(loop.slack.calls("conversations.history"))
    await loop.restart()  # the crash: the claims are all the new process knows
    await _all_posted(loop, created)
    walks = loop.slack.calls("conversations.history")
    assert {c.args.get("channel") for c in walks} <= {CHANNEL}
    assert len(walks) - before <= 1  # one walk for all it found in doubt, not one each
    assert Counter(loop.posted_ids()) == dict.fromkeys(created, 1)  # none posted twice


async def test_messages_never_sent_before_a_crash_are_posted_without_a_look(loop: Loop) -> None:
    loop.slack.fail_method("chat.postMessage", count=IN_DOUBT, error="channel_not_found")
    created = [(await loop.create("approval_request"))["id"] for _ in range(IN_DOUBT)]
    await wait_until(
        lambda: len(loop.slack.calls("chat.postMessage")) >= IN_DOUBT, message="posts refused"
    )
    await loop.restart()
    await _all_posted(loop, created)
    assert loop.slack.calls("conversations.history") == []  # refused: nothing to look for
    assert Counter(loop.posted_ids()) == dict.fromkeys(created, 1)
