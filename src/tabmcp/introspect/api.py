"""The introspector API: what a plugin implements and what it returns.

An introspector reads a ``PageCapture`` and returns ``PageTool``s. Both sides are plain data:
introspectors never do I/O, so they are tested on saved HTML without a browser. A tool's plan is
a list of ``PlanStep``s whose values may name the tool's arguments (``Arg``); ``resolve_plan``
turns it into the concrete ``protocol.Step``s the page agent performs.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tabmcp.protocol import Step, Target

if TYPE_CHECKING:
    from tabmcp.page.capture import PageCapture


@dataclass(frozen=True)
class Arg:
    """A step value taken from the tool call's argument of this name."""

    name: str


@dataclass(frozen=True)
class Choice:
    """A target picked by an argument's value (a radio group: one element per allowed value)."""

    arg: str
    targets: Mapping[str, Target]


@dataclass(frozen=True)
class PlanStep:
    action: Literal["fill", "select", "check", "click", "submit", "press"]
    target: Target | Choice | None = None
    value: str | bool | Arg | None = None
    key: str | None = None


@dataclass(frozen=True)
class ToolHints:
    """MCP tool annotations, with the spec's defaults made explicit."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = True


@dataclass(frozen=True)
class PageTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    plan: tuple[PlanStep, ...]
    title: str | None = None
    hints: ToolHints = ToolHints()
    # Which introspector made it and which element (ref) it drives: a site introspector's tool
    # replaces a generic one that drives the same element.
    source: str = ""
    element_ref: str | None = None

    @property
    def annotations(self) -> ToolHints:
        return self.hints


class PlanError(ValueError):
    """Arguments that do not fit the plan; the message is meant for the model."""


def resolve_plan(tool: PageTool, args: Mapping[str, Any]) -> list[Step]:
    """Substitute arguments into the plan. A step whose argument was not given is skipped."""
    missing = [n for n in tool.input_schema.get("required", []) if args.get(n) in (None, "")]
    if missing:
        raise PlanError(f"{tool.name}: missing required argument(s): {', '.join(missing)}")
    known = set(tool.input_schema.get("properties", {}))
    unknown = sorted(set(args) - known)
    if unknown:
        raise PlanError(
            f"{tool.name}: unknown argument(s) {', '.join(unknown)}; expected: {', '.join(sorted(known))}"
        )
    for name, value in args.items():
        allowed = tool.input_schema["properties"][name].get("enum")
        if allowed is not None and value is not None and value not in allowed:
            raise PlanError(f"{tool.name}: {name} must be one of: {', '.join(map(str, allowed))}")
    steps: list[Step] = []
    for plan_step in tool.plan:
        value = plan_step.value
        if isinstance(value, Arg):
            if args.get(value.name) is None:
                continue
            value = args[value.name]
            if plan_step.action != "check" and not isinstance(value, str):
                value = str(value)
        target = plan_step.target
        if isinstance(target, Choice):
            chosen = args.get(target.arg)
            if chosen is None:
                continue
            if str(chosen) not in target.targets:
                allowed = ", ".join(target.targets)
                raise PlanError(f"{tool.name}: {target.arg} must be one of: {allowed}")
            target = target.targets[str(chosen)]
        steps.append(Step(action=plan_step.action, target=target, value=value, key=plan_step.key))
    return steps


@dataclass
class Introspector:
    """Base class for introspectors. Subclass and override ``tools`` (and ``matches`` if URL
    patterns are not enough). ``kind="site"`` introspectors win over generic ones."""

    name: str = "introspector"
    kind: Literal["generic", "site"] = "generic"
    url_patterns: Sequence[str] = field(default_factory=lambda: ["*"])

    def matches(self, capture: PageCapture) -> bool:
        return any(fnmatch.fnmatchcase(capture.url, p) for p in self.url_patterns)

    def tools(self, capture: PageCapture) -> list[PageTool]:
        raise NotImplementedError
