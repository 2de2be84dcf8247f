"""A rule's `when:` — a CEL expression over the record, compiled once per policy load.

CEL (Common Expression Language) is what Kubernetes admission policies and Envoy
use, so an organisation may already write it. The implementation is
`cel-expr-python`, the CEL project's own Python wrapper of cel-cpp: unlike the
pure-Python `cel-python` or the Rust-backed `common-expression-language`, it
type-checks an expression against declared variables when it compiles, so a
misspelt variable (`inputs.amount > 5`) or an expression that can never be true
or false (`size(input.items)`) is refused when the file is read, not discovered
on the record that needed it. It evaluates in microseconds, with no dependency.

The variables are the record's, by their wire names. `input`, `preview`,
`request`, `workerRef` and `hookId` are `dyn` (an agent's input is any JSON, a
question's `request` is null on an approval), the rest have their type.

Evaluating can fail on a record (a missing key, `input.amount` being
`"lots"`, a value CEL can't hold): the answer is then an `Unknown` that names
the error, and `bot.policy.routes` decides what that means for who may decide
— never more people than either outcome would allow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel

from bot.novo.models import Interaction

_DYN = cel.Type.DYN
VARIABLES: dict[str, cel.Type] = {
    "input": _DYN,
    "preview": _DYN,
    "request": _DYN,
    "toolName": cel.Type.STRING,
    "agentId": cel.Type.STRING,
    "runId": cel.Type.STRING,
    "rootRunId": cel.Type.STRING,
    "workerRef": _DYN,
    "hookId": _DYN,
    "kind": cel.Type.STRING,
    "stepNumber": cel.Type.INT,
}
"""What an expression may read: the record's fields, by the names the API gives them."""

MAX_EXPRESSION = 2000
"""The longest `when:` the file may hold; a condition is a line, not a program."""

_ENV = cel.NewEnv(variables=VARIABLES)


class ConditionError(ValueError):
    """An expression that can't be used: it does not parse, or does not type-check."""


@dataclass(frozen=True)
class Unknown:
    """An expression that could not be evaluated on a record, and why."""

    error: str


Outcome = bool | Unknown


class Condition:
    """One compiled `when:`; `evaluate` answers True, False or Unknown for a record."""

    def __init__(self, source: str) -> None:
        if len(source) > MAX_EXPRESSION:
            raise ConditionError(f"longer than {MAX_EXPRESSION} characters")
        try:
            self._program = _ENV.compile(source)
        except Exception as exc:  # cel-cpp reports every compile failure as RuntimeError
            raise ConditionError(_compile_error(str(exc))) from None
        kind = self._program.return_type()
        if not (kind == cel.Type.BOOL or kind == cel.Type.DYN):
            raise ConditionError(f"is {kind.name().lower()}, not true or false")
        self.source = source

    def __deepcopy__(self, memo: dict[int, object]) -> Condition:
        return self  # immutable, and cel-cpp's compiled program can't be copied

    def evaluate(self, record: Bindings) -> Outcome:
        """The expression's value on the record, or why it has none."""
        activation = record.activation()
        if isinstance(activation, Unknown):
            return activation
        try:
            value = self._program.eval(activation)
        except Exception as exc:  # a value cel-cpp can't take: not an answer either way
            return Unknown(_runtime_error(str(exc), self.source))
        found = value.value()
        if value.type() == cel.Type.BOOL and isinstance(found, bool):
            return found
        if value.type() == cel.Type.ERROR:
            return Unknown(_runtime_error(str(found), self.source))
        return Unknown(f"the value is {value.type().name().lower()}, not true or false")


class Bindings:
    """The record's variables, converted for CEL once and shared by every rule's
    condition (converting the input is most of an evaluation's cost)."""

    def __init__(self, interaction: Interaction) -> None:
        self._interaction = interaction
        self._made: cel.Activation | Unknown | None = None

    def activation(self) -> cel.Activation | Unknown:
        if self._made is None:
            self._made = _activation(self._interaction)
        return self._made


def _activation(interaction: Interaction) -> cel.Activation | Unknown:
    wire: dict[str, Any] = interaction.to_wire()
    data = {
        "input": wire.get("input"),
        "preview": wire.get("preview"),
        "request": wire.get("request"),
        "toolName": interaction.tool_name,
        "agentId": interaction.agent_id,
        "runId": interaction.run_id,
        "rootRunId": interaction.root_run_id,
        "workerRef": interaction.worker_ref,
        "hookId": interaction.hook_id,
        "kind": interaction.kind,
        "stepNumber": interaction.step_number,
    }
    try:
        return _ENV.Activation(data)
    except Exception:  # e.g. an integer beyond CEL's 64 bits, anywhere in the input
        return Unknown("the record holds a value CEL can't take (an integer beyond 64 bits?)")


def _compile_error(text: str) -> str:
    """cel-cpp's first error, on one line: `undeclared reference to 'inputs' (column 1)`."""
    first = next((line for line in text.splitlines() if "ERROR:" in line), text)
    message = first.split("ERROR:", 1)[-1].strip()
    # "<input>:1:7: undeclared reference to 'inputs.amount' (in container '')"
    place, _, rest = message.partition(": ")
    parts = place.split(":")
    column = parts[-1] if len(parts) == 3 and parts[-1].isdigit() else None
    rest = rest.replace(" (in container '')", "") or message
    return f"{rest} (column {column})" if column else rest


_QUOTED = re.compile(r"""(['"])(.*?)\1""")
MAX_ERROR = 300


def _runtime_error(text: str, source: str) -> str:
    """`No matching overloads found : _>_(string, int64)`: without the status code, on one
    line, and with every quoted value the expression does not itself hold masked — the
    error goes to the log, the audit trail and `policy explain`, and a value of the
    agent's input (`cannot convert 'hunter2'`) must not."""
    head, sep, tail = text.partition(": ")
    if sep and head.replace("_", "").isupper():
        text = tail
    text = _QUOTED.sub(
        lambda m: m.group(0) if m.group(2) in source else f"{m.group(1)}…{m.group(1)}", text
    )
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 1] + "…"
