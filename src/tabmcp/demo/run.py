"""``tabmcp demo``: a real MCP session against a real headless browser on the bundled sites.

It plays the client's part (as Claude Code would) and prints, at each step, what the client sees:
the call, its result, the tool list, and every ``list_changed`` that arrived. While a step runs (a
browser starting, a page loading) a spinner on stderr says which; stdout stays the report alone.
"""

from __future__ import annotations

import datetime
import secrets
import sys
import tempfile
from typing import Any

from tabmcp.demo.client import StdioSession, pretty, text_of
from tabmcp.demo.sites import SiteServer
from tabmcp.spinner import Spinner
from tabmcp.tools.catalog import CORE_NAMES as CORE  # tab and page-agent tools; the rest are the page's

QUIET = Spinner(sys.stderr, live=False)


def say(text: str = "", progress: Spinner = QUIET) -> None:
    with progress.hold(then=""):  # the report's line replaces the status; the next wait sets a new one
        sys.stdout.write(text + "\n")  # the demo is the client: its stdout is for the person watching
        sys.stdout.flush()


class Walk:
    def __init__(self, client: StdioSession, progress: Spinner = QUIET) -> None:
        self.client = client
        self.progress = progress
        self.step_no = 0
        self.seen_changes = 0

    def say(self, text: str = "") -> None:
        say(text, self.progress)

    async def show_tools(self) -> list[str]:
        names = await self.client.tool_names()
        page = [n for n in names if n not in CORE]
        core = [n for n in names if n in CORE]
        self.say(f"   tools/list → core: {', '.join(core)}")
        if page:
            self.say(f"                page tools: {', '.join(page)}")
        return names

    async def step(self, title: str, tool: str, args: dict[str, Any], expect_change: bool) -> dict[str, Any]:
        self.step_no += 1
        self.say(f"\n── step {self.step_no}: {title}")
        self.say(f"   call {tool}({', '.join(f'{k}={v!r}' for k, v in args.items())})")
        self.progress.update(f"step {self.step_no}: waiting for {tool}…")
        result = await self.client.call(tool, args)
        data = result.structured_content or {}
        label = "error" if result.is_error else "result"
        self.say(f"   {label}: " + (pretty(data) if data else text_of(result)).replace("\n", "\n   "))
        self.progress.update(f"step {self.step_no}: waiting for list_changed…")
        if expect_change:
            await self.client.wait_changes(self.seen_changes + 1)
        else:
            await self._settle()
        fresh = self.client.changes - self.seen_changes
        self.seen_changes = self.client.changes
        self.say(f"   notifications/tools/list_changed received: {fresh}")
        await self.show_tools()
        return data

    async def _settle(self) -> None:
        import anyio

        await anyio.sleep(0.5)  # give a (wrong) notification the chance to show up in the printout


async def run_demo(port: int = 0, progress: Spinner = QUIET) -> int:
    depart = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    with SiteServer(port=port) as sites, tempfile.TemporaryFile("w+") as errlog:
        say(f"Demo sites served at {sites.base_url}", progress)
        say("Starting `tabmcp serve` over stdio, as an MCP client would…", progress)
        progress.update("starting tabmcp serve…")
        try:
            # the demo's server launches (and pairs) its own browser: a throwaway token, so the demo
            # never creates or reads the user's stored one
            env = {"TABMCP_WS_PORT": "0", "TABMCP_PAIRING_TOKEN": secrets.token_urlsafe(32)}
            async with StdioSession(env=env, errlog=errlog) as client:
                await walk_sites(Walk(client, progress), sites, depart)
                progress.update("closing the session and its browser…")
        except Exception as exc:
            errlog.seek(0)
            say(f"\nDemo failed: {type(exc).__name__}: {exc}\n--- server log ---\n{errlog.read()[-4000:]}", progress)
            return 1
    say("\nDone: DISCONNECTED → CONNECTED → FOCUSED → CONNECTED, walked with a real browser.", progress)
    say("Closing the session closed the browser it launched.", progress)
    return 0


async def walk_sites(walk: Walk, sites: SiteServer, depart: str) -> None:
    """The main job: a flight search, a mailbox, a code repository and a WebMCP app, each through the
    tools made for its page; one call where a generic browser server needs a snapshot and many clicks."""
    caps = walk.client.init.capabilities.tools
    walk.say(f"   server advertises tools.listChanged = {caps.list_changed if caps else None}")
    walk.say("\n── state: DISCONNECTED")
    await walk.show_tools()
    await walk.step("launch headless Chromium with the extension", "connect_browser", {"launch": True},
                    expect_change=True)
    opened = await walk.step("open the flight search site (Kayak-like), focused", "open_tab",
                             {"url": sites.url("flights/index.html")}, expect_change=True)
    flights_tab = opened["tab"]["id"]
    await walk.step("one call instead of a dozen clicks: the results come back as data", "search_flights",
                    {"from": "SFO", "to": "JFK", "departDate": depart, "passengers": 2, "cabin": "business"},
                    expect_change=True)
    await walk.step("pick the first flight (select_flight appeared with the results)", "select_flight",
                    {"index": 1}, expect_change=True)
    mail = await walk.step("open the mailbox (Gmail-like) in the background: no list_changed", "open_tab",
                           {"url": sites.url("mail/index.html"), "focus": False}, expect_change=False)
    await walk.step("the tabs and how many tools each page offers", "list_tabs", {}, expect_change=False)
    await walk.step("focus the mailbox: its tools replace the flight tools", "focus_tab",
                    {"tabId": mail["tab"]["id"]}, expect_change=True)
    await walk.step("search the inbox: the hits come back; the tools stay the same", "search_inbox",
                    {"query": "invoice"}, expect_change=False)
    await walk.step("open the first thread found", "open_thread", {"index": 1}, expect_change=True)
    await walk.step("write an email through the page's own compose window", "compose_email",
                    {"to": "ada@example.com", "subject": "Flights", "body": "SFO→JFK booked"}, expect_change=False)
    await walk.step("see the page: its controls as rows with refs (TOON)", "snapshot", {}, expect_change=False)
    await walk.step("close the mailbox: its tools disappear", "close_tab", {}, expect_change=True)
    await walk.step("a client with a cached list calls close_tab anyway", "close_tab", {}, expect_change=False)
    await walk.step("open a code repository (GitHub-like)", "open_tab", {"url": sites.url("repo/index.html")},
                    expect_change=True)
    await walk.step("star it: star_repo turns into unstar_repo", "star_repo", {}, expect_change=True)
    await walk.step("its open issues, as data", "view_issues", {"state": "open"}, expect_change=False)
    await walk.step("open an app that declares its own tools (WebMCP)", "navigate",
                    {"url": sites.url("webmcp/index.html")}, expect_change=True)
    await walk.step("call a tool the page declared: its own execute() answers", "add_todo",
                    {"text": "Pack for New York", "due": depart}, expect_change=False)
    await walk.step("completing a to-do makes the page register clear_completed", "complete_todo",
                    {"id": "t1"}, expect_change=True)
    await walk.step("close it", "close_tab", {}, expect_change=True)
    await walk.step("focus the flights tab again (on its review page)", "focus_tab", {"tabId": flights_tab},
                    expect_change=True)
    await walk.step("close it: no tabs left", "close_tab", {}, expect_change=True)


if __name__ == "__main__":
    import asyncio

    sys.exit(asyncio.run(run_demo()))
