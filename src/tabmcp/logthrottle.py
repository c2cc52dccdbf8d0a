"""How many lines of one kind a log may take: the first ``burst`` in each ``interval``, then a count (pure:
the caller passes the time).

A flood of refused connections must not flood the log: whoever floods learns nothing from it, and
the user's real lines would scroll away. The bridge logs what ``take`` allows and reports what
``suppressed`` counted once the interval is over.
"""

from __future__ import annotations


class LogThrottle:
    def __init__(self, burst: int, interval: float) -> None:
        self.burst = burst
        self.interval = interval
        self._window_start: float | None = None
        self._used = 0
        self._suppressed = 0

    def take(self, now: float) -> bool:
        """True: log this line. False: it is counted instead (``suppressed``)."""
        if self._window_start is None or now - self._window_start >= self.interval:
            self._window_start = now
            self._used = 0
        if self._used < self.burst:
            self._used += 1
            return True
        self._suppressed += 1
        return False

    def window_end(self) -> float:
        """When the current interval ends (when its count of suppressed lines is due)."""
        return (self._window_start or 0.0) + self.interval

    def suppressed(self) -> int:
        """The lines counted instead of logged since the last call; the count starts again at 0."""
        count, self._suppressed = self._suppressed, 0
        return count
