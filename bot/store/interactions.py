"""Interactions we track and their primary message: the queries the sync engine runs.

Every state change is one conditional statement whose row count says whether
it happened (`UPDATE … WHERE state = 'posting'`): two tasks, or two replicas,
racing on the same interaction can never both win, and nothing is
check-then-act.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, RowMapping, and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import SlackDecision
from bot.novo.models import Interaction
from bot.store.base import ID_CHUNK, StoreBase, insert_for
from bot.store.messages import MessageKey, new_message
from bot.store.records import dump_record, stored_expiry, wire_record
from bot.store.rows import OpenDeadline, TrackedInteraction, tracked
from bot.store.schema import UNPOSTED, MessageKind, MessageState, interactions, messages

_primary = and_(
    messages.c.interaction_id == interactions.c.id, messages.c.purpose == MessageKind.PRIMARY
)
_PRIMARY_COLUMNS = (
    messages.c.channel,
    messages.c.state,
    messages.c.ts,
    messages.c.rendered_hash,
    messages.c.synced,
    messages.c.claimed_at,
    messages.c.slack_channel,
    messages.c.after_ts,
)


TRACKED = select(interactions, *_PRIMARY_COLUMNS).join(messages, _primary)
STAMPED = select(
    *(column for column in interactions.c if column.name != "snapshot"), *_PRIMARY_COLUMNS
).join(messages, _primary)
"""TRACKED without the stored record: what a read takes when the parsed record is kept."""
_OPEN_AND_SHOWN = (
    interactions.c.status == "pending",
    interactions.c.gone.is_(False),
    # one look at the posted messages, not one per interaction: as a correlated EXISTS,
    # SQLite searched it by `messages_state`, every posted message for every open
    # interaction (64 ms a poll at 1,000 waiting, quadratic beyond)
    interactions.c.id.in_(
        select(messages.c.interaction_id).where(messages.c.state == MessageState.POSTED)
    ),
)
"""Open, and shown by at least one of its messages (see `open_snapshots`)."""
_OPEN_POSTED = (
    interactions.c.status == "pending",
    interactions.c.gone.is_(False),
    messages.c.state == MessageState.POSTED,
)
"""Open, and its primary message posted (`open_interactions`, `open_deadlines`)."""
_OLDEST_FIRST = (interactions.c.created_at, interactions.c.id)
CLAIM_CHUNK = 200  # interactions per multi-row insert: 8 values each, inside every engine's limit


class InteractionQueries(StoreBase):
    async def claim_for_posting(
        self,
        interaction: Interaction,
        channel: str,
        now: datetime,
        *,
        copies: Sequence[str] = (),
    ) -> bool:
        """Track a new interaction, its messages `queued` for their lanes; False when
        already tracked (posted once). Each lane claims its message just before sending
        it (`MessageQueries.record_sends`).

        `copies`: the route's further destinations (the other users of a `dm:` list),
        each claimed as a `copy` message in the same transaction, so a crash can
        never leave the primary claimed and a copy forgotten.
        """
        claimed = await self.claim_many_for_posting([(interaction, channel, copies)], now)
        return interaction.id in claimed

    async def claim_many_for_posting(
        self,
        claims: Sequence[tuple[Interaction, str, Sequence[str]]],
        now: datetime,
        *,
        groups: Mapping[str, str] | None = None,
    ) -> set[str]:
        """`claim_for_posting` for each (interaction, channel, copies), all in one
        transaction; the ids claimed now (those already tracked are left alone).

        A poll that finds hundreds of new interactions (one step pausing on as many
        tool calls) claims them with one commit, not hundreds. `groups`: the step
        group each joins (interaction id → group id), set in the same insert.
        """
        joins = groups or {}

        async def claim_all(connection: AsyncConnection) -> set[str]:
            claimed: set[str] = set()
            for start in range(0, len(claims), CLAIM_CHUNK):
                chunk = claims[start : start + CLAIM_CHUNK]
                claimed |= await _claim_chunk(connection, chunk, now, joins)
            return claimed

        return await self._transaction(claim_all)

    async def update_snapshot(self, interaction: Interaction, now: datetime) -> None:
        """Keep the newest API record; never move a finalized record back to pending.

        A change of status puts every message of the interaction out of step,
        so each is re-rendered.
        """
        snapshot = dump_record(wire_record(interaction))
        row = interactions.c

        async def keep(connection: AsyncConnection) -> None:
            # a record only ever leaves pending: a pending one never moves a status
            if interaction.status != "pending":
                moved = await connection.execute(
                    update(interactions)
                    .where(row.id == interaction.id, row.status != interaction.status)
                    .values(
                        snapshot=snapshot,
                        status=interaction.status,
                        updated_at=now,
                        record_version=row.record_version + 1,
                    )
                )
                if moved.rowcount:
                    await connection.execute(
                        update(messages)
                        .where(messages.c.interaction_id == interaction.id)
                        .values(synced=False)
                    )
                    return
            await connection.execute(
                update(interactions)
                .where(row.id == interaction.id, row.status == interaction.status)
                .values(snapshot=snapshot, updated_at=now, record_version=row.record_version + 1)
            )

        await self._transaction(keep)

    async def mark_gone(self, interaction_id: str, now: datetime) -> None:
        async def gone(connection: AsyncConnection) -> None:
            await connection.execute(
                update(interactions)
                .where(interactions.c.id == interaction_id)
                .values(gone=True, updated_at=now)
            )
            await connection.execute(
                update(messages)
                .where(messages.c.interaction_id == interaction_id)
                .values(synced=False)
            )

        await self._transaction(gone)

    async def record_slack_decision(self, interaction_id: str, decision: SlackDecision) -> bool:
        """Remember who decided in Slack; the first delivered decision wins."""
        return (
            await self._write(
                update(interactions)
                .where(interactions.c.id == interaction_id, interactions.c.decided_by_id.is_(None))
                .values(
                    decided_by_id=decision.actor.user_id,
                    decided_by_name=decision.actor.display_name,
                    decided_verb=decision.verb,
                    decided_note=decision.note,
                    decided_at=decision.at,
                )
            )
            == 1
        )

    async def get(self, interaction_id: str) -> TrackedInteraction | None:
        """The interaction and its primary message; the record is parsed again only when
        it changed since this process last parsed it (`ParsedRecords`)."""
        wanted = interactions.c.id == interaction_id
        row = await self._first(STAMPED.where(wanted))
        if row is None:
            return None
        kept = self._kept(row)
        if kept is not None:
            return kept
        row = await self._first(TRACKED.where(wanted))
        return self._parse(row) if row is not None else None

    def _kept(self, row: RowMapping) -> TrackedInteraction | None:
        """The interaction of a STAMPED row, if its record is kept parsed as it is stored."""
        snapshot = self._parsed.get(row["id"], row["record_version"])
        return tracked(row, self._show, snapshot) if snapshot is not None else None

    def _parse(self, row: RowMapping) -> TrackedInteraction:
        """The interaction of a TRACKED row, its parsed record kept for the next read."""
        found = tracked(row, self._show)
        raw = found.raw or found.snapshot
        self._parsed.put(row["id"], row["record_version"], raw, len(row["snapshot"]))
        return found

    async def get_many(self, interaction_ids: Collection[str]) -> dict[str, TrackedInteraction]:
        """`get` for many ids at once; those not tracked are absent."""
        if not interaction_ids:
            return {}
        # parsed records are kept, as for every read: the poll that claims a burst reads it
        # back here, and every later poll's `unposted` reuses what was parsed now
        wanted = interactions.c.id.in_(list(interaction_ids))
        return {t.id: t for t in await self._kept_or_parsed(wanted, _OLDEST_FIRST)}

    async def unposted(
        self, *, leaving: Container[tuple[str, str]] = ()
    ) -> list[TrackedInteraction]:
        """Tracked but not confirmed posted: `queued` ones wait for their lane (nothing
        was sent), `posting` ones are the crash window to reconcile.

        Each carries `claimed_at` and `after_ts`: a message, if one was sent, is newer.
        `leaving`: (channel, id) of those the caller already has in hand (queued on its
        lanes during a burst), left out before they are built.
        """
        unposted = messages.c.state.in_(UNPOSTED)
        order = (messages.c.claimed_at, interactions.c.id)
        return await self._kept_or_parsed(unposted, order, leaving)

    async def _kept_or_parsed(
        self,
        where: ColumnElement[bool],
        order: tuple[ColumnElement[Any], ...],
        leaving: Container[tuple[str, str]] = (),
    ) -> list[TrackedInteraction]:
        """The interactions `where` picks, in `order`, less those `leaving` names: records
        parsed before and unchanged since are reused, so only what changed is read in
        full and parsed (every poll reads what is waiting for its lane, a thousand during
        a burst)."""
        found: dict[str, TrackedInteraction | None] = {}
        for row in await self._all(STAMPED.where(where).order_by(*order)):
            if (row["channel"], row["id"]) not in leaving:
                found[row["id"]] = self._kept(row)
        missing = [key for key, value in found.items() if value is None]
        for start in range(0, len(missing), ID_CHUNK):
            chunk = missing[start : start + ID_CHUNK]
            for row in await self._all(TRACKED.where(where, interactions.c.id.in_(chunk))):
                found[row["id"]] = self._parse(row)
        # one that stopped matching between the two reads is left out
        return [value for value in found.values() if value is not None]

    async def open_interactions(self) -> list[TrackedInteraction]:
        """Pending, not gone, and posted; oldest first. Records parsed before and unchanged
        since are reused, so only what changed is read in full and parsed."""
        return await self._kept_or_parsed(and_(*_OPEN_POSTED), _OLDEST_FIRST)

    async def open_deadlines(self) -> list[OpenDeadline]:
        """`open_interactions` as the countdowns need them: each one's id, lane and
        expiry, oldest first. Read a chunk at a time and never parsed into models: at
        ten thousand waiting, the full records would cost some 60 MB at once (the first
        look after a start reads them all)."""
        where, order = _OPEN_POSTED, _OLDEST_FIRST
        ids = [
            str(row["id"])
            for row in await self._all(
                select(interactions.c.id).join(messages, _primary).where(*where).order_by(*order)
            )
        ]
        found: dict[str, OpenDeadline] = {}
        columns = (interactions.c.id, messages.c.channel, interactions.c.snapshot)
        for start in range(0, len(ids), ID_CHUNK):
            chunk = ids[start : start + ID_CHUNK]
            query = select(*columns).join(messages, _primary).where(*where)
            for row in await self._all(query.where(interactions.c.id.in_(chunk))):
                found[str(row["id"])] = OpenDeadline(
                    str(row["id"]), str(row["channel"]), stored_expiry(str(row["snapshot"]))
                )
        # one that stopped being open between the two reads is left out
        return [found[i] for i in ids if i in found]

    async def out_of_step(self) -> list[TrackedInteraction]:
        """Finished interactions whose message may not show it yet (an update failed)."""
        query = TRACKED.where(
            messages.c.synced.is_(False),
            messages.c.state == MessageState.POSTED,
            or_(interactions.c.status != "pending", interactions.c.gone.is_(True)),
        )
        rows = await self._all(query.order_by(interactions.c.updated_at, interactions.c.id))
        return [tracked(r, self._show) for r in rows]

    async def open_snapshots(self) -> dict[str, str]:
        """Each open interaction's stored record as JSON text, by id: what a poll compares
        with what Novo lists, without parsing a thousand records it has seen before.

        Open once any of its messages is in Slack: the primary, or a copy when the
        first person of a `dm:` list could not be reached (its ending must still
        reach the others).
        """
        query = select(interactions.c.id, interactions.c.snapshot).where(*_OPEN_AND_SHOWN)
        return {str(r["id"]): str(r["snapshot"]) for r in await self._all(query)}

    async def open_versions(self) -> dict[str, int]:
        """`open_snapshots` without the records: each one's `record_version`, by id.

        A poll over ten thousand waiting interactions asks for these small numbers,
        and for the stored text (`open_snapshots_of`) only of those whose version
        moved or whose listed record differs from the one it matched before.
        """
        query = select(interactions.c.id, interactions.c.record_version).where(*_OPEN_AND_SHOWN)
        return {str(r["id"]): int(r["record_version"]) for r in await self._all(query)}

    async def open_snapshots_of(self, ids: Collection[str]) -> dict[str, tuple[int, str]]:
        """The stored record and its version of each of these that is open, by id."""
        found: dict[str, tuple[int, str]] = {}
        wanted = list(ids)
        columns = (interactions.c.id, interactions.c.record_version, interactions.c.snapshot)
        for start in range(0, len(wanted), ID_CHUNK):
            chunk = wanted[start : start + ID_CHUNK]
            query = select(*columns).where(*_OPEN_AND_SHOWN, interactions.c.id.in_(chunk))
            for r in await self._all(query):
                found[str(r["id"])] = (int(r["record_version"]), str(r["snapshot"]))
        return found

    async def tracked_among(self, ids: Collection[str]) -> set[str]:
        """Which of `ids` the bridge already tracks (a poll asks about what Novo listed,
        never loads every id it ever saw)."""
        found: set[str] = set()
        wanted = list(ids)
        for start in range(0, len(wanted), ID_CHUNK):
            chunk = wanted[start : start + ID_CHUNK]
            query = select(interactions.c.id).where(interactions.c.id.in_(chunk))
            found.update(str(r["id"]) for r in await self._all(query))
        return found

    async def ended_since(self, since: datetime) -> list[TrackedInteraction]:
        """Interactions that left `pending` (or went missing) at or after `since`, by
        when the bridge saw them end, oldest first (reports and digests)."""
        query = TRACKED.where(
            or_(interactions.c.status != "pending", interactions.c.gone.is_(True)),
            interactions.c.updated_at >= since,
        )
        rows = await self._all(query.order_by(interactions.c.updated_at, interactions.c.id))
        return [tracked(r, self._show) for r in rows]

    async def decided_by(self, user_id: str, limit: int) -> list[TrackedInteraction]:
        """What this person decided in Slack, newest first."""
        query = TRACKED.where(interactions.c.decided_by_id == user_id)
        rows = await self._all(query.order_by(interactions.c.decided_at.desc()).limit(limit))
        return [tracked(r, self._show) for r in rows]

    async def tracked_ids(self) -> set[str]:
        return {str(r["id"]) for r in await self._all(select(interactions.c.id))}


async def track_new(
    connection: AsyncConnection,
    interaction: Interaction,
    now: datetime,
    *,
    group_id: str | None = None,
) -> bool:
    """Start tracking `interaction` on `connection`; False if some process already does
    (the row is the claim: whoever inserts it handles the interaction)."""
    claim = (
        insert_for(connection, interactions)
        .values(
            id=interaction.id,
            kind=interaction.kind,
            status=interaction.status,
            snapshot=dump_record(wire_record(interaction)),
            gone=False,
            group_id=group_id,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing()
        .returning(interactions.c.id)
    )
    return (await connection.execute(claim)).first() is not None


async def _claim_chunk(
    connection: AsyncConnection,
    claims: Sequence[tuple[Interaction, str, Sequence[str]]],
    now: datetime,
    groups: Mapping[str, str],
) -> set[str]:
    """Claim these interactions and their messages on `connection` with two statements
    (each one a thread hop on SQLite's driver, so not two per interaction); the ids
    claimed now (those some process already tracks are left alone)."""
    rows = {
        interaction.id: {
            "id": interaction.id,
            "kind": interaction.kind,
            "status": interaction.status,
            "snapshot": dump_record(wire_record(interaction)),
            "gone": False,
            "group_id": groups.get(interaction.id),
            "created_at": now,
            "updated_at": now,
        }
        for interaction, _, _ in claims
    }
    if not rows:
        return set()
    insert = insert_for(connection, interactions).values(list(rows.values()))
    found = await connection.execute(insert.on_conflict_do_nothing().returning(interactions.c.id))
    claimed = {str(row.id) for row in found}
    done: set[str] = set()
    wanted: list[MessageKey] = []
    for interaction, channel, copies in claims:
        if interaction.id not in claimed:
            continue
        claimed_now = interaction.id
        wanted.append(MessageKey(claimed_now, MessageKind.PRIMARY, channel))
        others = [target for target in dict.fromkeys(copies) if target != channel]
        wanted.extend(MessageKey(claimed_now, MessageKind.COPY, target) for target in others)
        claimed.discard(claimed_now)  # listed twice: its messages once
        done.add(claimed_now)
    if wanted:
        await connection.execute(messages.insert(), [new_message(key, now) for key in wanted])
    return done
