"""`python -m bench.render`: what rendering the largest question form costs.

The form is 60 questions of 100 options each, every text as long as Slack shows
(`tests/render_question/test_large_form.py` builds the same request and checks that
every page is valid and that people opening it together share one build). Figures:

- *page*: rendering each page of it from nothing, once per page, in milliseconds;
- *first opening* and *reopening*: page one for a fresh record, then for equal
  records read again (as each person's click reads it), which the page cache serves.

Slack's trigger expires 3 s after a click, so a page is a small part of that budget;
`bench.forms` measures the whole path for many people at once.
"""

from __future__ import annotations

import argparse
import time

from bench.harness import format_table
from bot.novo.models import Interaction
from bot.slack.render.question_modal import question_modal_page_count, render_question_modal
from tests.render_question.conftest import make_interaction
from tests.render_question.test_large_form import largest_request


def _ms_since(began: float) -> float:
    return (time.perf_counter() - began) * 1000


def measure(rounds: int, people: int) -> list[tuple[str, list[float]]]:
    page_ms: list[float] = []
    first_ms: list[float] = []
    reopen_ms: list[float] = []
    for round_number in range(rounds):
        interaction = make_interaction(largest_request(), id=f"int_bench_{round_number}")
        assert interaction.request is not None
        for page in range(question_modal_page_count(interaction.request)):
            began = time.perf_counter()
            render_question_modal(interaction, page)
            page_ms.append(_ms_since(began))
        wire = make_interaction(largest_request(), id=f"int_reopen_{round_number}").model_dump(
            by_alias=True
        )
        copies = [Interaction.model_validate(wire) for _ in range(people + 1)]
        began = time.perf_counter()
        render_question_modal(copies[0], 0)
        first_ms.append(_ms_since(began))
        for copy in copies[1:]:
            began = time.perf_counter()
            render_question_modal(copy, 0)
            reopen_ms.append(_ms_since(began))
    return [("page", page_ms), ("first opening", first_ms), ("reopening", reopen_ms)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="fresh forms rendered")
    parser.add_argument("--people", type=int, default=10, help="reopenings per form")
    options = parser.parse_args(argv)
    print("novo-slack render: the largest question form (60 questions x 100 options)\n")
    print(format_table(measure(options.rounds, options.people)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
