"""A one-line progress indicator for the terminal commands (``tabmcp demo``, ``tabmcp doctor``).

Slow steps (a Chromium starting, ``chromium --version`` on a cold disk) look like a hang without
it. It writes to stderr only: the commands' stdout is their report (and a demo's stdout is what
the MCP client saw), so it must stay byte-for-byte the same with or without a terminal. On a
terminal the line is redrawn in place (``\\r`` + erase to the end of line) by a small background
thread; anywhere else (a pipe, a log file, ``TERM=dumb``) it writes nothing at all.

``frame_line`` is the pure part; ``Spinner`` adds the stream, the lock and the ticking thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ERASE_LINE = "\r\x1b[K"  # back to the line's start, erase to its end
MAX_TEXT = 70  # a longer status would wrap on a narrow terminal and \r would then redraw only its tail


def frame_line(tick: int, text: str) -> str:
    """What the status line shows at ``tick``: a spinner frame and the (shortened) text."""
    shown = text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"
    return f"{ERASE_LINE}{FRAMES[tick % len(FRAMES)]} {shown}"


def is_live(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``stream`` is a terminal that understands redrawing a line."""
    env = os.environ if environ is None else environ
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False
    return tty and env.get("TERM", "") != "dumb"


class Spinner:
    """``with Spinner(sys.stderr) as spin: spin.update("checking…")``; ``hold()`` around other output.

    ``interval`` is the seconds between frames; ``None`` starts no thread (tests call ``tick()``).
    """

    def __init__(self, stream: TextIO, *, interval: float | None = 0.1, live: bool | None = None) -> None:
        self.stream = stream
        self.live = is_live(stream) if live is None else live
        self.interval = interval
        self.text = ""
        self._tick = 0
        self._shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Spinner:
        if self.live and self.interval is not None:
            self._thread = threading.Thread(target=self._run, name="tabmcp-spinner", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._erase()

    def update(self, text: str) -> None:
        """Show ``text`` from now on (drawn at once, then animated)."""
        with self._lock:
            self.text = text
            self._draw()

    def tick(self) -> None:
        """Advance one frame."""
        with self._lock:
            self._tick += 1
            self._draw()

    @contextmanager
    def hold(self, then: str | None = None) -> Iterator[None]:
        """Erase the status line while the caller writes its own lines; it comes back after (saying
        ``then`` if given: the next step's text, with no flash of the finished one)."""
        with self._lock:
            self._erase()
            yield
            if then is not None:
                self.text = then
            self._draw()

    def _run(self) -> None:
        assert self.interval is not None
        while not self._stop.wait(self.interval):
            self.tick()

    def _draw(self) -> None:
        if not self.live or not self.text:
            return
        self._write(frame_line(self._tick, self.text))
        self._shown = True

    def _erase(self) -> None:
        if self._shown:
            self._write(ERASE_LINE)
            self._shown = False

    def _write(self, data: str) -> None:
        try:
            self.stream.write(data)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: progress is never worth a crash
            self.live = False
