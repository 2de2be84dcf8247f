"""A stand-in for the Novo Interactions API (`novo-slack sim`), faithful over HTTP.

`start_sim()` runs one in-process (tests, benchmarks); `run_sim()` serves
until a signal (the CLI). `SimState` holds the interactions and their rules.
"""

from bot.sim.errors import SimError
from bot.sim.paging import ListFilter
from bot.sim.server import SimServer, run_sim, start_sim
from bot.sim.spec import InteractionSpec
from bot.sim.state import SimState

__all__ = [
    "InteractionSpec",
    "ListFilter",
    "SimError",
    "SimServer",
    "SimState",
    "run_sim",
    "start_sim",
]
