"""The sync engine: list Novo's pending interactions, track what is new, compare what
changed, finish what ended; the messages themselves are `bot.messages`'s."""
