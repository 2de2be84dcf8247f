"""Benchmarks of the whole loop (simulator, local Slack, bridge): figures, not verdicts."""
