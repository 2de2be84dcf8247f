"""SIGHUP reloads the policy file in a running `novo-slack run`.

A valid new file applies to what happens next, interactions already posted
included (who may decide follows the file); a file with a mistake is refused
with one line and the policy in force stays.
"""

from __future__ import annotations

import signal
from pathlib import Path

from bot.slack.ids import ActionId
from novo_dev.localslack.driver import SlackDriver
from tests.lifecycle.conftest import CHANNEL, SIGNING_SECRET, World
from tests.lifecycle.test_click_durability import _create, _record, _ts_of
from tests.support import wait_until

ONLY = "rules:\n  - name: guarded\n    match: {{}}\n    deciders: {{users: [{user}]}}\n"


async def test_sighup_swaps_in_a_valid_file_and_keeps_the_old_one_on_a_mistake(
    world: World, tmp_path: Path
) -> None:
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    world.slack.add_user("U0GRACE", "grace", "Grace Hopper")
    policy = tmp_path / "policy.yml"
    policy.write_text(ONLY.format(user="U0ADA"), encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    url = await bridge.url()
    await bridge.saw("bridge started")
    first, second = await _create(world), await _create(world)
    ts = {
        i: await wait_until(lambda i=i: _ts_of(world, i), message=f"{i} posted")
        for i in (first, second)
    }

    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        await driver.click_message_button("U0GRACE", CHANNEL, ts[first], ActionId.APPROVE)
        await wait_until(
            lambda: world.slack.ephemerals("U0GRACE"), message="Grace told she may not decide"
        )
        assert (await _record(world, first))["status"] == "pending"

        policy.write_text(ONLY.format(user="U0GRACE"), encoding="utf-8")
        bridge.process.send_signal(signal.SIGHUP)
        await bridge.saw(r"policy reloaded from .*policy\.yml: 1 rule\(s\)")
        await driver.click_message_button("U0GRACE", CHANNEL, ts[first], ActionId.APPROVE)
        await wait_until(lambda: _decided(world, first), message="Grace's approval reached Novo")

        policy.write_text("rules:\n  - name: broken\n    quorum: zero\n", encoding="utf-8")
        bridge.process.send_signal(signal.SIGHUP)
        await bridge.saw(
            r"policy not reloaded, the one in force stays: policy\.yml: rule 1 \(broken\): quorum"
        )
        refused = await driver.click_message_button("U0ADA", CHANNEL, ts[second], ActionId.APPROVE)
        assert refused.status_code == 200, refused.text
        await wait_until(lambda: len(world.slack.ephemerals("U0ADA")) >= 1, message="Ada refused")
        await driver.click_message_button("U0GRACE", CHANNEL, ts[second], ActionId.APPROVE)
        await wait_until(lambda: _decided(world, second), message="second approved by Grace")
    assert bridge.process.returncode is None
    await bridge.kill()


async def _decided(world: World, interaction_id: str) -> bool:
    record = await _record(world, interaction_id)
    return bool(record["status"] == "resolved" and "U0GRACE" in str(record["reason"]))


async def test_sighup_onto_a_policy_nested_thousands_deep_is_one_line(
    world: World, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(ONLY.format(user="U0ADA"), encoding="utf-8")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(policy))
    await bridge.saw("bridge started")
    policy.write_text("rules: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    bridge.process.send_signal(signal.SIGHUP)
    await bridge.saw(
        r"policy not reloaded, the one in force stays: policy\.yml: nested deeper than 32 levels"
    )
    assert "Exception in callback" not in bridge.stderr
    assert "RecursionError" not in bridge.stderr


def _configmap_swap(folder: Path, generation: str, text: str) -> None:
    """Update a mounted ConfigMap as the kubelet does: a new folder, then `..data` renamed."""
    fresh = folder / f"..{generation}"
    fresh.mkdir()
    (fresh / "policy.yml").write_text(text, encoding="utf-8")
    link = folder / "..data_tmp"
    link.symlink_to(fresh.name)
    link.rename(folder / "..data")


async def test_a_configmap_update_is_reloaded_without_a_signal(
    world: World, tmp_path: Path
) -> None:
    world.slack.add_user("U0ADA", "ada", "Ada Lovelace")
    world.slack.add_user("U0GRACE", "grace", "Grace Hopper")
    mounted = tmp_path / "policy"
    mounted.mkdir()
    _configmap_swap(mounted, "gen1", ONLY.format(user="U0ADA"))
    (mounted / "policy.yml").symlink_to("..data/policy.yml")
    bridge = await world.run(NOVO_SLACK_CONFIG=str(mounted / "policy.yml"))
    url = await bridge.url()
    await bridge.saw("bridge started")
    interaction = await _create(world)
    ts = await wait_until(lambda: _ts_of(world, interaction), message="posted")

    async with SlackDriver(url, SIGNING_SECRET, world.slack) as driver:
        _configmap_swap(mounted, "gen2", "rules:\n  - name: broken\n    quorum: zero\n")
        refused = r"policy not reloaded, the one in force stays: .*rule 1 \(broken\): quorum"
        await bridge.saw(refused)
        _configmap_swap(mounted, "gen3", ONLY.format(user="U0GRACE"))
        await bridge.saw(r"policy reloaded from .*policy\.yml: 1 rule\(s\)")
        await driver.click_message_button("U0GRACE", CHANNEL, ts, ActionId.APPROVE)
        await wait_until(lambda: _decided(world, interaction), message="Grace's approval")
    refusals = [line for line in bridge.lines if "policy not reloaded" in line]
    assert len(refusals) == 1, refusals  # a refused file is not read again every poll
    assert bridge.process.returncode is None
    await bridge.kill()
