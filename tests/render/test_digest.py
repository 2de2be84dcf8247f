"""The digest message: what it says, and that Slack takes it whatever the volume."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.novo.models import Interaction
from bot.slack.limits import MESSAGE_BLOCKS, MESSAGE_TEXT_BUDGET, SECTION_TEXT
from bot.slack.render.context import Nudge
from bot.slack.render.digest import (
    CONTEXT_BLOCK_ID,
    DECIDED_BLOCK_ID,
    EXPIRED_BLOCK_ID,
    PENDING_BLOCK_ID,
    SHOWN_ITEMS,
    TRAIL_BLOCK_ID,
    WAITERS_BLOCK_ID,
    Asked,
    DigestFacts,
    DigestItem,
    RuleFigures,
    Waiter,
    render_digest,
)
from novo_dev.localslack.validation import assert_valid_message, text_length

from .conftest import NOW, approval_fields
from .helpers import BARE_BROADCAST, all_text, block, block_ids

LINK = "https://acme.slack.com/archives/C0APPROVALS/p1700000000000100"


def _approval(number: int, **overrides: Any) -> Interaction:
    return Interaction.model_validate(approval_fields(id=f"int_{number}", **overrides))


def _expired(number: int, **overrides: Any) -> Interaction:
    fields = {
        "status": "cancelled",
        "reason": "timeout",
        "created_at": NOW - timedelta(hours=3),
        "expires_at": NOW - timedelta(hours=2, minutes=45),
        **overrides,
    }
    return _approval(number, **fields)


def _facts(**overrides: Any) -> DigestFacts:
    fields: dict[str, Any] = {
        "digest": "digest-0123",
        "scheduled_for": NOW,
        "now": NOW,
        "since": NOW - timedelta(days=1),
        "agent_names": {"agt_deployer": "Release bot"},
        **overrides,
    }
    return DigestFacts(**fields)


def _text(message: Any, block_id: str) -> str:
    found = block(message, block_id)
    if found["type"] == "context":
        return str(found["elements"][0]["text"])
    return str(found["text"]["text"])


def test_a_day_in_one_message() -> None:
    asked = Asked(
        "C0APPROVALS",
        anyone=False,
        users=("U0ADA",),
        groups=("S0SRE",),
        nudges=(
            Nudge("remind", NOW - timedelta(hours=2, minutes=50)),
            Nudge("escalate", NOW - timedelta(hours=2, minutes=48), ("C0MANAGERS",)),
        ),
    )
    facts = _facts(
        figures=[
            RuleFigures("defaults", {"answered": 2}, 40, 95),
            RuleFigures("prod-deploys", {"approved": 3, "denied": 1, "expired": 1}, 240, 720),
        ],
        expired=[DigestItem(_expired(1), asked=asked, link=LINK)],
        pending=[
            DigestItem(
                _approval(
                    2,
                    created_at=NOW - timedelta(hours=2),
                    expires_at=NOW + timedelta(minutes=25),
                ),
                link=LINK.replace("100", "200"),
            ),
            DigestItem(
                _approval(
                    3,
                    agent_id="agt_other",
                    created_at=NOW - timedelta(minutes=20),
                    expires_at=NOW + timedelta(hours=5),
                )
            ),
        ],
        waiters=[
            Waiter("agt_deployer", "deploy_service", 7200, 4, 1),
            Waiter("agt_other", "ask_user", 1200, 1, 1),
        ],
    )
    message = render_digest(facts)
    assert_valid_message(message)
    assert message["text"] == "📋 Novo digest: 6 decided, 1 expired, 2 pending now"
    assert message["metadata"] == {
        "event_type": "novo_digest",
        "event_payload": {"digest": "digest-0123", "scheduled_for": NOW.isoformat()},
    }
    assert block_ids(message) == [
        "novo_digest_header",
        CONTEXT_BLOCK_ID,
        DECIDED_BLOCK_ID,
        EXPIRED_BLOCK_ID,
        PENDING_BLOCK_ID,
        WAITERS_BLOCK_ID,
    ]
    assert _text(message, CONTEXT_BLOCK_ID).startswith("Since <!date^")
    assert _text(message, DECIDED_BLOCK_ID) == (
        "*Decided: 6* — 3 approved, 1 denied, 2 answered\nBy rule:\n"
        "• `defaults`: 2 answered · time to decision: median 40 s, p90 1 min\n"
        "• `prod-deploys`: 3 approved, 1 denied, 1 expired"
        " · time to decision: median 4 min, p90 12 min"
    )
    expired = _text(message, EXPIRED_BLOCK_ID)
    assert expired.startswith("*Expired: 1*\n• *Deploy service* from Release bot — expired <!date^")
    assert "after 15 min; asked in <#C0APPROVALS> (<@U0ADA> or members of <!subteam^S0SRE>)" in (
        expired
    )
    assert "; reminded <!date^" in expired and "; escalated to <#C0MANAGERS> <!date^" in expired
    assert expired.endswith(f" · <{LINK}|Open>")
    pending = _text(message, PENDING_BLOCK_ID).split("\n")
    assert pending[0] == "*Pending now: 2* (1 expiring within the hour), oldest first"
    assert pending[1].startswith("• *Deploy service* from Release bot — waiting 2 h, ⏳ *expires")
    assert "(in 25 min)*" in pending[1] and pending[1].endswith("|Open>")
    assert pending[2].startswith("• *Deploy service* from `agt_other` — waiting 20 min, expires")
    assert "⏳" not in pending[2] and "Open" not in pending[2]
    assert _text(message, WAITERS_BLOCK_ID) == (
        "*Waited longest*\n"
        "• Release bot · `deploy_service`: 2 h at most (4 asked, 1 still waiting)\n"
        "• `agt_other` · `ask_user`: 20 min at most (1 asked, 1 still waiting)"
    )


def test_a_quiet_day() -> None:
    message = render_digest(_facts(rules=("prod-deploys",)))
    assert_valid_message(message)
    assert message["text"] == "📋 Novo digest: 0 decided, 0 expired, 0 pending now"
    assert _text(message, CONTEXT_BLOCK_ID).endswith(" · rules `prod-deploys`")
    assert _text(message, DECIDED_BLOCK_ID) == "*Decided: 0* — nothing ended since then."
    assert _text(message, EXPIRED_BLOCK_ID) == "*Expired: 0*"
    assert _text(message, PENDING_BLOCK_ID) == "*Pending now: 0* — nothing is waiting."
    assert WAITERS_BLOCK_ID not in block_ids(message)


def test_a_digest_naming_no_rules_says_it_covers_every_rule() -> None:
    message = render_digest(_facts(rules=None))
    assert _text(message, CONTEXT_BLOCK_ID).endswith(" · every rule (the digest names none)")
    assert "rules `" not in _text(message, CONTEXT_BLOCK_ID)


def test_who_was_asked_when_anyone_could_decide_and_nobody_was_nudged() -> None:
    item = DigestItem(_expired(1), asked=Asked("U0ADA"))
    expired = _text(render_digest(_facts(expired=[item])), EXPIRED_BLOCK_ID)
    assert "; asked in <@U0ADA>; nobody was reminded" in expired


def test_thousands_of_items_fit_with_and_n_more() -> None:
    hostile = "&<>*_~` <!channel> @here " * 40
    expired = [
        DigestItem(
            _expired(n, preview={"Title": hostile}, agent_id=f"agt_{n}"),
            asked=Asked(
                "C0APPROVALS",
                anyone=False,
                users=tuple(f"U{n:07d}" for n in range(40)),
                groups=tuple(f"S{n:07d}" for n in range(10)),
                nudges=tuple(Nudge("remind", NOW - timedelta(minutes=m)) for m in range(30)),
            ),
            link=LINK,
        )
        for n in range(3_000)
    ]
    pending = [
        DigestItem(_approval(n, preview={"Title": hostile}), link=LINK) for n in range(3_000, 7_000)
    ]
    figures = [
        RuleFigures(f"rule-{n}-" + "x" * 70, {"approved": n, "expired": 1, "weird": 2}, 1.0, 2.0)
        for n in range(400)
    ]
    waiters = [Waiter(f"agt_{n}", hostile, float(n), n, 1) for n in range(2_000)]
    facts = _facts(
        figures=figures,
        expired=expired,
        pending=pending,
        waiters=waiters,
        rules=tuple(f"rule-{n}" for n in range(400)),
        agent_names={f"agt_{n}": hostile for n in range(3_000)},
    )
    message = render_digest(facts)
    assert_valid_message(message)
    assert len(message["blocks"]) <= MESSAGE_BLOCKS
    assert text_length(message["blocks"]) <= MESSAGE_TEXT_BUDGET
    for block_id in (DECIDED_BLOCK_ID, EXPIRED_BLOCK_ID, PENDING_BLOCK_ID, WAITERS_BLOCK_ID):
        text = _text(message, block_id)
        assert len(text) <= SECTION_TEXT
        assert "\n…and " in text and text.endswith(" more")
    shown_expired = _text(message, EXPIRED_BLOCK_ID).count("\n• ")
    assert 1 <= shown_expired <= SHOWN_ITEMS
    assert _text(message, EXPIRED_BLOCK_ID).endswith(f"…and {3_000 - shown_expired} more")
    shown_pending = _text(message, PENDING_BLOCK_ID).count("\n• ")
    assert _text(message, PENDING_BLOCK_ID).endswith(f"…and {4_000 - shown_pending} more")
    assert message["text"] == "📋 Novo digest: 79800 decided, 3000 expired, 4000 pending now"
    # nothing the agents wrote can ping anyone or break out of its formatting
    text = all_text(message)
    assert "<!channel>" not in text and BARE_BROADCAST.search(text) is None
    assert "<@U0000040>" not in text  # the 41st decider is counted, not named
    assert "5 more" in _text(message, EXPIRED_BLOCK_ID)


def test_an_item_link_that_is_not_a_plain_url_is_left_out() -> None:
    item = DigestItem(_approval(1), link="https://x.slack.com/a|<!channel>")
    pending = _text(render_digest(_facts(pending=[item])), PENDING_BLOCK_ID)
    assert "Open" not in pending and "<!channel>" not in pending


def test_the_advice_and_the_trail_head_close_the_digest() -> None:
    """The advice names tools (the agent's text): escaped, so it can ping nobody."""
    advice = 'read_file <!channel> under rule "reads": approved 25 of 25 times'
    message = render_digest(_facts(advice=advice, trail_head=(12_408, "3f" * 32)))
    assert_valid_message(message)
    assert block_ids(message)[-1] == TRAIL_BLOCK_ID
    text = _text(message, TRAIL_BLOCK_ID)
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text
    assert "`novo-slack policy advise` has the figures" in text
    assert text.endswith(f"Audit trail head: event #12408, `{'3f' * 32}`")
    assert TRAIL_BLOCK_ID not in block_ids(render_digest(_facts()))
