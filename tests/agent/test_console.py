"""Console capture: page_hooks.js -> agent -> runtime port ({type: "console", entries}), every frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.agent.conftest import AgentPage, Browser, eventually

OpenPage = Callable[..., AgentPage]


def console_entries(page: AgentPage, frame_id: int | None = None) -> list[dict[str, Any]]:
    entries = []
    for m in page.browser.agent_messages(page.tab_id):
        if m["message"]["type"] == "console" and (frame_id is None or m["frameId"] == frame_id):
            entries.extend(m["message"]["entries"])
    return entries


def wait_for_entry(page: AgentPage, text: str, frame_id: int | None = None) -> dict[str, Any]:
    def find() -> dict[str, Any] | None:
        return next((e for e in console_entries(page, frame_id) if text in e["text"]), None)

    return eventually(find, f"a console entry with {text!r}")


def test_console_at_load_arrives_over_the_port(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()  # before the page loads: its first entries come at document start
    page = open_page("console.html")
    wait_for_entry(page, "boom rejected")
    entries = console_entries(page)
    by_text = {e["text"]: e for e in entries}
    script = page.browser.site.url("console.html")
    hello = by_text["hello from console fixture {a: 1, list: [1, 2]}"]
    assert hello["level"] == "log"
    assert hello["source"].startswith(script.split("?")[0]) and hello["source"].count(":") >= 3
    assert by_text["cart has 3 items"]["level"] == "info"
    assert by_text["debug detail"]["level"] == "debug"
    assert by_text["careful now"]["level"] == "warning"
    assert by_text["bad thing happened"]["level"] == "error"
    uncaught = by_text["Uncaught Error: boom uncaught"]
    assert uncaught["level"] == "error" and "console.html" in uncaught["source"]
    rejected = by_text["Uncaught (in promise) Error: boom rejected"]
    assert rejected["level"] == "error" and "console.html" in rejected["source"]
    assert all(isinstance(e["time"], (int, float)) and e["time"] > 0 for e in entries)
    # in the order the page logged them
    texts = [e["text"] for e in entries]
    assert texts.index("hello from console fixture {a: 1, list: [1, 2]}") < texts.index("careful now")


def test_console_after_an_action_and_dialog_entries(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()
    page = open_page("console.html")
    assert page.act("click", target={"css": "#log-more"})["ok"] is True
    assert wait_for_entry(page, "clicked log")["level"] == "log"
    dialogs = open_page("dialogs.html")
    dialogs.act("click", target={"css": "#confirm"}, dialog="accept")
    entry = wait_for_entry(dialogs, "Are you sure?")
    assert entry["level"] == "dialog"
    assert entry["text"] == "confirm: Are you sure? → true"


def test_long_console_text_is_cut(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()
    page = open_page("console.html")
    page.page.evaluate("() => console.log('x'.repeat(5000) + 'END')")
    entry = wait_for_entry(page, "xxxxxxxxxx" * 100)
    assert len(entry["text"]) == 2000 and "END" not in entry["text"]


def test_subframes_send_their_console_too(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()
    page = open_page("frames.html")
    for name in ("same", "cross", "inner"):
        wait_for_entry(page, f"frame {name} loaded")
    frames = {f["frameId"]: f["url"] for f in page.frames()}
    senders = {
        m["frameId"]
        for m in page.browser.agent_messages(page.tab_id)
        if m["message"]["type"] == "console" and "loaded" in str(m["message"])
    }
    assert senders and 0 not in senders  # the top frame logged nothing
    assert {frames[f].split("name=")[1] for f in senders} >= {"same", "cross", "inner"}
