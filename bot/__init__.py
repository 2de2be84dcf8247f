"""novo-slack: puts Novo agents' human-in-the-loop interactions in front of people, in Slack."""

__version__ = "0.2.0"
