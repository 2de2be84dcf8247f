"""The largest form renders valid pages, and people opening it together share one build.

How fast a page renders is `bench/render.py`'s figure (and `bench/forms.py` measures
opening it for many people at once against Slack's 3 s trigger).
"""

from __future__ import annotations

from bot.novo.models import Interaction
from bot.slack.render.question_modal import question_modal_page_count, render_question_modal
from novo_dev.localslack.validation import assert_valid_view

from .conftest import make_interaction, question

QUESTIONS = 60
OPTIONS = 100
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


def test_every_page_of_the_largest_form_renders_valid() -> None:
    interaction = make_interaction(largest_request(), id="int_largest_pages")
    assert interaction.request is not None
    pages = question_modal_page_count(interaction.request)
    views = [render_question_modal(interaction, page) for page in range(pages)]
    assert pages > 1
    for view in views:
        assert_valid_view(view)


def test_many_people_opening_the_same_form_do_not_each_pay_for_it() -> None:
    """Each opener reads the record afresh (an equal but distinct object), as the bridge does."""
    wire = make_interaction(largest_request(), id="int_largest_reopen").model_dump(by_alias=True)
    copies = [Interaction.model_validate(wire) for _ in range(PEOPLE + 1)]
    first = render_question_modal(copies[0], 0)
    views = [render_question_modal(copy, 0) for copy in copies[1:]]
    # a reopen skips the building: it hands out the blocks the first opening built
    assert all(view["blocks"] is first["blocks"] for view in views)
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
