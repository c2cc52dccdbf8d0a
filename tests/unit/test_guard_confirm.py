"""Confirmation, rate limit and audit through ``Guards``, under a real MCP client and server
(in-process, both protocol eras): the low-level server calls ``Guards.call`` as tabmcp's does, with
a stand-in for the browser side (a runtime holding a focused tab) and for the tool run itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server import Server

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.guard import confirm
from tabmcp.guard.guards import Guards
from tabmcp.guard.sensitive import note_sensitive
from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.page.snapshot import Node, SnapshotStore
from tabmcp.tools.catalog import CATALOG

ERAS = ["legacy", "modern"]
PAGE_URL = "https://shop.test/account"
OTHER_URL = "https://other.test/danger"
DELETE = PageTool(
    name="delete_account",
    title="Danger zone",
    description="Fill and submit the form",
    input_schema={"type": "object", "properties": {"password": {"type": "string", "writeOnly": True}}},
    plan=(),
    hints=ToolHints(destructive=True),
)
SEARCH = PageTool(
    name="search", description="Search", input_schema={"type": "object"}, plan=(), hints=ToolHints(read_only=True)
)


@dataclass
class FakeRuntime:
    """What Guards reads of a runtime: the focused tab (URL, page tools), the latest snapshot."""

    snapshots: SnapshotStore = field(default_factory=SnapshotStore)
    state: s.BrowserState = field(
        default_factory=lambda: s.BrowserState(
            connected=True,
            tabs=MappingProxyType({1: s.Tab(id=1, url=PAGE_URL, status="complete", tools=(DELETE, SEARCH))}),
            focused_tab_id=1,
        )
    )

    def visible_tool_names(self) -> list[str]:
        return [t.name for t in s.visible_core_tools(self.state, CATALOG)] + [t.name for t in self.state.page_tools]


class Harness:
    def __init__(self, tmp_path: Path, **settings: Any) -> None:
        self.audit = tmp_path / "audit.jsonl"
        self.guards = Guards(Settings(audit_log=self.audit, **settings), catalog=CATALOG)
        self.runtime = FakeRuntime()
        self.ran: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[str] = []
        self.while_asking: list[Callable[[], None]] = []  # one per question: what happens meanwhile
        self.server = Server("guards", on_call_tool=self.on_call_tool, on_list_tools=self.on_list_tools)

    async def on_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"}) for n in ["x"]])

    async def on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        name, args = params.name, params.arguments or {}

        async def run() -> types.CallToolResult:
            self.ran.append((name, args))
            if name == "interact" and args.get("action") == "fill":
                note_sensitive("text")  # as interact does when the agent reports a password field
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"ran {name}")])

        return await self.guards.call(ctx, "client-a", params, self.runtime, run)  # type: ignore[arg-type]

    def client(self, era: str, answer: str | None) -> Client:
        async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            self.asked.append(params.message)
            if self.while_asking:
                self.while_asking.pop(0)()
            if answer == "accept":
                return types.ElicitResult(action="accept", content={"confirm": True})
            return types.ElicitResult(action=answer)  # type: ignore[arg-type]

        kwargs: dict[str, Any] = {"mode": "legacy"} if era == "legacy" else {}
        if answer is not None:
            kwargs["elicitation_callback"] = elicit
        return Client(self.server, **kwargs)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit.read_text().splitlines()]

    def navigate_to(self, url: str) -> None:
        """The focused tab went to another page (the user, a script, a redirect)."""
        state = self.runtime.state
        tab = replace(state.tabs[1], url=url)
        self.runtime.state = replace(state, tabs=MappingProxyType({1: tab}))


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ERAS)
async def test_accepted_runs_and_is_audited_with_the_password_redacted(tmp_path: Path, era: str) -> None:
    h = Harness(tmp_path, confirm_destructive=True)
    async with h.client(era, "accept") as client:
        result = await client.call_tool("delete_account", {"password": "hunter2"})
    assert not result.is_error and h.ran == [("delete_account", {"password": "hunter2"})]
    (question,) = h.asked
    assert "delete_account" in question and PAGE_URL in question and "hunter2" not in question
    final = h.lines()[-1]
    assert final["tool"] == "delete_account" and final["outcome"] == "ok" and final["confirmed"] is True
    assert final["arguments"] == {"password": "[redacted]"} and final["client"] == "client-a"
    assert "hunter2" not in h.audit.read_text()


@pytest.mark.parametrize("era", ERAS)
async def test_call_page_tool_is_confirmed_and_redacted_as_the_page_tool_it_runs(tmp_path: Path, era: str) -> None:
    """Static tool mode: the destructive page tool behind call_page_tool is asked about, and its password
    argument (inside ``arguments``) never reaches the question or the audit log."""
    h = Harness(tmp_path, confirm_destructive=True)
    call = {"name": "delete_account", "arguments": {"password": "hunter2"}}
    async with h.client(era, "decline") as client:
        declined = await client.call_tool("call_page_tool", call)
        searched = await client.call_tool("call_page_tool", {"name": "search", "arguments": {"q": "x"}})
    assert error_of(declined)["code"] == "DECLINED" and not searched.is_error
    assert h.ran == [("call_page_tool", {"name": "search", "arguments": {"q": "x"}})]  # only the search ran
    (question,) = h.asked
    assert "delete_account" in question and "hunter2" not in question
    first = h.lines()[0]
    assert first["tool"] == "call_page_tool" and first["arguments"] == {
        "name": "delete_account",
        "arguments": {"password": "[redacted]"},
    }
    assert "hunter2" not in h.audit.read_text()


@pytest.mark.parametrize("era", ERAS)
async def test_an_answer_does_not_carry_over_to_a_page_that_changed_while_asking(tmp_path: Path, era: str) -> None:
    h = Harness(tmp_path, confirm_destructive=True)
    h.while_asking.append(lambda: h.navigate_to(OTHER_URL))
    async with h.client(era, "accept") as client:
        result = await client.call_tool("delete_account", {"password": "x"})
    assert PAGE_URL in h.asked[0]
    if era == "legacy":  # asked mid-call: the call is not run, and says why
        body = error_of(result)
        assert body["code"] == "NOT_CONFIRMED" and "page changed" in body["error"]
        assert h.ran == [] and len(h.asked) == 1
    else:  # the retry carries an answer to the old question: the user is asked about the new page
        assert len(h.asked) == 2 and OTHER_URL in h.asked[1]
        assert not result.is_error and h.ran == [("delete_account", {"password": "x"})]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("answer", ["decline", "cancel"])
async def test_declined_is_not_run(tmp_path: Path, era: str, answer: str) -> None:
    h = Harness(tmp_path, confirm_destructive=True)
    async with h.client(era, answer) as client:
        result = await client.call_tool("delete_account", {"password": "x"})
    body = error_of(result)
    assert body["code"] == "DECLINED" and "was not run" in body["error"] and "Do not retry" in body["error"]
    assert h.ran == []
    assert h.lines()[-1]["refused"] == {"decline": "declined", "cancel": "cancelled"}[answer]


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_cannot_ask_is_refused_clearly(tmp_path: Path, era: str) -> None:
    h = Harness(tmp_path, confirm_destructive=True)
    async with h.client(era, None) as client:
        result = await client.call_tool("close_tab", {"tabId": 1})
        searched = await client.call_tool("search", {})
    body = error_of(result)
    assert body["code"] == "CANNOT_CONFIRM" and "elicitation" in body["error"]
    assert "TABMCP_CONFIRM_DESTRUCTIVE" in body["error"]
    assert not searched.is_error  # a read-only call needs no confirmation
    assert h.ran == [("search", {})]
    assert [line.get("refused") for line in h.lines()] == ["cannot_confirm", None]


async def test_without_confirm_destructive_nothing_is_asked(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    async with h.client("legacy", "decline") as client:
        result = await client.call_tool("delete_account", {"password": "x"})
    assert not result.is_error and h.asked == [] and len(h.ran) == 1


async def test_interact_on_a_destructive_element_is_confirmed(tmp_path: Path) -> None:
    h = Harness(tmp_path, confirm_destructive=True)
    h.runtime.snapshots.record(1, "interactive", PAGE_URL, "Account", [Node("e5", "button", "Delete my data")])
    async with h.client("legacy", "decline") as client:
        by_ref = await client.call_tool("interact", {"action": "click", "target": "e5"})
        by_name = await client.call_tool("interact", {"action": "click", "target": "role=button[name=Remove card]"})
        harmless = await client.call_tool("interact", {"action": "click", "target": "role=button[name=Save]"})
        unparsed = await client.call_tool("interact", {"action": "click", "target": "Delete my data"})
    assert error_of(by_ref)["code"] == "DECLINED" and error_of(by_name)["code"] == "DECLINED"
    assert not harmless.is_error and not unparsed.is_error  # a bad target fails in the tool, not here
    assert 'click the element "Delete my data" (e5)' in h.asked[0]
    assert 'click the button "Remove card"' in h.asked[1]
    assert h.ran == [
        ("interact", {"action": "click", "target": "role=button[name=Save]"}),
        ("interact", {"action": "click", "target": "Delete my data"}),
    ]


async def test_a_password_typed_by_interact_is_redacted(tmp_path: Path) -> None:
    h = Harness(tmp_path, secrets=["tok-123"])
    async with h.client("legacy", None) as client:
        await client.call_tool("interact", {"action": "fill", "target": "e3", "text": "hunter2"})
        await client.call_tool("navigate", {"url": "https://x.test/?key=tok-123"})
    fill, nav = h.lines()
    assert fill["arguments"] == {"action": "fill", "target": "e3", "text": "[redacted]"}
    assert nav["arguments"] == {"url": "https://x.test/?key=[redacted]"}
    assert "hunter2" not in h.audit.read_text() and "tok-123" not in h.audit.read_text()


async def test_rate_limit_refuses_with_a_retry_hint_and_is_audited(tmp_path: Path) -> None:
    h = Harness(tmp_path, rate_limit_per_minute=60, rate_limit_burst=2)
    async with h.client("legacy", None) as client:
        results = [await client.call_tool("search", {}) for _ in range(3)]
    assert [r.is_error for r in results] == [False, False, True]
    body = error_of(results[2])
    assert body["code"] == "RATE_LIMITED" and body["error"].startswith("Rate limit: at most 60 tool calls per minute")
    assert "retry in" in body["error"] and 0 < body["retryAfterSeconds"] <= 1.1
    assert len(h.ran) == 2
    assert [line.get("refused") for line in h.lines()] == [None, None, "rate_limit"]


def test_the_confirmation_state_binds_the_call_and_expires() -> None:
    now = [1000.0]
    signer = confirm.StateSigner(b"k" * 32, clock=lambda: now[0])
    state = signer.issue("a", "delete_account", {"x": 1})
    assert signer.valid(state, "a", "delete_account", {"x": 1})
    assert not signer.valid(state, "b", "delete_account", {"x": 1})  # another client
    assert not signer.valid(state, "a", "delete_account", {"x": 2})  # other arguments
    assert not signer.valid(state.replace(state[-4:], "0000"), "a", "delete_account", {"x": 1})
    assert not signer.valid(None, "a", "delete_account", {"x": 1})
    assert not confirm.StateSigner(b"other" * 8, clock=lambda: now[0]).valid(state, "a", "delete_account", {"x": 1})
    now[0] += confirm.CONFIRM_TIMEOUT_S + 1
    assert not signer.valid(state, "a", "delete_account", {"x": 1})


def test_can_elicit() -> None:
    cap = types.ClientCapabilities
    assert confirm.can_elicit(cap(elicitation=types.ElicitationCapability()))
    assert confirm.can_elicit(cap(elicitation=types.ElicitationCapability(form=types.FormElicitationCapability())))
    assert not confirm.can_elicit(cap(elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability())))
    assert not confirm.can_elicit(cap())
    assert not confirm.can_elicit(None)


def test_verdicts() -> None:
    assert confirm.verdict_of(types.ElicitResult(action="accept", content={"confirm": True})).accepted
    assert confirm.verdict_of(types.ElicitResult(action="accept")).accepted  # the form's default is yes
    assert confirm.verdict_of(types.ElicitResult(action="accept", content={"confirm": False})).verdict == "declined"
    assert confirm.verdict_of(types.ElicitResult(action="cancel")).verdict == "cancelled"


async def test_the_audit_line_of_a_huge_hostile_call_is_bounded_and_escaped(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    name = "\u202e\x1b[2J" + "n" * 5_000_000
    async with h.client("legacy", None) as client:
        await client.call_tool(name, {"text": "\x00" + "t" * 5_000_000})
    (line,) = h.audit.read_text().splitlines()
    assert len(line) < 10_000
    record = json.loads(line)
    assert record["tool"].startswith("\\u202e\\x1b[2J") and f"{len(name):,} characters" in record["tool"]
    assert record["arguments"]["text"].startswith("\\x00t") and "5,000,001 characters" in record["arguments"]["text"]
