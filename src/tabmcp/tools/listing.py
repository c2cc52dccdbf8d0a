"""A page tool as MCP lists it: one shape for ``tools/list`` (server.py) and for ``list_page_tools``
(page_proxy.py, the static tool mode), so the two can never describe a tool differently."""

from __future__ import annotations

from mcp import types

from tabmcp.introspect.api import PageTool, ToolHints

# Claude Code's per-tool keys: a tool marked alwaysLoad goes into the model's request at once instead
# of being named for its tool search (docs/decisions.md has the cost model behind what is marked)
ALWAYS_LOAD = {"anthropic/alwaysLoad": True}


def annotations_of(hints: ToolHints) -> types.ToolAnnotations:
    """A tool's hints, short: they are on every tools/list read, so what MCP assumes of an absent hint
    (not read-only, destructive, not idempotent, open world; the last three mean nothing for a
    read-only tool) is left out."""
    writes = not hints.read_only
    return types.ToolAnnotations(
        read_only_hint=True if hints.read_only else None,
        destructive_hint=hints.destructive if writes else None,
        idempotent_hint=True if writes and hints.idempotent else None,
        open_world_hint=None if hints.open_world else False,
    )


def page_tool_listing(tool: PageTool, *, always_load: bool = False) -> types.Tool:
    return types.Tool(
        name=tool.name,
        # a page-written tool keeps its title: it says where the tool comes from ("Page: …")
        title=tool.title if tool.untrusted or not _only_the_name(tool.title, tool.name) else None,
        description=tool.description,
        input_schema=tool.schema,
        annotations=annotations_of(tool.hints),
        meta=ALWAYS_LOAD if always_load else None,
    )


def _only_the_name(title: str | None, name: str) -> bool:
    """A title that says no more than the name (``Keep editing`` for ``keep_editing``): a client shows
    the name then, and the list is read again after every change."""
    if not title:
        return True
    words = "".join(c if c.isalnum() else " " for c in title.lower()).split()
    return "_".join(words) == name
