"""Finding introspectors and running them over a capture (docs/introspectors.md).

Sources, in this order (the order is deterministic, so the tool list is too): the built-in
introspectors, the top-level ``introspectors`` package shipped with tabmcp (modules by name), the
``tabmcp.introspectors`` entry-point group (by entry-point name), and a folder named in config
(``*.py`` by file name, ``_``-prefixed files skipped). A plugin module exposes ``INTROSPECTORS``,
a list of ``Introspector`` instances; an entry point may also name such a list or one instance.

A broken plugin never takes the server down: one that fails to load is logged, kept in
``errors`` (``tabmcp doctor`` shows them) and skipped; one that fails on a page (``matches`` or
``tools`` raises, or a tool is malformed) is logged once per distinct error and counted in
``failures``, and the other introspectors' tools are still listed.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from itertools import islice
from pathlib import Path
from types import ModuleType

from lxml.html import HtmlElement

from tabmcp.introspect.actions import ActionsIntrospector
from tabmcp.introspect.api import KIND_ORDER, MAX_DESCRIPTION, MAX_TITLE, Introspector, PageTool, PlanStep, ToolHints
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.introspect.link_filters import LinkFiltersIntrospector
from tabmcp.introspect.lists import ListIntrospector
from tabmcp.introspect.row_links import RowLinksIntrospector
from tabmcp.introspect.rows import RowsIntrospector
from tabmcp.introspect.schema import schema_problem
from tabmcp.introspect.search import SearchIntrospector
from tabmcp.introspect.text import MAX_NAME, TOOL_NAME, UNTRUSTED_PREFIX, cap, cap_words, clean, valid_name
from tabmcp.introspect.webmcp import WebMCPIntrospector
from tabmcp.page.capture import PageCapture

log = logging.getLogger(__name__)
ENTRY_POINT_GROUP = "tabmcp.introspectors"
PACKAGE = "introspectors"
DEFAULT_LIMIT = 30
MAX_TOOLS_PER_INTROSPECTOR = 200  # bounds the work one runaway plugin can cause per capture
RESERVED_PREFIX = "page_"
# Every core tool's name, also of those switched off in this process (``evaluate``): a page tool
# named like one would pass for it. tests/unit/test_guard_untrusted.py keeps this equal to the catalog.
CORE_TOOL_NAMES = frozenset(
    (
        *("connect_browser", "list_tabs", "open_tab", "focus_tab", "close_tab", "snapshot", "interact"),
        *("navigate", "wait_for", "screenshot", "console", "evaluate"),
        # the static tool mode's page-tool proxies (tools/page_proxy.py)
        *("list_page_tools", "call_page_tool"),
        # the natural-language tools (nl_tools; docs/nl-tools.md)
        *("ai_connect_current_tab", "ai_connect_new_tab", "ai_disconnect", "ai_tap", "ai_input", "ai_hover"),
        *("ai_keyboard_press", "ai_scroll", "ai_query", "ai_assert", "ai_wait_for", "ai_action"),
    )
)
UNTRUSTED_TITLE = "Page: "  # a page-declared tool's title, as a client may show titles instead of names
MAX_LOGGED_ERRORS = 1000  # distinct run-time errors logged at warning level; the rest at debug
BUILTIN = "built-in"


def builtin_introspectors() -> list[Introspector]:
    """In discovery order: within the generic kind, search runs before forms so that
    ``search(query)`` claims the search form, and buttons outside forms come last."""
    return [
        WebMCPIntrospector(),
        SearchIntrospector(),
        FormIntrospector(),
        RowsIntrospector(),
        ListIntrospector(),
        RowLinksIntrospector(),
        LinkFiltersIntrospector(),
        ActionsIntrospector(),
    ]


@dataclass
class RunFailure:
    """An introspector's failures on pages since the server started."""

    count: int = 0
    last_error: str = ""
    last_url: str = ""


@dataclass(frozen=True)
class IntrospectorInfo:
    name: str
    kind: str
    source: str
    url_patterns: tuple[str, ...]
    has_predicate: bool


@dataclass
class Registry:
    introspectors: list[Introspector]
    errors: list[str] = field(default_factory=list)
    sources: dict[int, str] = field(default_factory=dict)  # id(introspector) -> where it came from
    failures: dict[str, RunFailure] = field(default_factory=dict)
    _logged: set[tuple[str, str]] = field(default_factory=set, repr=False)

    # ------------------------------------------------------------- discovery

    @classmethod
    def discover(cls, folder: Path | None = None) -> Registry:
        registry = cls([])
        registry._add(builtin_introspectors(), BUILTIN)
        registry._load_package(PACKAGE)
        registry._load_entry_points()
        if folder is not None:
            registry._load_folder(Path(folder))
        return registry

    def _load_package(self, package: str) -> None:
        try:
            pkg = importlib.import_module(package)
        except ImportError as exc:
            if exc.name != package:  # the package exists but something inside it failed to import
                self._error(package, exc)
            return
        except (Exception, SystemExit) as exc:
            self._error(package, exc)
            return
        for info in sorted(pkgutil.iter_modules(getattr(pkg, "__path__", [])), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            name = f"{package}.{info.name}"
            self._guard(name, lambda name=name: self._add_module(importlib.import_module(name), name, optional=True))

    def _load_entry_points(self) -> None:
        found = {(ep.name, ep.value): ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
        for (name, value), ep in sorted(found.items()):
            where = f"entry point {name} ({value})"
            self._guard(where, lambda ep=ep, where=where: self._add_module(ep.load(), where))

    def _load_folder(self, folder: Path) -> None:
        if not folder.is_dir():
            self.errors.append(f"{folder}: introspectors folder not found")
            log.warning("introspectors folder %s not found", folder)
            return
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith("_"):
                self._guard(str(path), lambda path=path: self._add_module(_load_file(path), str(path)))

    def _add_module(self, loaded: object, source: str, *, optional: bool = False) -> None:
        """``loaded``: a module with ``INTROSPECTORS``, such a list, or one instance. ``optional``:
        a module of the package without the list is a helper, not a broken plugin."""
        if isinstance(loaded, ModuleType):
            if not hasattr(loaded, "INTROSPECTORS"):
                if optional:
                    return
                raise TypeError("defines no module-level INTROSPECTORS list")
            loaded = loaded.INTROSPECTORS
        found = [loaded] if isinstance(loaded, Introspector) else loaded
        if not isinstance(found, list | tuple):
            raise TypeError(f"expected a module-level INTROSPECTORS list of Introspector instances, got {_what(found)}")
        for item in found:
            check_introspector(item)
        self._add(list(found), source)

    def _add(self, found: list[Introspector], source: str) -> None:
        for introspector in found:
            if id(introspector) in self.sources:
                continue  # the same instance reached twice (an entry point naming a list the package has)
            self.introspectors.append(introspector)
            self.sources[id(introspector)] = source

    def _guard(self, where: str, load: Callable[[], None]) -> None:
        try:
            load()
        except (Exception, SystemExit) as exc:  # a plugin must never take the server down
            self._error(where, exc)

    def _error(self, where: str, exc: BaseException) -> None:
        self.errors.append(f"{where}: {type(exc).__name__}: {exc}")
        log.warning("introspector plugin %s skipped: %s: %s", where, type(exc).__name__, exc)

    def source_of(self, introspector: Introspector) -> str:
        return self.sources.get(id(introspector), "given")

    def describe(self) -> list[IntrospectorInfo]:
        """The introspectors in the order they run (what ``tabmcp doctor`` lists)."""
        return [
            IntrospectorInfo(
                name=i.name,
                kind=i.kind,
                source=self.source_of(i),
                url_patterns=tuple(i.url_patterns),
                has_predicate=i.predicate is not None,
            )
            for i in self.ordered()
        ]

    def ordered(self) -> list[Introspector]:
        """Site, then page-declared, then generic; discovery order within a kind."""
        return sorted(self.introspectors, key=lambda i: KIND_ORDER.get(i.kind, len(KIND_ORDER)))

    # ------------------------------------------------------------- running

    def page_tools(
        self, capture: PageCapture, *, reserved: Iterable[str] = (), limit: int = DEFAULT_LIMIT
    ) -> tuple[PageTool, ...]:
        """Every matching introspector's tools, most useful first, at most ``limit``.

        Introspectors run site → page → generic. A tool with an ``element_ref`` claims that element:
        a later introspector's tool for the same element, for an element inside it, or for an
        element around it is dropped (tools of one introspector never displace each other). The
        kept tools are ordered by kind, then ``rank``, then the order they were found, cut to
        ``limit``, and named in that order: valid, unique, never a ``reserved`` (core) name."""
        reserved = frozenset(reserved) | CORE_TOOL_NAMES
        claims = _Claims(capture)
        found: list[tuple[tuple[int, int, int], Introspector, PageTool]] = []
        runs = [(introspector, self._run(introspector, capture)) for introspector in self.ordered()]
        # every claimed element found in one pass over the capture's refs
        claims.resolve(r for _, made in runs for t in made for r in (t.element_ref, *t.also_claims) if r)
        for introspector, made in runs:
            kind = KIND_ORDER.get(introspector.kind, len(KIND_ORDER))
            mine: list[str] = []
            for tool in made:
                if tool.element_ref:
                    if not claims.free(tool.element_ref, kind):
                        continue
                    mine.append(tool.element_ref)
                    mine.extend(tool.also_claims)
                found.append(((kind, tool.rank, len(found)), introspector, tool))
            claims.take(mine, kind)
        found.sort(key=lambda entry: entry[0])
        found = _without_generic_echoes(found)
        taken = set(reserved)
        descriptions: set[str] = set()
        result: list[PageTool] = []
        for _, introspector, tool in found:
            if len(result) >= max(0, limit):
                break
            name = unique_name(tool.name, taken, reserved=reserved, qualifiers=tool.qualifiers)
            if name is None:
                self._dropped(introspector, tool, "its name and where it is are another tool's")
                continue
            finished = _finished(tool, name, introspector)
            if finished.description in descriptions:
                if introspector.kind == "generic":
                    self._dropped(introspector, tool, "its description is another tool's")
                    continue
                finished = replace(finished, description=_told_apart(finished.description, name))
            taken.add(name)
            descriptions.add(finished.description)
            result.append(finished)
        return tuple(result)

    def _dropped(self, introspector: Introspector, tool: PageTool, why: str) -> None:
        """A tool nothing tells apart from one listed before it (the more useful one) is left out:
        the model could not choose between them either."""
        log.debug("introspector %s: tool %s left out: %s", introspector.name, tool.name, why)

    def _run(self, introspector: Introspector, capture: PageCapture) -> list[PageTool]:
        try:
            if not introspector.matches(capture):
                return []
            # islice: a runaway generator of tools stops here rather than hanging the server
            made = list(islice(introspector.tools(capture) or (), MAX_TOOLS_PER_INTROSPECTOR))
        except (Exception, SystemExit) as exc:
            self._failed(introspector, capture, f"{type(exc).__name__}: {exc}")
            return []
        tools = []
        for tool in made:
            problem = tool_problem(tool)
            if problem is None:
                tools.append(tool)
            else:
                self._failed(introspector, capture, problem)
        return tools

    def _failed(self, introspector: Introspector, capture: PageCapture, error: str) -> None:
        failure = self.failures.setdefault(introspector.name, RunFailure())
        failure.count += 1
        failure.last_error, failure.last_url = error, capture.url
        if (introspector.name, error) not in self._logged and len(self._logged) < MAX_LOGGED_ERRORS:
            self._logged.add((introspector.name, error))
            log.warning("introspector %s failed on %s: %s", introspector.name, capture.url, error)
        else:
            log.debug("introspector %s failed on %s: %s", introspector.name, capture.url, error)


def _without_generic_echoes(
    found: list[tuple[tuple[int, int, int], Introspector, PageTool]],
) -> list[tuple[tuple[int, int, int], Introspector, PageTool]]:
    """A generic tool named like a site or page-declared tool is that tool seen from outside (the
    page's "Clear completed" button beside its own ``clear_completed`` WebMCP tool): keep one."""
    specific = {valid_name(t.name) for _, i, t in found if i.kind != "generic"}
    return [entry for entry in found if entry[1].kind != "generic" or valid_name(entry[2].name) not in specific]


class _Claims:
    """Elements driven by the tools kept so far, with their ancestors, to tell nesting in O(depth).
    A form a generic tool submits leaves what is inside it to other generic tools (the rows of a list
    in the form of its bulk action open on their own); an element a site or page-declared tool
    drives leaves nothing inside it."""

    def __init__(self, capture: PageCapture) -> None:
        self.capture = capture
        self.refs: set[str] = set()
        self.elements: dict[HtmlElement, int] = {}  # claimed element -> the kind (KIND_ORDER) that claimed it
        self.around: set[HtmlElement] = set()  # ancestors of claimed elements
        self.found: dict[str, HtmlElement] = {}  # the elements of the refs resolved so far

    def resolve(self, refs: Iterable[str]) -> None:
        """Finds the elements of these refs at once (``PageCapture.by_refs``)."""
        self.found.update(self.capture.by_refs(r for r in refs if r not in self.found))

    def free(self, ref: str, kind: int) -> bool:
        if ref in self.refs:
            return False
        element = self.found.get(ref)
        if element is None:
            return True
        if element in self.around:
            return False  # it contains a claimed element
        generic = KIND_ORDER["generic"]
        return not any(
            a in self.elements and (kind != generic or self.elements[a] != generic or a.tag != "form")
            for a in element.iterancestors()
        )

    def take(self, refs: Iterable[str], kind: int) -> None:
        for ref in refs:
            self.refs.add(ref)
            element = self.found.get(ref)
            if element is not None:
                self.elements[element] = kind
                self.around.update(element.iterancestors())


def _finished(tool: PageTool, name: str, introspector: Introspector) -> PageTool:
    description = clean(tool.description)
    title = cap_words(clean(tool.title), MAX_TITLE) or None
    if tool.untrusted and not description.startswith(UNTRUSTED_PREFIX.strip()):
        description = UNTRUSTED_PREFIX + description
    if tool.untrusted and title is not None and not title.startswith(UNTRUSTED_TITLE):
        title = cap_words(UNTRUSTED_TITLE + title, MAX_TITLE)
    return replace(
        tool,
        name=name,
        description=cap(description, MAX_DESCRIPTION),
        title=title,
        source=tool.source or introspector.name,
    )


def check_introspector(item: object) -> None:
    """The load-time checks: a mistake here would otherwise fail on every page, or silently."""
    if not isinstance(item, Introspector):
        raise TypeError(f"expected Introspector instances, got {_what(item)}")
    if item.kind not in KIND_ORDER:
        raise ValueError(f"{item.name}: kind must be one of {', '.join(KIND_ORDER)}, not {item.kind!r}")
    if not isinstance(item.name, str) or not item.name:
        raise ValueError("an introspector needs a name")
    patterns = item.url_patterns
    if isinstance(patterns, str) or not isinstance(patterns, Sequence) or not all(isinstance(p, str) for p in patterns):
        raise TypeError(f"{item.name}: url_patterns must be a list of strings, not {_what(patterns)}")
    if item.predicate is not None and not callable(item.predicate):
        raise TypeError(f"{item.name}: predicate must be a function of the capture")
    if type(item).tools is Introspector.tools:
        raise TypeError(f"{item.name}: {type(item).__name__} does not implement tools(capture)")


def tool_problem(tool: object) -> str | None:
    """Why a tool cannot be listed, or None."""
    if not isinstance(tool, PageTool):
        return f"tools() returned {_what(tool)}, not a PageTool"
    if not isinstance(tool.name, str) or not isinstance(tool.description, str):
        return f"tool {tool.name!r}: name and description must be strings"
    if not isinstance(tool.hints, ToolHints) or not isinstance(tool.rank, int):
        return f"tool {tool.name}: hints must be ToolHints and rank an int"
    if tool.element_ref is not None and not isinstance(tool.element_ref, str):
        return f"tool {tool.name}: element_ref must be a ref string"
    if not all(isinstance(step, PlanStep) for step in tool.plan):
        return f"tool {tool.name}: the plan must be PlanSteps"
    if not isinstance(tool.input_schema, Mapping):
        return f"tool {tool.name}: the input schema must be an object"
    problem = schema_problem(tool.input_schema)
    return f"tool {tool.name}: {problem}" if problem else None


def unique_name(
    wanted: str, taken: set[str], *, reserved: Iterable[str] = (), qualifiers: Sequence[str] = ()
) -> str | None:
    """A valid tool name (``^[a-z][a-z0-9_]{0,39}$``) not in ``taken``, or None. A name that is a
    ``reserved`` (core) tool's gets ``page_`` in front, so it stays recognisable and reads as the
    page's. A name already taken gets the first of the tool's ``qualifiers`` (what tells it apart:
    ``search`` in the sidebar → ``search_sidebar``) that makes it unique; never a number: with no
    such qualifier there is no name (the registry leaves the tool out)."""
    name = valid_name(wanted)
    if name in reserved:
        name = f"{RESERVED_PREFIX}{name}"[:MAX_NAME].rstrip("_")
    if name not in taken:
        return name
    for qualifier in qualifiers:
        words = valid_name(qualifier) if qualifier else ""
        if not words or words == "page_tool" or words in name.split("_"):
            continue
        candidate = f"{name}_{words}"
        if len(candidate) > MAX_NAME:  # keep the qualifier whole: it is what tells the tools apart
            candidate = f"{name[: MAX_NAME - len(words) - 1].rstrip('_')}_{words}"[:MAX_NAME].rstrip("_")
        if candidate not in taken and TOOL_NAME.match(candidate):
            return candidate
    return None


def _told_apart(description: str, name: str) -> str:
    """A specific tool whose author gave it another tool's description: its name is appended."""
    return cap(f"{description.rstrip('.')} ({name}).", MAX_DESCRIPTION)


def _what(value: object) -> str:
    if isinstance(value, type):
        return f"the class {value.__name__} (an instance is needed)"
    return type(value).__name__


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
