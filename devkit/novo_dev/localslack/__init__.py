"""A local Slack for tests and demos: a Web API server and a payload driver.

`start_local_slack()` serves Slack's Web API on loopback for slack_sdk's
clients; `SlackDriver` sends the bridge the signed interaction payloads Slack
would send when someone clicks, picks or submits.
"""

from novo_dev.localslack.driver import SlackDriver, find_element, find_option
from novo_dev.localslack.modals import (
    HASH_CONFLICT,
    PUSH_LIMIT_REACHED,
    TRIGGER_EXCHANGED,
    TRIGGER_EXPIRED,
)
from novo_dev.localslack.records import (
    Identity,
    RecordedCall,
    SlackUser,
    StoredEphemeral,
    StoredMessage,
    StoredView,
    UserGroup,
)
from novo_dev.localslack.server import LocalSlack, start_local_slack

__all__ = [
    "HASH_CONFLICT",
    "PUSH_LIMIT_REACHED",
    "TRIGGER_EXCHANGED",
    "TRIGGER_EXPIRED",
    "Identity",
    "LocalSlack",
    "RecordedCall",
    "SlackDriver",
    "SlackUser",
    "StoredEphemeral",
    "StoredMessage",
    "StoredView",
    "UserGroup",
    "find_element",
    "find_option",
    "start_local_slack",
]
