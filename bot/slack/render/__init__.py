"""Pure functions from models to Block Kit dicts: no I/O, no clock reads."""
