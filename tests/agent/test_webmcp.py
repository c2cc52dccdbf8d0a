"""WebMCP in a real Chromium: page_hooks.js (the polyfill in the main world) -> agent -> capture / calls.

The page registers tools through every shape of the API (tests/fixtures/pages/webmcp.html); the
agent's capture carries them (capped), webmcpCall runs the page's own execute(), and the service
worker's plan runner turns a `webmcp` step into the call. A second browser with Chromium's own
WebMCP (--enable-features=WebMCP) checks that the native API is wrapped, not replaced.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from tabmcp.demo.sites import SiteServer
from tests.agent.conftest import FIND_TAB, AgentPage, Browser, agent_browser, eventually

OpenPage = Callable[..., AgentPage]

LOAD_TOOLS = [
    "echo", "set_out", "temporary", "legacy.tool-1", "throws", "rejects", "never", "bigint", "circular", "nothing",
    "big", "big_object", "navigate_away", "confirm_then",
]

REINJECT_AGENT = """async (tabId) => {
  await chrome.scripting.executeScript({ target: { tabId }, func: () => { delete globalThis.__tabmcpAgent; } });
  const agentFiles = chrome.runtime.getManifest().content_scripts.find((s) => s.world !== 'MAIN').js;
  await chrome.scripting.executeScript({ target: { tabId }, files: agentFiles });
}"""

def webmcp(page: AgentPage, frame_id: int = 0) -> list[dict[str, Any]]:
    capture = page.call("capture", {"maxChars": 2000}, frame_id)
    tools: list[dict[str, Any]] = capture["webmcp"]
    return tools


def names(page: AgentPage, frame_id: int = 0) -> list[str]:
    return [t["name"] for t in webmcp(page, frame_id)]


def call(page: AgentPage, name: str, args: Any = None, timeout_ms: int | None = None, frame_id: int = 0) -> Any:
    request: dict[str, Any] = {"name": name, "args": args if args is not None else {}}
    if timeout_ms is not None:
        request["timeoutMs"] = timeout_ms
    return page.call("webmcpCall", request, frame_id)


def register(page: AgentPage, name: str, result: Any) -> None:
    """A tool whose execute() returns `result`, registered by the page."""
    page.page.evaluate(
        "([name, result]) => document.modelContext.registerTool({ name, description: 'd', execute: () => result })",
        [name, result],
    )


def eventually_names(page: AgentPage, expected: list[str], what: str) -> None:
    eventually(lambda: names(page) == expected, what)


# -------------------------------------------------------------------------------------------------
# Registration: the shapes of the API, and what the capture carries


def test_tools_registered_at_load_are_in_the_capture(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    tools = {t["name"]: t for t in webmcp(page)}
    assert list(tools) == LOAD_TOOLS  # registration order; document and navigator shapes alike
    assert tools["echo"] == {
        "name": "echo",
        "title": "Echo",
        "description": "Returns its input.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo"}},
            "required": ["text"],
        },
        "annotations": {"readOnlyHint": True},
    }
    assert tools["set_out"]["annotations"] == {"readOnlyHint": False, "destructiveHint": False}
    legacy = {"name": "legacy.tool-1", "description": "Registered through navigator.modelContext."}
    assert tools["legacy.tool-1"] == legacy


def test_document_and_navigator_share_one_model_context(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    facts = page.page.evaluate(
        """async () => {
          const handle = navigator.modelContext.registerTool({ name: 'via_nav', description: 'd', execute: () => 1 });
          return {
            same: document.modelContext === navigator.modelContext,
            inNavigator: 'modelContext' in navigator,
            eventTarget: document.modelContext instanceof EventTarget,
            handleIsPromise: handle instanceof Promise,
            resolved: await handle,
            unregister: typeof handle.unregister,
            listed: (await document.modelContext.getTools()).map((t) => t.name).includes('via_nav'),
          };
        }"""
    )
    assert facts == {
        "same": True, "inNavigator": True, "eventTarget": True, "handleIsPromise": True, "resolved": None,
        "unregister": "function", "listed": True,
    }
    assert names(page)[-1] == "via_nav"


def test_abort_signal_and_unregister_remove_tools(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    page.page.evaluate("() => window.tempController.abort()")
    eventually(lambda: "temporary" not in names(page), "the aborted tool to go")
    page.page.evaluate("() => window.legacyHandle.unregister()")
    eventually(lambda: "legacy.tool-1" not in names(page), "the legacy handle's tool to go")
    page.page.evaluate("() => navigator.modelContext.unregisterTool('echo')")
    eventually(lambda: "echo" not in names(page), "unregisterTool to remove echo")
    assert names(page) == [n for n in LOAD_TOOLS if n not in ("temporary", "legacy.tool-1", "echo")]
    # a tool of the same name can come back
    register(page, "echo", 2)
    eventually(lambda: names(page)[-1:] == ["echo"], "echo to come back")
    assert call(page, "echo") == {"ok": True, "result": 2, "dialogs": []}


def test_provide_context_replaces_and_clear_context_empties(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    page.page.evaluate(
        """() => navigator.modelContext.provideContext({ tools: [
          { name: 'alpha', description: 'First.', execute: () => 'a' },
          { name: 'beta', description: 'Second.', inputSchema: { type: 'object' }, execute: () => 'b' },
        ] })"""
    )
    eventually_names(page, ["alpha", "beta"], "provideContext to replace the whole set")
    assert call(page, "beta")["result"] == "b"
    assert call(page, "echo", {"text": "x"})["code"] == "TOOL_NOT_FOUND"
    page.page.evaluate("() => navigator.modelContext.clearContext()")
    eventually_names(page, [], "clearContext to remove everything")


def test_toolchange_fires_for_the_page(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    seen = page.page.evaluate(
        """async () => {
          const mc = document.modelContext;
          const events = [];
          mc.ontoolchange = (e) => events.push(`handler:${e.type}`);
          mc.addEventListener('toolchange', (e) => events.push(`listener:${e.type}`));
          const controller = new AbortController();
          mc.registerTool({ name: 'fresh', description: 'd', execute: () => 1 }, { signal: controller.signal });
          await new Promise((resolve) => setTimeout(resolve, 0));
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 0));
          navigator.modelContext.provideContext({ tools: [] });
          await new Promise((resolve) => setTimeout(resolve, 0));
          return { events, total: window.toolchanges };
        }"""
    )
    assert seen["events"] == ["handler:toolchange", "listener:toolchange"] * 3
    assert seen["total"] == len(LOAD_TOOLS) + 3  # one per registration at load, then these three


def test_bad_registrations_throw_in_the_page(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    errors = page.page.evaluate(
        """() => {
          const mc = document.modelContext;
          const attempt = (tool, options) => {
            try {
              mc.registerTool(tool, options);
              return 'registered';
            } catch (e) {
              return `${e.constructor.name}:${e.name}`;
            }
          };
          const circular = { type: 'object' };
          circular.self = circular;
          const ok = (name) => ({ name, description: 'd', execute() {} });
          let provide;
          try {
            navigator.modelContext.provideContext({ tools: [ok('p1'), ok('p1')] });
            provide = 'replaced';
          } catch (e) {
            provide = `${e.constructor.name}:${e.name}`;
          }
          return {
            duplicate: attempt(ok('echo')),
            space: attempt(ok('bad name')),
            empty: attempt(ok('')),
            long: attempt(ok('n'.repeat(129))),
            longest: attempt(ok('n'.repeat(128))),
            unicode: attempt(ok('café')),
            noDescription: attempt({ name: 'x1', execute() {} }),
            emptyDescription: attempt({ name: 'x2', description: '', execute() {} }),
            noExecute: attempt({ name: 'x3', description: 'd' }),
            badSchema: attempt({ name: 'x4', description: 'd', inputSchema: 'string', execute() {} }),
            circularSchema: attempt({ name: 'x5', description: 'd', inputSchema: circular, execute() {} }),
            notObject: attempt('echo'),
            badSignal: attempt(ok('x6'), { signal: {} }),
            provide,
          };
        }"""
    )
    assert errors == {
        "duplicate": "DOMException:InvalidStateError",
        "space": "DOMException:InvalidStateError",
        "empty": "DOMException:InvalidStateError",
        "long": "DOMException:InvalidStateError",
        "longest": "registered",
        "unicode": "DOMException:InvalidStateError",
        "noDescription": "TypeError:TypeError",
        "emptyDescription": "DOMException:InvalidStateError",
        "noExecute": "TypeError:TypeError",
        "badSchema": "TypeError:TypeError",
        "circularSchema": "TypeError:TypeError",
        "notObject": "TypeError:TypeError",
        "badSignal": "TypeError:TypeError",
        "provide": "DOMException:InvalidStateError",
    }
    # only the valid one was added; the failed provideContext left the set as it was
    eventually_names(page, [*LOAD_TOOLS, "n" * 128], "the one valid registration")


def test_an_already_aborted_signal_registers_nothing(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    outcome = page.page.evaluate(
        """async () => {
          const signal = AbortSignal.abort(new Error('too late'));
          try {
            await document.modelContext.registerTool({ name: 'late', description: 'd', execute() {} }, { signal });
            return 'registered';
          } catch (e) {
            return e.message;
          }
        }"""
    )
    assert outcome == "too late"
    assert "late" not in names(page)


def test_capture_caps_the_list(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    page.page.evaluate(
        """() => {
          const mc = navigator.modelContext;
          mc.clearContext();
          const execute = () => null;
          mc.registerTool({ name: 'long_description', description: 'd'.repeat(2001), execute });
          mc.registerTool({ name: 'max_description', description: 'd'.repeat(2000), execute });
          const big = { type: 'object', properties: {} };
          for (let i = 0; i < 800; i += 1) big.properties[`field_${i}`] = { type: 'string' };
          mc.registerTool({ name: 'huge_schema', description: 'd', inputSchema: big, execute });
          for (let i = 0; i < 70; i += 1) mc.registerTool({ name: `tool_${i}`, description: `Tool ${i}`, execute });
        }"""
    )
    schema_chars = page.page.evaluate(
        """async () => {
          const tool = (await document.modelContext.getTools()).find((t) => t.name === 'huge_schema');
          return JSON.stringify(tool.inputSchema).length;
        }"""
    )
    assert schema_chars > 20000
    expected = ["max_description", *[f"tool_{i}" for i in range(63)]]
    eventually_names(page, expected, "64 tools at most, over-long ones dropped")
    assert len(webmcp(page)[0]["description"]) == 2000


# -------------------------------------------------------------------------------------------------
# Calls: webmcpCall runs the page's own execute()


def test_call_runs_execute_with_the_input(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    answer = call(page, "echo", {"text": "hi", "n": [1, 2]})
    assert answer == {"ok": True, "result": {"echoed": {"text": "hi", "n": [1, 2]}, "self": "echo"}, "dialogs": []}
    # (the browser hands extension arguments over with their keys sorted)
    assert page.page.evaluate("() => window.log") == ['activated:echo', 'echo:{"n":[1,2],"text":"hi"}:true']
    answer = call(page, "set_out", {"text": "changed by a tool"})
    assert answer["ok"] is True and answer["result"] == "out is now changed by a tool"
    assert page.text("#out") == "changed by a tool"
    # the older shape, with client.requestUserInteraction
    assert call(page, "legacy.tool-1", {"n": 7})["result"] == "confirmed 7"


def test_call_failures(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    thrown = call(page, "throws")
    assert thrown == {"ok": False, "code": "SCRIPT_ERROR", "message": "Error: the page says no"}
    rejected = call(page, "rejects")
    assert rejected == {"ok": False, "code": "SCRIPT_ERROR", "message": "TypeError: bad input from the page"}
    missing = call(page, "no_such_tool")
    assert missing["ok"] is False and missing["code"] == "TOOL_NOT_FOUND"
    assert "no_such_tool" in missing["message"] and "echo" in missing["message"]
    bad = page.call("webmcpCall", {"name": "echo", "args": [1, 2]})
    assert bad["ok"] is False and bad["code"] == "BAD_MESSAGE"


def test_a_call_that_never_settles_times_out_and_is_aborted(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    answer = call(page, "never", timeout_ms=300)
    assert answer["ok"] is False and answer["code"] == "TIMEOUT"
    assert "never" in answer["message"] and "300 ms" in answer["message"]
    assert page.page.evaluate("() => window.log") == ["activated:never", "never:aborted", "cancel:never"]
    # the page still answers the next call
    assert call(page, "echo", {"text": "after"})["result"]["echoed"] == {"text": "after"}


def test_results_that_are_not_json(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    for name, reason in (("bigint", "BigInt"), ("circular", "circular")):
        answer = call(page, name)
        assert answer["ok"] is True and answer["notJson"] is True, answer
        assert "not JSON-serialisable" in answer["result"] and reason in answer["result"]
    assert call(page, "nothing") == {"ok": True, "result": None, "dialogs": []}


def test_large_results_are_cut_with_a_marker(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    small = call(page, "big", {"n": 100})
    assert small["result"] == "x" * 100 + "END" and "truncated" not in small
    answer = call(page, "big", {"n": 50000})
    assert answer["truncated"] is True
    text = answer["result"]
    assert text.startswith("xxxx") and "END" not in text
    assert "[truncated: the result was 50005 characters of JSON" in text
    assert len(json.dumps(text, ensure_ascii=False)) <= 20000
    objects = call(page, "big_object")
    assert objects["truncated"] is True and objects["result"].startswith('{"items":[{"i":0,"text":"item \\"0\\"\\n"}')
    assert len(json.dumps(objects["result"])) <= 20000


def test_dialogs_opened_by_a_tool_are_reported(open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    answer = call(page, "confirm_then")
    assert answer["result"] == {"confirmed": False}
    assert answer["dialogs"] == [{"type": "confirm", "message": "Proceed?", "answer": False}]


# -------------------------------------------------------------------------------------------------
# The agent's view: late agents, frames, change reports


def test_tools_registered_before_the_agent_loaded_are_listed(browser: Browser, open_page: OpenPage) -> None:
    page = open_page("webmcp.html")
    register(page, "before", "b")
    browser.worker.evaluate(REINJECT_AGENT, page.tab_id)  # a fresh agent, as after an extension reload
    assert names(page) == [*LOAD_TOOLS, "before"]
    assert call(page, "before") == {"ok": True, "result": "b", "dialogs": []}
    register(page, "after", "a")
    eventually_names(page, [*LOAD_TOOLS, "before", "after"], "the fresh agent to hear new tools")


def test_an_iframes_tools_stay_in_the_iframe(open_page: OpenPage) -> None:
    page = open_page("webmcp-frames.html")
    child = eventually(
        lambda: next((f for f in page.frames() if "webmcp-child.html" in f["url"]), None), "the child frame"
    )
    eventually(lambda: names(page, child["frameId"]) == ["child_tool"], "the child's tool in the child's agent")
    assert names(page) == ["top_tool"]
    assert call(page, "child_tool")["code"] == "TOOL_NOT_FOUND"
    assert call(page, "child_tool", frame_id=child["frameId"])["result"] == "child ran"
    assert call(page, "top_tool")["result"] == "top"


def test_a_tool_change_is_reported_as_tools_changed(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()
    page = open_page("webmcp.html")
    version = page.call("capture", {"maxChars": 100})["version"]

    def reports() -> list[dict[str, Any]]:
        return [
            m["message"]
            for m in browser.agent_messages(page.tab_id)
            if m["message"]["type"] == "toolsChanged" and m["message"]["reason"] == "webmcp"
        ]

    before = len(reports())
    page.page.evaluate("() => window.tempController.abort()")
    eventually(lambda: len(reports()) > before, "a toolsChanged report with reason webmcp")
    after = page.call("capture", {"maxChars": 100})["version"]
    assert after != version and after.split(":")[0] == version.split(":")[0]


# -------------------------------------------------------------------------------------------------
# Chromium's own WebMCP: wrapped, not replaced


@contextmanager
def native_browser() -> Iterator[Browser]:
    """A second browser, with Chromium's WebMCP switched on and the extension loaded."""
    with agent_browser("--enable-features=WebMCP") as browser:
        yield browser


def open_native(browser: Browser, name: str) -> AgentPage:
    url = browser.url(name)
    page = browser.context.new_page()
    page.goto(url)
    tab_id = browser.worker.evaluate(FIND_TAB, url)
    assert tab_id is not None
    return AgentPage(browser, page, tab_id)


def in_own_thread(check: Callable[[], None]) -> None:
    """Runs check in a thread of its own: this one's event loop belongs to the package's browser."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(check).result(timeout=120)


def test_native_webmcp_is_wrapped_not_replaced() -> None:
    in_own_thread(check_native_webmcp)


def check_native_webmcp() -> None:
    with native_browser() as browser:
        page = open_native(browser, "webmcp.html")
        facts = page.page.evaluate(
            """async () => ({
              native: typeof ModelContext === 'function' && document.modelContext instanceof ModelContext,
              same: navigator.modelContext === document.modelContext,
              nativeNames: (await document.modelContext.getTools()).map((t) => t.name),
            })"""
        )
        assert facts["native"] is True and facts["same"] is True
        assert sorted(facts["nativeNames"]) == sorted(LOAD_TOOLS)  # the browser's registry has them all
        assert names(page) == LOAD_TOOLS
        assert call(page, "echo", {"text": "native"})["result"] == {"echoed": {"text": "native"}, "self": "echo"}
        assert call(page, "throws")["message"] == "Error: the page says no"
        # the browser's own errors: a rejected promise, not a throw
        duplicate = page.page.evaluate(
            """() => document.modelContext.registerTool({ name: 'echo', description: 'd', execute() {} })
                 .then(() => 'registered', (e) => e.name)"""
        )
        assert duplicate == "InvalidStateError"
        # removal through each shape reaches the browser's registry too
        page.page.evaluate(
            """() => {
              window.tempController.abort();
              navigator.modelContext.unregisterTool('echo');
              window.legacyHandle.unregister();
            }"""
        )
        remaining = [n for n in LOAD_TOOLS if n not in ("temporary", "echo", "legacy.tool-1")]
        eventually_names(page, remaining, "the removed tools to go")
        native_names = page.page.evaluate("async () => (await document.modelContext.getTools()).map((t) => t.name)")
        assert sorted(native_names) == sorted(remaining)
        page.page.evaluate(
            """() => navigator.modelContext.provideContext({
              tools: [{ name: 'only', description: 'd', execute: () => 'o' }],
            })"""
        )
        eventually_names(page, ["only"], "provideContext on the native object")
        assert page.page.evaluate("async () => (await document.modelContext.getTools()).map((t) => t.name)") == ["only"]
        assert call(page, "only")["result"] == "o"


# -------------------------------------------------------------------------------------------------
# The WebMCP demo site (src/tabmcp/demo/sites/webmcp): its tools through the agent


def open_demo(browser: Browser, site: SiteServer) -> AgentPage:
    url = site.url("webmcp/index.html")
    page = browser.context.new_page()
    page.goto(url)
    tab_id = browser.worker.evaluate(FIND_TAB, url)
    assert tab_id is not None
    return AgentPage(browser, page, tab_id)


def test_the_demo_sites_tools_follow_its_state(browser: Browser) -> None:
    with SiteServer() as site:
        page = open_demo(browser, site)
        try:
            tools = {t["name"]: t for t in webmcp(page)}
            assert list(tools) == ["list_todos", "add_todo", "complete_todo"]
            assert tools["list_todos"]["annotations"] == {"readOnlyHint": True}
            assert tools["add_todo"]["inputSchema"]["required"] == ["text"]
            html = page.call("capture", {"maxChars": 100000})["html"]
            assert "toolname='search_todos'" in html and "toolautosubmit" in html and "toolparamdescription" in html

            listed = call(page, "list_todos", {"show": "open"})["result"]
            assert [t["id"] for t in listed["todos"]] == ["t1", "t2", "t3"] and listed["open"] == 3
            added = call(page, "add_todo", {"text": "Water the plants", "due": "2025-08-01"})["result"]
            assert added["added"] == {"id": "t4", "text": "Water the plants", "due": "2025-08-01", "done": False}
            assert "Water the plants" in page.text("#todos")
            bad = call(page, "add_todo", {"text": "x", "due": "tomorrow"})
            assert bad["code"] == "SCRIPT_ERROR" and "YYYY-MM-DD" in bad["message"]

            # clear_completed exists only while something is done
            call(page, "complete_todo", {"id": "t1"})
            eventually_names(page, ["list_todos", "add_todo", "complete_todo", "clear_completed"], "clear_completed")
            cleared = call(page, "clear_completed")["result"]
            assert [t["text"] for t in cleared["removed"]] == ["Buy oat milk"]
            eventually_names(page, ["list_todos", "add_todo", "complete_todo"], "clear_completed to go again")
            assert "Buy oat milk" not in page.text("#todos")
            assert page.text("#agent-activity") == "An agent used clear_completed."
        finally:
            page.page.close()
