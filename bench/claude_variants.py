"""The servers and settings bench/claude_tasks.py runs under Claude Code, and how each is launched.

Each server's stderr goes to a log file of the run (Claude Code does not pass it on): the command is
``sh -c 'exec SERVER ARGS 2>>LOG'``, so tabmcp's DEBUG line on how long it held an answer until Claude
Code re-read the tool list can be read back (``holds``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.adapters.base import CHROMIUM, npm_bin
from bench.claude_model import page_tool_test
from bench.task_meter import CORE
from tabmcp.config import Settings
from tabmcp.demo.client import tabmcp_command

# Every core tool that can be marked alwaysLoad while a page is focused (and connect_browser).
FOCUSED_CORE = (
    "list_tabs", "open_tab", "focus_tab", "close_tab", "snapshot", "interact",
    "navigate", "wait_for", "screenshot", "console", "connect_browser",
)  # fmt: skip

# The tools each task's script calls (task_tabmcp.py, task_playwright.py): what a model, having read the
# task and the deferred names, loads in one ToolSearch when it needs the first of them.
PLANS: dict[str, dict[str, tuple[str, ...]]] = {
    "tabmcp": {
        "mail": ("connect_browser", "search_inbox", "open_thread"),
        "flights": ("connect_browser", "search_flights", "select_flight"),
        "repo": ("connect_browser", "star_repo", "view_issues"),
        "todos": ("connect_browser", "list_todos", "add_todo", "complete_todo"),
    },
    "playwright": {
        "mail": ("browser_navigate", "browser_snapshot", "browser_type", "browser_click"),
        "flights": (
            "browser_navigate",
            "browser_snapshot",
            "browser_type",
            "browser_click",
            "browser_fill_form",
            "browser_wait_for",
        ),
        "repo": ("browser_navigate", "browser_snapshot", "browser_click", "browser_type"),
        "todos": ("browser_navigate", "browser_snapshot", "browser_click", "browser_type"),
    },
}
HOLD = re.compile(r"answered after the client re-read the tool list \((\d+) ms\)")


@dataclass(frozen=True)
class Variant:
    key: str
    label: str
    server: str  # "tabmcp" or "playwright": which scripts and plans
    short: str = ""  # the chart's label
    tool_search: bool = True
    settings: dict[str, str] = field(default_factory=dict)  # TABMCP_* for tabmcp

    @property
    def prefix(self) -> str:
        return f"mcp__{self.server}__"

    @property
    def always_load(self) -> list[str] | None:
        """What tabmcp marks alwaysLoad in this variant (None for a peer)."""
        if self.server != "tabmcp":
            return None
        given = self.settings.get("TABMCP_ALWAYS_LOAD")
        return json.loads(given) if given is not None else DEFAULT_ALWAYS_LOAD

    @property
    def static(self) -> bool:
        return self.settings.get("TABMCP_TOOLS") == "static"

    @property
    def page_tool(self) -> Callable[[str], bool] | None:
        return page_tool_test(CORE) if self.server == "tabmcp" else None

    @property
    def fallback(self) -> tuple[str, dict[str, Any]] | None:
        """What the model does when the tool it wants is not offered yet: look at the page."""
        return ("snapshot", {}) if self.server == "tabmcp" else None

    def servers(self, log: Path, scratch: Path, peers: Path) -> dict[str, dict[str, Any]]:
        if self.server == "tabmcp":
            command, prefix = tabmcp_command()
            argv = [command, *prefix, "serve"]
            env = {
                "TABMCP_NATIVE_BRIDGE": "false",
                "TABMCP_WS_PORT": "0",
                "TABMCP_HEADLESS": "true",
                "TABMCP_BROWSER_PATH": CHROMIUM,
                "TABMCP_LOG_LEVEL": "DEBUG",  # the hold's log line is at DEBUG
                **self.settings,
            }
        else:
            argv = [npm_bin(peers, "playwright-mcp"), "--executable-path", CHROMIUM, "--headless", "--isolated",
                    "--no-sandbox", "--output-dir", str(scratch / "out")]  # fmt: skip
            env = {}
        script = 'exec "$@" 2>>"$LOG"'
        return {
            self.server: {"command": "/bin/sh", "args": ["-c", script, "sh", *argv], "env": {**env, "LOG": str(log)}}
        }


def _tabmcp(
    key: str, label: str, short: str, always_load: list[str] | None, *, search: bool = True, **settings: str
) -> Variant:
    """``always_load`` None: tabmcp's own default, whatever it is now."""
    env = {"TABMCP_TOOLS": "dynamic", **settings}
    if always_load is not None:
        env["TABMCP_ALWAYS_LOAD"] = json.dumps(always_load)
    return Variant(key, label, "tabmcp", short=short, tool_search=search, settings=env)


def _shown(names: list[str]) -> str:
    return "[" + ",".join(f'"{n}"' for n in names) + "]"


DEFAULT_ALWAYS_LOAD: list[str] = Settings.model_fields["always_load"].get_default(call_default_factory=True)

VARIANTS: dict[str, Variant] = {
    v.key: v
    for v in (
        _tabmcp("tabmcp", f"tabmcp, always_load {_shown(DEFAULT_ALWAYS_LOAD)} (default)", "tabmcp (default)", None),
        _tabmcp("tabmcp-no-search", "tabmcp, tool search off", "tabmcp, no ToolSearch", None, search=False),
        _tabmcp("tabmcp-static", "tabmcp static", "tabmcp static", None, TABMCP_TOOLS="static"),
        _tabmcp("load-none", "tabmcp, always_load []", "always_load []", []),
        _tabmcp("load-page", 'tabmcp, always_load ["page"]', "page only", ["page"]),
        _tabmcp(
            "load-page-snap",
            'tabmcp, always_load ["page","snapshot","interact"]',
            "page+snapshot+interact",
            ["page", "snapshot", "interact"],
        ),
        _tabmcp(
            "load-page-connect",
            'tabmcp, always_load ["page","connect_browser"]',
            "page+connect_browser",
            ["page", "connect_browser"],
        ),
        _tabmcp("load-all", "tabmcp, always_load page + every core tool", "page+all core", ["page", *FOCUSED_CORE]),
        Variant("playwright", "Playwright MCP", "playwright", short="Playwright MCP"),
        Variant(
            "playwright-no-search", "Playwright MCP, tool search off", "playwright", "Playwright, no ToolSearch", False
        ),
    )
}
# the always_load comparison: the settings asked about, the default and page + connect_browser
ALWAYS_LOAD_KEYS = ("load-none", "load-page", "load-page-snap", "load-all", "load-page-connect", "tabmcp")


def key_of(always_load: list[str]) -> str | None:
    """The dynamic tabmcp variant with tool search on that marks exactly these (the default included)."""
    return next(
        (
            k
            for k, v in VARIANTS.items()
            if v.server == "tabmcp" and v.tool_search and not v.static and v.always_load == always_load
        ),
        None,
    )


def holds(log_text: str) -> list[int]:
    """Milliseconds tabmcp held each answer until the client had re-read the tool list."""
    return [int(ms) for ms in HOLD.findall(log_text)]
