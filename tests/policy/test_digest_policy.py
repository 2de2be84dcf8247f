"""The `digest:` key: entries read as crontab reads them, mistakes named by their place."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.policy.digests import DigestEntry, crontab_trigger, crontab_weekdays, latest_fire
from bot.policy.file import PolicyError, load_policy

RULES = "rules:\n  - name: prod-deploys\n    match: {toolName: deploy_*}\n"
MONTH = timedelta(days=35)


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _fires(expression: str, zone: str, start: datetime, count: int) -> list[datetime]:
    trigger = crontab_trigger(expression, ZoneInfo(zone))
    found: list[datetime] = []
    moment = start
    while len(found) < count:
        fired = trigger.get_next_fire_time(None, moment)
        found.append(fired.astimezone(UTC))
        moment = fired + timedelta(seconds=1)
    return found


def test_a_digest_entry_and_its_defaults(tmp_path: Path) -> None:
    policy = load_policy(
        _file(
            tmp_path,
            RULES + "digest:\n"
            '  - {to: C0MANAGERS, cron: "0 9 * * 1-5", timezone: Europe/Berlin,'
            " rules: [prod-deploys, defaults]}\n"
            '  - {to: U0BOSS, cron: "30 17 * * *"}\n',
        )
    )
    managers, boss = policy.digest
    assert managers.to == "C0MANAGERS" and managers.timezone == "Europe/Berlin"
    assert managers.rules == ("prod-deploys", "defaults")
    assert managers.covers("prod-deploys") and managers.covers("defaults")
    assert not managers.covers("staging")
    assert boss.to == "U0BOSS" and boss.timezone == "UTC" and boss.rules is None
    assert boss.covers("anything")


def test_no_digest_key_means_no_digests() -> None:
    assert load_policy(None).digest == []


def test_the_key_is_stable_for_what_an_entry_says() -> None:
    entry = DigestEntry(to="C0M", cron="0 9 * * 1-5", timezone="Europe/Berlin", rules=("a", "b"))
    same = DigestEntry(to="C0M", cron=" 0  9 * * 1-5 ", timezone="Europe/Berlin", rules=("b", "a"))
    assert entry.key == same.key and entry.key.startswith("digest-")
    changed = [
        DigestEntry(to="C0OTHER", cron="0 9 * * 1-5", timezone="Europe/Berlin", rules=("a", "b")),
        DigestEntry(to="C0M", cron="0 10 * * 1-5", timezone="Europe/Berlin", rules=("a", "b")),
        DigestEntry(to="C0M", cron="0 9 * * 1-5", timezone="UTC", rules=("a", "b")),
        DigestEntry(to="C0M", cron="0 9 * * 1-5", timezone="Europe/Berlin", rules=("a",)),
        DigestEntry(to="C0M", cron="0 9 * * 1-5", timezone="Europe/Berlin"),
    ]
    assert len({entry.key} | {c.key for c in changed}) == 1 + len(changed)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '{to: "#managers", cron: "0 9 * * *"}',
            'policy.yml: digest 1: to: "#managers" is not a channel id (C…) or a user id (U…)',
        ),
        (
            '{to: C0M, cron: "0 0 9 * * 1"}',
            'policy.yml: digest 1: cron: "0 0 9 * * 1": not a 5-field cron expression:'
            " got 6 field(s), expected",
        ),
        (
            '{to: C0M, cron: "every day"}',
            'policy.yml: digest 1: cron: "every day": not a 5-field cron expression: got 2',
        ),
        (
            '{to: C0M, cron: "x 9 * * *"}',
            'policy.yml: digest 1: cron: "x 9 * * *": Unrecognized expression "x"'
            ' for field "minute"',
        ),
        ('{to: C0M, cron: "0 25 * * *"}', 'policy.yml: digest 1: cron: "0 25 * * *": '),
        (
            '{to: C0M, cron: "0 9 * * 8"}',
            'policy.yml: digest 1: cron: "0 9 * * 8": day of week 8 is out of range',
        ),
        (
            '{to: C0M, cron: "0 9 * * 5-1"}',
            'policy.yml: digest 1: cron: "0 9 * * 5-1": "5-1": a range of days must go forward',
        ),
        (
            '{to: C0M, cron: "0 9 * * *", timezone: Mars/Olympus}',
            'policy.yml: digest 1: timezone: "Mars/Olympus" is not an IANA time zone',
        ),
        (
            '{to: C0M, cron: "0 9 * * *", rules: []}',
            "policy.yml: digest 1: rules: name at least one rule",
        ),
        (
            '{to: C0M, cron: "0 9 * * *", rules: [prod-deploys, prod]}',
            'policy.yml: digest 1: rules item 2: no rule is named "prod"',
        ),
        (
            '{to: C0M, cron: "0 9 * * *", channel: C0X}',
            'policy.yml: digest 1: unknown key "channel"',
        ),
        ("{to: C0M}", 'policy.yml: digest 1: "cron" is required'),
    ],
)
def test_a_mistake_in_a_digest_is_named_by_its_place(
    tmp_path: Path, entry: str, message: str
) -> None:
    with pytest.raises(PolicyError) as raised:
        load_policy(_file(tmp_path, RULES + f"digest:\n  - {entry}\n"))
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("field", "days"),
    [
        ("*", "*"),
        ("1-5", "mon,tue,wed,thu,fri"),
        ("0", "sun"),
        ("7", "sun"),
        ("0,6", "sun,sat"),
        ("5-7", "sun,fri,sat"),
        ("*/2", "sun,tue,thu,sat"),
        ("1-5/2", "mon,wed,fri"),
        ("mon-fri", "mon,tue,wed,thu,fri"),
        ("fri-sun", "sun,fri,sat"),
        ("SAT,sun", "sun,sat"),
    ],
)
def test_weekdays_are_numbered_as_crontab_numbers_them(field: str, days: str) -> None:
    assert crontab_weekdays(field) == days


def test_weekdays_1_to_5_fire_monday_to_friday_in_the_entry_zone() -> None:
    friday_noon = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
    fires = _fires("0 9 * * 1-5", "Europe/Berlin", friday_noon, 5)
    # 09:00 in Berlin is 08:00 UTC in winter; Saturday and Sunday are left out
    assert [f.strftime("%a %H:%M") for f in fires] == [
        "Mon 08:00",
        "Tue 08:00",
        "Wed 08:00",
        "Thu 08:00",
        "Fri 08:00",
    ]
    summer = _fires("0 9 * * 1-5", "Europe/Berlin", datetime(2025, 7, 1, tzinfo=UTC), 1)
    assert summer[0].strftime("%a %H:%M") == "Tue 07:00"


def test_day_of_month_and_weekday_together_fire_on_either_as_crontab_does() -> None:
    fires = _fires("0 0 13 * 5", "UTC", datetime(2025, 6, 1, tzinfo=UTC), 3)
    assert [f.strftime("%a %d") for f in fires] == ["Fri 06", "Fri 13", "Fri 20"]
    fires = _fires("0 0 1 * *", "UTC", datetime(2025, 6, 2, tzinfo=UTC), 2)
    assert [f.strftime("%b %d") for f in fires] == ["Jul 01", "Aug 01"]


def test_the_latest_fire_time_at_or_before_now() -> None:
    weekdays = crontab_trigger("0 9 * * 1-5", ZoneInfo("Europe/Berlin"))
    monday_early = datetime(2025, 3, 17, 7, 30, tzinfo=UTC)
    assert latest_fire(weekdays, monday_early, MONTH) == datetime(2025, 3, 14, 8, 0, tzinfo=UTC)
    monday_nine = datetime(2025, 3, 17, 8, 0, tzinfo=UTC)
    assert latest_fire(weekdays, monday_nine, MONTH) == monday_nine
    every_minute = crontab_trigger("* * * * *", ZoneInfo("UTC"))
    now = datetime(2025, 3, 17, 8, 0, 59, 999_000, tzinfo=UTC)
    assert latest_fire(every_minute, now, MONTH) == datetime(2025, 3, 17, 8, 0, tzinfo=UTC)
    yearly = crontab_trigger("0 0 1 1 *", ZoneInfo("UTC"))
    assert latest_fire(yearly, monday_nine, MONTH) is None  # nothing within the lookback
