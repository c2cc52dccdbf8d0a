"""The bridge's second door: a Unix domain socket the native messaging host connects to.

It speaks the bridge's own WebSocket protocol (``websockets`` serves a Unix socket as well as TCP),
so the pairing, origin check, keepalive and limits in ``bridge.py`` stay one piece of code. The
socket lives in an owner-only folder and is itself 0600: other users cannot connect, and no web
page can reach a Unix socket at all.

One server owns the path at a time: it holds an exclusive ``flock`` on ``<socket>.lock`` for as
long as it listens, so a second server reports the socket busy (as a second server on one TCP port
does) instead of stealing it, and a socket left by a crashed server is replaced safely.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import sys
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, unix_serve

from tabmcp.native import MAX_SOCKET_PATH

log = logging.getLogger(__name__)


class ListenError(Exception):
    """The socket cannot be served; the message says why, for the user."""


class LocalSocket:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._server: Server | None = None
        self._lock_fd: int | None = None
        self._inode: int | None = None

    async def start(self, handler: Any, **serve_options: Any) -> None:
        """Listen at ``path`` with ``handler`` (a websockets connection handler); raise ListenError."""
        if sys.platform == "win32":
            raise ListenError("the native messaging socket is not available on Windows (docs/native-messaging.md)")
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH:
            raise ListenError(f"socket path too long for a Unix socket ({len(str(self.path))} bytes): {self.path}")
        try:
            _private_folder(self.path.parent)
            self._lock()
            if self.path.is_socket():
                self.path.unlink()  # we hold the lock: whoever made it is gone
            elif self.path.exists():
                raise ListenError(f"{self.path} exists and is not a socket; not replacing it")
            self._server = await unix_serve(handler, str(self.path), **serve_options)
            os.chmod(self.path, 0o600)
            self._inode = self.path.stat().st_ino
        except ListenError:
            self._unlock()
            raise
        except OSError as exc:
            self._unlock()
            raise ListenError(f"cannot listen on {self.path}: {exc.strerror or exc}") from None

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
            with contextlib.suppress(OSError):
                if self.path.stat().st_ino == self._inode:  # still ours: leave no dead socket behind
                    self.path.unlink()
        self._unlock()

    def _lock(self) -> None:
        import fcntl

        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ListenError(f"another tabmcp server is listening on {self.path}") from None
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None


def _private_folder(folder: Path) -> None:
    """Create ``folder`` 0700; an existing one must not be writable by others (they could swap the socket)."""
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
        folder.chmod(0o700)
        return
    mode = folder.stat().st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH) and not mode & stat.S_ISVTX:
        raise ListenError(f"{folder} is writable by other users; choose a private folder for the socket")
