"""Per-client rate limit: one token bucket per client identity (docs/security.md, Rate limits).

A client may make ``burst`` calls at once, then one call every ``60 / per_minute`` seconds. A call
over the limit is answered with an ``isError`` result that says when to retry: a model can read
that and wait, where a dropped connection would only make its client reconnect and try again.

Pure: the clock is passed in, so tests step time by hand; each bucket is a ``tokenbucket.TokenBucket``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from tabmcp.tokenbucket import TokenBucket

Clock = Callable[[], float]
MAX_CLIENTS = 1024  # buckets kept before full (idle) ones are forgotten: a full bucket is a new one


class RateLimiter:
    """``take(client)`` spends one call: None when allowed, else the seconds until one is."""

    def __init__(self, per_minute: int, burst: int, clock: Clock = time.monotonic) -> None:
        if per_minute < 0 or burst < 1:
            raise ValueError("per_minute must be >= 0 (0: no limit) and burst >= 1")
        self.per_minute = per_minute
        self.burst = burst
        self._rate = per_minute / 60.0  # tokens per second
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    @property
    def enabled(self) -> bool:
        return self.per_minute > 0

    def take(self, client: str) -> float | None:
        if not self.enabled:
            return None
        now = self._clock()
        bucket = self._buckets.get(client)
        if bucket is None:
            self._forget_idle(now)
            bucket = self._buckets[client] = TokenBucket(self._rate, self.burst, now)
        return bucket.take(now)

    def message(self, retry_after: float) -> str:
        return (
            f"Rate limit: at most {self.per_minute} tool calls per minute for this client "
            f"(bursts of {self.burst}); retry in {retry_text(retry_after)} s."
        )

    def _forget_idle(self, now: float) -> None:
        """Bound the memory many client identities can take: a bucket that has refilled is the
        same as no bucket, so those go first."""
        if len(self._buckets) < MAX_CLIENTS:
            return
        for client, bucket in list(self._buckets.items()):
            if bucket.full(now):
                del self._buckets[client]
        if len(self._buckets) >= MAX_CLIENTS:  # all busy: drop the longest-unused
            oldest = min(self._buckets, key=lambda c: self._buckets[c].updated)
            del self._buckets[oldest]


def retry_text(seconds: float) -> str:
    """Seconds rounded up to a tenth, so waiting that long is always enough."""
    return f"{max(0.1, math.ceil(seconds * 10) / 10):.1f}"
