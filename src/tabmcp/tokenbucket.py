"""A token bucket: ``rate`` events a second, up to ``burst`` at once (pure: the caller passes the time).

The one limiter behind both of tabmcp's rate limits: frames per extension connection
(``bridge.py``) and tool calls per client (``guard/ratelimit.py``).
"""

from __future__ import annotations

EPSILON = 1e-9  # float rounding must not refuse the call that comes exactly when we said to retry


class TokenBucket:
    """Starts full. A ``rate`` of 0 (or less) means no limit."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self.updated = now  # when the bucket was last refilled (a take)

    def take(self, now: float) -> float | None:
        """Spend one token: None when there was one, else the seconds until there is (nothing is
        spent then, so waiting that long is always enough)."""
        if self.rate <= 0:
            return None
        self._tokens = self._level(now)
        self.updated = now
        if self._tokens >= 1.0 - EPSILON:
            self._tokens = max(0.0, self._tokens - 1.0)
            return None
        return (1.0 - self._tokens) / self.rate

    def full(self, now: float) -> bool:
        """Refilled to the burst: the same as a new bucket, so it can be forgotten."""
        return self.rate <= 0 or self._level(now) >= self.burst

    def _level(self, now: float) -> float:
        return min(float(self.burst), self._tokens + max(0.0, now - self.updated) * self.rate)
