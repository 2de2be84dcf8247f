"""novo-slack's stand-ins and demo: a local Slack, a Novo simulator, the demo rig and the
playground. Development and tests only: the bridge never imports this package, and its
wheel and image do not contain it."""
