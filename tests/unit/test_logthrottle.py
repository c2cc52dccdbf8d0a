"""The log throttle's arithmetic, on a clock moved by hand."""

from __future__ import annotations

from tabmcp.logthrottle import LogThrottle


def test_the_first_lines_of_an_interval_pass_and_the_rest_are_counted() -> None:
    throttle = LogThrottle(burst=3, interval=10.0)
    passed = [throttle.take(100.0 + i * 0.1) for i in range(8)]
    assert passed == [True, True, True, False, False, False, False, False]
    assert throttle.window_end() == 110.0
    assert throttle.suppressed() == 5
    assert throttle.suppressed() == 0  # counted once


def test_a_new_interval_starts_with_a_full_burst() -> None:
    throttle = LogThrottle(burst=2, interval=10.0)
    assert [throttle.take(0.0) for _ in range(3)] == [True, True, False]
    assert throttle.take(9.9) is False
    assert [throttle.take(10.0) for _ in range(3)] == [True, True, False]
    assert throttle.window_end() == 20.0
    assert throttle.suppressed() == 3
