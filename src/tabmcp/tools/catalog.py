"""The core tools, in the order tools/list shows them: the one list of the server's tools.

Each module in ``tools/`` declares its tools with ``@tool``; none registers itself. A tool is
offered by the server when it is named here, and where it is named is where clients see it:
connecting, tabs, then the page agent, most used first.
"""

from __future__ import annotations

from tabmcp.tools import act, browser, evaluate, nl_act, nl_connect, nl_read, observe, page_proxy, tabs
from tabmcp.tools.base import CoreTool, declared

CATALOG: tuple[CoreTool, ...] = tuple(
    declared(handler)
    for handler in (
        browser.connect_browser,
        tabs.list_tabs,
        tabs.open_tab,
        tabs.focus_tab,
        tabs.close_tab,
        # the page tools' way in for clients that ignore list_changed (static mode only; tool_modes.py)
        page_proxy.list_page_tools,
        page_proxy.call_page_tool,
        observe.snapshot,
        act.interact,
        act.navigate,
        act.wait_for,
        observe.screenshot,
        observe.console,
        evaluate.evaluate,
        # natural-language tools (nl_tools=true; docs/nl-tools.md)
        nl_connect.ai_connect_current_tab,
        nl_connect.ai_connect_new_tab,
        nl_connect.ai_disconnect,
        nl_act.ai_tap,
        nl_act.ai_input,
        nl_act.ai_hover,
        nl_act.ai_keyboard_press,
        nl_act.ai_scroll,
        nl_read.ai_query,
        nl_read.ai_assert,
        nl_read.ai_wait_for,
        nl_act.ai_action,
    )
)
CORE_NAMES = frozenset(t.name for t in CATALOG)
