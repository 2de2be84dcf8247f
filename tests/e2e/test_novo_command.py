"""`/novo` end to end: typed in Slack, acked within 3 s, answered to the caller only.

Each command goes in as Slack sends it (signed form fields over HTTP, or a
`slash_commands` envelope down the Socket Mode connection) and each answer is
read where Slack puts it: an ephemeral message posted to the command's
response_url, seen by the caller alone.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import SecretStr
from slack_sdk.web.async_client import AsyncWebClient

from bot.clock import utc_now
from bot.domain import SlackActor
from bot.policy.live import LivePolicy
from bot.services.deciders import DeciderGate
from bot.services.pending import PendingFinder
from bot.slack.command_text import COMMAND
from bot.slack.directory import SlackDirectory
from bot.slack.ids import ActionId
from bot.slack.render.ending import waited
from novo_dev.localslack import StoredEphemeral
from novo_dev.localslack.validation import assert_valid_message
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

LINKS = "https://novo-local.slack.com/archives/"
POLICY = """
agents:
  agt_7f3: "Billing bot"
rules:
  - name: deploys
    match: {toolName: 'deploy_*'}
    deciders: {users: [U0ADA]}
"""


def _answers(loop: Loop, user: str) -> list[StoredEphemeral]:
    return [e for e in loop.slack.ephemerals(user) if e.via == "response_url"]


def _shown(node: Any) -> list[str]:
    """Every string a person can see in blocks (no ids, no button values)."""
    if isinstance(node, dict):
        return [t for k, v in node.items() if k not in ("value", "block_id") for t in _shown(v)]
    if isinstance(node, list):
        return [t for v in node for t in _shown(v)]
    return [node] if isinstance(node, str) else []


def _words(answer: StoredEphemeral) -> str:
    """Everything the answer shows, text objects and links, as one string."""
    return "\n".join([answer.text, *_shown(answer.blocks)])


async def _answer(loop: Loop, user: str, before: int) -> StoredEphemeral:
    answers: list[StoredEphemeral] = await wait_until(
        lambda: _answers(loop, user)[before:], message=f"an answer to {user}'s {COMMAND}"
    )
    assert len(answers) == 1, answers
    assert answers[0].channel == CHANNEL
    assert_valid_message({"text": answers[0].text, "blocks": answers[0].blocks})
    return answers[0]


async def ask(loop: Loop, user: str, text: str = "") -> StoredEphemeral:
    """`/novo text` typed by `user` in the channel over HTTP; the ack is checked, the answer
    returned."""
    before = len(_answers(loop, user))
    response = await loop.driver.send_command(user, COMMAND, text, channel=CHANNEL)
    assert response.status_code == 200, response.text
    assert response.content.strip() == b"", "the ack carries nothing; the answer follows"
    return await _answer(loop, user, before)


async def ask_over_socket(loop: Loop, user: str, text: str = "") -> StoredEphemeral:
    before = len(_answers(loop, user))
    ack = await loop.driver.send_command_over_socket(user, COMMAND, text, channel=CHANNEL)
    assert ack.payload is None, ack
    return await _answer(loop, user, before)


async def _seed(loop: Loop) -> dict[str, str]:
    """Three approvals: two deploys (Ada's alone to decide) and a read anyone decides."""
    created = {
        "deploy_api": await loop.create(
            toolName="deploy_api", agentId="agt_7f3", expiresInSeconds=600
        ),
        "deploy_web": await loop.create(
            toolName="deploy_web", agentId="agt_other", expiresInSeconds=300
        ),
        "read_file": await loop.create(
            toolName="read_file", agentId="agt_7f3", expiresInSeconds=900
        ),
    }
    return {tool: record["id"] for tool, record in created.items()}


def _link(ts: str, where: str = CHANNEL) -> str:
    return f"{LINKS}{where}/p{ts.replace('.', '')}"


async def test_help_for_no_subcommand_help_and_anything_unknown(loop: Loop) -> None:
    for typed in ("", "help", "  HELP  "):
        shown = _words(await ask(loop, "U0ADA", typed))
        for subcommand in ("pending [text]", "show &lt;id&gt;", "stats [24h|7d|30d]"):
            assert f"{COMMAND} {subcommand}" in shown
        assert "I don't know" not in shown
    unknown = _words(await ask(loop, "U0ADA", "frobnicate <!channel> now"))
    assert "I don't know `frobnicate`" in unknown
    assert f"{COMMAND} pending [text]" in unknown
    assert "I don't know `stats 1y`" in _words(await ask(loop, "U0ADA", "stats 1y"))
    assert loop.slack.ephemerals("U0GRACE") == []  # only the caller sees an answer


async def test_pending_lists_what_the_caller_may_decide_soonest_first(loop: Loop) -> None:
    await loop.use_policy(POLICY)
    ids = await _seed(loop)
    ts = {tool: await loop.posted(interaction_id) for tool, interaction_id in ids.items()}

    ada = await ask(loop, "U0ADA", "pending")
    shown = _words(ada)
    assert "3 requests you can decide" in shown
    order = [shown.index(ids[tool]) for tool in ("deploy_web", "deploy_api", "read_file")]
    assert order == sorted(order), "soonest to expire first"
    for tool in ids:
        assert _link(ts[tool]) in shown, f"{tool} links to its message"
    assert "*Billing bot*" in shown  # the agent as the policy names it
    assert loop.slack.calls("chat.getPermalink") == []  # links built, not asked for

    narrowed = _words(await ask(loop, "U0ADA", "pending BILLING"))
    assert "2 requests you can decide" in narrowed
    assert ids["deploy_api"] in narrowed and ids["read_file"] in narrowed
    assert ids["deploy_web"] not in narrowed
    both = _words(await ask(loop, "U0ADA", "pending billing deploy"))
    assert "1 request you can decide" in both and ids["deploy_api"] in both

    # the deploys rule keeps Grace out: she is offered only the read
    grace = _words(await ask(loop, "U0GRACE", "pending"))
    assert "1 request you can decide" in grace
    assert ids["read_file"] in grace and ids["deploy_api"] not in grace
    nothing = _words(await ask(loop, "U0GRACE", "pending deploy"))
    assert "Nothing you can decide matches `deploy`." in nothing

    # decided ones leave the list
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts["read_file"], ActionId.APPROVE)
    await loop.api_get_final(ids["read_file"])

    async def ended() -> bool:
        tracked = await loop.tracked(ids["read_file"])
        return tracked is not None and not tracked.is_open

    await wait_until(ended, message="the read approval ended in the store")
    after = _words(await ask(loop, "U0GRACE", "pending"))
    assert "Nothing is waiting for you to decide." in after


async def test_a_request_in_dms_links_each_person_to_their_own_copy(loop: Loop) -> None:
    await loop.use_policy(
        "rules:\n  - name: deploys\n    match: {toolName: 'deploy_*'}\n    dm: [U0ADA, U0GRACE]\n"
    )
    created = await loop.create(toolName="deploy_api")
    dms = {person: loop.slack.channel_id(person) for person in ("U0ADA", "U0GRACE")}

    def posted_in_each() -> dict[str, str] | None:
        found = {
            person: [
                m.ts
                for m in loop.slack.messages(dm)
                if ((m.metadata or {}).get("event_payload") or {}).get("interaction_id")
                == created["id"]
            ]
            for person, dm in dms.items()
        }
        return {p: ts[0] for p, ts in found.items()} if all(found.values()) else None

    shown: dict[str, str] = await wait_until(posted_in_each, message="a copy in each DM")

    async def recorded() -> bool:
        assert loop.bridge.services is not None
        stored = await loop.bridge.services.store.messages(created["id"])
        return len(stored) == 2 and all(m.state == "posted" for m in stored)

    await wait_until(recorded, message="both DM messages recorded")
    for person, dm in dms.items():
        answer = _words(await ask(loop, person, "pending"))
        assert _link(shown[person], dm) in answer, person  # their own DM, never the other's
    # anyone may decide it, but someone with no copy has nowhere to be sent: no link
    outsider = _words(await ask(loop, "U0LOCAL01", "pending"))
    assert created["id"] in outsider and LINKS not in outsider


async def test_the_ack_never_waits_for_slack_lookups(loop: Loop) -> None:
    ids = await _seed(loop)
    for interaction_id in ids.values():
        await loop.posted(interaction_id)
    # who the caller is: Slack does not answer until the ack is in, so an ack that waited
    # for the lookup would never come
    loop.slack.hold_method("users.info")
    before = len(_answers(loop, "U0ADA"))
    try:
        response = await loop.driver.send_command("U0ADA", COMMAND, "pending", channel=CHANNEL)
        assert response.status_code == 200
        assert _answers(loop, "U0ADA")[before:] == []  # the answer waits for the lookup
    finally:
        loop.slack.release_method("users.info")
    answer = await _answer(loop, "U0ADA", before)
    assert "3 requests you can decide" in _words(answer)


async def test_a_list_slack_is_too_slow_to_check_says_it_may_be_missing_some(
    loop: Loop,
) -> None:
    ids = await _seed(loop)
    for interaction_id in ids.values():
        await loop.posted(interaction_id)
    assert loop.bridge.services is not None
    policy = LivePolicy(CHANNEL)
    client = AsyncWebClient(token=loop.slack.bot_token, base_url=loop.slack.api_url)
    store = loop.bridge.services.store
    gate = DeciderGate(policy, SlackDirectory(client), "T0LOCAL", store=store, clock=utc_now)
    finder = PendingFinder(loop.bridge.services.store, gate, policy)
    ada = SlackActor("U0ADA", "Ada Lovelace", team_id="T0LOCAL")
    loop.slack.delay_method("users.info", 1.0)
    found = await finder.for_person(ada, (), within=0.3)
    assert (found.waiting, found.complete) == ([], False)  # not passed off as "nothing"
    loop.slack.delay_method("users.info", 0)
    found = await finder.for_person(ada, ())
    assert [t.id for t in found.waiting] == [
        ids[t] for t in ("deploy_web", "deploy_api", "read_file")
    ]
    assert found.complete


async def test_show_gives_the_card_whose_buttons_decide(loop: Loop) -> None:
    await loop.use_policy(POLICY)
    ids = await _seed(loop)
    ts = await loop.posted(ids["deploy_api"])
    card = await ask(loop, "U0ADA", f"show {ids['deploy_api']}")
    channel_message = loop.slack.message(CHANNEL, ts)
    assert card.text == channel_message.text
    assert _shown(card.blocks) == _shown(channel_message.blocks)  # the card as the channel has it

    refused = _words(await ask(loop, "U0GRACE", f"show {ids['deploy_api']}"))
    assert "isn't shown to you" in refused
    missing = _words(await ask(loop, "U0ADA", "show int_nope"))
    assert "No request `int_nope` is known here" in missing
    assert "Which one?" in _words(await ask(loop, "U0ADA", "show"))

    # the shown card's Approve is the channel's: same listener, same checks
    response = await loop.driver.click_ephemeral_button(card, ActionId.APPROVE)
    assert response.status_code == 200
    record = await loop.api_get_final(ids["deploy_api"])
    assert record["decision"] == "allow"
    assert record["reason"] == "Approved in Slack by U0ADA (Ada Lovelace)"
    await loop.shows(ts, "Approved", "<@U0ADA>")


async def test_stats_count_outcomes_waits_and_expiry_by_rule(loop: Loop) -> None:
    await loop.use_policy(POLICY)
    ids = await _seed(loop)
    lapsing = await loop.create(toolName="read_file")
    ts = {tool: await loop.posted(interaction_id) for tool, interaction_id in ids.items()}
    await loop.posted(lapsing["id"])
    await loop.control.expire(lapsing["id"])
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts["deploy_api"], ActionId.APPROVE)
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts["read_file"], ActionId.APPROVE)
    denial = {"inputResponses": [{"requestId": ids["deploy_web"], "optionId": "deny"}]}
    assert (await loop.api_resolve(ids["deploy_web"], denial)).status_code == 200
    records = {i: await loop.api_get_final(i) for i in [*ids.values(), lapsing["id"]]}
    assert records[lapsing["id"]]["resolution"] == {"reason": "interaction_timeout"}

    async def all_ended() -> bool:
        for interaction_id in records:
            tracked = await loop.tracked(interaction_id)
            if tracked is None or tracked.is_open:
                return False
        return True

    await wait_until(all_ended, message="every interaction ended in the store")

    def wait_of(interaction_id: str) -> float:
        record = records[interaction_id]
        span = datetime.fromisoformat(record["resolvedAt"]) - datetime.fromisoformat(
            record["createdAt"]
        )
        return span.total_seconds()

    # two decided: nearest rank makes p50 the shorter wait and p90 the longer
    shorter, longer = sorted(wait_of(ids[t]) for t in ("deploy_api", "deploy_web"))

    shown = _words(await ask(loop, "U0ADA", "stats"))
    assert "Decisions in the last 24 hours" in shown
    assert "*All rules* — 4 ended\nApproved 2 · Denied 1 · Expired 1\n" in shown
    assert "Expiry rate 25%" in shown
    deploys = (
        "*deploys* — 2 ended\nApproved 1 · Denied 1\n"
        f"Time to decision: p50 {waited(shorter)} · p90 {waited(longer)} · Expiry rate 0%"
    )
    assert deploys in shown
    read_wait = waited(wait_of(ids["read_file"]))
    defaults = (
        "*defaults* — 2 ended\nApproved 1 · Expired 1\n"
        f"Time to decision: p50 {read_wait} · p90 {read_wait} · Expiry rate 50%"
    )
    assert defaults in shown
    assert shown.index("*defaults*") < shown.index("*deploys*")  # rules in name order

    assert "Decisions in the last 7 days" in _words(await ask(loop, "U0ADA", "stats 7d"))
    loop.clock.forward(timedelta(days=2))  # the bridge's clock: all of it is now 2 days old
    assert "Nothing ended in the last 24 hours." in _words(await ask(loop, "U0ADA", "stats 24h"))
    week = _words(await ask(loop, "U0ADA", "stats 7d"))
    assert "*All rules* — 4 ended" in week
    month = _words(await ask(loop, "U0ADA", "STATS 30D"))
    assert "Decisions in the last 30 days" in month and "*All rules* — 4 ended" in month


async def test_every_subcommand_over_socket_mode(loop: Loop) -> None:
    loop.slack.serve_socket()
    await loop.restart(slack_app_token=SecretStr(loop.slack.app_token))
    await wait_until(lambda: loop.slack.socket_connections >= 1, message="Socket Mode connected")
    assert loop.bridge.url is not None
    events = await loop.http.post(f"{loop.bridge.url}/slack/events", content=b"x")
    assert events.status_code == 404  # nothing comes over HTTP in Socket Mode
    created = await loop.create(toolName="deploy_api", agentId="agt_7f3")
    await loop.posted(created["id"])
    loop.slack.delay_method("users.info", 0.5)
    expected = {
        "": f"{COMMAND} pending [text]",
        "pending deploy": "1 request you can decide",
        f"show {created['id']}": "Deploy api",
        "stats": "Nothing ended in the last 24 hours.",
        "nonsense": "I don't know `nonsense`",
    }
    for typed, needle in expected.items():
        answer = await ask_over_socket(loop, "U0ADA", typed)
        assert needle in _words(answer), (typed, _words(answer))
    card = _answers(loop, "U0ADA")[2]
    assert ActionId.APPROVE in {
        e.get("action_id") for b in card.blocks for e in b.get("elements", [])
    }


ELSEWHERE = "C0ELSEWHERE"


async def _ask_in(loop: Loop, user: str, text: str, channel: str) -> StoredEphemeral:
    before = len(_answers(loop, user))
    response = await loop.driver.send_command(user, COMMAND, text, channel=channel)
    assert response.status_code == 200, response.text
    answers: list[StoredEphemeral] = await wait_until(
        lambda: _answers(loop, user)[before:], message=f"an answer in {channel}"
    )
    return answers[0]


def _now_shown(loop: Loop, card: StoredEphemeral) -> StoredEphemeral:
    """The ephemeral as Slack shows it now (a response_url may have replaced it)."""
    return next(e for e in loop.slack.ephemerals(card.user) if e.ts == card.ts)


async def test_a_card_shown_where_the_bot_is_not_is_told_and_replaced_through_its_click(
    loop: Loop,
) -> None:
    await loop.use_policy(POLICY)
    ids = await _seed(loop)
    ts = {tool: await loop.posted(ids[tool]) for tool in ("deploy_api", "deploy_web")}
    loop.slack.add_channel(ELSEWHERE, "elsewhere")
    loop.slack.remove_bot_from(ELSEWHERE)  # /novo works anywhere; the bot was never invited
    card = await _ask_in(loop, "U0ADA", f"show {ids['deploy_api']}", ELSEWHERE)
    late = await _ask_in(loop, "U0ADA", f"show {ids['deploy_web']}", ELSEWHERE)
    assert card.channel == late.channel == ELSEWHERE

    # decided outside Slack meanwhile: the click on the shown card is told so, beside it
    denial = {"inputResponses": [{"requestId": ids["deploy_web"], "optionId": "deny"}]}
    assert (await loop.api_resolve(ids["deploy_web"], denial)).status_code == 200
    await loop.shows(ts["deploy_web"], "outside Slack")
    await loop.driver.click_ephemeral_button(late, ActionId.APPROVE)
    told = await wait_until(
        lambda: [
            e
            for e in loop.slack.ephemerals("U0ADA")
            if e.channel == ELSEWHERE and e.ts not in (card.ts, late.ts)
        ],
        message="Ada told, in the channel she clicked in",
    )
    assert _words(told[0]) == "It was already denied outside Slack."
    replaced = _now_shown(loop, late)
    assert replaced.replaced == 1 and ActionId.APPROVE not in str(replaced.blocks)
    assert "outside Slack" in _words(replaced)

    # decided from the shown card: the card becomes what the channel message shows
    await loop.driver.click_ephemeral_button(card, ActionId.APPROVE)
    assert (await loop.api_get_final(ids["deploy_api"]))["decision"] == "allow"
    await loop.shows(ts["deploy_api"], "Approved", "<@U0ADA>")
    shown = await wait_until(
        lambda: (e := _now_shown(loop, card)).replaced and e, message="the card replaced"
    )
    assert ActionId.APPROVE not in str(shown.blocks)
    assert "Approved" in _words(shown)
    refused = [c for c in loop.slack.calls("chat.postEphemeral") if not c.ok]
    assert refused == []  # nothing was sent where Slack would refuse it


async def test_a_notice_slack_refuses_in_the_channel_goes_through_the_click(loop: Loop) -> None:
    await loop.use_policy(POLICY)
    ids = await _seed(loop)
    ts = await loop.posted(ids["deploy_api"])
    loop.slack.remove_bot_from(CHANNEL)  # the bot was removed after posting
    await loop.driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
    told = await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0GRACE") if e.via == "response_url"],
        message="Grace told through her click's response_url",
    )
    assert told[0].channel == CHANNEL
    assert [c.response["error"] for c in loop.slack.calls("chat.postEphemeral")] == [
        "not_in_channel"
    ]
    assert (await loop.api_get(ids["deploy_api"]))["status"] == "pending"
