"""What a static-mode client was told of the focused page's tools, and what it has not been told yet. Pure.

A client with the fixed tool list (tool_modes.py) learns the page tools from ``list_page_tools`` and
from the answers of its calls: an answer after which the focused page's tools differ from what the
client was last told carries the difference (``page_proxy.page_tools_news``), so the model can call
``call_page_tool`` next without listing first. Kept per client: two clients of one workspace are told
apart. A tool counts as told as it was told: one whose title, description, schema or hints changed
since is told again; one the page lost is named once as gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tabmcp.introspect.api import Face, PageTool


@dataclass(frozen=True)
class Delta:
    """The page tools the client does not have as they are now, and the names of those it has that are gone."""

    new: tuple[PageTool, ...]
    gone: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.new or self.gone)


@dataclass
class Told:
    """One client's page tools as it was last told them: name -> how the tool looked then."""

    tools: dict[str, Face] = field(default_factory=dict)

    def delta(self, now: Iterable[PageTool]) -> Delta:
        current = tuple(now)
        new = tuple(t for t in current if self.tools.get(t.name) != t.face())
        names = {t.name for t in current}
        gone = tuple(name for name in self.tools if name not in names)
        return Delta(new, gone)

    def tell(self, now: Iterable[PageTool]) -> None:
        """The client has been told the tools ``now`` (all of them, or the delta to them)."""
        self.tools = {t.name: t.face() for t in now}
