"""The playground page in headless Chromium: a person clicks, Novo receives what Slack would cause.

Everything is real: the bridge renders, the page draws the Block Kit, a click
on the page becomes a signed payload through `SlackDriver`, and the simulator
records the resolve. Waits are on conditions (Playwright's auto-waiting or
`wait_until`), never fixed sleeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.slack.question_answers import ERROR_REQUIRED_TEXT
from novo_dev.demo.screenshots import APPROVAL, QUESTION, Stage, make_screenshots, message
from novo_dev.sim.control import SimControl
from novo_dev.sim.demo_data import COUNTRIES
from tests.support import wait_until

if TYPE_CHECKING:
    from playwright.async_api import Page

REQUIRED_FIELD = "Please complete this required field."  # static/inputs.js: Slack's own words


async def _resolved(scene: Stage, interaction_id: str) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        record = await scene.interaction(interaction_id)
        return record if record["status"] == "resolved" else None

    record: dict[str, Any] = await wait_until(probe, message=f"{interaction_id} resolved")
    return record


async def _resolve_calls(scene: Stage, interaction_id: str) -> list[dict[str, Any]]:
    log = await SimControl(scene.stack.sim.url, scene.http).log()
    path = f"/v1/interactions/{interaction_id}/resolve"
    return [r for r in log if r["method"] == "POST" and r["path"] == path]


async def test_approve_on_the_page_resolves_in_novo_and_shows_who(page: Page, scene: Stage) -> None:
    approval = await scene.create(APPROVAL)
    await page.goto(scene.page_url("U0ADA"))
    card = message(page, approval)
    await card.get_by_role("button", name="Approve").click()

    record = await _resolved(scene, approval)
    assert record["resolution"]["inputResponses"] == [
        {"requestId": approval, "optionId": "approve"}
    ]
    assert "U0ADA (Ada Lovelace)" in record["resolution"]["reason"]
    await card.get_by_text("Approved by").wait_for()
    assert await card.locator(".mention").inner_text() == "@Ada Lovelace"  # <@U0ADA> as a name
    assert await card.locator("time").count() >= 1  # <!date^…> in the viewer's time
    assert await card.get_by_role("button", name="Approve").count() == 0


async def test_answer_form_shows_errors_under_their_block_then_submits(
    page: Page, scene: Stage
) -> None:
    question = await scene.create(QUESTION)
    await page.goto(scene.page_url("U0GRACE"))
    await message(page, question).get_by_role("button", name="Answer…").click()
    form = page.locator("#modal-form")
    await form.get_by_label("Staging").check()
    await form.get_by_label("Production", exact=True).check()
    await form.get_by_label("Tonight, 22:00").check()
    owner_error = form.locator('[data-block-id="q2"] .input-error')

    await page.locator("#modal-submit").click()  # required question left empty
    await owner_error.filter(has_text=REQUIRED_FIELD).wait_for()
    assert await _resolve_calls(scene, question) == []  # Slack's client sends nothing

    await form.locator("#in-q2").fill("   ")  # not empty to Slack, empty to the bridge
    await page.locator("#modal-submit").click()
    await owner_error.filter(has_text=ERROR_REQUIRED_TEXT).wait_for()
    assert await form.locator('[data-block-id="q0"] .input-error').is_hidden()
    assert await _resolve_calls(scene, question) == []

    await form.locator("#in-q2").fill("Grace Hopper")
    await page.locator("#modal-submit").click()
    record = await _resolved(scene, question)
    assert record["resolution"]["inputResponses"] == [
        {"requestId": "q_envs", "optionIds": ["staging", "production"]},
        {"requestId": "q_window", "optionId": "tonight"},
        {"requestId": "q_owner", "text": "Grace Hopper"},
    ]
    await message(page, question).get_by_text("Grace Hopper").first.wait_for()


async def test_menus_and_type_ahead_from_the_bridge(page: Page, scene: Stage) -> None:
    countries = [{"id": name.lower(), "label": name} for name in COUNTRIES]  # > 100: searched
    twenty = [{"id": f"o{n}", "label": f"Option {n}"} for n in range(20)]  # > 10: a menu
    question = await scene.create(
        {
            "kind": "question",
            "request": {
                "title": "Where is the customer billed?",
                "questions": [
                    {"id": "q_country", "prompt": "Country", "options": countries},
                    {"id": "q_many", "prompt": "Several", "multiple": True, "options": twenty},
                    {"id": "q_ship", "prompt": "Ships to", "multiple": True, "options": countries},
                ],
            },
        }
    )
    await page.goto(scene.page_url("U0ADA"))
    await message(page, question).get_by_role("button", name="Answer…").click()
    await page.locator("#in-q0").fill("germ")
    await page.get_by_role("option", name="Germany").click()
    await page.locator("#in-q1").select_option("o3")
    await page.locator("#in-q1").select_option("o5")
    for typed, country in (("fra", "France"), ("spa", "Spain")):
        await page.locator("#in-q2").fill(typed)
        await page.get_by_role("option", name=country).click()
    await page.locator("#modal-submit").click()
    record = await _resolved(scene, question)
    assert record["resolution"]["inputResponses"] == [
        {"requestId": "q_country", "optionId": "germany"},
        {"requestId": "q_many", "optionIds": ["o3", "o5"]},
        {"requestId": "q_ship", "optionIds": ["france", "spain"]},
    ]


async def test_screenshots_come_from_the_page(chromium: Path, tmp_path: Path) -> None:
    made = await make_screenshots(tmp_path / "shots")
    assert [p.name for p in made] == [
        "pending-approval.png",
        "question-modal.png",
        "decided-approval.png",
    ]
    for path in made:
        assert path.read_bytes().startswith(b"\x89PNG"), path


async def test_a_type_ahead_list_stays_inside_the_modal(page: Page, scene: Stage) -> None:
    """The last input of a long form: its list is reachable within the modal, not cut off."""
    countries = [{"id": name.lower(), "label": name} for name in COUNTRIES]
    question = await scene.create(
        {
            "kind": "question",
            "request": {
                "title": "Where does it ship?",
                "questions": [
                    *({"id": f"q_note{n}", "prompt": f"Note {n}"} for n in range(4)),
                    {"id": "q_ship", "prompt": "Ships to", "options": countries},
                ],
            },
        }
    )
    await page.goto(scene.page_url("U0ADA"))
    await message(page, question).get_by_role("button", name="Answer…").click()
    await page.locator("#in-q4").fill("a")  # many matches: a long list
    option = page.get_by_role("option").last
    await option.wait_for()
    await page.wait_for_timeout(300)  # let a smooth scroll, if any, settle
    modal = await page.locator("#modal-body").bounding_box()
    shown = await page.locator(".suggestions:visible").bounding_box()
    assert modal is not None and shown is not None
    # the whole list is in sight, without scrolling by hand
    assert modal["y"] <= shown["y"]
    assert shown["y"] + shown["height"] <= modal["y"] + modal["height"] + 1  # a pixel: rounding
    await option.click()
    assert await page.locator("#in-q4").input_value() != "a"
