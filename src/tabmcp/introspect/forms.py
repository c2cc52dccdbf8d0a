"""The generic form introspector: every visible HTML ``<form>`` becomes one tool.

Parameters are the form's named, visible (or folded: the agent unfolds them), enabled, editable
controls (``form_fields``, shared with the search and WebMCP introspectors); the plan fills them
and submits the form the way a user would (``requestSubmit``, with its named commit button as
the submitter), so hidden fields such as CSRF tokens go along untouched. The plan ends
with the submit and no ``extract``: the answer is the page's generic summary (URL, title, what
changed, the main result list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import (
    Arg,
    Choice,
    Contains,
    Introspector,
    PageTool,
    PlanStep,
    RowText,
    ToolHints,
    served_description,
)
from tabmcp.introspect.chrome import chrome_label
from tabmcp.introspect.dialogs import closed_dialog, opened_on_page
from tabmcp.introspect.form_names import (
    MAX_TEXT,
    form_label,
    form_purpose,
    form_target,
    has_button,
    hidden_verbs,
    not_an_item,
    path_words,
    submit_button,
    submit_text,
    submitter_ref,
)
from tabmcp.introspect.lists import LIST_ATTR
from tabmcp.introspect.outside_editor import OutsideEditor, outside_editor
from tabmcp.introspect.purpose import (
    heading_above,
    landmark_name,
    landmark_of,
    landmark_word,
    qualifiers,
)
from tabmcp.introspect.rows import (
    ROW_ARG,
    ROWS_ARG,
    edited_in_place,
    row_argument,
    row_boxes,
    row_forms,
    row_group,
    row_of,
)
from tabmcp.introspect.search_scope import fuller_form
from tabmcp.introspect.text import (
    DESTRUCTIVE_WORDS,
    UNTRUSTED_NOTE,
    cap,
    cap_words,
    clean,
    param_name,
    quoted,
    snake,
)
from tabmcp.page.capture import PageCapture, label_text
from tabmcp.protocol import Target

NOT_PARAMETERS = frozenset({"hidden", "submit", "button", "image", "reset", "file"})
TYPE_SCHEMAS: dict[str, dict[str, Any]] = {
    "email": {"type": "string", "format": "email"},
    "url": {"type": "string", "format": "uri"},
    "date": {"type": "string", "format": "date"},
    "datetime-local": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$"},
    "time": {"type": "string", "pattern": r"^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$"},
    "month": {"type": "string", "pattern": r"^\d{4}-\d{2}$"},
    "week": {"type": "string", "pattern": r"^\d{4}-W\d{2}$"},
    "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
    # JSON Schema's mark for a value that is sent, never shown back: the audit log redacts it
    "password": {"type": "string", "writeOnly": True},
}
FORMAT_HINTS = {
    "datetime-local": "YYYY-MM-DDTHH:MM",
    "time": "HH:MM",
    "month": "YYYY-MM",
    "week": "YYYY-Www",
    "color": "#rrggbb",
}
# Fields the page agent marks as widgets (``data-tabmcp-widget``, extension/agent/widgets.js), by kind here
WIDGET_ATTR = "data-tabmcp-widget"
FIELD_ATTR = "data-tabmcp-field"
SERVED_ATTR = "data-tabmcp-served"  # a required field (or a radio) the page served filled in
FOLDED_ATTR = "data-tabmcp-folded"  # a field in a folded section: the agent unfolds it to fill it
WIDGET_KINDS = {"combobox": "combobox", "editor": "editor", "date": "datepicker"}
WIDGET_SCHEMAS: dict[str, dict[str, Any]] = {
    "editor": {"type": "string"},
    "datepicker": {"type": "string", "format": "date"},
}
WIDGET_HINTS = {"editor": "replaces the editor's whole text", "datepicker": "YYYY-MM-DD"}
_FIELDS_AND_EDITORS = XPath(".//input | .//select | .//textarea | .//*[@data-tabmcp-widget='editor']")
MAX_FORMS = 30  # the default page-tool budget
MAX_OPTIONS = 50  # a longer select (countries…) is described, not enumerated
MAX_VALUE = 120  # an option or radio value shown to the model (the page wrote it)
MAX_DESCRIPTION_FIELDS = 160


@dataclass
class FormFields:
    """What a form's controls become: argument schemas, required names, and the plan steps that put
    the arguments in (in document order; a radio or checkbox group where its first control is)."""

    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    plan: list[PlanStep] = field(default_factory=list)

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            schema["required"] = self.required
        schema["additionalProperties"] = False
        return schema


def form_fields(
    capture: PageCapture,
    form: HtmlElement,
    *,
    skip: frozenset[HtmlElement] = frozenset(),
    taken: set[str] | None = None,
) -> FormFields:
    """The form's parameters. Skipped: unnamed, unreferenced, hidden (CSRF tokens…), disabled and
    read-only controls, buttons and file inputs. A name shared by several checkboxes is an array of
    values; one shared by radios is an enum; a name used by controls of different kinds keeps the
    first kind. ``toolparamdescription``/``toolparamtitle`` (WebMCP) win over labels."""
    fields = FormFields()
    taken = set() if taken is None else taken
    groups: dict[str, tuple[str, list[HtmlElement]]] = {}  # raw name -> (kind, controls), in document order
    controls = _controls(capture, form)
    # the hidden textareas code editors stand for are filled through their editors
    by_editors = {c.get(FIELD_ATTR) for c in controls if c.get(WIDGET_ATTR) == "editor" and c.get(FIELD_ATTR)}
    for control in controls:
        kind = _kind(control)
        raw = _raw_name(capture, control, kind)
        if not raw or control in skip or kind in NOT_PARAMETERS or not _fillable(capture, control, kind):
            continue
        if control.tag == "textarea" and kind == "textarea" and raw in by_editors:
            continue
        if raw not in groups:
            groups[raw] = (kind, [control])
        elif groups[raw][0] == kind:
            groups[raw][1].append(control)
        # else: another kind under a name already seen; the first kind wins
    selectors = {raw: row_boxes(form, raw, group) for raw, (kind, group) in groups.items() if kind == "checkbox"}
    selected_rows = {row_of(c) for raw, (_, group) in groups.items() if selectors.get(raw) for c in group}
    # judged by the table's rows in full: the capture keeps only the fields of its later rows
    tables = {next(r.iterancestors("table"), None) for r in selected_rows if r is not None and edited_in_place(r)}
    shown_records = {r for r in selected_rows if r is not None and next(r.iterancestors("table"), None) in tables}
    for raw, (kind, controls) in groups.items():
        if not selectors.get(raw) and shown_records and all(row_of(c) in shown_records for c in controls):
            # a cell edited in place in a row of results the form selects by their text
            # ("form-17-stock"): one argument per row shown, that no one can tell apart, would crowd
            # out the action's own; submitted, the cell keeps the value the page shows
            continue
        name = param_name(raw, taken)
        if kind == "checkbox" and (selector := selectors.get(raw)):
            name = ROWS_ARG if ROWS_ARG not in taken else name
            schema, steps = row_group(name, selector)
        elif kind == "radio":
            schema, steps = _radio_group(capture, controls, name)
        elif kind == "checkbox" and len(controls) > 1:
            schema, steps = _checkbox_group(capture, controls, name)
        else:
            schema, steps = _control(capture, controls[0], kind, name)
        taken.add(name)
        fields.properties[name] = schema
        fields.plan.extend(steps)
        if any(c.get(SERVED_ATTR) == "1" for c in controls):
            # the page served it filled in (a date, a title): omitted, it keeps the page's value
            if any(c.get("required") is not None for c in controls):
                schema["description"] = served_description(schema.get("description"))
        elif any(c.get("required") is not None for c in controls):
            fields.required.append(name)
    return fields


def _kind(control: HtmlElement) -> str:
    widget = control.get(WIDGET_ATTR)
    if widget in WIDGET_KINDS:
        return WIDGET_KINDS[widget]
    if control.tag != "input":
        return control.tag
    return (control.get("type") or "text").strip().lower() or "text"


def _controls(capture: PageCapture, form: HtmlElement) -> list[HtmlElement]:
    """The form's controls (``controls_of``) and, in document order among them, the editors inside it
    that are not form controls (a contenteditable, CodeMirror 6)."""
    controls = capture.controls_of(form)
    if form.find(".//*[@data-tabmcp-widget='editor']") is None:
        return controls
    listed = set(controls)
    inside = [el for el in _FIELDS_AND_EDITORS(form) if el in listed or el.get(WIDGET_ATTR) == "editor"]
    seen = set(inside)
    return inside + [c for c in controls if c not in seen]


def _raw_name(capture: PageCapture, control: HtmlElement, kind: str) -> str:
    """The field's name: its own, else (an editor, a combobox) the field it stands for or its label."""
    if kind == "editor":
        return control.get(FIELD_ATTR) or control.get("name") or snake(capture.label_for(control)) or "text"
    if kind == "combobox" and not control.get("name"):
        return snake(capture.label_for(control))
    return control.get("name") or ""


def _fillable(capture: PageCapture, control: HtmlElement, kind: str) -> bool:
    """A widget is filled through what the page shows for it (a library's combobox, a calendar, an editor),
    whatever the state of the element it keeps its value in."""
    if kind in ("combobox", "datepicker") and (control.tag == "select" or control.get("type", "").lower() == "hidden"):
        # the library withdrew the <select> (``hidden``, out of sight) or keeps the value in a hidden input; the
        # agent left it unflagged because the combobox or date picker that stands in for it shows
        return bool(capture.ref(control)) and control.get("data-tabmcp-hidden") != "1" and not disabled(control)
    return operable(capture, control) if kind in WIDGET_KINDS.values() else editable(capture, control)


def operable(capture: PageCapture, element: HtmlElement) -> bool:
    """A control a plan can drive: it has a ref, is rendered (or in a section the agent unfolds before
    filling it), and is not disabled."""
    shown = not capture.is_hidden(element) or element.get(FOLDED_ATTR) == "1"
    return bool(capture.ref(element)) and shown and not disabled(element)


def editable(capture: PageCapture, control: HtmlElement) -> bool:
    """``operable`` and not read-only: a field a plan can fill."""
    return control.get("readonly") is None and operable(capture, control)


def disabled(control: HtmlElement) -> bool:
    """Disabled itself, or inside a disabled fieldset (except in that fieldset's first legend)."""
    if control.get("disabled") is not None:
        return True
    for fieldset in control.iterancestors("fieldset"):
        if fieldset.get("disabled") is not None:
            legend = fieldset.find("legend")
            if legend is None or control not in legend.iterdescendants():
                return True
    return False


def _describe(capture: PageCapture, control: HtmlElement, schema: dict[str, Any], hint: str = "") -> None:
    text = clean(control.get("toolparamdescription"), MAX_TEXT) or clean(capture.label_for(control), MAX_TEXT)
    text = text or clean(control.get("aria-description"), MAX_TEXT)
    if hint:
        text = f"{text} ({hint})" if text else hint
    if text:
        schema["description"] = text
    if title := clean(control.get("toolparamtitle"), 60):
        schema["title"] = title


def _control(
    capture: PageCapture, control: HtmlElement, kind: str, name: str
) -> tuple[dict[str, Any], list[PlanStep]]:
    target = Target(ref=capture.ref(control))
    hint = ""
    if kind == "checkbox":
        schema: dict[str, Any] = {"type": "boolean"}
        step = PlanStep("check", target=target, value=Arg(name))
    elif kind == "combobox":
        schema, hint = _combobox_schema(control)
        step = PlanStep("select", target=target, value=Arg(name))
    elif kind == "select":
        schema, hint = _select_schema(control)
        if control.get("multiple") is not None:
            schema = _array_of(schema)
        step = PlanStep("select", target=target, value=Arg(name))
    elif kind in ("editor", "datepicker"):
        schema, hint = dict(WIDGET_SCHEMAS[kind]), WIDGET_HINTS[kind]
        step = PlanStep("fill", target=target, value=Arg(name))
    else:
        if kind in ("number", "range"):
            schema = _number_schema(control, kind)
        else:
            schema = dict(TYPE_SCHEMAS.get(kind, {"type": "string"}))
            hint = FORMAT_HINTS.get(kind, "")
            _text_limits(control, schema)
        step = PlanStep("fill", target=target, value=Arg(name))
    _describe(capture, control, schema, hint)
    return schema, [step]


def _number_schema(control: HtmlElement, kind: str) -> dict[str, Any]:
    """HTML's numeric constraints as JSON Schema: ``min``/``max``; ``step`` (default 1, based at
    ``min`` or 0) makes an integer when step and base are whole numbers, and ``multipleOf`` when
    the allowed values are multiples of the step. Nothing depends on what the field holds now, so
    typing into it does not change the tool."""
    low, high = _number(control.get("min")), _number(control.get("max"))
    if kind == "range":
        low = 0 if low is None else low
        high = 100 if high is None else high
    step_attr = (control.get("step") or "").strip().lower()
    step = None if step_attr == "any" else _number(step_attr)
    step = 1 if step_attr != "any" and (step is None or step <= 0) else step
    base = low if low is not None else 0  # not the value attribute: the agent writes the live value there
    schema: dict[str, Any] = {"type": "number"}
    if step is not None and float(step).is_integer() and float(base).is_integer():
        schema["type"] = "integer"
    if low is not None:
        schema["minimum"] = _plain(low)
    if high is not None:
        schema["maximum"] = _plain(high)
    if step is not None and step != 1 and _is_multiple(base, step):
        schema["multipleOf"] = _plain(step)
    return schema


def _text_limits(control: HtmlElement, schema: dict[str, Any]) -> None:
    for attr, key in (("maxlength", "maxLength"), ("minlength", "minLength")):
        value = _number(control.get(attr))
        if value is not None and value >= 0 and float(value).is_integer():
            schema[key] = int(value)
    pattern = control.get("pattern")
    if pattern and len(pattern) <= 200 and "type" in schema and "pattern" not in schema:
        try:
            re.compile(pattern)
        except re.error:
            return  # a JavaScript-only regex: the page still checks it on submit
        schema["pattern"] = f"^(?:{pattern})$"


def _select_schema(control: HtmlElement) -> tuple[dict[str, Any], str]:
    options = [
        (o.get("value") if o.get("value") is not None else label_text(o), label_text(o))
        for o in control.iter("option")
        if o.get("disabled") is None
    ]
    # an empty value is a prompt ("Select…", "---------") unless its label is a choice ("is", "Any")
    real = [(v, t) for v, t in options if v != "" or _empty_choice(t)] or options
    # the enum is sent back as is (select by value), so it holds page text only when that is plain,
    # short text; otherwise the options are described, quoted and cleaned, and picked by label
    if len(real) > MAX_OPTIONS or any(clean(v, MAX_VALUE) != v for v, _ in real):
        examples = ", ".join(quoted(t or v, 30) for v, t in real[:5])
        return {"type": "string"}, f"one of the page's {len(real)} options, by value or label, e.g. {examples}"
    if by_label := _labels_for_ids(real):
        return {"type": "string", "enum": by_label}, ""
    values = list(dict.fromkeys(v for v, _ in real))
    hint = _value_labels([(v, t) for v, t in real if v != ""])
    empty = next((clean(t, 40) for v, t in real if v == "" and t), "")
    if empty and len(real) > 1:
        hint = f'"": {empty}, {hint}' if hint else f'"": {empty}'
    return {"type": "string", "enum": values}, hint


_ID = re.compile(r"-?\d+(?:,-?\d+)*")
# What an empty option says when it only asks for a choice (or has no letters: "---------", "—").
_PROMPT = re.compile(r"\W*(select|choose|pick|please|none selected|no selection)\b|\W*$", re.IGNORECASE)


def _empty_choice(label: str) -> bool:
    """An option with an empty value that a person picks as a choice: its label says one ("is",
    "Any", "All"), not a prompt to choose."""
    return not _PROMPT.match(" ".join(label.split()))


def _labels_for_ids(options: list[tuple[str, str]]) -> list[str]:
    """The options' texts, when the values are the page's row ids ("1", "-1", "-1,1,2"): an id is
    live data a person never sees, the text is what they pick (the agent selects by label when no
    value matches). [] when the texts cannot stand for the values (empty, repeated, long, or one of
    them another option's value)."""
    ids = sum(1 for v, _ in options if _ID.fullmatch(v))
    if not options or 2 * ids < len(options):
        return []
    labels = [" ".join(t.split()) for _, t in options]
    values = {v for v, _ in options}
    if not all(labels) or len(set(labels)) != len(labels) or any(t in values for t in labels):
        return []
    if any(clean(t, MAX_VALUE) != t for t in labels):
        return []
    return labels
def _combobox_schema(control: HtmlElement) -> tuple[dict[str, Any], str]:
    """A combobox takes the visible text of an option: the page offers its matches as it is typed, and the
    options are data (authors, tags…), so none are listed: a text without a match fails with the close
    ones. Several texts for a multiple one."""
    if control.get("multiple") is not None or control.get("data-tabmcp-multiple") == "1":
        return {"type": "array", "items": {"type": "string"}, "uniqueItems": True}, "the options' visible texts"
    return {"type": "string"}, "the option's visible text"


def _array_of(schema: dict[str, Any]) -> dict[str, Any]:
    """A multiple select's schema: the options chosen (any others are unchosen)."""
    return {"type": "array", "items": schema, "uniqueItems": True}


def _radio_group(
    capture: PageCapture, radios: list[HtmlElement], name: str
) -> tuple[dict[str, Any], list[PlanStep]]:
    choices: dict[str, Target] = {}
    labelled = []
    for radio in radios:
        value = clean(radio.get("value", "on"), MAX_VALUE)  # only a key: the plan checks the radio by ref
        if value not in choices:
            choices[value] = Target(ref=capture.ref(radio))
            labelled.append((value, capture.label_for(radio)))
    schema: dict[str, Any] = {"type": "string", "enum": list(choices)}
    _describe_group(capture, radios, schema, _value_labels(labelled))
    return schema, [PlanStep("check", target=Choice(name, choices), value=True)]


def _checkbox_group(
    capture: PageCapture, boxes: list[HtmlElement], name: str
) -> tuple[dict[str, Any], list[PlanStep]]:
    """An array of the values to have checked: every box of the group is set, so the ones not
    listed are unchecked (as WebMCP's declarative forms do)."""
    steps, labelled, values = [], [], []
    for box in boxes:
        value = clean(box.get("value", "on"), MAX_VALUE)  # only a key: the plan checks the box by ref
        if value in values:
            continue
        values.append(value)
        labelled.append((value, capture.label_for(box)))
        steps.append(PlanStep("check", target=Target(ref=capture.ref(box)), value=Contains(name, value)))
    schema: dict[str, Any] = {"type": "array", "items": {"type": "string", "enum": values}, "uniqueItems": True}
    _describe_group(capture, boxes, schema, _value_labels(labelled), plural=True)
    return schema, steps


def _describe_group(
    capture: PageCapture, controls: list[HtmlElement], schema: dict[str, Any], values: str, *, plural: bool = False
) -> None:
    first = controls[0]
    text = clean(first.get("toolparamdescription"), MAX_TEXT) or _group_label(capture, controls)
    if plural:
        text = f"{text}: the values to check" if text else "The values to check"
    if values:
        text = f"{text} ({values})" if text else values
    if text:
        schema["description"] = cap(text, 2 * MAX_TEXT)
    if title := clean(first.get("toolparamtitle"), 60):
        schema["title"] = title


def _group_label(capture: PageCapture, controls: list[HtmlElement]) -> str:
    for ancestor in controls[0].iterancestors("fieldset", "form"):
        if ancestor.tag == "form":
            break
        legend = ancestor.find("legend")
        if legend is not None:
            return clean(label_text(legend), MAX_TEXT)
    for ancestor in controls[0].iterancestors():
        if ancestor.get("role") in ("radiogroup", "group"):
            return clean(capture.aria_name(ancestor), MAX_TEXT)
        if ancestor.tag == "form":
            break
    return ""


def _value_labels(pairs: list[tuple[str, str]]) -> str:
    """``s: Small, m: Medium`` when the visible labels say more than the values do."""
    if all(not label or label.strip().lower() == value.strip().lower() for value, label in pairs):
        return ""
    return cap(", ".join(f"{clean(v, 40)}: {clean(t, 40)}" if t else clean(v, 40) for v, t in pairs), MAX_TEXT)


def _number(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _is_multiple(base: float, step: float) -> bool:
    ratio = base / step
    return abs(ratio - round(ratio)) < 1e-9


# ----------------------------------------------------------------- the introspector


def is_declarative(form: HtmlElement) -> bool:
    """A WebMCP declarative tool: both ``toolname`` and ``tooldescription`` (as Chromium requires)."""
    return bool((form.get("toolname") or "").strip() and (form.get("tooldescription") or "").strip())


@dataclass
class FormIntrospector(Introspector):
    name: str = "forms"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        # Forms that repeat in the rows of a list ("Delete" in each row, no field to fill) are one
        # form, found by its place in the document order of the first one.
        found: list[list[HtmlElement]] = []
        repeated: dict[tuple[str, ...], list[HtmlElement]] = {}
        for form in capture.tree.iter("form"):
            ref = capture.ref(form)
            if not ref or capture.is_hidden(form) or is_declarative(form):
                continue
            if fuller_form(capture, form) is not None:
                continue  # the main content's form sends the same fields and more: its tool is this one's
            # a closed dialog drawn out of sight: its form is a tool only when the page can open it
            dialog = closed_dialog(form)
            if dialog is not None and not opened_on_page(capture, dialog):
                continue
            key = _repeat_key(capture, form)
            if key is not None and key in repeated:
                repeated[key].append(form)
                continue
            group = [form]
            if key is not None:
                repeated[key] = group
            found.append(group)
            if len(found) == MAX_FORMS:
                break  # more than a page's tool budget: the rest could not be listed anyway
        tools: list[PageTool] = []
        lent = outside_editor(capture, lambda form: submit_button(capture, form) is not None)
        for group in found:
            selector = row_forms(group) if _repeat_key(capture, group[0]) else ""
            made = [self._row_tool(capture, group[0], selector, 20 + len(tools))] if selector else [
                self._tool(capture, form, capture.ref(form) or "", 20 + len(tools), lent) for form in group
            ]
            tools += [tool for tool in made if tool is not None]
        return tools

    def _row_tool(self, capture: PageCapture, form: HtmlElement, selector: str, rank: int) -> PageTool:
        """One tool for the form each row of a list has: the row is an argument, by its text."""
        tool = self._tool(capture, form, capture.ref(form) or "", rank)
        assert tool is not None  # a repeated form has a visible submit button (_repeat_key)
        method = (form.get("method") or "get").strip().lower()
        action = urljoin(capture.url, form.get("action") or "")
        label = tool.title or "submit"
        description = (
            f"Submit the form {quoted(label)} of one row of the list ({method.upper()} {form_target(form, action)}), "
            "the row chosen by a text it shows. Returns the page shown afterwards: its message and main list. "
            f"{UNTRUSTED_NOTE}"
        )
        schema = {"type": "object", "properties": {ROW_ARG: row_argument()}, "required": [ROW_ARG],
                  "additionalProperties": False}
        return replace(
            tool,
            description=description,
            input_schema=schema,
            plan=(PlanStep("submit", target=RowText(ROW_ARG, selector)),),
            element_ref=None,  # no one element: the row's form is found when the tool runs
        )

    def _tool(
        self, capture: PageCapture, form: HtmlElement, ref: str, rank: int, lent: OutsideEditor | None = None
    ) -> PageTool | None:
        fields = form_fields(capture, form, skip=frozenset({lent.editor}) if lent is not None else frozenset())
        if lent is not None and lent.form is form:
            # the page's one editor, saved by this form's script: its text is this form's argument
            name = param_name(lent.field, set(fields.properties))
            schema, steps = _control(capture, lent.editor, "editor", name)
            label = clean(capture.label_for(lent.editor), MAX_TEXT)
            schema["description"] = (
                f"The text of the page's editor{' ' + quoted(label) if label else ''}, which this form saves: "
                "replaces its whole text (omitted, the editor's text is saved as it stands)"
            )
            fields.properties[name] = schema
            fields.plan.extend(steps)
        fields.plan.append(PlanStep("submit", target=Target(ref=submitter_ref(capture, form) or ref)))
        submit = submit_text(capture, form)
        if not fields.properties and not has_button(capture, form):
            return None  # nothing to fill and nothing to press: a form the page's scripts fill first
        if not fields.properties and _PAGER(form):
            return None  # only a pager (its buttons and hidden fields): browse_list's page argument
        if submit_button(capture, form) is None and _only_chrome(capture, form):
            return None  # a page-look switch (a colour scheme): how the page looks, not a task
        label = form_label(capture, form)
        landmark = landmark_of(form)
        above = heading_above(form, within=landmark, capture=capture)
        heading = not_an_item(above, submit, capture.url, capture.title)
        method = (form.get("method") or "get").strip().lower()
        action = urljoin(capture.url, form.get("action") or "")
        name, title = form_purpose(
            capture, form, submit=submit, label=label, heading=heading, fields=list(fields.properties)
        )
        hints = ToolHints(
            read_only=method == "get",
            idempotent=method == "get",
            destructive=bool(
                DESTRUCTIVE_WORDS.search(f"{submit} {label} {urlsplit(action).path} {hidden_verbs(form)}")
            ),
        )
        where = landmark_word(landmark)
        described = f" {quoted(title)}" if title else ""
        # the heading is not quoted here: above a form it is often the item the page shows (a post's
        # title above its comment form), which would make the tool change from page to page
        located = f" in the page's {where}" if where else ""
        names = cap(", ".join(fields.properties) or "no fields", MAX_DESCRIPTION_FIELDS)
        rows = " Rows are chosen by the text they show." if ROWS_ARG in fields.properties else ""
        description = (
            f"Fill and submit the form{described}{located} ({method.upper()} {form_target(form, action)}; "
            f"fields: {names}).{rows} Returns the page shown afterwards: its message and main list. {UNTRUSTED_NOTE}"
        )
        return PageTool(
            name=name,
            title=cap_words(title, 60) or None,
            description=description,
            input_schema=fields.schema(),
            plan=tuple(fields.plan),
            hints=hints,
            source=self.name,
            element_ref=ref,
            rank=rank,
            qualifiers=qualifiers(
                label, heading, landmark_name(capture, landmark), where, path_words(action), form.get("id") or ""
            ),
        )


# a control the page agent marked as part of a list's paging or sorting (lists.py)
_PAGER = XPath(f".//*[@{LIST_ATTR}][not(starts-with(@{LIST_ATTR}, 'open'))]")


def _only_chrome(capture: PageCapture, form: HtmlElement) -> bool:
    """Every control of the form but its hidden fields changes the page's layout or look (chrome.py)."""
    shown = [c for c in capture.controls_of(form) if (c.get("type") or "").lower() != "hidden"]
    return bool(shown) and all(chrome_label(capture.accessible_name(c) or capture.label_for(c), c) for c in shown)


def _repeat_key(capture: PageCapture, form: HtmlElement) -> tuple[str, ...] | None:
    """What makes two forms in the rows of a list the same form: no field to fill, the same
    method, action path and button. None for a form that is not such a row form."""
    if row_of(form) is None or form_fields(capture, form).properties or not has_button(capture, form):
        return None
    method = (form.get("method") or "get").strip().lower()
    return (method, urlsplit(form.get("action") or "").path, submit_text(capture, form))
