"""The real Claude Code CLI (pinned, from npm) driving `tabmcp serve` over stdio, with a scripted model
on loopback (tests/claude_code/): the model is scripted, the client is real.

Claude Code builds the model's next request as soon as a call's result is in, and re-reads
``tools/list`` after ``list_changed`` on its own schedule; tabmcp holds the answer of a call that
changed the list until that re-read (rereads.py). These tests check what the model is offered in the
very next request after a page changed (by ``connect_browser(url=…)``, ``navigate``, a page tool whose
submit navigates, and the page's own WebMCP registration), with Claude Code's tool search on (MCP
tools deferred: offered by name) and off (every tool in the tools array), and that calling the
offered tool works end to end. Headless Chromium with the real extension, launched by tabmcp.
"""

from __future__ import annotations

import datetime
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.client import tabmcp_command
from tabmcp.demo.sites import SiteServer
from tests.claude_code.agenda import Agenda, Step
from tests.claude_code.cli import install, run_claude
from tests.claude_code.messages_api import MessagesApi, messages_api
from tests.integration.conftest import ARTIFACTS, PAIRING_TOKEN

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
THINKING = 1.0  # seconds the scripted model takes per answer, as a real one does


@pytest.fixture(scope="module")
def claude() -> Path:
    return install()


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


@pytest.fixture(params=[True, False], ids=["tool-search", "no-tool-search"])
def tool_search(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def tabmcp_server(log: Path, profile: Path, **settings: str) -> dict[str, Any]:
    """The ``mcpServers`` entry Claude Code starts: `tabmcp serve` over stdio, its stderr kept as an artefact
    (Claude Code does not pass a server's stderr on)."""
    command, prefix = tabmcp_command()
    serve = shlex.join([command, *prefix, "serve"])
    env = {
        "TABMCP_PAIRING_TOKEN": PAIRING_TOKEN,
        "TABMCP_WS_PORT": "0",
        "TABMCP_NATIVE_BRIDGE": "false",
        "TABMCP_LOG_LEVEL": "DEBUG",
        "TABMCP_USER_DATA_DIR": str(profile),
        **{f"TABMCP_{k.upper()}": v for k, v in settings.items()},
    }
    return {"command": "/bin/sh", "args": ["-c", f"exec {serve} 2>>{shlex.quote(str(log))}"], "env": env}


def run(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    agenda: Agenda,
    *,
    tool_search: bool,
    prompt: str = "Do the task in the browser.",
    **settings: str,
) -> MessagesApi:
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"{request.node.name}.server.log"
    log.write_text("")
    with messages_api(agenda, delay=THINKING) as api:
        servers = {"tabmcp": tabmcp_server(log, tmp_path / "profile", **settings)}
        done = run_claude(api.url, servers, prompt, tool_search=tool_search)
    assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}\n{done.result}"
    assert not api.errors, api.errors
    assert agenda.finished, f"the scripted model did not get through its agenda ({agenda.error}):\n" + report(
        agenda, api
    )
    return api


def report(agenda: Agenda, api: MessagesApi) -> str:
    lines = [
        f"{s.tool}: first up in request {s.first_turn}, offered then: {s.offered_at_once}, "
        f"misses {s.misses}, result {(s.result or '')[:200]!r}"
        for s in agenda.steps
    ]
    lines += [f"request {t.index}: loaded {[n for n in t.tool_names if 'tabmcp' in n]}" for t in api.turns]
    return "\n".join(lines)


def offered_at_once(agenda: Agenda, api: MessagesApi, *tools: str) -> None:
    """Each of these steps' tool was offered in the first request in which the model wanted it: the
    request right after the call that changed the page."""
    for step in agenda.steps:
        if step.tool in tools:
            assert step.offered_at_once and step.misses == 0, f"{step.tool} came late:\n" + report(agenda, api)


def depart() -> str:
    return (datetime.date.today() + datetime.timedelta(days=30)).isoformat()


PAGE_TOOLS = ("search_flights", "select_flight", "search_inbox")


@pytest.mark.parametrize(
    ("tool_search", "always_load"),
    [(True, "page"), (False, "page"), (True, "none")],
    ids=["tool-search", "no-tool-search", "tool-search-nothing-always-loaded"],
)
async def test_page_tools_arrive_in_the_very_next_request(
    claude: Path,
    sites: SiteServer,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    tool_search: bool,
    always_load: str,
) -> None:
    """connect_browser(url) opens a form page; its tool's submit navigates to a results page, whose own
    tool books a flight; then navigate opens the mailbox, whose search tool runs. Every page's tools
    are in the request right after the call that opened it: loaded (tool search off, or page tools
    marked alwaysLoad) or named for the tool search (nothing marked)."""
    flight = {"from": "SFO", "to": "JFK", "departDate": depart(), "passengers": 2, "cabin": "business"}
    agenda = Agenda(
        [
            Step("connect_browser", {"launch": True, "url": sites.url("flights.html")}),
            Step("search_flights", flight),  # a GET form: its submit navigates to results.html
            Step("select_flight", {"flight": "SH101"}),  # the results page's own form
            Step("navigate", {"url": sites.url("mail/index.html")}),
            Step("search_inbox", {"query": "Thursday"}),
        ],
        fallback=Step("snapshot"),
    )
    settings = {} if always_load == "page" else {"always_load": "[]"}  # page tools are loaded by default
    api = run(request, tmp_path, agenda, tool_search=tool_search, **settings)
    offered_at_once(agenda, api, *PAGE_TOOLS)
    results = {step.tool: step.result or "" for step in agenda.steps}
    assert "results.html" in results["search_flights"] and "SH101" in results["search_flights"]
    assert "booked.html" in results["select_flight"]
    assert "Q3 roadmap review" in results["search_inbox"]
    pages = [step for step in agenda.steps if step.tool in PAGE_TOOLS]
    navigate = agenda.steps[3]
    if not tool_search:
        assert all(step.loaded_at_once for step in agenda.steps)
    elif always_load == "page":  # page tools came loaded, and connect_browser from the start
        assert all(step.loaded_at_once and not step.searched for step in [agenda.steps[0], *pages])
        assert navigate.searched  # a core tool not marked still takes a ToolSearch
    else:  # named in the deferred list, loaded by one ToolSearch each
        assert all(step.searched and not step.loaded_at_once for step in pages)


async def test_a_tool_the_page_registers_after_a_click_reaches_the_next_request(
    claude: Path, pages: SiteServer, tmp_path: Path, request: pytest.FixtureRequest, tool_search: bool
) -> None:
    agenda = Agenda(
        [
            Step("connect_browser", {"launch": True, "url": pages.url("webmcp-later.html")}),
            Step("interact", {"action": "click", "target": "css=#enable"}),
            Step("greet", {"name": "Ada"}),
        ],
        fallback=Step("snapshot"),
    )
    api = run(request, tmp_path, agenda, tool_search=tool_search)
    offered_at_once(agenda, api, "greet")
    assert "Hello, Ada!" in (agenda.steps[-1].result or "")


async def test_static_tool_list_under_claude_code(
    claude: Path, sites: SiteServer, tmp_path: Path, request: pytest.FixtureRequest, tool_search: bool
) -> None:
    """``tools=static``: one fixed list from the start; the page's tools are listed and run through
    ``list_page_tools`` / ``call_page_tool``, and the list Claude Code holds never changes."""
    flight = {"from": "SFO", "to": "JFK", "departDate": depart(), "passengers": 1, "cabin": "economy"}
    agenda = Agenda(
        [
            Step("connect_browser", {"launch": True, "url": sites.url("flights.html")}),
            Step("list_page_tools"),
            Step("call_page_tool", {"name": "search_flights", "arguments": flight}),
        ]
    )
    api = run(request, tmp_path, agenda, tool_search=tool_search, tools="static")
    listed = agenda.steps[1].result or ""
    assert "search_flights" in listed and "departDate" in listed
    assert "results.html" in (agenda.steps[2].result or "")
    tabmcp_sets = {tuple(sorted(n for n in t.tool_names + t.deferred if "tabmcp" in n)) for t in api.turns}
    assert len(tabmcp_sets) == 1  # a name loaded by ToolSearch moves from the deferred list to the tools
    every = set().union(*map(set, tabmcp_sets))
    assert "mcp__tabmcp__call_page_tool" in every and "mcp__tabmcp__search_flights" not in every


async def test_without_the_hold_the_page_tools_come_a_turn_late(
    claude: Path, sites: SiteServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The control: with ``list_reread_wait=0`` the answer is not held, and Claude Code builds the next
    request before its re-read: the page's tool is missing there, and the model needs a turn more."""
    agenda = Agenda(
        [
            Step("connect_browser", {"launch": True, "url": sites.url("mail/index.html")}),
            Step("search_inbox", {"query": "Thursday"}),
        ],
        fallback=Step("connect_browser"),  # the one tool it holds; a model would look at the browser again
    )
    api = run(request, tmp_path, agenda, tool_search=False, list_reread_wait="0")
    search = agenda.steps[1]
    assert search.offered_at_once is False and search.misses >= 1, report(agenda, api)
    assert "Q3 roadmap review" in (search.result or "")
