"""`novo-slack policy advise`: figures per rule, tool and agent from the audit trail, and
the changes they call for: standing approval only for a tool never denied, a flag on a
rule whose interactions expire."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.policy.file import load_policy
from bot.store import Store

POLICY = """\
rules:
  - name: reads
    match: {agentId: "agt_*"}
    deciders: {users: [U0ADA]}
  - name: deploys
    match: {toolName: "deploy"}
"""


async def _ending(
    store: Store, event: str, rule: str, tool: str, decision: str | None, when: datetime
) -> None:
    facts = {
        "rule": rule,
        "kind": "approval_request",
        "tool": tool,
        "agent": "agt_ops",
        "created_at": (when - timedelta(minutes=2)).isoformat(),
    }
    if event == "expired":
        await store.audit("expired", when, interaction_id="int", status="cancelled", **facts)
        return
    answer = {"status": "resolved", "decision": decision}
    await store.audit(
        "resolved", when, interaction_id="int", actor_id="U0ADA", answer=answer, **facts
    )


async def _history(path: Path) -> None:
    now = datetime.now(UTC) - timedelta(hours=1)
    store = await Store.open(path)
    try:
        for _ in range(25):
            await _ending(store, "resolved", "reads", "read_file", "allow", now)
        for n in range(25):
            await _ending(store, "resolved", "reads", "list_dir", "deny" if n < 5 else "allow", now)
        for n in range(20):
            await _ending(
                store, "expired" if n < 6 else "resolved", "deploys", "deploy", "allow", now
            )
        for n in range(40):  # 97.5% approved, but denied once: never a standing approval
            await _ending(
                store, "resolved", "reads", "stat_file", "deny" if n == 0 else "allow", now
            )
        # outside the window: a denial of read_file 40 days ago does not count
        await _ending(store, "resolved", "reads", "read_file", "deny", now - timedelta(days=40))
    finally:
        await store.close()


@pytest.fixture
def advised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    policy = tmp_path / "policy.yml"
    policy.write_text(POLICY)
    monkeypatch.setenv("NOVO_SLACK_DB", str(tmp_path / "store.db"))
    monkeypatch.setenv("NOVO_SLACK_CONFIG", str(policy))
    return tmp_path


async def test_standing_for_the_tool_never_denied_only_and_the_expiring_rule_flagged(
    advised: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _history(advised / "store.db")
    assert await _run(["policy", "advise", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    proposals = report["proposals"]
    assert [(p["kind"], p["rule"], p["tool"]) for p in proposals] == [
        ("allow_standing", "reads", "read_file"),
        ("expiries", "deploys", None),
    ]
    standing, expiring = proposals
    assert standing["figures"] == {"approved": 25, "denied": 0, "total": 25, "share": 1.0}
    assert expiring["figures"] == {"expired": 6, "total": 20, "share": 0.3}
    # the snippet is a rule of its own for that tool, which the policy file accepts
    snippet = yaml.safe_load(standing["snippet"])
    [rule] = snippet["rules"]
    assert rule["match"] == {"agentId": "agt_*", "toolName": "read_file"}
    assert rule["allow_standing"] == {"max": "4h", "scopes": ["run", "tool"]}
    merged = advised / "merged.yml"
    merged.write_text(yaml.safe_dump({"rules": [rule, *yaml.safe_load(POLICY)["rules"]]}))
    assert load_policy(merged).rules[0].allow_standing is not None
    by_tool = {(g["rule"], g["tool"]): g for g in report["groups"]}
    assert by_tool[("reads", "list_dir")]["denied"] == 5
    assert (
        by_tool[("reads", "stat_file")]["approved"],
        by_tool[("reads", "stat_file")]["denied"],
    ) == (39, 1)
    assert by_tool[("reads", "read_file")]["median_seconds_to_decide"] == 120.0
    assert by_tool[("reads", "read_file")]["deciders"] == {"U0ADA": 25}


async def test_the_text_report_and_a_rule_that_already_allows_standing(
    advised: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _history(advised / "store.db")
    (advised / "policy.yml").write_text(
        POLICY.replace("deciders: {users: [U0ADA]}", "allow_standing: {max: 1h}")
    )
    assert await _run(["policy", "advise"]) == 0
    out = capsys.readouterr().out
    assert "reads · read_file · agt_ops: 25 approved, median 2 min to decide, by U0ADA (25)" in out
    assert "allow standing" not in out  # the rule already offers it
    assert 'rule "deploys": 6 of 20 interactions (30%) expired unanswered in 30 days' in out


async def test_bad_days_are_refused(advised: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert await _run(["policy", "advise", "--days", "0"]) == 2
    assert "--days must be 1 or more" in capsys.readouterr().err


async def _run(argv: list[str]) -> int:
    """The command runs its own event loop: off this test's loop, in a thread."""
    import asyncio

    return await asyncio.to_thread(main, argv)
