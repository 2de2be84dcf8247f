"""A stored record is parsed once and reused until it changes, by whichever writer.

Type-ahead reads the same 10,000-option question on every keystroke and Home
reads every open interaction on every render: a read must not parse again a
record that did not change, and must never hand out one that did — even when
the change came from another replica at the very same clock time.
"""

from __future__ import annotations

from datetime import timedelta

from bot.store import Store
from bot.store.parsed import ParsedRecords

from .helpers import NOW, interaction, record_primary


async def _posted(store: Store, id_: str = "int_1") -> None:
    await store.claim_for_posting(interaction(id_), "C1", NOW)
    await record_primary(store, id_, "1.0001", "h", NOW)


async def test_an_unchanged_record_is_handed_out_as_parsed_before(store: Store) -> None:
    await _posted(store)
    first = await store.get("int_1")
    again = await store.get("int_1")
    [listed] = await store.open_interactions()
    assert first is not None and again is not None
    assert again.snapshot is first.snapshot and listed.snapshot is first.snapshot
    # what is not the record is read fresh every time
    await store.mark_gone("int_1", NOW)
    gone = await store.get("int_1")
    assert gone is not None and gone.gone and gone.snapshot is first.snapshot


async def test_a_change_by_another_writer_at_the_same_time_is_read(
    store: Store, peer: Store
) -> None:
    await _posted(store)
    before = await store.get("int_1")
    [listed] = await store.open_interactions()
    await peer.update_snapshot(interaction(reason="changed elsewhere"), NOW)  # same clock time
    after = await store.get("int_1")
    assert before is not None and after is not None
    assert after.snapshot.reason == "changed elsewhere"
    [relisted] = await store.open_interactions()
    assert relisted.snapshot.reason == "changed elsewhere" and listed.snapshot.reason is None


async def test_open_interactions_parse_only_what_changed(store: Store) -> None:
    for n in range(3):
        await _posted(store, f"int_{n}")
    first = {t.id: t.snapshot for t in await store.open_interactions()}
    await store.update_snapshot(interaction("int_1", reason="new"), NOW + timedelta(seconds=1))
    second = {t.id: t.snapshot for t in await store.open_interactions()}
    assert list(second) == ["int_0", "int_1", "int_2"]  # oldest first, as before
    assert second["int_0"] is first["int_0"] and second["int_2"] is first["int_2"]
    assert second["int_1"] is not first["int_1"] and second["int_1"].reason == "new"


def test_the_cache_is_bounded_by_count_and_by_text_size() -> None:
    record = interaction()
    by_count = ParsedRecords(max_records=2, max_text_chars=1_000)
    for n in range(3):
        by_count.put(f"i{n}", 0, record, 10)
    assert len(by_count) == 2 and by_count.get("i0", 0) is None  # the oldest went
    assert by_count.get("i2", 0) is record and by_count.get("i2", 1) is None
    by_size = ParsedRecords(max_records=100, max_text_chars=100)
    by_size.put("a", 0, record, 60)
    by_size.put("b", 0, record, 60)
    assert by_size.get("a", 0) is None and by_size.get("b", 0) is record
    by_size.put("huge", 0, record, 101)  # beyond the whole budget: not kept
    assert by_size.get("huge", 0) is None and by_size.get("b", 0) is record
