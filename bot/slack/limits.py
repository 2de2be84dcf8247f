"""Slack's Block Kit and Web API limits, the one place they are written down.

The renderers keep under them and the local Slack enforces them, so a limit
changed here changes both what we produce and what the tests accept.
Source: Slack's Block Kit reference (see SLACK-FACTS in the project docs).
"""

MESSAGE_BLOCKS = 50
MODAL_BLOCKS = 100
MESSAGE_TOTAL_TEXT = 12_000  # undocumented: `msg_blocks_too_long` beyond it
# What our renderers allow themselves: Slack's count is not quite ours (escapes,
# emoji), so a message kept near 12,000 by our count can still be refused.
MESSAGE_TEXT_BUDGET = 10_500
MESSAGE_FALLBACK_TEXT = 40_000
SECTION_TEXT = 3_000
SECTION_FIELDS = 10
SECTION_FIELD_TEXT = 2_000
HEADER_TEXT = 150
CONTEXT_ELEMENTS = 10
ACTIONS_ELEMENTS = 25
INPUT_LABEL = 2_000
INPUT_HINT = 2_000
INPUT_PLACEHOLDER = 150
PLAIN_TEXT_INPUT_MAX = 3_000
BUTTON_TEXT = 75
BUTTON_VALUE = 2_000
BUTTON_URL = 3_000
ID_LENGTH = 255  # action_id, block_id, callback_id, external_id
STATIC_SELECT_OPTIONS = 100
CHOICE_OPTIONS = 10  # checkboxes, radio_buttons
OVERFLOW_OPTIONS = 5
OPTION_TEXT = 75
OPTION_VALUE = 75  # the docs now say 150; 75 is what every SDK enforces
OPTION_DESCRIPTION = 75
CONFIRM_TITLE = 100
CONFIRM_TEXT = 300
CONFIRM_BUTTON = 30
MODAL_TITLE = 24
MODAL_BUTTON = 24
PRIVATE_METADATA = 3_000
VIEW_BYTES = 250_000
VIEW_STACK = 3
TRIGGER_TTL_SECONDS = 3.0
