"""Slack's vocabulary: ids and limits, rendering (pure), and the Web API door."""
