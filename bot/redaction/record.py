"""An interaction's record made fit to show: every displayable string scanned, secrets masked.

What is scanned is everything the bridge may show of what an agent or Novo
wrote: `input` and `preview` (an approval's), `request` (a question's title,
details, prompts, option labels and descriptions, action labels), `reason`
and `resolution`. Ids the bridge sends back to Novo (`id`, `requestId`,
`optionId`, `optionIds`) are never touched, so an answer given on the shown
copy still names the options Novo offered. Ids, names and timestamps of the
record itself are not agent text and are left alone.

The copy is a `ShownInteraction`: an `Interaction` every renderer takes as it
is, which also knows what was hidden (`hidden_count`). A record with nothing
to hide is returned as it came, so the common case costs one scan and no copy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import PrivateAttr

from bot.novo.models import Interaction
from bot.redaction.entropy import credential_like
from bot.redaction.keys import is_key_name, is_secret_name, named_by_policy
from bot.redaction.masks import mask_value, reason
from bot.redaction.named import is_reference
from bot.redaction.rules import DEFAULT_RULES, RedactionRules
from bot.redaction.structure import hits_per_line, is_named_pair, named_values
from bot.redaction.text import find, masked, redact_text

SCANNED = ("input", "preview", "request", "reason", "resolution")
ANSWER_IDS = frozenset({"id", "requestId", "optionId", "optionIds"})
"""Keys of `request` and `resolution` whose values go back to Novo as they are."""
_OPTION_OR_ACTION = re.compile(r"\.(?:options|actions)\[\d+\]$")
MAX_DEPTH = 200
TOO_DEEP = f"(not shown: nested deeper than {MAX_DEPTH} levels, so it could not be checked)"


@dataclass(frozen=True)
class Finding:
    """One hidden value: where it was (`input.db_url`) and what kind it was; never the value."""

    path: str
    kind: str

    @property
    def reason(self) -> str:
        return reason(self.kind)


@dataclass(frozen=True)
class Redacted:
    shown: Interaction
    findings: tuple[Finding, ...]


class ShownInteraction(Interaction):
    """A record as it may be shown: values to hide are masked, and it knows how many."""

    _findings: tuple[Finding, ...] = PrivateAttr(default=())

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self._findings


def hidden_count(interaction: Interaction) -> int:
    """How many values were hidden in what is shown of this record (0 for a raw record)."""
    return len(interaction.findings) if isinstance(interaction, ShownInteraction) else 0


class _Walk:
    def __init__(self, rules: RedactionRules) -> None:
        self.rules = rules
        self.findings: list[Finding] = []
        self.changed = False

    def value(self, value: Any, path: str, plain: str, depth: int, keep_ids: bool) -> Any:
        """`value` with what should be hidden masked; the same object if nothing was."""
        if isinstance(value, str):
            shown, kinds = redact_text(value, self.rules.patterns)
            if kinds:
                self._found(path, kinds)
                return shown
            return value
        if not isinstance(value, dict | list):
            return value
        if depth >= MAX_DEPTH:
            self.changed = True
            return TOO_DEEP
        if isinstance(value, list):
            return self._list(value, path, plain, depth, keep_ids)
        return self._dict(value, path, plain, depth, keep_ids)

    def _found(self, path: str, kinds: list[str]) -> None:
        self.changed = True
        self.findings.extend(Finding(path, kind) for kind in kinds)

    def _list(self, value: list[Any], path: str, plain: str, depth: int, keep_ids: bool) -> Any:
        """A list: a `[name, value]` pair is read as one; its strings are scanned as the
        lines of one text (a PEM key split over them), each line masked where a hit covers it."""
        if is_named_pair(value) and _worth_hiding(value[1]):
            self._found(f"{path}[1]", ["secret_key"])
            return [value[0], mask_value("secret_key", value[1])]
        lines = [i for i, item in enumerate(value) if isinstance(item, str)]
        items = list(value)
        if len(lines) >= 2:
            per_line, kinds = hits_per_line(
                [value[i] for i in lines], lambda text: find(text, self.rules.patterns)
            )
            if kinds:
                first = next(i for i, hits in zip(lines, per_line, strict=True) if hits)
                self._found(f"{path}[{first}]", kinds)
            for i, hits in zip(lines, per_line, strict=True):
                if hits:
                    items[i] = masked(value[i], hits)
        for i, item in enumerate(value):
            if not isinstance(item, str) or len(lines) < 2:
                items[i] = self.value(item, f"{path}[{i}]", plain, depth + 1, keep_ids)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value

    def _dict(
        self, value: dict[Any, Any], path: str, plain: str, depth: int, keep_ids: bool
    ) -> Any:
        """A dict: its keys are scanned too (a token used as a key), and a value is hidden
        when its key, the policy or a sibling (`name: DB_PASSWORD`) names it secret."""
        out: dict[Any, Any] = {}
        touched = False
        by_sibling = named_values(value)
        for key, item in value.items():
            name = str(key)
            if keep_ids and name in ANSWER_IDS:
                out[key] = item
                continue
            shown_key = self._key(key, f"{path}.(a key)", out)
            touched = touched or shown_key is not key
            where, plain_where = f"{path}.{shown_key}", f"{plain}.{name}"
            kind = self._key_kind(name, plain_where)
            if kind is None and (key in by_sibling or _keyed_credential(name, item)):
                kind = "secret_key"
            if kind is not None and _worth_hiding(item):
                self._found(where, [kind])
                out[shown_key] = mask_value(kind, item)
            else:
                out[shown_key] = self.value(item, where, plain_where, depth + 1, keep_ids)
            touched = touched or out[shown_key] is not item
        if keep_ids:
            touched = self._label_from_id(value, out, path) or touched
        return out if touched else value

    def _key(self, key: Any, path: str, out: dict[Any, Any]) -> Any:
        """A key as it may be shown: a token used as a key is masked like any text (and told
        apart from a sibling that masks alike). Its finding's path names no key: the key is
        the value."""
        if not isinstance(key, str):
            return key
        shown, kinds = _scan_key(key, self.rules.patterns)
        if not kinds:
            return key
        self._found(path, kinds)
        unique, n = shown, 1
        while unique in out:
            n += 1
            unique = f"{shown} ({n})"
        return unique

    def _label_from_id(self, raw: dict[Any, Any], out: dict[Any, Any], path: str) -> bool:
        """An option or action with no label is shown by its id (`label or id` wherever one
        is drawn): when the id holds a secret, the shown copy gets the masked id as its
        label, while the id itself, which goes back to Novo, stays as it is."""
        ident = raw.get("id")
        if not isinstance(ident, str) or raw.get("label") or not _OPTION_OR_ACTION.search(path):
            return False
        shown, kinds = redact_text(ident, self.rules.patterns)
        if not kinds:
            return False
        self._found(f"{path}.label", kinds)
        out["label"] = shown
        return True

    def _key_kind(self, name: str, plain_path: str) -> str | None:
        if named_by_policy(name, plain_path, self.rules.keys):
            return "policy_key"
        if is_secret_name(name):
            return "secret_key"
        return None


@lru_cache(maxsize=8192)
def _scan_key(key: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[str, list[str]]:
    """A key's scan, kept: the rows of a large input repeat the same few keys."""
    return redact_text(key, patterns)


def _keyed_credential(name: str, value: Any) -> bool:
    """A credential-like value under a name ending in `key` (`kaggle_key`; not `sort_key`)."""
    return isinstance(value, str) and is_key_name(name) and credential_like(value)


def _worth_hiding(value: Any) -> bool:
    """A value worth hiding: not null, not empty, not a yes/no, not a reference (`${X}`)."""
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, str):
        return len(value) > 0 and not is_reference(value)
    if isinstance(value, list | dict):
        return len(value) > 0
    return True


WITHHELD = "(not shown: it could not be checked for secrets)"


def withheld(interaction: Interaction) -> Interaction:
    """The record with every string it could show replaced by a note: what is shown when
    checking it failed, so a fault in the scan can never let a value through."""
    wire = interaction.to_wire()

    def blank(value: Any, keep_ids: bool, depth: int) -> Any:
        if isinstance(value, str):
            return WITHHELD
        if depth >= MAX_DEPTH and isinstance(value, dict | list):
            return WITHHELD
        if isinstance(value, list):
            return [blank(v, keep_ids, depth + 1) for v in value]
        if isinstance(value, dict):
            return {
                k: v if keep_ids and k in ANSWER_IDS else blank(v, keep_ids, depth + 1)
                for k, v in value.items()
            }
        return value

    shown = dict(wire)
    for field in SCANNED:
        if field in wire:
            shown[field] = blank(wire[field], field in ("request", "resolution"), 0)
    copy = ShownInteraction.model_validate(shown)
    copy._raw = shown
    copy._findings = (Finding("record", "unchecked"),)
    return copy


def redact_interaction(interaction: Interaction, rules: RedactionRules = DEFAULT_RULES) -> Redacted:
    """The copy of `interaction` that may be shown, and what was hidden in it.

    With `rules.enabled` off, or nothing to hide, the record itself comes back.
    """
    if not rules.enabled:
        return Redacted(interaction, ())
    wire = interaction.to_wire()
    if not isinstance(wire, dict):
        return Redacted(interaction, ())
    walk = _Walk(rules)
    shown: dict[str, Any] = dict(wire)
    for field in SCANNED:
        if field in wire:
            shown[field] = walk.value(
                wire[field], field, field, 0, field in ("request", "resolution")
            )
    if not walk.changed:
        return Redacted(interaction, ())
    copy = ShownInteraction.model_validate(shown)
    copy._raw = shown  # its wire form is the shown one: to_wire never gives the raw back
    copy._findings = tuple(walk.findings)
    return Redacted(copy, copy.findings)
