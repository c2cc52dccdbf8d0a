"""Finding introspectors and running them over a capture.

Sources, in this order (the order is deterministic, so the tool list is too): the built-in
generic introspectors, the top-level ``introspectors`` package shipped with tabmcp, the
``tabmcp.introspectors`` entry-point group, and a folder named in config. A plugin module
exposes ``INTROSPECTORS`` (a list of Introspector instances). A broken plugin is logged, kept in
``errors`` for ``tabmcp doctor``, and skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from tabmcp.introspect.api import Introspector, PageTool
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.page.capture import PageCapture

log = logging.getLogger(__name__)
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
ENTRY_POINT_GROUP = "tabmcp.introspectors"


def builtin_introspectors() -> list[Introspector]:
    return [FormIntrospector()]


@dataclass
class Registry:
    introspectors: list[Introspector]
    errors: list[str] = field(default_factory=list)

    @classmethod
    def discover(cls, folder: Path | None = None) -> Registry:
        registry = cls(builtin_introspectors())
        registry._load_package("introspectors")
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            registry._guard(f"entry point {ep.name}", lambda ep=ep: registry._add_module(ep.load()))
        if folder is not None:
            for path in sorted(Path(folder).glob("*.py")):
                registry._guard(str(path), lambda path=path: registry._add_module(_load_file(path)))
        return registry

    def _load_package(self, package: str) -> None:
        try:
            pkg = importlib.import_module(package)
        except ImportError:
            return
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            name = f"{package}.{info.name}"
            self._guard(name, lambda name=name: self._add_module(importlib.import_module(name)))

    def _add_module(self, loaded: object) -> None:
        if isinstance(loaded, ModuleType) and not hasattr(loaded, "INTROSPECTORS"):
            return  # a helper module beside the plugins, not a plugin
        found = getattr(loaded, "INTROSPECTORS", loaded)
        if not isinstance(found, list) or not all(isinstance(i, Introspector) for i in found):
            raise TypeError("expected a module-level INTROSPECTORS list of Introspector instances")
        self.introspectors.extend(found)

    def _guard(self, where: str, load: object) -> None:
        try:
            load()  # type: ignore[operator]
        except Exception as exc:  # a plugin must never take the server down
            self.errors.append(f"{where}: {type(exc).__name__}: {exc}")
            log.warning("introspector plugin %s skipped: %s", where, exc)

    def page_tools(
        self, capture: PageCapture, *, reserved: Iterable[str] = (), limit: int = 20
    ) -> tuple[PageTool, ...]:
        """Every matching introspector's tools: site tools first, then generic ones for elements
        no site tool drives; names made valid and unique; at most ``limit``."""
        ordered = sorted(self.introspectors, key=lambda i: i.kind != "site")  # stable: keeps order
        claimed: set[str] = set()
        taken = set(reserved)
        result: list[PageTool] = []
        for introspector in ordered:
            for tool in self._run(introspector, capture):
                if tool.element_ref and tool.element_ref in claimed:
                    continue
                if introspector.kind == "site" and tool.element_ref:
                    claimed.add(tool.element_ref)
                name = unique_name(tool.name, taken)
                taken.add(name)
                result.append(replace(tool, name=name, source=tool.source or introspector.name))
        return tuple(result[:limit])

    def _run(self, introspector: Introspector, capture: PageCapture) -> list[PageTool]:
        try:
            return list(introspector.tools(capture)) if introspector.matches(capture) else []
        except Exception as exc:
            log.warning("introspector %s failed on %s: %s", introspector.name, capture.url, exc)
            return []


def unique_name(wanted: str, taken: set[str]) -> str:
    """A valid tool name (``^[a-z][a-z0-9_]{0,39}$``) not in ``taken``."""
    name = re.sub(r"[^a-z0-9_]+", "_", wanted.lower()).strip("_") or "page_tool"
    if not name[0].isalpha():
        name = f"page_{name}"
    name = name[:40].rstrip("_")
    candidate, n = name, 2
    while candidate in taken:
        suffix = f"_{n}"
        candidate = name[: 40 - len(suffix)] + suffix
        n += 1
    assert TOOL_NAME.match(candidate), candidate
    return candidate


def _load_file(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"tabmcp_plugin_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module
