"""Copies: a route's further DMs, claimed with the primary and kept as messages of their own."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind

from .helpers import NOW, interaction, record_message, record_primary

LATER = NOW + timedelta(minutes=1)


async def test_copies_are_claimed_with_the_primary_once_each(store: Store, peer: Store) -> None:
    claims = await asyncio.gather(
        *(
            s.claim_for_posting(
                interaction(), "U0ADA", NOW, copies=["U0GRACE", "U0ADA", "U0LIN", "U0GRACE"]
            )
            for s in (store, peer)
        )
    )
    assert sorted(claims) == [False, True]
    claimed = {(m.purpose, m.channel, m.state) for m in await store.messages("int_1")}
    assert claimed == {
        (MessageKind.PRIMARY, "U0ADA", "queued"),
        (MessageKind.COPY, "U0GRACE", "queued"),
        (MessageKind.COPY, "U0LIN", "queued"),
    }
    # a crash now: every one of them is found again
    assert {(m.purpose, m.channel) for m in await store.unposted_messages()} == {
        (MessageKind.PRIMARY, "U0ADA"),
        (MessageKind.COPY, "U0GRACE"),
        (MessageKind.COPY, "U0LIN"),
    }


async def test_where_slack_put_a_dm_is_what_slack_is_told_later(store: Store) -> None:
    await store.claim_for_posting(interaction(), "U0ADA", NOW, copies=["U0GRACE"])
    assert await record_primary(store, "int_1", "1.1", "h", LATER, slack_channel="D0ADA")
    await record_message(
        store, "int_1", MessageKind.COPY, "U0GRACE", "1.2", "h", LATER, slack_channel="D0GRACE"
    )
    tracked = await store.get("int_1")
    assert tracked is not None and (tracked.channel, tracked.shown_in) == ("U0ADA", "D0ADA")
    copy = await store.get_message("int_1", MessageKind.COPY, "U0GRACE")
    assert copy is not None and (copy.channel, copy.shown_in) == ("U0GRACE", "D0GRACE")

    await store.claim_for_posting(interaction("int_2"), "C1", NOW)
    await record_primary(store, "int_2", "2.1", "h", LATER, slack_channel="C1")
    in_channel = await store.get("int_2")
    assert in_channel is not None and (in_channel.slack_channel, in_channel.shown_in) == (
        None,
        "C1",
    )


async def test_a_refused_claim_is_dropped_but_a_posted_copy_never(store: Store) -> None:
    await store.claim_for_posting(interaction(), "U0ADA", NOW, copies=["U0GONE", "U0GRACE"])
    await record_message(store, "int_1", MessageKind.COPY, "U0GRACE", "1.2", "h", LATER)
    assert await store.drop_claim(MessageKey("int_1", MessageKind.COPY, "U0GONE"))
    assert not await store.drop_claim(MessageKey("int_1", MessageKind.COPY, "U0GONE"))
    assert not await store.drop_claim(MessageKey("int_1", MessageKind.COPY, "U0GRACE"))
    assert {m.channel for m in await store.messages("int_1")} == {"U0ADA", "U0GRACE"}


async def test_a_posted_copy_keeps_the_interaction_open_to_the_poll(store: Store) -> None:
    """The first person could not be reached: the primary is still `posting`, but the
    others were asked, so the poll must still notice when it ends."""
    await store.claim_for_posting(interaction(), "U0GONE", NOW, copies=["U0GRACE"])
    await store.claim_for_posting(interaction("int_2"), "U0GONE", NOW, copies=["U0GRACE"])
    assert await store.open_snapshots() == {}
    await record_message(store, "int_1", MessageKind.COPY, "U0GRACE", "1.2", "h", LATER)
    assert set(await store.open_snapshots()) == {"int_1"}
    # what a poll asks first, and then only of what it doubts: the same open set
    assert set(await store.open_versions()) == {"int_1"}
    snapshots = await store.open_snapshots_of(["int_1", "int_2"])
    assert set(snapshots) == {"int_1"}
    version, text = snapshots["int_1"]
    assert (await store.open_versions())["int_1"] == version
    assert text == (await store.open_snapshots())["int_1"]
