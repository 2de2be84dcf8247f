"""Modals, Home tabs and the trigger_ids that open them, with Slack's rules.

A trigger is single use and short lived, a modal stack holds at most three
views, and `views.update` with a stale `hash` loses. Bridges get these wrong
in ways that only show in production, so the local Slack enforces them.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any

from bot.slack import limits
from novo_dev.localslack.records import Identity, StoredView
from novo_dev.localslack.validation import check_view_size, validate_view
from novo_dev.localslack.wire import (
    SlackFailure,
    assign_block_ids,
    json_field,
    missing,
    optional_str,
)

TRIGGER_EXPIRED = "expired_trigger_id"
TRIGGER_EXCHANGED = "exchanged_trigger_id"
PUSH_LIMIT_REACHED = "push_limit_reached"
HASH_CONFLICT = "hash_conflict"


@dataclass
class _Trigger:
    user_id: str
    view_id: str | None  # root of the modal the interaction happened in
    issued_at: float
    used: bool = False


class ViewStore:
    """Every view ever opened, by id; a closed view stays readable for assertions."""

    def __init__(self, identity: Identity, clock: Callable[[], float], trigger_ttl: float) -> None:
        self._identity = identity
        self._clock = clock
        self._trigger_ttl = trigger_ttl
        self._views: dict[str, StoredView] = {}
        self._homes: dict[str, str] = {}
        self._triggers: dict[str, _Trigger] = {}
        self._counter = itertools.count(1)
        self._block_ids = itertools.count(1)

    # ------------------------------------------------------------------ reading

    def get(self, view_id: str) -> StoredView | None:
        return self._views.get(view_id)

    def all(self) -> list[StoredView]:
        return list(self._views.values())

    def stack(self, root_view_id: str) -> list[StoredView]:
        """The open views of one modal, root first."""
        return [v for v in self._views.values() if v.root_view_id == root_view_id and not v.closed]

    def home(self, user_id: str) -> StoredView | None:
        view_id = self._homes.get(user_id)
        return None if view_id is None else self._views[view_id]

    # ------------------------------------------------------------------ triggers

    def issue_trigger(self, *, user_id: str, view_id: str | None = None) -> str:
        number = next(self._counter)
        trigger_id = f"{number}.{int(self._clock())}.{secrets.token_hex(16)}"
        root = None if view_id is None else self._views[view_id].root_view_id
        self._triggers[trigger_id] = _Trigger(user_id, root, self._clock())
        return trigger_id

    def _check_trigger(self, args: Mapping[str, Any]) -> _Trigger:
        trigger_id = optional_str(args, "trigger_id") or optional_str(args, "interactivity_pointer")
        if trigger_id is None:
            raise missing("trigger_id")
        trigger = self._triggers.get(trigger_id)
        if trigger is None:
            raise SlackFailure(
                "invalid_arguments", ["[ERROR] invalid `trigger_id` [json-pointer:/trigger_id]"]
            )
        if trigger.used:
            raise SlackFailure(TRIGGER_EXCHANGED)
        if self._clock() - trigger.issued_at > self._trigger_ttl:
            raise SlackFailure(TRIGGER_EXPIRED)
        return trigger

    # ------------------------------------------------------------------ Web API

    def open(self, args: Mapping[str, Any]) -> dict[str, Any]:
        trigger = self._check_trigger(args)
        payload = _modal(_parse_view(args))
        self._check_external_id(payload)
        trigger.used = True
        view = self._create(payload, trigger.user_id, root=None, previous=None)
        return {"ok": True, "view": view.to_api()}

    def push(self, args: Mapping[str, Any]) -> dict[str, Any]:
        trigger = self._check_trigger(args)
        payload = _modal(_parse_view(args))
        if trigger.view_id is None:
            raise SlackFailure(
                "invalid_arguments",
                ["[ERROR] `trigger_id` does not come from a modal [json-pointer:/trigger_id]"],
            )
        self._check_external_id(payload)
        view = self._push(trigger.view_id, payload, trigger.user_id)
        trigger.used = True
        return {"ok": True, "view": view.to_api()}

    def update(self, args: Mapping[str, Any]) -> dict[str, Any]:
        view = self._find(args)
        expected = optional_str(args, "hash")
        if expected is not None and expected != view.hash:
            raise SlackFailure(HASH_CONFLICT)
        payload = _parse_view(args)
        self._replace(view, payload)
        return {"ok": True, "view": view.to_api()}

    def publish(self, args: Mapping[str, Any], users: Container[str]) -> dict[str, Any]:
        user_id = optional_str(args, "user_id")
        if user_id is None:
            raise missing("user_id")
        if user_id not in users:
            raise SlackFailure("user_not_found")
        payload = _parse_view(args)
        if payload.get("type") != "home":
            raise SlackFailure(
                "invalid_arguments", ["[ERROR] must be home [json-pointer:/view/type]"]
            )
        current = self.home(user_id)
        expected = optional_str(args, "hash")
        if current is not None and expected is not None and expected != current.hash:
            raise SlackFailure(HASH_CONFLICT)
        if current is None:
            current = self._create(payload, user_id, root=None, previous=None)
            self._homes[user_id] = current.id
        else:
            self._replace(current, payload)
        return {"ok": True, "view": current.to_api()}

    # ------------------------------------------------------------------ user side

    def set_state(self, view_id: str, values: dict[str, Any]) -> None:
        self._views[view_id].state = {"values": values}

    def apply_response(self, view_id: str, body: Mapping[str, Any] | None) -> list[str]:
        """Do what Slack does with a view_submission ack; list what Slack would refuse."""
        view = self._views.get(view_id)
        if view is None:
            return [f"unknown view {view_id}"]
        action = None if not body else body.get("response_action")
        if body is None or action is None:
            view.closed = True
            return []
        if action == "errors":
            return self._show_errors(view, body.get("errors"))
        if action == "clear":
            for stacked in self.stack(view.root_view_id):
                stacked.closed = True
            return []
        if action not in ("update", "push"):
            return [f"unknown response_action {action!r}"]
        new = body.get("view")
        problems = validate_view(new, base="/view") + check_view_size(new)
        if problems:
            return problems
        if not isinstance(new, dict) or new.get("type") != "modal":
            return ["[ERROR] must be modal [json-pointer:/view/type]"]
        if action == "update":
            self._replace(view, new)
            return []
        if len(self.stack(view.root_view_id)) >= limits.VIEW_STACK:
            return [PUSH_LIMIT_REACHED]
        self._create(new, view.user_id, root=view.root_view_id, previous=view.id)
        return []

    # ------------------------------------------------------------------ internals

    def _show_errors(self, view: StoredView, errors: object) -> list[str]:
        if not isinstance(errors, dict) or not errors:
            return ["response_action errors needs a non-empty `errors` object"]
        inputs = {b.get("block_id") for b in view.blocks if b.get("type") == "input"}
        wrong = sorted(str(k) for k in errors if k not in inputs)
        if wrong:
            return [f"errors name blocks that are not input blocks of the view: {wrong}"]
        view.errors = {str(k): str(v) for k, v in errors.items()}
        return []

    def _find(self, args: Mapping[str, Any]) -> StoredView:
        view_id = optional_str(args, "view_id")
        external_id = optional_str(args, "external_id")
        if view_id is None and external_id is None:
            raise missing("view_id")
        for view in self._views.values():
            if (view_id is not None and view.id == view_id) or (
                view_id is None and external_id and view.external_id == external_id
            ):
                return view
        raise SlackFailure("not_found")

    def _check_external_id(self, payload: Mapping[str, Any]) -> None:
        external_id = payload.get("external_id")
        if external_id and any(v.external_id == external_id for v in self._views.values()):
            raise SlackFailure("duplicate_external_id")

    def _push(self, root_view_id: str, payload: dict[str, Any], user_id: str) -> StoredView:
        stack = self.stack(root_view_id)
        if not stack:
            raise SlackFailure("not_found")
        if len(stack) >= limits.VIEW_STACK:
            raise SlackFailure(PUSH_LIMIT_REACHED)
        return self._create(payload, user_id, root=root_view_id, previous=stack[-1].id)

    def _create(
        self, payload: dict[str, Any], user_id: str, *, root: str | None, previous: str | None
    ) -> StoredView:
        view_id = f"V{next(self._counter):08X}"
        view = StoredView(
            id=view_id,
            user_id=user_id,
            payload=self._normalised(payload),
            hash=self._new_hash(),
            root_view_id=root or view_id,
            previous_view_id=previous,
            team_id=self._identity.team_id,
            app_id=self._identity.app_id,
            bot_id=self._identity.bot_id,
        )
        self._views[view_id] = view
        return view

    def _replace(self, view: StoredView, payload: dict[str, Any]) -> None:
        if view.external_id and "external_id" not in payload:
            payload = {**payload, "external_id": view.external_id}  # the view keeps its name
        view.payload = self._normalised(payload)
        view.hash = self._new_hash()
        view.errors = None

    def _normalised(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {**payload, "blocks": assign_block_ids(payload["blocks"], self._block_ids)}

    def _new_hash(self) -> str:
        return f"{int(self._clock())}.{next(self._counter)}"


def _parse_view(args: Mapping[str, Any]) -> dict[str, Any]:
    view = json_field(args, "view", error="invalid_arguments")
    if view is None:
        raise missing("view")
    problems = validate_view(view)
    if problems:
        raise SlackFailure("invalid_arguments", problems)
    too_large = check_view_size(view)
    if too_large:
        raise SlackFailure("view_too_large", too_large)
    if not isinstance(view, dict):  # unreachable: validate_view refuses anything else
        raise SlackFailure("invalid_arguments")
    return view


def _modal(view: dict[str, Any]) -> dict[str, Any]:
    if view.get("type") != "modal":
        raise SlackFailure("invalid_arguments", ["[ERROR] must be modal [json-pointer:/view/type]"])
    return view
