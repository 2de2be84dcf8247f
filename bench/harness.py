"""The loop the benchmarks measure, started as production runs it, plus the figures' arithmetic.

The simulator, the local Slack and the bridge are wired exactly as the
end-to-end suite wires them, but with the bridge's production defaults
(poll interval, retry and redelivery backoffs): a figure taken on a bridge
tuned for fast tests would not say what a deployment sees.
"""

from __future__ import annotations

import math
import statistics
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx

from bot.bridge.jobs import BridgeJobs
from bot.bridge.runtime import Bridge
from bot.config import Settings
from novo_dev.demo.stack import Person, ServersConfig, StackConfig, local_stack
from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.payloads import iter_elements
from novo_dev.localslack.server import LocalSlack
from novo_dev.sim.control import SimControl
from novo_dev.sim.server import SimServer

T = TypeVar("T")

API_KEY = "novo-bench-key"
SIGNING_SECRET = "bench-signing-secret"
CHANNEL = "C0BENCH"
USER_ID = "U0BENCH"
DEFAULT_POLL_SECONDS = float(Settings.model_fields["poll_seconds"].default)
HTTP_TIMEOUT_SECONDS = 30.0
RESOLVE_PATH = "/v1/interactions/{id}/resolve"


@dataclass
class Rig:
    """The three running servers and the verbs the benchmarks share."""

    sim: SimServer
    slack: LocalSlack
    bridge: Bridge
    driver: SlackDriver
    http: httpx.AsyncClient

    async def sent(self) -> None:
        """Wait until every send queued on the lanes has gone to Slack."""
        if self.bridge.services is None:
            raise RuntimeError("the bridge is not running")
        await self.bridge.services.publisher.lanes.idle()

    @property
    def jobs(self) -> BridgeJobs:
        if self.bridge.jobs is None:
            raise RuntimeError("the bridge is not running")
        return self.bridge.jobs

    @property
    def control(self) -> SimControl:
        return SimControl(self.sim.url, self.http)

    async def create_approval(self, **fields: Any) -> str:
        """A pending approval created through the simulator's control API; returns its id."""
        created = await self.control.approval(**{"toolName": "deploy_service", **fields})
        return str(created["id"])

    async def api_resolve(self, interaction_id: str, body: dict[str, Any]) -> None:
        """Resolve as another Novo client would, bypassing Slack."""
        response = await self.http.post(
            f"{self.sim.url}{RESOLVE_PATH.format(id=interaction_id)}",
            json=body,
            headers={"Authorization": f"Bearer {API_KEY}"},
        )
        _expect(response, 200)

    async def sim_log(self) -> list[dict[str, Any]]:
        """The public API requests the simulator received, in order."""
        return await self.control.log(prefix="")

    async def clear_sim_log(self) -> None:
        await self.control.clear_log()


def _expect(response: httpx.Response, status: int) -> None:
    if response.status_code != status:
        raise RuntimeError(
            f"{response.request.method} {response.request.url} answered "
            f"{response.status_code}, expected {status}: {response.text}"
        )


@asynccontextmanager
async def running_rig(
    poll_seconds: float = DEFAULT_POLL_SECONDS, **settings_changes: Any
) -> AsyncIterator[Rig]:
    """Simulator, local Slack and bridge on loopback ephemeral ports, stopped on exit.

    `settings_changes` override settings by field name (e.g. `post_rate=20.0`).
    """
    with tempfile.TemporaryDirectory(prefix="novo-slack-bench-") as tmp:
        config = StackConfig(
            servers=ServersConfig(api_key=API_KEY, people=[Person(USER_ID, "bench", "Bench User")]),
            db=Path(tmp) / "bench.db",
            channel=CHANNEL,
            signing_secret=SIGNING_SECRET,
            poll_seconds=poll_seconds,
        )
        async with (
            local_stack(config, settings_changes=settings_changes) as stack,
            httpx.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS) as http,
        ):
            yield Rig(stack.sim, stack.slack, stack.bridge, stack.driver, http)


def has_action(blocks: Sequence[dict[str, Any]], action_id: str) -> bool:
    return any(element.get("action_id") == action_id for _, element in iter_elements(blocks))


def epoch_of(iso: str) -> float:
    """The simulator's ISO timestamps (millisecond precision) as `time.time()` seconds."""
    return datetime.fromisoformat(iso).timestamp()


# -- reporting --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    p95: float
    max: float


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` 0.99 for p99): always an observed value,
    so with fewer than 100 samples p99 is the largest."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def summarize(values: Sequence[float]) -> Summary:
    """n, median, p95 and max; p95 is nearest-rank, so with few samples it is an observed value."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = math.ceil(0.95 * len(ordered))
    return Summary(len(ordered), statistics.median(ordered), ordered[rank - 1], ordered[-1])


def format_table(rows: Sequence[tuple[str, Sequence[float]]], *, unit: str = "ms") -> str:
    """A plain text table of each row's summary, followed by every raw value."""
    width = max(len(label) for label, _ in rows)
    header = f"{'figure':<{width}}  {'n':>4}  {'median':>9}  {'p95':>9}  {'max':>9}"
    lines = [header, "-" * len(header)]
    for label, values in rows:
        s = summarize(values)
        lines.append(
            f"{label:<{width}}  {s.n:>4}  {s.median:>9.1f}  {s.p95:>9.1f}  {s.max:>9.1f}  {unit}"
        )
    lines.append("")
    lines.append(f"raw values ({unit}, in the order taken):")
    for label, values in rows:
        lines.append(f"  {label}: " + " ".join(f"{v:.1f}" for v in values))
    return "\n".join(lines)
