"""The process: start and stop, the wiring, the timed jobs, health, and Slack's doors in.

Everything here drives the core below it (services, sync, rendering, store,
policy, the Novo client); nothing below imports from here. Slack's own
vocabulary, rendering and Web API door stay in `bot.slack`.
"""
