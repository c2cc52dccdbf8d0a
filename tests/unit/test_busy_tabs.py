"""The busy-tab marks and the words the model reads (drivers/busy.py); the hub's probe and the real
pages are in tests/integration/test_slow_failures.py."""

from __future__ import annotations

from tabmcp.drivers.busy import BusyTabs, TabBusy
from tabmcp.guard import untrusted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_loading_tab_says_what_it_waits_for_and_for_how_long() -> None:
    clock = Clock()
    busy = BusyTabs(clock)
    busy.mark(3, "loading", "http://127.0.0.1:9/never", waited=30.0)
    clock.now += 12
    error = busy.error(3)
    assert isinstance(error, TabBusy) and error.code == "TIMEOUT"
    assert error.message == (
        "Tab 3 is still loading http://127.0.0.1:9/never (not loaded after 42 s); "
        "close it (close_tab 3), navigate it elsewhere, or wait and try again."
    )


def test_a_stuck_page_names_the_call_it_did_not_answer() -> None:
    busy = BusyTabs(Clock())
    busy.mark(7, "script", "a snapshot", waited=30.0)
    message = busy.error(7).message
    assert message.startswith("Tab 7 is busy: its page has not answered for 30 s (it did not answer a snapshot;")
    assert "close_tab 7" in message


def test_marks_are_per_tab_and_cleared() -> None:
    busy = BusyTabs(Clock())
    busy.mark(1, "script", "a click action", 5.0)
    busy.mark(2, "loading", "http://a.test/", 5.0)
    assert busy.get(3) is None
    busy.loaded(1)  # a page that reports its load is not thereby unstuck
    assert busy.get(1) is not None
    busy.clear(1)
    assert busy.get(1) is None and busy.get(2) is not None
    busy.loaded(2)
    assert busy.get(2) is None
    busy.mark(2, "loading", "http://a.test/", 5.0)
    busy.clear_all()
    assert busy.get(2) is None


def test_a_page_url_in_the_message_is_capped_and_cleaned() -> None:
    busy = BusyTabs(Clock())
    busy.mark(4, "loading", "http://a.test/\u202e" + "x" * 5000, 1.0)
    message = busy.error(4).message
    assert "\u202e" not in message and len(message) < untrusted.MAX_URL + 200
