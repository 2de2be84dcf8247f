"""Everything Slack-facing: rendering (pure), listeners (thin) and app wiring."""
