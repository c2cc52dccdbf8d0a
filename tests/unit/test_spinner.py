"""The terminal progress line: redrawn in place on a terminal, silent anywhere else."""

from __future__ import annotations

import io
import time

from tabmcp.spinner import ERASE_LINE, FRAMES, MAX_TEXT, Spinner, frame_line, is_live


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_frame_line_redraws_the_line_with_the_next_frame() -> None:
    assert frame_line(0, "checking") == f"{ERASE_LINE}{FRAMES[0]} checking"
    assert frame_line(1, "checking") == f"{ERASE_LINE}{FRAMES[1]} checking"
    assert frame_line(len(FRAMES), "x") == frame_line(0, "x")  # the frames loop


def test_a_long_text_is_shortened_so_the_line_does_not_wrap() -> None:
    line = frame_line(0, "y" * 500)
    assert len(line) == len(ERASE_LINE) + 2 + MAX_TEXT
    assert line.endswith("…")


def test_on_a_terminal_updates_and_ticks_rewrite_one_line() -> None:
    tty = FakeTTY()
    with Spinner(tty, interval=None) as spin:
        spin.update("checking the browser")
        spin.tick()
        spin.update("checking the port")
    out = tty.getvalue()
    assert out == (
        frame_line(0, "checking the browser")
        + frame_line(1, "checking the browser")
        + frame_line(1, "checking the port")
        + ERASE_LINE  # leaving clears the line: the terminal is left as it was
    )
    assert "\n" not in out


def test_hold_clears_the_line_for_other_output_then_redraws_it() -> None:
    tty = FakeTTY()
    spin = Spinner(tty, interval=None)
    spin.update("step 3")
    with spin.hold():
        tty.write("a report line\n")
    assert tty.getvalue() == frame_line(0, "step 3") + ERASE_LINE + "a report line\n" + frame_line(0, "step 3")


def test_off_a_terminal_nothing_is_written() -> None:
    pipe = io.StringIO()
    with Spinner(pipe, interval=0.01) as spin:
        spin.update("checking")
        spin.tick()
        with spin.hold():
            pass
    assert pipe.getvalue() == ""
    assert not is_live(FakeTTY(), environ={"TERM": "dumb"})
    assert is_live(FakeTTY(), environ={"TERM": "xterm-256color"})


def test_the_thread_animates_until_the_spinner_closes() -> None:
    tty = FakeTTY()
    with Spinner(tty, interval=0.01) as spin:
        spin.update("launching")
        deadline = time.monotonic() + 10
        while tty.getvalue().count(ERASE_LINE) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    frames = tty.getvalue().count(ERASE_LINE)
    assert frames >= 3
    assert tty.getvalue().endswith(ERASE_LINE)
    time.sleep(0.05)
    assert tty.getvalue().count(ERASE_LINE) == frames  # the thread stopped with the spinner


def test_a_terminal_that_went_away_turns_the_spinner_off() -> None:
    tty = FakeTTY()
    spin = Spinner(tty, interval=None)
    tty.close()
    spin.update("checking")  # writing to a closed stream raises ValueError inside
    assert spin.live is False


def test_hold_can_bring_the_line_back_with_the_next_steps_text() -> None:
    tty = FakeTTY()
    spin = Spinner(tty, interval=None)
    spin.update("[1/2] one")
    with spin.hold(then="[2/2] two"):
        tty.write("ok one\n")
    assert tty.getvalue() == frame_line(0, "[1/2] one") + ERASE_LINE + "ok one\n" + frame_line(0, "[2/2] two")
    with spin.hold(then=""):  # nothing left to do: the line stays empty
        tty.write("ok two\n")
    assert tty.getvalue().endswith(ERASE_LINE + "ok two\n")
