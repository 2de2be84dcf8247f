"""A stand-in for the Novo Interactions API (`novo-slack sim`), faithful over HTTP.

`start_sim()` runs one in-process (tests, benchmarks); `run_sim()` serves
until a signal (the CLI). `SimState` holds the interactions and their rules.
"""

from novo_dev.sim.errors import SimError
from novo_dev.sim.paging import ListFilter
from novo_dev.sim.server import SimServer, run_sim, start_sim
from novo_dev.sim.spec import InteractionSpec
from novo_dev.sim.state import SimState

__all__ = [
    "InteractionSpec",
    "ListFilter",
    "SimError",
    "SimServer",
    "SimState",
    "run_sim",
    "start_sim",
]
