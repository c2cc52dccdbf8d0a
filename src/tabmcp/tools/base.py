"""How a core tool is declared: one small unit with its schema, hints, availability and handler.

``@tool`` reads the handler's ``args`` annotation (a pydantic model) for the input schema and its
docstring for the description, and records where the tool is available as data: the state
machine, not the handler, decides whether a tool is listed. It registers nothing: the one list of
the server's tools, in their order, is ``tools/catalog.py``, which reads each declaration with
``declared``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, ConfigDict

from tabmcp.drivers.extension import ExtensionStatus
from tabmcp.introspect.api import ToolHints
from tabmcp.progress import NO_PROGRESS, Progress
from tabmcp.state import Mode

if TYPE_CHECKING:
    from tabmcp.config import Settings
    from tabmcp.drivers.launch import ChromiumLauncher
    from tabmcp.policy import NavigationPolicy
    from tabmcp.runtime import Runtime


class Args(BaseModel):
    """Base for tool arguments: unknown arguments are an error the model can read."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoArgs(Args):
    pass


@dataclass(frozen=True)
class Text:
    """A result that is plain text (TOON), not JSON: page-agent results are read by a model, and
    the same data as JSON plus structured content would cost twice the context."""

    text: str


@dataclass(frozen=True)
class Image:
    """An image result (base64 data) with a one-line caption."""

    data: str
    mime_type: str
    caption: str


Output = dict[str, Any] | Text | Image


class ToolFailure(Exception):
    """A tool call that failed in a way the model should read: becomes an ``isError`` result."""

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


@dataclass
class ToolContext:
    runtime: Runtime
    settings: Settings
    launcher: ChromiumLauncher
    # the extension's link as connect_browser reports it (its address, why it is down or refused)
    extension: ExtensionStatus = field(default_factory=ExtensionStatus)
    # the steps of a long call, for a client that asked (progress.py); does nothing otherwise
    progress: Progress = NO_PROGRESS

    @property
    def policy(self) -> NavigationPolicy:
        """The navigation policy (docs/security.md): every URL a tool loads is checked with it."""
        return self.runtime.policy


Handler = Callable[[ToolContext, Any], Awaitable[Output]]


def with_policy_notes(ctx: ToolContext, output: Output) -> Output:
    """Add what the navigation policy did since the last result (a navigation the browser blocked, a
    tab sent to about:blank) to this one: the model hears about it at its next call, whichever."""
    notes = ctx.runtime.take_policy_notes()
    if not notes:
        return output
    match output:
        case Text(text=text):
            return Text(text + "".join(f"\nblocked: {note}" for note in notes))
        case Image(data=data, mime_type=mime_type, caption=caption):
            return Image(data, mime_type, caption + "".join(f" Blocked: {note}." for note in notes))
        case dict():
            return {**output, "blocked": notes}
    return output


def failure_with_policy_notes(ctx: ToolContext, failure: ToolFailure) -> ToolFailure:
    notes = ctx.runtime.take_policy_notes()
    if notes:
        failure.message += "".join(f" Also blocked: {note}." for note in notes)
        failure.data = {**(failure.data or {}), "blocked": notes}
    return failure


def _noting_policy(handler: Handler) -> Handler:
    @functools.wraps(handler)
    async def run(ctx: ToolContext, args: Any) -> Output:
        try:
            output = await handler(ctx, args)
        except ToolFailure as exc:
            raise failure_with_policy_notes(ctx, exc) from None
        return with_policy_notes(ctx, output)

    return run


@dataclass(frozen=True)
class CoreTool:
    name: str
    title: str
    description: str
    args_model: type[Args]
    available_in: frozenset[Mode]
    hints: ToolHints
    handler: Handler
    # A Settings flag that must be true for the tool to exist at all (``evaluate``); None: always.
    requires: str | None = None
    # Listed only in the static tool mode (tool_modes.py), where it works in every state; declared with
    # an empty ``available_in``, so the state machine (the dynamic list) never shows it.
    static_only: bool = False

    def enabled(self, settings: Settings) -> bool:
        return self.requires is None or bool(getattr(settings, self.requires))

    def input_schema(self) -> dict[str, Any]:
        return _compact(_without_titles(self.args_model.model_json_schema(by_alias=True)))


DECLARATION = "__core_tool__"  # the attribute ``@tool`` sets on its handler
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def tool(
    *,
    title: str,
    available_in: set[Mode] | frozenset[Mode],
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = True,
    requires: str | None = None,
    static_only: bool = False,
) -> Callable[[Handler], Handler]:
    """Declare a handler as a core tool. The handler itself is returned unchanged (other tools call
    it directly); its ``CoreTool`` is kept on it for ``declared``."""

    def declare(handler: Handler) -> Handler:
        args_model = get_type_hints(handler)["args"]
        core = CoreTool(
            name=handler.__name__,
            title=title,
            description=inspect.getdoc(handler) or title,
            args_model=args_model,
            available_in=frozenset(available_in),
            hints=ToolHints(read_only, destructive, idempotent, open_world),
            handler=_noting_policy(handler),
            requires=requires,
            static_only=static_only,
        )
        setattr(handler, DECLARATION, core)
        return handler

    return declare


def declared(handler: Handler) -> CoreTool:
    """The core tool ``@tool`` declared for a handler; TypeError for a handler that is not one."""
    core = getattr(handler, DECLARATION, None)
    if not isinstance(core, CoreTool):
        raise TypeError(f"{getattr(handler, '__name__', handler)!r} is not declared with @tool")
    return core


def _without_titles(schema: Any, *, naming: bool = False) -> Any:
    """Pydantic's per-field ``title``s repeat the names and cost tokens on every tools/list.
    (``naming``: the keys of this dict are property names, one of which may be "title".)"""
    if isinstance(schema, dict):
        return {
            k: _without_titles(v, naming=k == "properties" and not naming)
            for k, v in schema.items()
            if naming or k != "title"
        }
    if isinstance(schema, list):
        return [_without_titles(v) for v in schema]
    return schema


def _compact(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as listed on every tools/list, without what says nothing to the model:

    - ``anyOf [X, null]`` with ``default: null``: an optional argument is one not in ``required``;
    - ``default: false``: what leaving a flag out means anyway; the default of an enum listed first
      (``Literal`` order), as leaving it out picks the usual choice and naming it changes nothing;
    - ``additionalProperties: false``: an unknown argument fails anyway, with a message naming it
      (``Args``), and the model has no reason to send one;
    - numeric bounds (``minimum``, ``maximum``): no sensible call meets them, and one that does fails
      with a message that gives them.

    Required arguments come first, so a model reads what it must give before what it may."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    required = schema.get("required", [])
    compacted = {}
    for name in [*required, *(p for p in properties if p not in required)]:
        prop = dict(properties[name])
        options = prop.get("anyOf")
        if prop.get("default", ...) is None and isinstance(options, list):
            kept = [o for o in options if o != {"type": "null"}]
            if len(kept) == 1:
                del prop["anyOf"], prop["default"]
                prop = {**kept[0], **prop}
        for bound in BOUNDS:
            prop.pop(bound, None)
        enum = prop.get("enum")
        if prop.get("default", ...) is False or (isinstance(enum, list) and enum[:1] == [prop.get("default", ...)]):
            del prop["default"]
        compacted[name] = prop
    rest = {k: v for k, v in schema.items() if k != "additionalProperties"}
    return {**rest, "properties": compacted}
