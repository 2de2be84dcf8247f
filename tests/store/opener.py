"""A separate process for the store's cross-process tests (run by path, not imported).

opener.py open  PATH          open; print "opened <pid>" and hold until stdin closes,
                              or print the one-line error and exit 3
opener.py guard URL SCHEMA ID open on PostgreSQL, enter the message guard of ID,
                              print "held <pid>" and hold until stdin closes
"""

from __future__ import annotations

import asyncio
import os
import sys

from bot.store import Store, StoreOpenError


async def main(argv: list[str]) -> int:
    mode, target = argv[0], argv[1]
    try:
        store = await Store.open(target, schema=argv[2] if mode == "guard" else None)
    except StoreOpenError as exc:
        print(exc, flush=True)
        return 3
    try:
        if mode == "guard":
            async with store.message_guard(argv[3]):
                print(f"held {os.getpid()}", flush=True)
                await asyncio.to_thread(sys.stdin.read)
        else:
            print(f"opened {os.getpid()}", flush=True)
            await asyncio.to_thread(sys.stdin.read)
    finally:
        await store.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
