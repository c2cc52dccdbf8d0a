"""The extension's content scripts as source text, for a driver that has no extension to declare them.

``extension/manifest.json`` is the one list of what runs in a page: its MAIN-world entry
(``page_hooks.js``) and its isolated-world entry (the page agent's files, in load order). The
extension's service worker injects the same list (``chrome.runtime.getManifest()``); the CDP driver
evaluates these sources in each frame's main world, the hooks first.
"""

from __future__ import annotations

import json
from pathlib import Path

from tabmcp.drivers.launch import LaunchError, extension_source


def page_scripts(folder: Path | None = None) -> tuple[str, str]:
    """(page hooks, page agent): each world's content-script files joined in the manifest's order."""
    folder = folder or extension_source()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    worlds: dict[bool, list[str]] = {True: [], False: []}  # main world?
    for entry in manifest.get("content_scripts") or []:
        worlds[entry.get("world") == "MAIN"] += entry.get("js", [])
    if not worlds[True] or not worlds[False]:
        raise LaunchError(f"{folder / 'manifest.json'} lists no content script for the main or the isolated world")

    def joined(names: list[str]) -> str:
        return "\n".join((folder / name).read_text(encoding="utf-8") for name in names)

    return joined(worlds[True]), joined(worlds[False])


def agent_entry(folder: Path | None = None) -> str:
    """``agent_entry.js``'s function as an expression Playwright evaluates with ``[method, arg]``: the
    same entry the extension's service worker hands to ``chrome.scripting``."""
    source = ((folder or extension_source()) / "agent_entry.js").read_text(encoding="utf-8")
    return f"([method, arg]) => ({source}\n)(method, arg)"
