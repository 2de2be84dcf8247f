"""Every message the bridge posts, kept true: primary, DM copy, escalation, step group.

Post once (claimed just before the send, recorded after, many lanes' at once), reconcile
a claim left in doubt by a crash or a lost answer (`doubt`), refresh when what it shows
changes (`publisher`), each kind going through one lifecycle (`lifecycle`) and choosing
only its renderer and destination; the context a render needs is built from stored
facts (`context`). `bot.sync` lists and tracks; services ask for a refresh by
interaction through `Refresh` and never import the publisher.
"""

from bot.messages.ports import Messages, Refresh

__all__ = ["Messages", "Refresh"]
