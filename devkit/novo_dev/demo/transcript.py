"""Prints what the demo's channel shows and what Novo receives, as it happens."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import httpx

from bot.slack.render.common import cut_words
from novo_dev.localslack.server import LocalSlack

LINE_CHARS = 118
FOLLOW_INTERVAL = 0.25
_MENTION = re.compile(r"<@(U[A-Z0-9]+)>")
_DATE = re.compile(r"<!date\^\d+\^[^|>]*\|([^>]*)>")
_GROUP = re.compile(r"<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|[^>]*)?>")


class Transcript:
    def __init__(
        self,
        slack: LocalSlack,
        sim_url: str,
        api_key: str,
        http: httpx.AsyncClient,
        channel: str,
        started: float,
    ) -> None:
        self._slack = slack
        self._sim_url = sim_url
        self._auth = {"Authorization": f"Bearer {api_key}"}
        self._http = http
        self._channel = channel
        self._started = started
        self._seen_calls = 0
        self._seen_requests = 0

    def say(self, text: str) -> None:
        elapsed = time.monotonic() - self._started
        print(f"[{int(elapsed // 60):02d}:{int(elapsed % 60):02d}] {text}", flush=True)

    def banner(self, sim_url: str, slack_url: str, bridge_url: str) -> None:
        print(
            "novo-slack demo: a Novo simulator creates approvals and questions, the bridge posts\n"
            "them to a local Slack as its policy says (#agent-approvals, Grace's DMs, #managers),\n"
            "and scripted people click through them.\n"
            f"  Novo simulator  {sim_url}   (try: curl {sim_url}/_sim/log)\n"
            f"  local Slack     {slack_url}"
            f"  (try: curl '{slack_url}/_test/messages?channel={self._channel}')\n"
            f"  bridge          {bridge_url}/slack/events\n"
            "Ctrl-C to stop.\n",
            flush=True,
        )

    def _readable(self, text: str) -> str:
        """One line as a person reads it: mentions as @names, dates as written, whole words."""

        def name(match: re.Match[str]) -> str:
            user = self._slack.user(match.group(1))
            return "@" + (user.display_name if user else match.group(1))

        def group(match: re.Match[str]) -> str:
            try:
                return "@" + self._slack.usergroup(match.group(1)).handle
            except KeyError:
                return "@" + match.group(1)

        text = _DATE.sub(lambda m: m.group(1), _MENTION.sub(name, text))
        text = _GROUP.sub(group, text)
        text = _CHANNEL.sub(lambda m: self._where(m.group(1)), text)
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        return cut_words(" ".join(text.split()), LINE_CHARS)

    def _who(self, user_id: str) -> str:
        user = self._slack.user(user_id)
        return user.display_name if user else user_id

    async def follow(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self._print_new_calls()
            await self._print_new_resolves()
            await asyncio.sleep(FOLLOW_INTERVAL)

    def _print_new_calls(self) -> None:
        calls = self._slack.calls()
        for call in calls[self._seen_calls :]:
            self._print_call(call.method, call.args, call.response)
        self._seen_calls = len(calls)

    def _where(self, channel: object) -> str:
        """`#agent-approvals`, or `DM @Grace Hopper` for a person's DM with the bot."""
        if not isinstance(channel, str) or not channel:
            return "#?"
        if channel.startswith(("U", "W", "D")):
            return f"DM @{self._who('U' + channel[1:] if channel[0] == 'D' else channel)}"
        try:
            return f"#{self._slack.channel_name(channel)}"
        except KeyError:  # a name is only a nicety in a transcript line
            return channel

    def _print_call(self, method: str, args: dict[str, Any], response: dict[str, Any]) -> None:
        channel = self._where(args.get("channel"))
        if not response.get("ok"):
            self.say(f"{method} refused by Slack: {response.get('error')}")
        elif method == "chat.postMessage":
            metadata = args.get("metadata") or {}
            payload = metadata.get("event_payload") if isinstance(metadata, dict) else None
            shown = payload.get("interaction_id") if isinstance(payload, dict) else None
            text = self._readable(str(args.get("text", "")))
            thread = " (in the thread)" if args.get("thread_ts") else ""
            self.say(f"{channel} NEW   {text}{thread}" + (f" · {shown}" if shown else ""))
        elif method == "chat.update":
            self.say(f"{channel} EDIT  {self._readable(str(args.get('text', '')))}")
        elif method == "chat.postEphemeral":
            who = self._who(str(args.get("user", "")))
            self.say(f"{channel} (only {who} sees) {self._readable(str(args.get('text', '')))}")
        elif method in ("views.open", "views.update", "views.push"):
            view = args.get("view") or {}
            if isinstance(view, dict):
                title = (view.get("title") or {}).get("text", "")
                self.say(f"modal {method.split('.')[1]:6} “{title}”")

    async def _print_resolution(self, interaction_id: str) -> None:
        """What Novo recorded, so the reader sees each answer's exact shape."""
        response = await self._http.get(
            f"{self._sim_url}/v1/interactions/{interaction_id}", headers=self._auth
        )
        if response.status_code != 200:
            return
        record = response.json()
        resolution = record.get("resolution") or {}
        for entry in resolution.get("inputResponses") or []:
            answer = {k: v for k, v in entry.items() if k != "requestId"} or "(action chosen)"
            self.say(f"        {entry.get('requestId')}: {self._readable(str(answer))}")
        if resolution.get("cancel"):
            self.say("        cancel: true")
        if resolution.get("reason"):
            self.say(f"        reason: {self._readable(str(resolution['reason']))}")

    async def _print_new_resolves(self) -> None:
        try:
            response = await self._http.get(f"{self._sim_url}/_sim/log")
        except httpx.HTTPError:
            return
        requests = response.json().get("requests", [])
        for entry in requests[self._seen_requests :]:
            if entry["method"] == "POST" and entry["path"].endswith("/resolve"):
                target = entry["path"].split("/")[3]
                self.say(f"Novo  ← resolve {target} → HTTP {entry['status']}")
                if entry["status"] == 200:
                    await self._print_resolution(target)
        self._seen_requests = len(requests)
