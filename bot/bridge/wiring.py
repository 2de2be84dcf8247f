"""The bridge's services, built once and handed to listeners through Bolt's context."""

from __future__ import annotations

from dataclasses import dataclass

from bot.bridge.presenter import Presenter
from bot.clock import Clock
from bot.messages.lanes import SendLanes
from bot.messages.publisher import MessagePublisher
from bot.novo.client import NovoClient
from bot.policy.live import LivePolicy
from bot.services.allowances import AllowanceService
from bot.services.approvals import ApprovalService
from bot.services.commands import CommandService
from bot.services.deciders import DeciderGate
from bot.services.deciding import DecisionPath
from bot.services.decisions import DecisionService
from bot.services.digest import DigestService
from bot.services.forms import FormService
from bot.services.groups import GroupService
from bot.services.heavy import HeavyWork
from bot.services.home import HomeService
from bot.services.questions import QuestionService
from bot.services.reminders import ReminderService
from bot.services.sent_replies import SentReplyService
from bot.services.snoozes import SnoozeService
from bot.services.thread_replies import ThreadReplyService, reply_marker
from bot.services.type_ahead import TypeAheadService
from bot.services.visibility import Visibility
from bot.slack.directory import SlackDirectory
from bot.slack.gateway import SlackGateway
from bot.slack.links import MessageLinks
from bot.store import Store
from bot.sync.engine import SyncEngine
from bot.sync.routing import ChannelRouter


@dataclass
class Services:
    store: Store
    novo: NovoClient
    slack: SlackGateway
    publisher: MessagePublisher
    decisions: DecisionService
    approvals: ApprovalService
    allowances: AllowanceService
    groups: GroupService
    questions: QuestionService
    thread_replies: ThreadReplyService
    sent_replies: SentReplyService
    forms: FormService
    presenter: Presenter
    engine: SyncEngine
    reminders: ReminderService
    snoozes: SnoozeService
    digests: DigestService
    links: MessageLinks
    commands: CommandService
    home: HomeService
    type_ahead: TypeAheadService
    heavy: HeavyWork
    clock: Clock

    @classmethod
    def build(
        cls,
        *,
        store: Store,
        novo: NovoClient,
        slack: SlackGateway,
        default_channel: str,
        clock: Clock,
        redelivery_base: float = 1.0,
        post_rate: float = 1.0,
        update_rate: float = 50.0,
        policy: LivePolicy | None = None,
        home_team: str | None = None,
        team_url: str | None = None,
    ) -> Services:
        """`home_team`: this app's workspace (auth.test); clickers from others are refused
        unless the policy allows guests. `team_url`: its address (auth.test), from which
        links to messages are built without asking Slack."""
        policy = policy or LivePolicy(default_channel)
        store.show_with(policy.shown)  # every record read to be shown has its secrets masked
        directory = SlackDirectory(slack.client)
        gate = DeciderGate(policy, directory, home_team, store=store, clock=clock)
        visibility = Visibility(gate, directory, home_team, policy)  # lists: who sees what
        lanes = SendLanes(post_rate=post_rate, update_rate_per_minute=update_rate)
        links = MessageLinks(slack, team_url)
        heavy = HeavyWork()  # type-ahead and Home renders take turns; clicks never wait
        publisher = MessagePublisher(store, slack, clock, lanes, policy)
        decisions = DecisionService(
            store,
            novo,
            publisher,
            clock,
            names=slack.display_name,
            mark_reply=reply_marker(slack),
            gate=gate,
            redelivery_base=redelivery_base,
        )
        path = DecisionPath(store, decisions, gate, publisher, clock)  # every way of deciding
        allowances = AllowanceService(store, path, gate, publisher, slack, policy, clock)
        return cls(
            store=store,
            novo=novo,
            slack=slack,
            publisher=publisher,
            decisions=decisions,
            approvals=ApprovalService(path, clock, store=store, publisher=publisher),
            allowances=allowances,
            groups=GroupService(store, slack, path, gate, publisher, clock),
            questions=QuestionService(store, slack, path, clock),
            thread_replies=ThreadReplyService(store, slack, path, gate, clock),
            sent_replies=SentReplyService(store, slack, clock),
            forms=FormService(store, slack, gate),
            presenter=Presenter(store, slack, publisher.render),
            engine=SyncEngine(
                novo, store, publisher, ChannelRouter(policy), clock, standing=allowances
            ),
            reminders=ReminderService(store, slack, publisher, policy, clock),
            snoozes=SnoozeService(store, slack, publisher, clock),
            digests=DigestService(store, slack, publisher, links, policy, clock),
            links=links,
            commands=CommandService(store, policy, gate, publisher, links, clock, visibility),
            home=HomeService(
                store,
                slack,
                publisher,
                gate,
                links,
                clock,
                visibility,
                heavy=heavy,
                allowances=allowances,
            ),
            type_ahead=TypeAheadService(store, gate, heavy),
            heavy=heavy,
            clock=clock,
        )
