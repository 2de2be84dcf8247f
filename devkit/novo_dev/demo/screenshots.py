"""The README's pictures, made by the page from what the bridge really rendered.

`python -m novo_dev.demo.screenshots` (or `make screenshots`) starts the
simulator, the local Slack, the bridge and the playground, creates one
approval and one question, and has Ada click through them in headless
Chromium: a pending approval, the question's form showing the bridge's own
error under the block it names, and the approval once decided. Nothing is
drawn by hand, so the pictures change when the rendering does.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from novo_dev.demo.stack import LocalStack, Person, ServersConfig, StackConfig, local_stack
from novo_dev.playground.browser import BrowserMissing, headless_page
from novo_dev.playground.server import Playground, start_playground

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page

OUT = Path("docs/screenshots")
CHANNEL = "C0DEMO"
API_KEY = "playground-key"
SIGNING_SECRET = "playground-signing-secret"
PEOPLE = (
    Person("U0ADA", "ada", "Ada Lovelace"),
    Person("U0GRACE", "grace", "Grace Hopper"),
)
STEP_TIMEOUT_MS = 10_000

APPROVAL: dict[str, Any] = {
    "kind": "approval_request",
    "agentId": "agt_deployer",
    "runId": "run_7Q2",
    "stepNumber": 4,
    "toolName": "deploy_service",
    "input": {
        "environment": "production",
        "gitSha": "9f3c2ab",
        "services": ["api-gateway", "billing-worker"],
        "strategy": "rolling",
    },
    "preview": {
        "title": "Deploy 2 services to production",
        "summary": "Rolling deploy of `9f3c2ab` (*fix: retry webhook delivery*) to "
        "**api-gateway** and **billing-worker**. Staging has run it for 26 h.",
    },
}

QUESTION: dict[str, Any] = {
    "kind": "question",
    "agentId": "agt_migrator",
    "runId": "run_M5",
    "stepNumber": 5,
    "request": {
        "title": "Which environments should the migration run in?",
        "details": "Adds a NOT NULL column to `invoices` with a backfill (~3 min per env).",
        "questions": [
            {
                "id": "q_envs",
                "prompt": "Environments",
                "multiple": True,
                "options": [
                    {"id": "staging", "label": "Staging"},
                    {"id": "production", "label": "Production"},
                    {"id": "eu-production", "label": "EU production", "description": "GDPR"},
                ],
            },
            {
                "id": "q_window",
                "prompt": "Maintenance window",
                "allowOther": True,
                "options": [
                    {"id": "tonight", "label": "Tonight, 22:00"},
                    {"id": "weekend", "label": "Saturday morning"},
                ],
            },
            {"id": "q_owner", "prompt": "Who watches the backfill?"},
            {
                "id": "q_notes",
                "prompt": "Anything the agent should know?",
                "multiline": True,
                "optional": True,
            },
        ],
        "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
    },
}


@dataclass
class Stage:
    """A running stack with the playground over it: what the page tests and screenshots use."""

    stack: LocalStack
    playground: Playground
    http: httpx.AsyncClient

    async def create(self, spec: dict[str, Any]) -> str:
        response = await self.http.post(f"{self.stack.sim.url}/_sim/interactions", json=spec)
        response.raise_for_status()
        return str(response.json()["id"])

    async def interaction(self, interaction_id: str) -> dict[str, Any]:
        response = await self.http.get(
            f"{self.stack.sim.url}/v1/interactions/{interaction_id}",
            headers={"Authorization": f"Bearer {API_KEY}"},
        )
        response.raise_for_status()
        record: dict[str, Any] = response.json()
        return record

    def page_url(self, user_id: str) -> str:
        return f"{self.playground.url}/?as={user_id}"


@asynccontextmanager
async def stage(db_dir: Path) -> AsyncIterator[Stage]:
    config = StackConfig(
        servers=ServersConfig(
            api_key=API_KEY, channels=((CHANNEL, "agent-approvals"),), people=PEOPLE
        ),
        db=db_dir / "playground.db",
        channel=CHANNEL,
        signing_secret=SIGNING_SECRET,
        poll_seconds=0.1,
        novo_retry_base=0.01,
        redelivery_base=0.05,
    )
    async with (
        local_stack(config) as stack,
        await start_playground(stack.slack, stack.driver, [CHANNEL]) as playground,
        httpx.AsyncClient(timeout=10) as http,
    ):
        yield Stage(stack, playground, http)


def message(page: Page, interaction_id: str) -> Locator:
    """The channel message the bridge posted for the interaction (by its Slack metadata)."""
    return page.locator(f'article.message[data-interaction="{interaction_id}"]')


async def make_screenshots(out: Path) -> list[Path]:
    await asyncio.to_thread(out.mkdir, parents=True, exist_ok=True)
    pending, modal, decided = (
        out / "pending-approval.png",
        out / "question-modal.png",
        out / "decided-approval.png",
    )
    with tempfile.TemporaryDirectory(prefix="novo-slack-shots-") as tmp:
        async with stage(Path(tmp)) as scene, headless_page() as page:
            page.set_default_timeout(STEP_TIMEOUT_MS)
            approval = await scene.create(APPROVAL)
            question = await scene.create(QUESTION)
            await page.goto(scene.page_url("U0ADA"))
            await message(page, question).get_by_role("button", name="Answer…").wait_for()
            card = message(page, approval)
            await card.get_by_role("button", name="Approve").wait_for()
            await card.screenshot(path=str(pending))

            await message(page, question).get_by_role("button", name="Answer…").click()
            form = page.locator("#modal-form")
            await form.get_by_label("Staging").check()
            await form.get_by_label("Production", exact=True).check()
            await form.get_by_label("Other…").check()
            await form.locator("#in-q2").fill("Grace Hopper")
            await page.locator("#modal-submit").click()
            await form.locator('[data-block-id="q1_other"] .input-error').wait_for()
            await page.screenshot(path=str(modal))
            await page.locator("#modal-close").click()
            await form.wait_for(state="hidden")

            await card.get_by_role("button", name="Approve").click()
            await card.get_by_text("Approved by").wait_for()
            await card.screenshot(path=str(decided))
    return [pending, modal, decided]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the PNGs ({OUT})")
    args = parser.parse_args(argv)
    for noisy in ("apscheduler", "slack_bolt", "slack_sdk"):
        logging.getLogger(noisy).setLevel(logging.ERROR)  # a bridge under a busy browser
    try:
        made = asyncio.run(make_screenshots(args.out))
    except BrowserMissing as exc:
        print(f"screenshots: {exc}", file=sys.stderr)
        return 2
    for path in made:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
