"""Which tool list a client gets: dynamic (follows the browser, with ``list_changed``) or static.

Some clients read ``tools/list`` once and ignore ``notifications/tools/list_changed``: with the
dynamic list they would never see the tab tools. For them the list is fixed (every core tool the
settings enable, plus ``list_page_tools`` and ``call_page_tool``), and a call in the wrong state
gets the usual actionable error. ``auto`` picks static for clients known to ignore the notice,
by the ``clientInfo.name`` they send in ``initialize`` (docs/clients.md cites the reports). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ToolsSetting = Literal["auto", "dynamic", "static"]
ToolsMode = Literal["dynamic", "static"]

# clientInfo.name (compared case-insensitively) of clients reported to ignore list_changed.
IGNORES_LIST_CHANGED: dict[str, str] = {
    "claude-ai": "Claude Desktop / claude.ai",
    "cursor-vscode": "Cursor",
    "codex-mcp-client": "OpenAI Codex",
    "codex": "OpenAI Codex",
}


@dataclass(frozen=True)
class ModeChoice:
    mode: ToolsMode
    why: str  # for the log line: the setting, or the client that made auto choose


def choose_tools_mode(setting: ToolsSetting, client_name: str | None) -> ModeChoice:
    """The mode for one client: the setting when it is not ``auto``, else by the client's name."""
    if setting != "auto":
        return ModeChoice(setting, f"tools={setting}")
    name = (client_name or "").strip()
    known = IGNORES_LIST_CHANGED.get(name.lower())
    if known is not None:
        return ModeChoice("static", f"tools=auto and client {name!r} ({known}) is known to ignore list_changed")
    shown = repr(name) if name else "without a name"
    return ModeChoice("dynamic", f"tools=auto and client {shown} is not known to ignore list_changed")
