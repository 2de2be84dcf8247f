"""`python -m bot` behaves exactly like the `novo-slack` console script."""

from bot.cli import main

raise SystemExit(main())
