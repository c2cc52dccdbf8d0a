"""No import cycles in tabmcp: the graph of its modules, read from the source with ``ast``.

Every import statement counts, wherever it is: at the top of a module, under ``if TYPE_CHECKING:``
and inside functions. An import moved into a function or under TYPE_CHECKING still ties the two
modules together (each needs the other to be understood, tested and changed), so it hides a cycle
rather than breaking it.

An edge goes to the module an import names: ``import a.b`` and ``from a import b`` (b a module)
lead to ``a.b``; ``from a.b import name`` leads to ``a.b``. Importing ``a.b`` also runs the package
``a`` first (its ``__init__``), so that is an edge too, except from a module inside ``a`` itself:
a package that re-exports its own modules is not a cycle with each of them, but a package whose
``__init__`` loads heavy parts makes every user of its small modules depend on them.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = "tabmcp"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted((SRC / ROOT).rglob("*.py"))}


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The tabmcp modules ``name`` imports, at any depth of its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(node, name, path.name == "__init__.py")
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in modules else target)
    found |= {parent for module in found for parent in _packages_of(module)}
    return {m for m in found if m in modules and m != name and not name.startswith(m + ".")}


def _packages_of(module: str) -> list[str]:
    """The packages Python runs before ``module`` (tabmcp's own, below the top one)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def import_graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {name: imports_of(name, path, set(modules)) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def a_cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One concrete loop through a component, to show which imports to look at."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    while True:
        nxt = min((m for m in graph[path[-1]] if m in members), key=lambda m: (m in seen and m != start, m))
        if nxt in seen:
            return [*path[path.index(nxt) :], nxt]
        path.append(nxt)
        seen.add(nxt)


def test_the_graph_sees_the_imports_that_matter() -> None:
    """The reader itself: a module-level, a TYPE_CHECKING and a function-level import are all edges."""
    graph = import_graph()
    assert "tabmcp.drivers.base" in graph["tabmcp.runtime"]  # at the top
    assert "tabmcp.runtime" in graph["tabmcp.tools.base"]  # under TYPE_CHECKING
    assert "tabmcp.stdio_transport" in graph["tabmcp.server"]  # inside a function
    assert "tabmcp.guard" in graph["tabmcp.runtime"]  # the package run before guard.origins
    assert "tabmcp.drivers.cdp" not in graph["tabmcp.drivers.cdp.driver"]  # its own package


def test_cycles_finds_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert a_cycle_in(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    report = "\n".join(f"  {' -> '.join(a_cycle_in(c, graph))}  (the modules: {', '.join(c)})" for c in found)
    assert not found, f"import cycles in src/tabmcp:\n{report}"


def test_only_the_extension_driver_imports_the_bridge() -> None:
    """The WebSocket server is the extension driver's own: the rest of tabmcp uses the names of
    ``tabmcp.drivers.extension`` (the driver, its endpoint and status)."""
    graph = import_graph()
    bridge = "tabmcp.drivers.extension.bridge"
    importers = sorted(name for name, imported in graph.items() if bridge in imported)
    assert importers and all(name.startswith("tabmcp.drivers.extension") for name in importers), importers
