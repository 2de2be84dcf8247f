"""What the person saw when they decided, kept in the decision's audit event.

A card is redacted and re-rendered after the click (it shrinks, says who decided),
so the trail keeps the text as it stood: taken from the request Slack signed, which
carries the message as the person's Slack showed it (a button on a card), the form
they submitted (a modal), or the reply they wrote (a thread reply). A standing
approval shows nothing to anyone: its event names the allowance that stood in.

The request is parsed once, by a middleware (`bot.bridge.app`), into a context
variable of the request's task; the decision services' audit writes read it, so no
listener or service signature carries it. Outside a request (a job) it is None.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from bot.domain import Allowance, SlackDecision
from bot.store.chain import text_hash, utc_text

Source = Literal["message", "modal", "thread reply", "standing approval"]
MAX_DEPTH = 40
"""Block Kit nests a few levels; a payload nested deeper is not walked further."""
UNSEEN = frozenset({"options", "option_groups", "confirm"})
"""Parts of a block shown only once opened (a menu's choices, a confirm dialog)."""

_SHOWN: ContextVar[Shown | None] = ContextVar("novo_slack_shown", default=None)


@dataclass(frozen=True)
class Shown:
    source: Source
    text: str
    channel: str | None = None
    ts: str | None = None

    def detail(self) -> dict[str, Any]:
        """The event's `shown`: the text, its hash (an auditor matches a copy by it)
        and the Slack message it was on."""
        return {
            "source": self.source,
            "text": self.text,
            "sha256": text_hash(self.text),
            "channel": self.channel,
            "ts": self.ts,
        }


def shown_now() -> Shown | None:
    """What the request being served showed its person (None outside a request)."""
    return _SHOWN.get()


def note_shown(body: Any) -> None:
    """Parse the request's payload (once, in a middleware) for `shown_now`."""
    _SHOWN.set(shown_of(body))


def note_offer(shown: Shown) -> None:
    """What a click on an ephemeral offer decided on: Slack sends no message with such a
    click, so the service that made the offer says what it showed."""
    _SHOWN.set(shown)


def decision_facts(decision: SlackDecision, rule: str | None) -> dict[str, Any]:
    """What a decision event adds to who and what: the rule, the person's words, and
    what they saw (None when the decision came from no request of theirs)."""
    shown = shown_now()
    return {
        "rule": rule,
        "note": decision.note,
        "shown": shown.detail() if shown is not None else None,
    }


def stood_in(allowance: Allowance) -> Shown:
    """What stands in for a card when a standing approval decides: the allowance."""
    run = f" in run {allowance.root_run_id}" if allowance.root_run_id else ""
    text = (
        f"Standing approval #{allowance.id} by {allowance.granted_by.user_id}: "
        f"{allowance.tool_name} of {allowance.agent_id}{run}, until "
        f"{utc_text(allowance.until)} (granted on {allowance.interaction_id})"
    )
    return Shown("standing approval", text)


def shown_of(body: Any) -> Shown | None:
    """The message, form or reply a payload carries; None for anything else (a slash
    command, an App Home tab, a payload of a shape Slack does not send)."""
    if not isinstance(body, dict):
        return None
    message, view, event = body.get("message"), body.get("view"), body.get("event")
    container = _dict(body.get("container"))
    if isinstance(message, dict):
        channel = container.get("channel_id") or _dict(body.get("channel")).get("id")
        ts = container.get("message_ts") or message.get("ts")
        text = blocks_text(message.get("blocks")) or _str(message.get("text"))
        return Shown("message", text, _str(channel) or None, _str(ts) or None)
    if isinstance(view, dict):
        return Shown("modal", blocks_text(view.get("blocks")))
    if isinstance(event, dict) and event.get("type") == "message" and event.get("thread_ts"):
        text = _str(event.get("text"))
        return Shown("thread reply", text, _str(event.get("channel")), _str(event.get("ts")))
    return None


def blocks_text(blocks: Any) -> str:
    """Every text object's text, in order, one a line: what a person reads in blocks.

    Walked without recursion and to a bounded depth, since the payload is the
    sender's shape and not ours."""
    lines: list[str] = []
    stack: list[tuple[Any, int]] = [(blocks, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if isinstance(node, list):
            stack.extend((item, depth + 1) for item in reversed(node))
        elif isinstance(node, dict):
            text = node.get("text")
            if isinstance(text, str):
                lines.append(text)
            children = [
                v
                for k, v in node.items()
                if k != "text" and k not in UNSEEN and isinstance(v, dict | list)
            ]
            if isinstance(text, dict):
                children.insert(0, text)
            stack.extend((child, depth + 1) for child in reversed(children))
    return "\n".join(lines)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
