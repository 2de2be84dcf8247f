"""Why start-up stopped, and the exit code each reason gives.

An operator reading `novo-slack run`'s exit needs to know whether to fix a
value or to fix the world around it, so the two are different exceptions:

    SettingsError (bot.config)  exit 2  a setting is missing, malformed, or Slack refused it
    StartupFailure              exit 1  something the settings point at failed: the database,
                                        the port, ...

Both carry one line that names the setting involved; neither is shown with a
traceback unless asked for (`-v`).
"""

from __future__ import annotations

EXIT_WORLD = 1
EXIT_SETTINGS = 2


class StartupFailure(Exception):
    """The bridge could not start for a reason outside its settings' values; `str()` is one line."""
