"""Builders for question interactions, and a stand-in for what Slack sends back from a form.

`slack_state` plays Slack's part in a view_submission: from a rendered view
and the picks a person made, it builds `view.state.values` in Slack's shape,
and refuses a pick the view never offered, so a test cannot submit what no
person could.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.novo.models import Interaction
from bot.slack.render.question_modal import search_external_options
from tests.novo.conftest import question_wire

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
INTERACTION_ID = "int_q1"

Picks = dict[str, str | list[str] | None]
StateValues = dict[str, dict[str, dict[str, Any]]]


def options(count: int, prefix: str = "opt", **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i}", "label": f"Option {i}", **extra} for i in range(count)]


def question(question_id: str = "q_a", **fields: Any) -> dict[str, Any]:
    return {"id": question_id, "prompt": f"Prompt of {question_id}", **fields}


def make_interaction(
    request: dict[str, Any] | None, *, status: str = "pending", **fields: Any
) -> Interaction:
    """A question interaction as Novo would return it; `fields` override any top-level field."""
    wire = question_wire(
        INTERACTION_ID,
        status=status,
        stepNumber=3,
        request=request,
        expiresAt=(NOW + timedelta(minutes=30)).isoformat() if status == "pending" else None,
        createdAt=(NOW - timedelta(minutes=5)).isoformat(),
        resolvedAt=None if status == "pending" else NOW.isoformat(),
        updatedAt=NOW.isoformat(),
    )
    wire.update(fields)
    return Interaction.model_validate(wire)


def input_blocks(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["block_id"]: b for b in view["blocks"] if b["type"] == "input"}


def _offered(interaction: Interaction, block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Options by value that the element shows, or that its search serves for an empty query."""
    element = block["element"]
    if "options" in element:
        return {o["value"]: o for o in element["options"]}
    found = search_external_options(interaction, element["action_id"], block["block_id"], "")
    return {o["value"]: o for o in found}


def slack_state(interaction: Interaction, view: dict[str, Any], picks: Picks) -> StateValues:
    """`view.state.values` as Slack sends it; every input block is present, empty ones as null."""
    blocks = input_blocks(view)
    unknown = set(picks) - set(blocks)
    assert not unknown, f"the view has no input block {sorted(unknown)}"
    state: StateValues = {}
    for block_id, block in blocks.items():
        element = block["element"]
        kind = element["type"]
        pick = picks.get(block_id)
        entry: dict[str, Any] = {"type": kind}
        if kind == "plain_text_input":
            assert pick is None or isinstance(pick, str)
            entry["value"] = pick
        else:
            offered = _offered(interaction, block)
            values = [] if pick is None else [pick] if isinstance(pick, str) else pick
            missing = [v for v in values if v not in offered]
            assert not missing, f"{block_id} offers no option {missing}"
            chosen = [offered[v] for v in values]
            if kind in ("checkboxes", "multi_static_select", "multi_external_select"):
                entry["selected_options"] = chosen
            else:
                assert len(chosen) <= 1
                entry["selected_option"] = chosen[0] if chosen else None
        state[block_id] = {element["action_id"]: entry}
    return state
