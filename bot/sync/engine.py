"""Poll, diff, post, update: the loop that keeps Slack in step with Novo.

Each poll lists every pending interaction (all pages, within a deadline and
a page cap), posts the new ones exactly once, and re-reads those that left
the pending set so their messages say how they ended.

The engine lists, compares, tracks and finishes; posting is the messages'
(`bot.messages.posting`). Posting exactly once: a poll tracks each new
interaction (`queued`: nothing sent) and hands it over; its lane claims it just
before sending and records the ts after, and message metadata carries the
interaction id. So a crash leaves in doubt only what the lanes were sending, and
each poll hands those claims over again to be looked for before they are posted
(`bot.messages.lifecycle`'s one reconcile step, for every kind of message).

One bad interaction never stops the others: records are parsed one by one
(an unreadable one is skipped and reported), and any failure while handling
one interaction is caught with its id, that interaction alone backs off, and
the poll goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages.posting import Posting
from bot.messages.publisher import MessagePublisher
from bot.metrics import INTERACTION_FAILURES, UNREADABLE_RECORDS
from bot.novo.client import NovoClient
from bot.novo.errors import InteractionNotFoundError, NovoError
from bot.novo.models import Interaction
from bot.novo.records import UnreadableRecord, id_of, parse_record
from bot.outages import level
from bot.slack.render.common import next_deadline_change, relative_deadline
from bot.store import Store, StoreFileError, TrackedInteraction, stored_form
from bot.store.audit import interaction_facts
from bot.store.errors import unreachable as store_unreachable
from bot.sync.final_metrics import observe_final
from bot.sync.grouping import form_groups
from bot.sync.routing import ChannelRouter
from bot.sync.standing import StandingApprovals

log = logging.getLogger(__name__)

LIST_PAGE_SIZE = 100
LIST_DEADLINE_SECONDS = 60.0  # a listing that takes longer counts as a failed poll
LIST_MAX_PAGES = 200  # 20,000 pending: beyond that the server is looping, not listing
FINALIZE_CONCURRENCY = 8  # re-reads of interactions that left the pending set, at once
COMPARE_CHUNK = 500  # stored records compared with the listed ones, read at once
HOLD_BASE_SECONDS = 2.0
HOLD_MAX_SECONDS = 60.0


# Failures of the outside world: logged in one line. Anything else is a bug and
# gets its traceback, but still holds back only the one interaction.
EXPECTED_FAILURES = (SlackApiError, aiohttp.ClientError, TimeoutError, NovoError, StoreFileError)


class ListingError(NovoError):
    """The pending list could not be read in full within the deadline or page cap."""


@dataclass
class PollReport:
    """What one poll found and queued (sends happen on the lanes, after the poll)."""

    pending: int = 0
    queued_posts: list[str] = field(default_factory=list)
    finalized: list[str] = field(default_factory=list)
    followed: list[str] = field(default_factory=list)  # still pending, and changed
    errors: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


@dataclass
class _Hold:
    failures: int
    until: float  # time.monotonic()


class SyncEngine:
    def __init__(
        self,
        novo: NovoClient,
        store: Store,
        publisher: MessagePublisher,
        router: ChannelRouter,
        clock: Clock,
        *,
        list_deadline: float = LIST_DEADLINE_SECONDS,
        list_max_pages: int = LIST_MAX_PAGES,
        standing: StandingApprovals | None = None,
    ) -> None:
        self._novo = novo
        self._store = store
        self._publisher = publisher
        self._router = router
        self._clock = clock
        self._list_deadline = list_deadline
        self._list_max_pages = list_max_pages
        self._standing = standing
        # Listed records that could not be read, by id, with why: reported once
        # each, and shown to operators (readiness details).
        self.unreadable: dict[str, str] = {}
        # Interactions whose handling failed, held back for a while: a local
        # throttle (losing it on restart costs one extra attempt, nothing more).
        self._held: dict[str, _Hold] = {}
        # when countdowns were last looked at: a local optimisation (after a restart
        # every open message is re-rendered once; one whose words are unchanged is
        # not sent)
        self._countdown_checked_at: datetime | None = None
        # each open record as last listed, with the stored version it matched at: a
        # local optimisation (after a restart the first poll compares every record)
        self._matched: dict[str, tuple[int, Any]] = {}
        self._posting = Posting(store, publisher, self._guarded, self._is_held, self._note_unsure)

    # ------------------------------------------------------------------ polling

    async def poll_once(self) -> PollReport:
        """One full pass. Raises NovoError when the pending list cannot be read.

        Most polls find the same records as the last one: a listed record equal to
        the one listed last time, while the stored record's version has not moved,
        is neither parsed nor compared with the store (`_unchanged`), so a poll over
        ten thousand waiting interactions costs little more than reading them.
        """
        report = PollReport()
        listed = await self._list_pending()
        await self._posting.queue_unposted()
        versions = await self._store.open_versions()
        ids = [id_of(raw) for raw in listed]  # once: ten thousand records, every poll
        unchanged = await self._unchanged(listed, ids, versions)
        listed_ids = {rid for rid in ids if rid is not None}
        known = set(versions) | await self._store.tracked_among(listed_ids - versions.keys())
        unreadable: list[UnreadableRecord] = []
        new: list[Interaction] = []
        for raw, rid in zip(listed, ids, strict=True):
            if rid is not None and (rid in unchanged or (rid in known and rid not in versions)):
                # unchanged since the last poll, or tracked and not shown yet (waiting for
                # its lane during a burst: nothing to follow until it is posted, and
                # parsing a thousand of them every poll would cost more than posting them)
                report.pending += 1
                continue
            record = parse_record(raw)
            if isinstance(record, UnreadableRecord):
                unreadable.append(record)
                continue
            report.pending += 1
            if record.id not in known:
                new.append(record)
            elif record.id in versions:
                await self._guarded(record.id, report, self._follow, record)
                report.followed.append(record.id)
        new = await self._without_standing(new)
        groups = await self._guarded_grouping(new)
        await self._post_all_new(new, groups, report)
        self._note_unreadable(unreadable, report)
        # a record still listed, readable or not, has not ended: never finalize it
        left = [i for i in versions if i not in listed_ids]
        await self._bounded(
            [partial(self._guarded, i, report, self._finalize_id, i, report) for i in left]
        )
        for tracked in await self._store.out_of_step():
            self._publisher.refresh_soon(tracked.id, tracked.channel)
        return report

    async def _unchanged(
        self, listed: list[Any], ids: list[str | None], versions: dict[str, int]
    ) -> set[str]:
        """Which listed open records equal their stored record; each match is remembered
        for the next poll.

        A record equal (as a JSON value) to the one that matched last time, at the
        same stored version, still matches: nothing is parsed, dumped or read for it.
        The others are compared with their stored text, as every record once was.
        """
        matched: dict[str, tuple[int, Any]] = {}
        doubtful: dict[str, Any] = {}
        kept = self._matched
        for raw, rid in zip(listed, ids, strict=True):
            if rid is None or (version := versions.get(rid)) is None:
                continue
            before = kept.get(rid)
            if before is not None and before[0] == version and before[1] == raw:
                matched[rid] = before
            else:
                doubtful[rid] = raw
        # a chunk at a time: after a start every record is doubtful, and ten thousand
        # stored texts with their rows, read at once, would stay in the process's peak
        doubtful_ids = list(doubtful)
        for start in range(0, len(doubtful_ids), COMPARE_CHUNK):
            chunk = doubtful_ids[start : start + COMPARE_CHUNK]
            for rid, (version, text) in (await self._store.open_snapshots_of(chunk)).items():
                if stored_form(doubtful[rid]) == text:
                    matched[rid] = (version, doubtful[rid])
        self._matched = matched  # only what is still listed and open is kept
        return set(matched)

    async def refresh_open(self) -> datetime | None:
        """Queue a cosmetic re-render of each open message whose countdown words changed;
        returns when the words next change on any waiting message (None: none shows one).

        The words change only at a few marks (see `relative_deadline`), so a run
        is needed only then; a re-render that changes nothing is not sent anyway.
        The queued ones wait their turn in the update budget behind anything that
        shows a decision or an ending. Those claimed but not yet posted count for
        the next change: they show their words once posted.
        """
        now = self._clock()
        since, self._countdown_checked_at = self._countdown_checked_at, now
        following: list[datetime] = []
        for open_ in await self._store.open_deadlines():
            expires = open_.expires_at
            if expires is None:
                continue
            if (change := next_deadline_change(expires, now)) is not None:
                following.append(change)
            if since is None or relative_deadline(expires, since) != relative_deadline(
                expires, now
            ):
                self._publisher.refresh_soon(open_.id, open_.channel, urgent=False)
        for tracked in await self._store.unposted():
            expires = tracked.snapshot.expires_at
            if expires is not None and (change := next_deadline_change(expires, now)):
                following.append(change)
        return min(following, default=None)

    async def _list_pending(self) -> list[Any]:
        """Every pending record as received, or ListingError past the deadline or page cap."""
        records: list[Any] = []
        pages = 0
        try:
            async with asyncio.timeout(self._list_deadline):
                pager = self._novo.list_raw(status="pending", limit=LIST_PAGE_SIZE)
                async for page in pager.pages():
                    pages += 1
                    records.extend(self._as_kept(page.data))
                    if pages >= self._list_max_pages and page.has_more:
                        raise ListingError(
                            f"the pending list went past {self._list_max_pages} pages;"
                            " this poll is abandoned"
                        )
        except TimeoutError:
            raise ListingError(
                f"listing pending interactions took over {self._list_deadline:.0f}s"
                f" ({pages} pages); this poll is abandoned"
            ) from None
        return records

    def _as_kept(self, page: list[Any]) -> list[Any]:
        """The page, each record equal to the one it matched last poll replaced by that
        one, a page at a time: ten thousand records listed again hold the memory of one
        copy, not two, and the comparison in `_unchanged` is one of identical values."""
        kept = self._matched
        if not kept:
            return page
        same: list[Any] = []
        for raw in page:
            before = kept.get(rid) if (rid := id_of(raw)) is not None else None
            same.append(before[1] if before is not None and before[1] == raw else raw)
        return same

    def _note_unreadable(self, records: list[UnreadableRecord], report: PollReport) -> None:
        for record in records:
            report.unreadable.append(record.key)
            if record.key in self.unreadable:
                continue
            self.unreadable[record.key] = record.problem
            UNREADABLE_RECORDS.inc()
            log.warning(
                "skipping a record Novo listed that can't be read: %s (%s)",
                record.key,
                record.problem,
            )
        listed = set(report.unreadable)
        for key in [k for k in self.unreadable if k not in listed]:
            del self.unreadable[key]  # fixed, or gone from the list

    async def _guarded(
        self,
        interaction_id: str,
        report: PollReport | None,
        step: Callable[..., Awaitable[object]],
        *args: object,
    ) -> None:
        """Run one interaction's step; a failure holds that interaction back, nothing else."""
        hold = self._held.get(interaction_id)
        if self._is_held(interaction_id):
            return
        try:
            await step(*args)
        except Exception as exc:
            failures = hold.failures + 1 if hold else 1
            delay = min(HOLD_MAX_SECONDS, HOLD_BASE_SECONDS * 2 ** (failures - 1))
            self._held[interaction_id] = _Hold(failures, time.monotonic() + delay)
            INTERACTION_FAILURES.inc()
            if report is not None:
                report.errors.append(f"{interaction_id}: {exc!r}")
            log.log(
                level(exc),
                "handling %s failed (%r); it waits %.0fs, the rest go on",
                interaction_id,
                exc,
                delay,
                exc_info=not isinstance(exc, EXPECTED_FAILURES),
            )
            return
        if hold is not None:
            del self._held[interaction_id]

    @staticmethod
    async def _bounded(steps: list[Callable[[], Awaitable[None]]]) -> None:
        gate = asyncio.Semaphore(FINALIZE_CONCURRENCY)

        async def run(step: Callable[[], Awaitable[None]]) -> None:
            async with gate:
                await step()

        await asyncio.gather(*(run(step) for step in steps))

    # ------------------------------------------------------------------ steps

    async def _without_standing(self, new: list[Interaction]) -> list[Interaction]:
        """This poll's new interactions less those a standing approval took; all of them
        (posted as usual) if asking fails."""
        if self._standing is None:
            return new
        try:
            taken = await self._standing.take(new)
        except Exception as exc:
            if store_unreachable(exc):
                raise  # the poll's failure: a database outage is said once, by the jobs
            log.exception("could not apply standing approvals; posting as usual")
            return new
        return [record for record in new if record.id not in taken]

    async def _guarded_grouping(self, new: list[Interaction]) -> dict[str, str]:
        """Step groups for this poll's new approvals; none (cards alone) if that fails."""
        try:
            return await form_groups(new, self._store, self._router, self._clock())
        except Exception as exc:
            if store_unreachable(exc):
                raise  # the poll's failure: a database outage is said once, by the jobs
            log.exception("could not form step groups; posting the cards alone")
            return {}

    async def _post_all_new(
        self, new: list[Interaction], groups: dict[str, str], report: PollReport
    ) -> None:
        """Claim this poll's new interactions in one transaction and queue their posts.

        One commit for all of them: a step pausing on 400 tool calls would
        otherwise hold the poll for 1,200 transactions while everything else
        waits for the next one. If the batch fails, each is tried alone, so one
        bad interaction still holds back only itself.
        """
        planned: list[tuple[Interaction, str, list[str]]] = []
        for record in new:
            if self._is_held(record.id):
                continue
            try:
                primary, *others = dict.fromkeys(self._router.destinations_for(record))
            except Exception:  # its own failure, counted and held back by the one-by-one path
                await self._guarded(
                    record.id, report, self._post_new, record, report, groups.get(record.id)
                )
                continue
            planned.append((record, primary, others))
        if not planned:
            return
        try:
            claimed = await self._store.claim_many_for_posting(
                planned, self._clock(), groups=groups
            )
            fresh = await self._store.get_many(claimed)
        except Exception as exc:
            log.log(
                level(exc),
                "claiming %d new interactions at once failed (%r); one by one",
                len(planned),
                exc,
            )
            for record, _, _ in planned:
                await self._guarded(
                    record.id, report, self._post_new, record, report, groups.get(record.id)
                )
            return
        for record, _, others in planned:
            tracked = fresh.get(record.id)
            if tracked is not None:
                self._queue_fresh(tracked, others, report)

    def _is_held(self, interaction_id: str) -> bool:
        hold = self._held.get(interaction_id)
        return hold is not None and time.monotonic() < hold.until

    def _queue_fresh(
        self, tracked: TrackedInteraction, copies: list[str], report: PollReport
    ) -> None:
        self._posting.queue_fresh(tracked, copies)
        report.queued_posts.append(tracked.id)

    async def _post_new(
        self, interaction: Interaction, report: PollReport, group_id: str | None = None
    ) -> None:
        primary, *others = dict.fromkeys(self._router.destinations_for(interaction))
        claimed = await self._store.claim_for_posting(
            interaction, primary, self._clock(), copies=others
        )
        if not claimed:
            return
        if group_id is not None:
            await self._store.join_group([interaction.id], group_id)
        tracked = await self._store.get(interaction.id)
        if tracked is not None:
            self._queue_fresh(tracked, others, report)

    async def _note_unsure(self, tracked: TrackedInteraction) -> None:
        """Log and audit, once as it is first posted, each condition its rule could not
        evaluate (the route is then the cautious one: `bot.policy.routes.route_for`)."""
        unsure = self._router.unsure_for(tracked.snapshot)
        for note in unsure:
            log.warning("%s: %s; only people allowed either way may decide", tracked.id, note)
        if unsure:
            await self._store.record(
                "condition_unknown",
                self._clock(),
                interaction_id=tracked.id,
                rule=self._router.rule_for(tracked.snapshot),
                errors=list(unsure),
            )

    async def _follow(self, interaction: Interaction) -> None:
        """A tracked interaction still pending changed: show it (e.g. expiresAt moved)."""
        await self._store.update_snapshot(interaction, self._clock())
        tracked = await self._store.get(interaction.id)
        if tracked is not None:
            self._publisher.refresh_soon(interaction.id, tracked.channel)

    async def _finalize_id(self, interaction_id: str, report: PollReport) -> None:
        tracked = await self._store.get(interaction_id)
        if tracked is not None:
            await self._finalize(tracked, report)

    async def _finalize(self, tracked: TrackedInteraction, report: PollReport) -> None:
        """Record and show how an interaction no longer pending ended. One with a decision of
        this bridge still open is left to that decision's delivery: Novo may have applied it
        with the answer not yet back, and only the delivery knows who decided (a poll now
        would record it as ended outside Slack). Every way a delivery ends refreshes the
        message; a later poll finishes whatever it leaves."""
        if await self._store.open_decisions([tracked.id]):
            return
        try:
            current = await self._novo.get(tracked.id)
        except InteractionNotFoundError:
            await self._store.mark_gone(tracked.id, self._clock())
            await self._store.record("gone", self._clock(), interaction_id=tracked.id, status=404)
            current = None
        if current is not None:
            rule = self._router.rule_for(current)
            observe_final(tracked.snapshot, current, rule)
            await self._store.update_snapshot(current, self._clock())
            if tracked.snapshot.is_pending and not current.is_pending:
                await self._store.record(
                    "expired" if current.timed_out else "ended",
                    self._clock(),
                    interaction_id=tracked.id,
                    status=current.status,
                    decision=current.decision,
                    reason=current.ending_reason,
                    decided_in_slack=tracked.decided_in_slack is not None,
                    **interaction_facts(current, rule),
                )
        await self._store.drop_drafts_for(tracked.id)  # nobody can submit those forms now
        report.finalized.append(tracked.id)
        self._publisher.refresh_soon(tracked.id, tracked.channel)
