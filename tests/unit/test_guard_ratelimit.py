"""The per-client token bucket, with a hand-stepped clock."""

from __future__ import annotations

import pytest

from tabmcp.guard.ratelimit import MAX_CLIENTS, RateLimiter, retry_text


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=3, clock=clock)
    assert [limiter.take("a") for _ in range(3)] == [None, None, None]
    wait = limiter.take("a")
    assert wait == pytest.approx(1.0)  # 60 a minute: one a second
    clock.now += 0.5
    assert limiter.take("a") == pytest.approx(0.5)  # a refused call spends nothing
    clock.now += 0.5
    assert limiter.take("a") is None
    assert limiter.take("a") is not None


def test_waiting_the_time_it_says_is_enough() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=7, burst=1, clock=clock)
    assert limiter.take("a") is None
    wait = limiter.take("a")
    assert wait is not None
    clock.now += float(retry_text(wait))  # what the message tells the model, rounded up
    assert limiter.take("a") is None


def test_clients_have_their_own_buckets() -> None:
    limiter = RateLimiter(per_minute=60, burst=1, clock=Clock())
    assert limiter.take("a") is None
    assert limiter.take("a") is not None
    assert limiter.take("b") is None


def test_the_bucket_refills_only_to_the_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=2, clock=clock)
    limiter.take("a")
    clock.now += 3600
    assert [limiter.take("a") for _ in range(3)][2] is not None


def test_zero_per_minute_is_no_limit() -> None:
    limiter = RateLimiter(per_minute=0, burst=1, clock=Clock())
    assert not limiter.enabled
    assert all(limiter.take("a") is None for _ in range(10_000))


def test_the_message_says_the_limit_and_when_to_retry() -> None:
    limiter = RateLimiter(per_minute=30, burst=5, clock=Clock())
    text = limiter.message(1.23)
    assert text.startswith("Rate limit: at most 30 tool calls per minute for this client")
    assert "retry in 1.3 s" in text
    assert retry_text(0.0) == "0.1"


def test_many_clients_do_not_grow_memory_without_bound() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=1, clock=clock)
    for n in range(MAX_CLIENTS * 3):
        limiter.take(f"c{n}")
        clock.now += 0.001
    assert len(limiter._buckets) <= MAX_CLIENTS
    assert limiter.take(f"c{MAX_CLIENTS * 3 - 1}") is not None  # the latest client is still remembered


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        RateLimiter(per_minute=-1, burst=1)
    with pytest.raises(ValueError):
        RateLimiter(per_minute=10, burst=0)
