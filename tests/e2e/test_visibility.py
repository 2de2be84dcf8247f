"""Each person sees only what they may see: Home, `/novo`, type-ahead, all through Slack.

An `hr_*` rule DMs only Ada, who alone may decide it; its approval is titled
"Terminate Jane Doe (employee 4471)". Grace (a full member who may not decide
it) and a guest must see nothing of it anywhere — not its title, its rule,
its count — while Ada sees it. Channel queues are for those who can read the
channel: its members, by Slack's conversations.members.
"""

from __future__ import annotations

import json
from typing import Any

from bot.slack.ids import ActionId
from novo_dev.localslack.records import StoredView
from tests.e2e.conftest import CHANNEL, Loop
from tests.e2e.test_novo_command import _words, ask
from tests.support import wait_until

GUEST = "U0GUEST"
TITLE = "Terminate Jane Doe (employee 4471)"
RULE = "hr_\u200bcases"  # the rule's name as Home shows it (Slack can't take it for _italics_)
SECRETS = (TITLE, "4471", RULE, "hr_cases")
POLICY = """rules:
  - name: hr_cases
    match: {toolName: "hr_*"}
    dm: [U0ADA]
    deciders: {users: [U0ADA]}
  - name: guarded
    match: {toolName: "guarded_*"}
    deciders: {users: [U0ADA]}
"""
NOTHING_QUEUED = "Nothing is waiting on anyone."


def _shown(view: StoredView) -> str:
    return json.dumps(view.blocks, ensure_ascii=False)


async def _home(loop: Loop, user: str, *needles: str) -> str:
    """What `user`'s Home shows once opened and showing every needle."""
    before = len([c for c in loop.slack.calls("views.publish") if c.args["user_id"] == user])
    assert (await loop.driver.open_home(user)).status_code == 200

    def probe() -> str | None:
        published = [c for c in loop.slack.calls("views.publish") if c.args["user_id"] == user]
        view = loop.slack.home_view(user)
        if len(published) <= before or view is None:
            return None
        shown = _shown(view)
        return shown if all(n in shown for n in needles) else None

    found: str = await wait_until(probe, message=f"{user}'s Home showing {needles}")
    return found


async def _hr_case(loop: Loop) -> str:
    created = await loop.create(
        toolName="hr_terminate", preview={"title": TITLE}, expiresInSeconds=600
    )
    await wait_until(
        lambda: loop.slack.messages("U0ADA"), message="the HR case in Ada's DM", timeout=10
    )
    return str(created["id"])


async def test_home_shows_a_dm_only_rule_to_the_person_it_dms_and_no_one_else(
    loop: Loop,
) -> None:
    await loop.use_policy(POLICY)
    loop.slack.add_user(GUEST, "guest", "Gus Guest", is_restricted=True)
    hr = await _hr_case(loop)
    deploy = await loop.create(toolName="deploy_service", expiresInSeconds=900)
    await loop.posted(deploy["id"])

    ada = await _home(loop, "U0ADA", f"novo_home_card:{hr}", f"rule _{RULE}_ — *1* waiting")
    assert TITLE in ada
    grace = await _home(loop, "U0GRACE", "rule _defaults_ — *1* waiting")  # she reads the channel
    assert not any(secret in grace for secret in SECRETS), grace
    assert hr not in grace
    guest = await _home(loop, GUEST, NOTHING_QUEUED)  # a guest sees only what is addressed to them
    assert not any(secret in guest for secret in SECRETS) and "deploy" not in guest.lower()


async def test_a_channels_queue_is_shown_to_its_members_only(loop: Loop) -> None:
    await loop.use_policy(POLICY)
    loop.slack.add_user("U0BOB", "bob", "Bob Member")
    loop.slack.set_channel_members(CHANNEL, ["U0ADA", "U0BOB"])
    guarded = await loop.create(toolName="guarded_restart", expiresInSeconds=600)
    await loop.posted(guarded["id"])

    bob = await _home(loop, "U0BOB", "rule _guarded_ — *1* waiting")  # a member, not a decider
    assert f"novo_home_card:{guarded['id']}" not in bob
    grace = await _home(loop, "U0GRACE", NOTHING_QUEUED)  # not in the channel
    assert "guarded" not in grace


async def test_novo_pending_and_stats_tell_a_non_decider_and_a_guest_nothing_of_it(
    loop: Loop,
) -> None:
    await loop.use_policy(POLICY)
    loop.slack.add_user(GUEST, "guest", "Gus Guest", is_restricted=True)
    hr = await _hr_case(loop)
    ended = await _hr_case_ended(loop)

    assert TITLE in _words(await ask(loop, "U0ADA", "pending"))
    assert RULE in _words(await ask(loop, "U0ADA", "stats 24h"))
    for user in ("U0GRACE", GUEST):
        for text in ("pending", "stats 24h", f"show {hr}", f"show {ended}"):
            words = _words(await ask(loop, user, text))
            assert not any(secret in words for secret in SECRETS), (user, text, words)


async def _hr_case_ended(loop: Loop) -> str:
    """Another HR case, approved by Ada through the API: something for the stats."""
    created = await loop.create(
        toolName="hr_rehire", preview={"title": TITLE}, expiresInSeconds=600
    )
    await loop.posted(created["id"])
    response = await loop.api_resolve(
        created["id"], {"inputResponses": [{"requestId": created["id"], "optionId": "approve"}]}
    )
    assert response.status_code == 200, response.text

    async def ended() -> bool:
        tracked = await loop.tracked(created["id"])
        return tracked is not None and not tracked.is_open

    await wait_until(ended, message="the bridge saw it end")
    return str(created["id"])


async def test_type_ahead_options_are_refused_to_someone_who_may_not_decide(loop: Loop) -> None:
    options: list[dict[str, Any]] = [{"id": f"c{i}", "label": f"Customer {i}"} for i in range(150)]
    request = {"title": "Which customer?", "questions": [{"id": "q", "options": options}]}
    created = await loop.create("question", toolName="guarded_ask", request=request)
    ts = await loop.posted(created["id"])
    grace = await loop.open_form("U0GRACE", ts)  # anyone may decide it, for now
    answer = ActionId.ANSWER_INPUT.value
    found = await loop.driver.load_options("U0GRACE", grace.id, answer, "q0", "customer 1")
    assert found.json()["options"]

    await loop.use_policy(POLICY)  # now Ada's alone; Grace's form is still open
    ada = await loop.open_form("U0ADA", ts)
    refused = await loop.driver.load_options("U0GRACE", grace.id, answer, "q0", "customer 1")
    assert refused.status_code == 200 and refused.json()["options"] == []
    allowed = await loop.driver.load_options("U0ADA", ada.id, answer, "q0", "customer 1")
    labels = [o["text"]["text"] for o in allowed.json()["options"]]
    assert "Customer 1" in labels and "Customer 149" in labels
