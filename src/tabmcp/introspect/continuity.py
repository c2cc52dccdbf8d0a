"""Names the client knows stay with the tools they named. Pure: no I/O.

The registry names a page's tools in order of use, so a site's box can be ``search`` on one page
(alone) and ``search_sidebar`` on the next (where the page's own search came first and took the plain
name). Each such page would be a list change for a tool that is the same in every visible part but
its name. Given what the client already lists (name → how the tool looks: title, description,
schema, hints), a tool that looks exactly like a listed one takes that name back; a tool holding the
name meanwhile is named again from its own qualifiers (``search_header``), as the registry names a
tool whose name is taken. Nothing is renamed when that fails: names stay valid and unique.

The other way round, a name the client holds does not pass to another tool: a tool of the page
that has the name but another title or other hints (another control: a wiki's search page has its
own "Search term" form with options where other pages have the header's "Search" box; its editor
has a "Search" button) is named from its qualifiers, then its title (``search_navigation``,
``search_term``). Going from page to page then changes which tools are there, never what a name
means; a tool whose title and hints stay (a form whose choices changed) keeps its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from tabmcp.introspect.api import Face, PageTool
from tabmcp.introspect.registry import CORE_TOOL_NAMES, unique_name
from tabmcp.introspect.text import valid_name


def keep_known_names(
    tools: tuple[PageTool, ...],
    known: Mapping[Face, str],
    *,
    reserved: Iterable[str] = (),
    held: Mapping[str, Face] | None = None,
) -> tuple[PageTool, ...]:
    """``tools`` with the names of ``known`` (a listed tool's face → its name) given back to the tools
    that look like them, and no name of ``held`` (the client's list: name → face) given to another
    tool."""
    if not known and not held:
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
    if held:
        out = _keep_meanings(out, held, reserved)
    return tuple(out)


def _keep_meanings(out: list[PageTool], held: Mapping[str, Face], reserved: frozenset[str]) -> list[PageTool]:
    for i, tool in enumerate(out):
        face = held.get(tool.name)
        if face is None or not _another_tool(face, tool.face()):
            continue
        taken = {t.name for t in out} | set(held) | reserved
        renamed = unique_name(tool.name, taken, reserved=reserved, qualifiers=tool.qualifiers)
        if renamed is None and tool.title:  # its own label: "Search term" → search_term
            titled = valid_name(tool.title)
            renamed = titled if titled not in taken and titled != "page_tool" else None
        if renamed is not None:
            out[i] = replace(tool, name=renamed)
    return out


def _another_tool(held: Face, now: Face) -> bool:
    """Whether ``now`` is another control than the one the client holds by that name: another title
    (the label the page shows) or other hints (another kind of action)."""
    return held.title != now.title or held.hints != now.hints
