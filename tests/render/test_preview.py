"""Preview keys read as words and values as people write them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.slack.render.common import date_token
from bot.slack.render.preview import (
    humanize,
    humanize_tool,
    preview_label,
    preview_value,
    title_key,
)


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("estimatedRows", "Estimated rows"),
        ("snake_case", "Snake case"),
        ("kebab-case-key", "Kebab case key"),
        ("Service", "Service"),
        ("URL", "URL"),
        ("HTTPStatus", "HTTP status"),
        ("maxUnavailable", "Max unavailable"),
        ("p95 latency", "P95 latency"),
        ("__", "__"),
    ],
)
def test_keys_become_words(key: str, words: str) -> None:
    assert humanize(key) == words


def test_tool_names_become_words() -> None:
    assert humanize_tool("deploy_service") == "Deploy service"
    assert humanize_tool("github.create_issue") == "Github create issue"


@pytest.mark.parametrize(
    ("preview", "key"),
    [
        ({"title": "Deploy", "summary": "Long"}, "title"),
        ({"Title": "Deploy"}, "Title"),
        ({"summary": "Short enough"}, "summary"),
        ({"summary": "x " * 100}, None),
        ({"title": 3}, None),
        ({"title": "two\nlines"}, None),
        ({"name": "Deploy"}, None),
    ],
)
def test_title_key(preview: dict[str, Any], key: str | None) -> None:
    assert title_key(preview) == key


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "Yes"),
        (False, "No"),
        (None, "—"),
        (184223, "184,223"),
        (1234.5, "1,234.5"),
        (2.0, "2"),
        ([], "—"),
        (["a", "b"], "a, b"),
        ([f"user{n}@example.com" for n in range(40)], None),
        ("2025-03-14", "14 Mar 2025"),
        ("2025-03-14T09:30:00", "14 Mar 2025, 09:30"),
        ("**bold** move", "*bold* move"),
        ({"cpu": 2}, '`{"cpu": 2}`'),
    ],
)
def test_values_by_type(value: Any, shown: str | None) -> None:
    text = preview_value(value, 500)
    if shown is not None:
        assert text == shown
    else:
        assert text == ", ".join(f"user{n}@example.com" for n in range(5)) + ", +35 more"


def test_a_timestamp_shows_in_the_readers_zone() -> None:
    when = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)
    assert preview_value("2025-03-14T10:30:00+01:00", 500) == date_token(when)


@pytest.mark.parametrize(
    "value", ["x" * 5_000, list(range(1_000)), {"k": "v" * 5_000}, "2025-03-14T09:30:00Z", 10**30]
)
@pytest.mark.parametrize("room", [1, 20, 61, 300])
def test_every_value_keeps_to_its_room(value: Any, room: int) -> None:
    assert len(preview_value(value, room)) <= room


def test_labels_keep_whole_words_and_cannot_format() -> None:
    label = preview_label("theVeryLongKeyNameThatGoesOnAndOnForeverAndEverAndEver", 40)
    assert len(label) <= 40 and label.endswith("…")
    assert "*" not in preview_label("a*b", 40).replace("*\u200b", "")
