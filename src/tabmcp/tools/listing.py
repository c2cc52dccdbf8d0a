"""A page tool as MCP lists it: one shape for ``tools/list`` (server.py) and for ``list_page_tools``
(page_proxy.py, the static tool mode), so the two can never describe a tool differently."""

from __future__ import annotations

from mcp import types

from tabmcp.introspect.api import PageTool, ToolHints


def annotations_of(hints: ToolHints) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        read_only_hint=hints.read_only,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=hints.open_world,
    )


# Claude Code's per-tool keys: a tool marked alwaysLoad goes into the model's request at once instead
# of being named for its tool search (docs/decisions.md has the cost model behind what is marked)
ALWAYS_LOAD = {"anthropic/alwaysLoad": True}


def core_annotations(hints: ToolHints) -> types.ToolAnnotations:
    """The hints of a core tool, short: they are on every tools/list, so what MCP assumes of an absent
    hint (not read-only, destructive, not idempotent, open world; the last three mean nothing for a
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
        title=tool.title,
        description=tool.description,
        input_schema=tool.schema,
        annotations=annotations_of(tool.hints),
        meta=ALWAYS_LOAD if always_load else None,
    )
