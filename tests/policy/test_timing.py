"""When steps fall due: shares and durations of a window, and a step found too late."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.policy.file import Defaults, PolicyFile
from bot.policy.routes import resolve
from bot.policy.timing import parse_lead
from bot.services.reminders import is_too_late, plan

CREATED = datetime(2026, 11, 30, 14, 0, tzinfo=UTC)
EXPIRES = CREATED + timedelta(minutes=20)


def test_a_share_and_a_duration_are_measured_back_from_the_expiry() -> None:
    assert parse_lead("50%").due_at(CREATED, EXPIRES) == CREATED + timedelta(minutes=10)
    assert parse_lead("5m").due_at(CREATED, EXPIRES) == EXPIRES - timedelta(minutes=5)
    assert parse_lead("1h").seconds == 3600 and parse_lead("30s").seconds == 30
    later = EXPIRES + timedelta(minutes=20)  # the window moved: so does a share
    assert parse_lead("50%").due_at(CREATED, later) == CREATED + timedelta(minutes=20)


@pytest.mark.parametrize("text", ["0%", "100%", "0s", "5", "five minutes", "-5m"])
def test_leads_that_mean_nothing_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"share|duration"):
        parse_lead(text)


def test_a_late_step_goes_out_only_with_more_than_a_minute_left() -> None:
    due = EXPIRES - timedelta(minutes=10)
    assert not is_too_late(due, due + timedelta(seconds=2), EXPIRES)  # a tick late: on time
    assert not is_too_late(due, due + timedelta(minutes=5), EXPIRES)  # 5 min left: goes
    assert is_too_late(due, EXPIRES - timedelta(seconds=50), EXPIRES)  # 50 s left: skipped
    near = EXPIRES - timedelta(seconds=30)
    assert not is_too_late(near, near + timedelta(seconds=1), EXPIRES)  # due then: on time


def test_steps_are_named_stably_from_the_policy() -> None:
    defaults = Defaults.model_validate(
        {"remind": ["50%", "5m"], "escalate": {"at": "25%", "to": {"users": ["U1"]}}}
    )
    policy = PolicyFile(defaults=defaults)
    assert [(s.name, s.kind) for s in plan(resolve(policy, None, "C0X"))] == [
        ("remind 50%", "remind"),
        ("remind 5m", "remind"),
        ("escalate", "escalate"),
    ]
    assert plan(resolve(PolicyFile(), None, "C0X")) == []
