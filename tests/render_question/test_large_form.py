"""The largest form opens fast enough for Slack's 3 s trigger, even for many people at once.

Bounds are generous (a busy CI machine is several times slower than a
laptop): they catch rendering that scales with the number of people opening
the form, not small regressions.
"""

from __future__ import annotations

import time

from bot.novo.models import Interaction
from bot.slack.render.question_modal import question_modal_page_count, render_question_modal
from novo_dev.localslack.validation import assert_valid_view

from .conftest import make_interaction, question

QUESTIONS = 60
OPTIONS = 100
PAGE_MS = 250.0  # about 25 ms on a quiet machine: the bound catches a pathology, not noise
PEOPLE = 10


def largest_request() -> dict[str, object]:
    """60 questions of 100 options each, every label and prompt as long as Slack shows."""
    return {
        "title": "T" * 300,
        "details": "D" * 3_000,
        "questions": [
            question(
                f"q{q}",
                prompt="P" * 2_000,
                multiline=True,
                multiple=q % 2 == 0,
                options=[{"id": f"{q}.{o}", "label": "L" * 75} for o in range(OPTIONS)],
            )
            for q in range(QUESTIONS)
        ],
    }


def test_every_page_of_the_largest_form_renders_fast() -> None:
    interaction = make_interaction(largest_request(), id="int_largest_pages")
    assert interaction.request is not None
    pages = question_modal_page_count(interaction.request)
    began = time.perf_counter()
    views = [render_question_modal(interaction, page) for page in range(pages)]
    per_page_ms = (time.perf_counter() - began) * 1000 / pages
    assert per_page_ms < PAGE_MS, f"{per_page_ms:.1f} ms per page"
    for view in views:
        assert_valid_view(view)


def test_many_people_opening_the_same_form_do_not_each_pay_for_it() -> None:
    """Each opener reads the record afresh (an equal but distinct object), as the bridge does."""
    wire = make_interaction(largest_request(), id="int_largest_reopen").model_dump(by_alias=True)
    copies = [Interaction.model_validate(wire) for _ in range(PEOPLE + 1)]
    began = time.perf_counter()
    first = render_question_modal(copies[0], 0)
    first_ms = (time.perf_counter() - began) * 1000
    began = time.perf_counter()
    views = [render_question_modal(copy, 0) for copy in copies[1:]]
    each_ms = (time.perf_counter() - began) * 1000 / PEOPLE
    # relative, so a busy machine slows both alike: a reopen skips the building
    assert each_ms < first_ms / 3, f"{each_ms:.1f} ms per reopen, {first_ms:.1f} ms the first"
    assert all(view == first for view in views)


def test_a_changed_request_is_never_served_from_an_older_render() -> None:
    before = make_interaction(largest_request(), id="int_same")
    changed = largest_request()
    changed["title"] = "A different title"
    after = make_interaction(changed, id="int_same")
    assert render_question_modal(before, 0) != render_question_modal(after, 0)
    assert "A different title" in str(render_question_modal(after, 0))


def test_the_form_asks_to_hear_when_it_is_closed() -> None:
    """So a multi-page draft can be dropped when the person gives up half way."""
    interaction = make_interaction(largest_request(), id="int_largest_close")
    assert render_question_modal(interaction, 0)["notify_on_close"] is True
    assert render_question_modal(interaction, 1)["notify_on_close"] is True
