"""The introspector API: what a plugin implements and what it returns (docs/introspectors.md).

An introspector reads a ``PageCapture`` and returns ``PageTool``s. Both sides are plain data:
introspectors never do I/O, so they are tested on saved HTML without a browser. A tool's plan is
a list of ``PlanStep``s whose values may name the tool's arguments (``Arg``, ``Fmt``, ``Choice``);
``resolve_plan`` turns it into the concrete ``protocol.Step``s the page agent performs.

The step helpers at the bottom (``fill``, ``click``, ``wait_for``, ``extract``…) are the way to
write a plan; ``css``, ``role`` and ``ref`` name elements.
"""

from __future__ import annotations

import fnmatch
import json
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from tabmcp.protocol import ElementState, Step, StepAction, Target

if TYPE_CHECKING:
    from tabmcp.page.capture import PageCapture

MAX_DESCRIPTION = 300
MAX_TITLE = 60
# Added to the description of an argument the page served filled in: the call may leave it out.
SERVED_NOTE = "filled in already: left as it is when omitted"
# Keys of a page tool's answer (tools/page_tools.answer) that an extract label must not take.
RESERVED_LABELS = frozenset(
    {"tool", "steps", "page", "result", "changed", "results", "pages", "status", "errors", "text", "note", "editor",
     "frame"}
)


# ----------------------------------------------------------------- values that name arguments


@dataclass(frozen=True)
class Arg:
    """A step value taken from the tool call's argument of this name."""

    name: str


@dataclass(frozen=True)
class Fmt:
    """A string built from arguments: ``Fmt("is:issue is:{state} {query}")``. An argument that was
    not given renders as empty and runs of whitespace collapse, so optional parts simply drop out.
    ``url=True`` percent-encodes each argument (for ``navigate`` URLs) and keeps the template as is."""

    template: str
    url: bool = False

    def names(self) -> list[str]:
        return [f for _, f, _, _ in string.Formatter().parse(self.template) if f]

    def render(self, args: Mapping[str, Any]) -> str:
        values = {n: "" if args.get(n) is None else _text_of(args[n]) for n in self.names()}
        if self.url:
            return self.template.format_map({n: quote(v, safe="") for n, v in values.items()})
        return " ".join(self.template.format_map(values).split())


@dataclass(frozen=True)
class Contains:
    """``True`` when the array argument ``arg`` holds ``value``, else ``False``: one ``check`` step per
    checkbox of a group (``check(ref(box), Contains("toppings", "ham"))``) sets exactly the chosen
    set, unchecking the others. The step is skipped when the argument was not given."""

    arg: str
    value: str


@dataclass(frozen=True)
class AllArgs:
    """The whole arguments object (a WebMCP tool's ``execute(input)`` gets exactly what the model sent)."""


ALL_ARGS = AllArgs()


@dataclass(frozen=True)
class Choice:
    """A target picked by an argument's value: a radio group (one element per allowed value), a
    list row by index. When the argument is an array, the step runs once per element, in order."""

    arg: str
    targets: Mapping[str, Target]


@dataclass(frozen=True)
class RowText:
    """The rows of a list or table picked by what a person sees in them, at call time: one step per
    text in the array argument ``arg``, aimed at the ``selector`` match (a row's checkbox) whose row
    shows that text (``Target(css=selector, row=text)``). The schema then names no row: a search,
    a filter or the next page does not change the tool."""

    arg: str
    selector: str


StepValue = str | bool | Arg | Fmt | Contains | None


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan; see ``protocol.Step`` for what each action needs. Prefer the helpers
    (``fill(css(...), Arg("to"))``) to building these by hand."""

    action: StepAction
    target: Target | Choice | RowText | None = None
    value: StepValue = None
    key: str | None = None
    condition: Mapping[str, str | Arg | Fmt] | None = None  # wait_for: {"text"} | {"textGone"} | {"state"}
    timeout_ms: int | None = None
    label: str | None = None  # extract: the key of the result
    fields: Mapping[str, str] | None = None  # extract: output key -> CSS inside each match
    limit: int | None = None  # extract: most items
    name: str | None = None  # webmcp: the page's tool name
    args: AllArgs | None = None  # webmcp: the input
    fail_when: Target | None = None  # wait_for: the site's error message (a css target)


# ----------------------------------------------------------------- tools


@dataclass(frozen=True)
class ToolHints:
    """MCP tool annotations, with the spec's defaults made explicit."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = True


InputSchema = Mapping[str, Any] | type[BaseModel]


@dataclass(frozen=True)
class PageTool:
    """A tool made for the page. ``input_schema`` is a JSON Schema object or a pydantic model (turned
    into its JSON Schema). ``rank`` orders tools within one introspector's kind for the page budget:
    lower is more useful. ``element_ref`` is the element (form, button) the tool drives: the first
    introspector to claim an element (site before page-declared before generic) keeps it.
    ``untrusted`` marks names and descriptions written by the page itself (WebMCP)."""

    name: str
    description: str
    input_schema: InputSchema
    plan: tuple[PlanStep, ...]
    title: str | None = None
    hints: ToolHints = ToolHints()
    source: str = ""
    element_ref: str | None = None
    rank: int = 100
    untrusted: bool = False
    # Words that tell this tool apart from another wanting the same name, most telling first (the
    # form's heading, the landmark it sits in): the registry adds the first that makes the name unique.
    qualifiers: tuple[str, ...] = ()
    # Other elements the tool stands for (the boxes of the same search elsewhere on the page): claimed
    # with ``element_ref`` when the tool is kept, so no later introspector lists them again.
    also_claims: tuple[str, ...] = ()
    # The pydantic model the schema came from (set from ``input_schema``): calls are validated with it.
    input_model: type[BaseModel] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        schema = self.input_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            object.__setattr__(self, "input_model", schema)
            schema = model_schema(schema)
        object.__setattr__(self, "input_schema", dict(schema))
        object.__setattr__(self, "plan", tuple(self.plan))
        object.__setattr__(self, "qualifiers", tuple(self.qualifiers))
        object.__setattr__(self, "also_claims", tuple(self.also_claims))

    @property
    def annotations(self) -> ToolHints:
        return self.hints

    @property
    def schema(self) -> dict[str, Any]:
        return self.input_schema  # type: ignore[return-value]  # a dict after __post_init__

    def face(self) -> Face:
        """How the tool looks in a listing but for its name."""
        return Face(self.title, self.description, json.dumps(self.input_schema, sort_keys=True), self.hints)


class Face(NamedTuple):
    """How a page tool looks in a listing but for its name: what a client compares to tell whether a
    tool it holds is still the same (notices.py, continuity.py)."""

    title: str | None
    description: str
    schema: str  # the input schema as JSON, keys sorted
    hints: ToolHints


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's JSON Schema as a tool input schema: no ``title`` noise, no extra keys, and
    ``$defs`` (enums, nested models) inlined, since not every client resolves ``$ref``. The model's
    docstring is for developers; the tool's ``description`` is what the model reads."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    schema = _inline_refs(schema, defs, depth=0)
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema.setdefault("additionalProperties", False)
    return schema


def _inline_refs(node: Any, defs: Mapping[str, Any], depth: int) -> Any:
    if isinstance(node, list):
        return [_inline_refs(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref_name = node.get("$ref", "")
    if isinstance(ref_name, str) and ref_name.startswith("#/$defs/") and depth < 8:
        target = dict(defs.get(ref_name.removeprefix("#/$defs/"), {}))
        target.pop("title", None)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _inline_refs({**target, **rest}, defs, depth + 1)
    return {k: _inline_refs(v, defs, depth) for k, v in node.items()}


def served_description(description: str | None) -> str:
    """An argument's description once the page serves it filled in (``SERVED_NOTE`` added)."""
    return f"{description} ({SERVED_NOTE})" if description else SERVED_NOTE


class PlanError(ValueError):
    """Arguments that do not fit the plan; the message is meant for the model."""


def check_args(tool: PageTool, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """The checks a model can act on (missing, unknown, wrongly typed and out-of-enum arguments);
    returns the arguments to use (a pydantic ``input_model`` adds its defaults and coerces)."""
    schema = tool.schema
    missing = [n for n in schema.get("required", []) if args.get(n) in (None, "")]
    if missing:
        raise PlanError(f"{tool.name}: missing required argument(s): {', '.join(missing)}")
    properties = schema.get("properties", {})
    if schema.get("additionalProperties") in (None, False):  # true or a schema: the page takes others
        unknown = sorted(set(args) - set(properties))
        if unknown:
            expected = ", ".join(sorted(properties)) or "no arguments"
            raise PlanError(f"{tool.name}: unknown argument(s) {', '.join(unknown)}; expected: {expected}")
    for name, value in args.items():
        prop = properties.get(name, {})
        if value is not None and not _type_fits(prop.get("type"), value):
            raise PlanError(f"{tool.name}: {name} must be {_type_words(prop['type'])} (got {value!r:.60})")
        items = prop.get("items")
        allowed = prop.get("enum") or (items.get("enum") if isinstance(items, Mapping) else None)
        values = value if isinstance(value, list) else [value]
        if allowed is not None and any(v is not None and not _one_of(v, allowed) for v in values):
            raise PlanError(f"{tool.name}: {name} must be one of: {', '.join(map(str, allowed))}")
    if tool.input_model is None:
        return args
    try:
        model = tool.input_model.model_validate(dict(args))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise PlanError(f"{tool.name}: {problems}") from None
    return model.model_dump(mode="json", by_alias=True)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "array": (list, tuple),
    "object": (dict,),
}


def _type_fits(declared: Any, value: Any) -> bool:
    """Lenient: numbers and booleans may come as their text (clients differ), nothing else may."""
    kinds = declared if isinstance(declared, list) else [declared]
    if any(k not in _JSON_TYPES for k in kinds):  # no type, "null", or something unusual: not ours to judge
        return True
    for kind in kinds:
        if kind in ("integer", "number"):
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float) and (kind == "number" or float(value).is_integer()):
                return True
            if isinstance(value, str) and _numeric(value, integer=kind == "integer"):
                return True
        elif kind == "boolean":
            if isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false")):
                return True
        elif isinstance(value, _JSON_TYPES[kind]) and not (kind == "string" and isinstance(value, bool)):
            return True
    return False


def _one_of(value: Any, allowed: Sequence[Any]) -> bool:
    """As ``_type_fits`` lets numbers and booleans come as text, "2" is one of ``[1, 2, 3]``."""
    return value in allowed or _text_of(value) in {_text_of(a) for a in allowed}


def _numeric(text: str, *, integer: bool) -> bool:
    try:
        number = float(text)
    except ValueError:
        return False
    return not integer or number.is_integer()


def _type_words(declared: Any) -> str:
    kinds = declared if isinstance(declared, list) else [declared]
    words = {"integer": "an integer", "array": "an array", "object": "an object"}
    return " or ".join(words.get(k, f"a {k}") for k in kinds)


def resolve_plan(tool: PageTool, args: Mapping[str, Any]) -> list[Step]:
    """Substitute arguments into the plan. A step whose argument was not given is skipped."""
    args = check_args(tool, args)
    steps: list[Step] = []
    for plan_step in tool.plan:
        steps.extend(_resolve_step(tool, plan_step, args))
    return steps


def _resolve_step(tool: PageTool, plan_step: PlanStep, args: Mapping[str, Any]) -> list[Step]:
    value: Any = plan_step.value
    values: list[str] | None = None
    if isinstance(value, Arg):
        if args.get(value.name) is None:
            return []
        value = args[value.name]
        if plan_step.action == "select" and isinstance(value, list | tuple):  # the options of a multiple select
            values, value = [_text_of(v) for v in value], None
        else:
            value = _truthy(value) if plan_step.action == "check" else _text_of(value)
    elif isinstance(value, Contains):
        chosen = args.get(value.arg)
        if chosen is None:
            return []
        chosen = chosen if isinstance(chosen, list | tuple) else [chosen]
        value = value.value in {_text_of(c) for c in chosen}
    elif isinstance(value, Fmt):
        value = value.render(args)
    condition = None
    if plan_step.condition is not None:
        condition = {}
        for key, cond in plan_step.condition.items():
            if isinstance(cond, Arg):
                if args.get(cond.name) in (None, ""):
                    return []
                cond = _text_of(args[cond.name])
            elif isinstance(cond, Fmt):
                cond = cond.render(args)
            condition[key] = cond
    fields: dict[str, Any] = {
        "action": plan_step.action,
        "value": value,
        "values": values,
        "key": plan_step.key,
        "condition": condition,
        "timeoutMs": plan_step.timeout_ms,
        "label": plan_step.label,
        "fields": dict(plan_step.fields) if plan_step.fields is not None else None,
        "limit": plan_step.limit,
        "name": plan_step.name,
        "args": dict(args) if isinstance(plan_step.args, AllArgs) else None,
        "failWhen": plan_step.fail_when,
    }
    target = plan_step.target
    if isinstance(target, RowText):
        rows = args.get(target.arg)
        if rows is None:
            return []
        texts = [_text_of(r).strip() for r in (rows if isinstance(rows, list | tuple) else [rows])]
        if any(not t for t in texts):
            raise PlanError(f"{tool.name}: {target.arg} holds texts shown in the rows, not empty ones")
        return [Step(target=Target(css=target.selector, row=t), **fields) for t in texts]
    if not isinstance(target, Choice):
        return [Step(target=target, **fields)]
    chosen = args.get(target.arg)
    if chosen is None:
        return []
    resolved = []
    for item in chosen if isinstance(chosen, list) else [chosen]:
        key = _text_of(item)
        if key not in target.targets:
            raise PlanError(f"{tool.name}: {target.arg} must be one of: {choices_text(list(target.targets))}")
        resolved.append(Step(target=target.targets[key], **fields))
    return resolved


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("", "false", "0", "no", "off")
    return bool(value)


def choices_text(keys: list[str]) -> str:
    """The allowed values for a message: a few are listed; many row numbers become ranges ("1-40, 42")."""
    if len(keys) <= 8 or not all(k.isdigit() for k in keys):
        return ", ".join(keys)
    numbers = sorted(int(k) for k in keys)
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _text_of(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ----------------------------------------------------------------- introspectors

Kind = Literal["site", "page", "generic"]
KIND_ORDER: dict[str, int] = {"site": 0, "page": 1, "generic": 2}


@dataclass
class Introspector:
    """Base class for introspectors. Subclass and override ``tools``; say which pages you handle
    with ``url_patterns`` (shell-style, matched against the full URL) and/or ``predicate`` (a pure
    function of the capture). A page matches when a pattern matches *or* the predicate accepts it;
    leave ``url_patterns`` empty to match on the predicate alone.

    ``kind``: ``"site"`` (made for one site: wins elements over the others), ``"page"`` (tools the
    page declares itself, WebMCP) or ``"generic"`` (any page)."""

    name: str = "introspector"
    kind: Kind = "generic"
    url_patterns: Sequence[str] = field(default_factory=lambda: ["*"])
    predicate: Callable[[PageCapture], bool] | None = None

    def matches(self, capture: PageCapture) -> bool:
        if any(fnmatch.fnmatchcase(capture.url, p) for p in self.url_patterns):
            return True
        return self.predicate is not None and bool(self.predicate(capture))

    def tools(self, capture: PageCapture) -> list[PageTool]:
        raise NotImplementedError


# ----------------------------------------------------------------- plan helpers


def css(selector: str) -> Target:
    return Target(css=selector)


def role(role_name: str, name: str | None = None) -> Target:
    return Target(role=role_name, name=name)


def ref(element_ref: str) -> Target:
    return Target(ref=element_ref)


def fill(target: Target | Choice, value: StepValue) -> PlanStep:
    return PlanStep("fill", target=target, value=value)


def select(target: Target | Choice, value: StepValue) -> PlanStep:
    return PlanStep("select", target=target, value=value)


def check(target: Target | Choice, value: bool | Arg | Contains = True) -> PlanStep:
    """Check (``True``), uncheck (``False``), as the boolean argument says (``Arg``), or as membership
    in an array argument says (``Contains``)."""
    return PlanStep("check", target=target, value=value)


def uncheck(target: Target | Choice) -> PlanStep:
    return PlanStep("uncheck", target=target)


def click(target: Target | Choice) -> PlanStep:
    return PlanStep("click", target=target)


def submit(target: Target | Choice) -> PlanStep:
    return PlanStep("submit", target=target)


def press(key: str, target: Target | Choice | None = None) -> PlanStep:
    return PlanStep("press", target=target, key=key)


def wait_for(
    *,
    text: str | Arg | Fmt | None = None,
    text_gone: str | Arg | Fmt | None = None,
    target: Target | None = None,
    state: ElementState = "visible",
    timeout_ms: int | None = None,
    fail_when: Target | None = None,
) -> PlanStep:
    """Wait until a text shows, a text is gone, or ``target`` reaches ``state``. ``fail_when``
    (``css(...)``, in the top document) is where the site shows its error: once it is visible the
    plan stops with ``PAGE_ERROR`` and the site's words, rather than waiting out the timeout."""
    if fail_when is not None and fail_when.css is None:
        raise ValueError("wait_for's fail_when is a css(...) target")
    if text is not None:
        condition: dict[str, str | Arg | Fmt] = {"text": text}
    elif text_gone is not None:
        condition = {"textGone": text_gone}
    elif target is not None:
        condition = {"state": state}
    else:
        raise ValueError("wait_for needs text, text_gone or target")
    return PlanStep("wait_for", target=target, condition=condition, timeout_ms=timeout_ms, fail_when=fail_when)


def extract(
    label: str, selector: str, *, fields: Mapping[str, str] | None = None, limit: int = 20
) -> PlanStep:
    """Read every element matching ``selector`` into ``result.extracted[label]``: its text, or an
    object with one text per ``fields`` entry (CSS inside the match)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", label):
        raise ValueError(f"extract label {label!r} must be a short snake_case name")
    if label in RESERVED_LABELS:
        raise ValueError(f"extract label {label!r} is a key of the answer already; pick another name")
    return PlanStep("extract", target=css(selector), label=label, fields=fields, limit=limit)


def navigate(url: str | Arg | Fmt) -> PlanStep:
    return PlanStep("navigate", value=url)


def call_webmcp(name: str) -> PlanStep:
    return PlanStep("webmcp", name=name, args=ALL_ARGS)
