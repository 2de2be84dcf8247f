"""`novo-slack check` on a fresh PostgreSQL database exits as `run` would: 0.

`run` migrates a database no revision was ever applied to and starts, so the
check that comes before it must not fail it. The database's URL carries its
password as a query parameter, the form libpq also takes: the check shows the
database and never the password.
"""

from __future__ import annotations

from bot.check import OK
from tests.lifecycle.conftest import World
from tests.support import novo_slack

PASSWORD = "hunter2-in-the-query"


async def test_check_passes_a_fresh_database_and_shows_no_password(
    world: World, database_url: str
) -> None:
    env = dict(world.env, NOVO_SLACK_DB=f"{database_url}?password={PASSWORD}")
    ran = await novo_slack("check", env=env, cwd=world.cwd)
    shown = ran.out + ran.err
    assert ran.code == 0, shown
    store = next(line for line in ran.out.splitlines() if line.startswith(f"{OK} store: "))
    assert "never migrated; `run` migrates it to" in store
    assert "password=***" in store
    assert PASSWORD not in shown
