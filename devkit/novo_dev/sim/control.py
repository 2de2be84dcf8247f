"""The simulator's control API (`/_sim/...`) as calls: the one place its paths are spelled.

Tests, benchmarks and the demo arrange a scenario (create interactions, inject
faults, move a deadline, serve raw records) and inspect what Novo was asked
(the request log) through this client, so a change to a control route is made
once. It speaks HTTP like any other client of the simulator; it never reaches
into the server's state.
"""

from __future__ import annotations

from typing import Any

import httpx

from bot.novo.models import InteractionKind

Json = dict[str, Any]


class SimControlError(Exception):
    """The simulator refused a control call: the body says why (a typo in a spec, say)."""

    def __init__(self, method: str, path: str, response: httpx.Response) -> None:
        super().__init__(f"{method} {path} answered {response.status_code}: {response.text}")
        self.status = response.status_code


class SimControl:
    """A simulator's control API at `url`, over the caller's `http` client.

    Each call checks the status the simulator answers on success (201 for a
    create, 200 otherwise) and raises `SimControlError` on any other.
    """

    def __init__(self, url: str, http: httpx.AsyncClient) -> None:
        self.url = url.rstrip("/")
        self.http = http

    async def create(self, kind: InteractionKind | str = "approval_request", **fields: Any) -> Json:
        """A pending interaction from a spec (camelCase fields); returns it as the API shows it."""
        return await self._call("POST", "/_sim/interactions", {"kind": kind, **fields}, expect=201)

    async def approval(self, **fields: Any) -> Json:
        return await self.create("approval_request", **fields)

    async def question(self, request: Json, **fields: Any) -> Json:
        return await self.create("question", request=request, **fields)

    async def extend(self, interaction_id: str, seconds: float) -> Json:
        """Push a pending interaction's `expiresAt` back; returns the record with the new one."""
        path = f"/_sim/interactions/{interaction_id}/extend"
        return await self._call("POST", path, {"seconds": seconds})

    async def expire(self, interaction_id: str) -> Json:
        """Expire a pending interaction now, as it would at its `expiresAt`."""
        return await self._call("POST", f"/_sim/interactions/{interaction_id}/expire", None)

    async def terminate(self, run_id: str) -> Json:
        """End a run as Novo would: its pending interactions are cancelled."""
        return await self._call("POST", f"/_sim/runs/{run_id}/terminate")

    async def faults(self, **spec: Any) -> Json:
        """Inject faults (`errorRate`, `status`, `routes`, `hang`, ...); no fields clears them."""
        return await self._call("POST", "/_sim/faults", spec)

    async def serve_raw(self, records: list[Any], *, listed: bool = True) -> None:
        """Serve `records` verbatim beside the real ones (malformed or hostile ones included);
        `listed=False` answers only GET by id with them."""
        await self._call("POST", "/_sim/raw", {"records": records, "listed": listed})

    async def clear_raw(self) -> None:
        await self._call("DELETE", "/_sim/raw")

    async def log(self, prefix: str = "/v1/") -> list[Json]:
        """The API requests the simulator received, oldest first, whose path starts `prefix`."""
        requests: list[Json] = (await self._call("GET", "/_sim/log"))["requests"]
        return [r for r in requests if str(r["path"]).startswith(prefix)]

    async def clear_log(self) -> None:
        await self._call("DELETE", "/_sim/log")

    async def reset(self) -> None:
        """Forget every interaction, fault, raw record and logged request."""
        await self._call("POST", "/_sim/reset")

    async def _call(
        self, method: str, path: str, body: Json | None = None, *, expect: int = 200
    ) -> Json:
        response = await self.http.request(method, f"{self.url}{path}", json=body)
        if response.status_code != expect:
            raise SimControlError(method, path, response)
        answer: Json = response.json()
        return answer
