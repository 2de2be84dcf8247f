"""The organisation's policy file (`NOVO_SLACK_CONFIG`): how agents are named, what links."""
