"""An app's saved captures (tests/fixtures/apps/NAME, made by its fixture script) and the page tools
the registry makes of them: what the unit tests of one app read."""

from __future__ import annotations

from functools import cache

from bench.apps.capture import saved_captures
from bench.apps.quality import argument_refs
from bench.apps.report import page_tools

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import REF_ATTR, PageCapture


class SavedApp:
    def __init__(self, name: str) -> None:
        self.name = name
        self.captured = cache(self._captured)
        self.tools_of = cache(self._tools_of)

    def _captured(self, page: str) -> PageCapture:
        return saved_captures(self.name)[page]

    def _tools_of(self, page: str) -> dict[str, PageTool]:
        return {t.name: t for t in page_tools(self.captured(page), Registry.discover())}

    def ref_at(self, page: str, xpath: str) -> str:
        """The ref of the one element at ``xpath``."""
        (el,) = self.captured(page).tree.xpath(xpath)
        return str(el.get(REF_ATTR))

    def writer_of(self, page: str, xpath: str) -> PageTool:
        """The one tool that writes the element(s) at ``xpath`` from an argument."""
        refs = {str(e.get(REF_ATTR)) for e in self.captured(page).tree.xpath(xpath)}
        assert refs, f"{self.name}/{page}: nothing at {xpath}"
        written = argument_refs(list(self.tools_of(page).values()))
        (tool,) = [t for t in self.tools_of(page).values() if written[t.name] & refs]
        return tool
