"""Tests of the Novo API client."""
