"""One look at Novo before going live: does it answer, take the key, speak the API?

`run` and `check` must tell three things apart, because each wants a
different fix: a key Novo refuses (fix `NOVO_API_KEY`), a URL that answers
but not as the Interactions API does — a 404, an HTML page, a body that is
not JSON (fix `NOVO_API_URL`) — and a Novo that is down or out of reach,
which is no mistake in the settings: the bridge starts and keeps polling.
One place words each, so `run`'s line and `check`'s are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.novo.client import NovoClient
from bot.novo.errors import (
    InternalServerError,
    NovoAPIStatusError,
    NovoConnectionError,
    NovoError,
    RateLimitedError,
    UnauthorizedError,
)

PROBE_TIMEOUT_SECONDS = 10.0
# 403 says the key is known but may not do this: a key to fix as much as a 401 is.
_KEY_REFUSED = frozenset({401, 403})

State = Literal["ok", "key_refused", "not_the_api", "down"]


@dataclass(frozen=True)
class NovoAnswer:
    state: State
    line: str
    """One line for a person; names the setting to fix when there is one."""
    pending: int = 0
    more: bool = False


def does_not_answer(url: str, why: str) -> str:
    """The line for a Novo that is down (`run` adds that it keeps trying)."""
    return f"Novo at {url} (NOVO_API_URL) does not answer ({why})"


def retrying(url: str, why: str) -> str:
    """`run`'s line for a Novo that is down: said once, at start-up or by the first poll
    that fails, and not again until it answers."""
    return f"{does_not_answer(url, why)}; retrying"


async def probe_novo(url: str, key: str, *, timeout: float = PROBE_TIMEOUT_SECONDS) -> NovoAnswer:
    """List one pending interaction, without retries: what came back, in one line."""
    async with NovoClient(url, key, max_retries=0, timeout=timeout) as novo:
        try:
            page = await novo.list_records(status="pending", limit=1)
        except UnauthorizedError as exc:
            return _key_refused(url, exc.status)
        except (InternalServerError, RateLimitedError) as exc:
            return NovoAnswer("down", does_not_answer(url, f"HTTP {exc.status}"))
        except NovoAPIStatusError as exc:
            if exc.status in _KEY_REFUSED:
                return _key_refused(url, exc.status)
            return _not_the_api(url, f"GET /v1/interactions: HTTP {exc.status}")
        except NovoConnectionError as exc:
            return NovoAnswer("down", does_not_answer(url, str(exc)))
        except NovoError as exc:  # a 2xx that is not JSON, or not a page of interactions
            return _not_the_api(url, str(exc))
    return NovoAnswer("ok", f"{url} accepts the key", pending=len(page.data), more=page.has_more)


def _key_refused(url: str, status: int) -> NovoAnswer:
    return NovoAnswer("key_refused", f"NOVO_API_KEY was refused by Novo at {url} ({status})")


def _not_the_api(url: str, why: str) -> NovoAnswer:
    return NovoAnswer(
        "not_the_api",
        f"NOVO_API_URL {url} does not answer like Novo's Interactions API ({why}):"
        " it must be the API's base, e.g. https://api.novo.example",
    )
