"""Names the client knows stay with the tools they named. Pure: no I/O.

The registry names a page's tools in order of use, so a site's box can be ``search`` on one page
(alone) and ``search_sidebar`` on the next (where the page's own search came first and took the plain
name). Each such page would be a list change for a tool that is the same in every visible part but
its name. Given what the client already lists (name → how the tool looks: title, description,
schema, hints), a tool that looks exactly like a listed one takes that name back; a tool holding the
name meanwhile is named again from its own qualifiers (``search_header``), as the registry names a
tool whose name is taken. Nothing is renamed when that fails: names stay valid and unique.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.registry import CORE_TOOL_NAMES, unique_name

Face = tuple[object, ...]  # PageTool.face(): the tool as listed, but its name


def keep_known_names(
    tools: tuple[PageTool, ...], known: Mapping[Face, str], *, reserved: Iterable[str] = ()
) -> tuple[PageTool, ...]:
    """``tools`` with the names of ``known`` (a listed tool's face → its name) given back to the tools
    that look like them."""
    if not known:
        return tools
    out = list(tools)
    faces = [t.face() for t in out]
    reserved = frozenset(reserved) | CORE_TOOL_NAMES
    for i, tool in enumerate(out):
        wanted = known.get(faces[i])
        if wanted is None or wanted == tool.name:
            continue
        holder = next((j for j, other in enumerate(out) if other.name == wanted), None)
        if holder is not None:
            if known.get(faces[holder]) == wanted:
                continue  # held by a tool the client knows by that name
            taken = {t.name for t in out} | reserved
            renamed = unique_name(out[holder].name, taken, reserved=reserved, qualifiers=out[holder].qualifiers)
            if renamed is None:
                continue
            out[holder] = replace(out[holder], name=renamed)
        out[i] = replace(tool, name=wanted)
    return tuple(out)
