"""Schema migrations, applied in order at start-up, from the first version on.

Each entry is the SQL that takes the schema from version N-1 to N; a shipped
entry is never edited, only followed by a new one, so every installed
database can be brought forward.
"""

from __future__ import annotations

import aiosqlite

MIGRATIONS: tuple[str, ...] = (
    # 1: interactions we track and the decisions taken in Slack (the outbox)
    """
    CREATE TABLE interactions (
        id              TEXT PRIMARY KEY,
        kind            TEXT NOT NULL,
        state           TEXT NOT NULL CHECK (state IN ('posting', 'posted')),
        status          TEXT NOT NULL,
        snapshot        TEXT NOT NULL,
        channel         TEXT NOT NULL,
        ts              TEXT,
        rendered_hash   TEXT,
        gone            INTEGER NOT NULL DEFAULT 0,
        synced          INTEGER NOT NULL DEFAULT 0,
        decided_by_id   TEXT,
        decided_by_name TEXT,
        decided_verb    TEXT,
        decided_note    TEXT,
        decided_at      TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
    );
    CREATE INDEX interactions_open ON interactions (status, gone);
    CREATE TABLE decisions (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        interaction_id  TEXT NOT NULL REFERENCES interactions (id),
        body            TEXT NOT NULL,
        actor_id        TEXT NOT NULL,
        actor_name      TEXT NOT NULL,
        verb            TEXT NOT NULL,
        note            TEXT,
        state           TEXT NOT NULL
                        CHECK (state IN ('queued', 'delivered', 'conflict', 'rejected', 'gone')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_error      TEXT,
        response_view_id TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
    );
    CREATE UNIQUE INDEX decisions_one_open ON decisions (interaction_id) WHERE state = 'queued';
    CREATE INDEX decisions_due ON decisions (state, next_attempt_at);
    """,
)


async def migrate(db: aiosqlite.Connection) -> int:
    """Bring the schema to the newest version; returns that version."""
    await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    async with db.execute("SELECT MAX(version) FROM schema_version") as cursor:
        row = await cursor.fetchone()
    current = int(row[0]) if row and row[0] is not None else 0
    for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
        await db.executescript(
            f"BEGIN;\n{script}\nINSERT INTO schema_version VALUES ({version});\nCOMMIT;"
        )
    return len(MIGRATIONS)
