"""`novo-slack policy check|explain`: the reading, fetching and asking behind the output.

Both commands exist so an operator can see what a policy file will do
before the bridge acts on it. `check` needs nothing but the file. `explain`
needs an interaction (a JSON record from `--file`, or fetched from Novo by
`--id`) and looks user groups up in Slack when it has a bot token; a lookup
that fails is reported in the output instead of ending the command, since
the rest of the answer still holds. What is printed is `bot.policy.explain`'s.

Mistakes in what the operator gave (the policy, the interaction file, the
settings) raise `SettingsError` (exit 2); Novo missing the interaction or out
of reach raises `StartupFailure` (exit 1): the CLI prints either as one line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError
from slack_sdk.errors import SlackClientError

from bot.bridge.startup import StartupFailure
from bot.config import Settings, SettingsError, load_settings_for
from bot.novo.client import NovoClient
from bot.novo.errors import (
    InteractionNotFoundError,
    NovoConnectionError,
    NovoError,
    UnauthorizedError,
)
from bot.novo.models import Interaction
from bot.policy.explain import (
    UNREAD_CHANNEL,
    GroupMembers,
    StandingFacts,
    check_summary,
    check_warnings,
    explain_lines,
)
from bot.policy.file import PolicyError, PolicyFile, load_policy
from bot.policy.routes import condition_values, explain, route_for
from bot.slack.answers import NOT_JSON
from bot.slack.directory import DirectoryUnavailable, SlackDirectory
from bot.slack.gateway import build_web_client
from bot.store import Store, StoreOpenError

NOVO_TIMEOUT_SECONDS = 10.0
NOVO_RETRIES = 0  # an operator is waiting: say what happened in one line, no retry lines

# What Slack's answer to usergroups.users.list means for the person reading the output.
_SLACK_ERRORS = {
    "missing_scope": "the bot token lacks the usergroups:read scope",
    "no_such_subteam": "Slack knows no such user group",
    "invalid_auth": "Slack refused SLACK_BOT_TOKEN",
    "not_authed": "Slack refused SLACK_BOT_TOKEN",
    "token_revoked": "SLACK_BOT_TOKEN was revoked",
    "account_inactive": "SLACK_BOT_TOKEN was revoked",
}


def check_policy(path: Path) -> int:
    """Validate the file alone (no settings, no network) and print one line about it."""
    try:
        policy = load_policy(path)
    except PolicyError as exc:
        raise SettingsError(str(exc)) from None
    print(check_summary(str(path), policy))
    for warning in check_warnings(policy):
        print(warning)
    return 0


async def explain_policy(
    *, interaction_id: str | None, interaction_file: Path | None, policy_path: Path | None
) -> int:
    """Print which rule applies to one interaction and what it means.

    The settings are needed to fetch by id and to find the policy when
    `--policy` is not given; otherwise they are only used if they can be read
    (the bridge's channel, the Slack token for user groups).
    """
    settings = _settings(fetching=interaction_id is not None)
    policy, source = _policy(policy_path, settings)
    if interaction_id is not None:
        interaction = await _fetch(interaction_id, settings)
    else:
        assert interaction_file is not None
        interaction = _read(interaction_file)
    bridge_channel: str | None = settings.default_channel
    route = route_for(policy, interaction, bridge_channel or UNREAD_CHANNEL)
    groups = [] if route.deciders.anyone else route.deciders.groups
    members = await _members(groups, settings)
    lines = explain_lines(
        interaction,
        explain(policy, interaction),
        route,
        {group.group_id: group for group in members},
        source=source,
        bridge_channel=bridge_channel,
        agents=policy.agents,
        allowances=await _allowances(settings) if route.standing is not None else None,
        conditions=condition_values(policy, interaction),
    )
    print("\n".join(lines))
    return 0


async def _allowances(settings: Settings) -> StandingFacts:
    """The standing approvals the bridge's store holds, read beside a running bridge (no
    lock, no migration); why not, when it can't be read."""
    now = datetime.now(UTC)
    if settings.db_path is None:
        return StandingFacts(now, problem="NOVO_SLACK_DB can't be read")
    try:
        store = await Store.open_reader(settings.db_path)
    except StoreOpenError as exc:
        return StandingFacts(now, problem=str(exc))
    try:
        return StandingFacts(now, await store.open_allowances())
    finally:
        await store.close()


# Read when they can be, each on its own: the policy file, the bridge's channel (where
# unrouted interactions go), and the Slack token that lists user groups.
_OPTIONAL = (
    "NOVO_SLACK_CONFIG",
    "NOVO_SLACK_CHANNEL",
    "SLACK_BOT_TOKEN",
    "SLACK_API_URL",
    "NOVO_SLACK_DB",  # the store, read for the standing approvals in force
)
_TO_FETCH = frozenset({"NOVO_API_URL", "NOVO_API_KEY"})


def _settings(*, fetching: bool) -> Settings:
    """Only what explaining uses: Novo's URL and key to fetch by id (required then), and
    each optional setting that can be read; one that can't is left out, not an error."""
    required = _TO_FETCH if fetching else frozenset()
    settings = load_settings_for(required)
    readable = set(required)
    for name in _OPTIONAL:
        try:
            load_settings_for(required | {name})
        except SettingsError:
            continue
        readable.add(name)
    return load_settings_for(readable) if readable != required else settings


def _policy(path: Path | None, settings: Settings) -> tuple[PolicyFile, str | None]:
    """The policy and how to name it; None as its name when there is no file at all."""
    if path is not None:
        try:
            return load_policy(path), str(path)
        except PolicyError as exc:
            raise SettingsError(str(exc)) from None
    if settings.config_path is None:
        return PolicyFile(), None
    try:
        return load_policy(settings.config_path), str(settings.config_path)
    except PolicyError as exc:
        raise SettingsError(f"NOVO_SLACK_CONFIG: {exc}") from None


def _read(path: Path) -> Interaction:
    """An interaction record as the API returns it, from a JSON file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"{path}: can't be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise SettingsError(f"{path}: not JSON ({exc})") from None
    try:
        return Interaction.from_wire(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        problem = f"{where}: {first['msg']}" if where else str(first["msg"])
        raise SettingsError(
            f"{path}: not an interaction record as Novo sends it ({problem})"
        ) from None


async def _fetch(interaction_id: str, settings: Settings) -> Interaction:
    url = settings.novo_api_url
    key = settings.novo_api_key.get_secret_value()
    async with NovoClient(url, key, timeout=NOVO_TIMEOUT_SECONDS, max_retries=NOVO_RETRIES) as novo:
        try:
            return await novo.get(interaction_id)
        except InteractionNotFoundError:
            raise StartupFailure(
                f"Novo at {url} has no interaction {interaction_id} (404)"
            ) from None
        except UnauthorizedError as exc:
            raise SettingsError(f"NOVO_API_KEY was refused by Novo at {url} ({exc})") from None
        except NovoConnectionError as exc:
            raise StartupFailure(f"Novo at {url} did not answer ({exc})") from None
        except NovoError as exc:
            raise StartupFailure(f"Novo at {url} could not give {interaction_id}: {exc}") from None


async def _members(groups: Sequence[str], settings: Settings) -> list[GroupMembers]:
    """Each group's members as Slack lists them now, or why they couldn't be listed."""
    if not groups:
        return []
    if settings.slack_bot_token is None:
        why = "SLACK_BOT_TOKEN is not set (or not valid), so Slack can't be asked"
        return [GroupMembers(group, problem=why) for group in groups]
    client = build_web_client(settings.slack_bot_token.get_secret_value(), settings.slack_api_url)
    directory = SlackDirectory(client)
    where = settings.slack_api_url or "slack.com"
    return list(await asyncio.gather(*(_listed(directory, group, where) for group in groups)))


async def _listed(directory: SlackDirectory, group: str, where: str) -> GroupMembers:
    try:
        members = await directory.members(group)
    except DirectoryUnavailable as exc:
        error = str(exc).removeprefix(f"{group}: ")
        if error == "no answer":
            return GroupMembers(group, problem=f"Slack did not answer ({where})")
        if error.startswith("HTTP ") or error == NOT_JSON:
            return GroupMembers(
                group, problem=f"SLACK_API_URL does not answer like Slack's Web API ({error})"
            )
        meaning = _SLACK_ERRORS.get(error)
        problem = f"{meaning} ({error})" if meaning else f"Slack answered {error}"
        return GroupMembers(group, problem=problem)
    except SlackClientError as exc:
        return GroupMembers(group, problem=f"Slack could not be asked ({type(exc).__name__})")
    return GroupMembers(group, members=tuple(sorted(members)))
