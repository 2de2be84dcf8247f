"""One process per SQLite file, enforced by the operating system.

An exclusive `flock` on `<db>.lock` is held from `Store.open` to `close`. The
kernel drops it when the process ends however it ends (`kill -9` included),
so a crashed owner never blocks the next start. The owner's pid is written
into the file only so that the refusal can name it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bot.store.errors import StoreLockedError

PRIVATE = 0o600


class FileLock:
    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def acquire(cls, db_path: Path, shown: str) -> FileLock:
        """Take the lock or raise `StoreLockedError` at once; never waits."""
        path = db_path.with_name(db_path.name + ".lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE)
        try:
            os.fchmod(fd, PRIVATE)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise StoreLockedError(shown, pid) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd, path)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None
