"""A CPU-time profile of a module run as `python -m`: `BENCH_BRIDGE_PREFIX="-m
bench.cpu_profile bridge.prof"` profiles the bridge `bench.burst` starts.

cProfile's own command line times with the wall clock, which on a busy machine counts
the waits for a core as cost; this one times with `time.process_time` (every thread of
the process, the database driver's too), and writes the profile when SIGTERM stops it.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time
from types import FrameType


def main() -> None:
    out, flag, module, *rest = sys.argv[1:]
    if flag != "-m":
        raise SystemExit("usage: python -m bench.cpu_profile OUT -m MODULE [ARGS…]")
    profile = cProfile.Profile(time.process_time)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    sys.argv = [module, *rest]
    profile.enable()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        profile.disable()
        profile.dump_stats(out)


if __name__ == "__main__":
    main()
