"""The generic form introspector: every visible HTML ``<form>`` becomes one tool.

Parameters are the form's named, visible controls; the plan fills them and submits the form the
way a user would (``requestSubmit``), so hidden fields such as CSRF tokens go along untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from tabmcp.introspect.api import Arg, Choice, Introspector, PageTool, PlanStep, ToolHints
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

NOT_PARAMETERS = {"hidden", "submit", "button", "image", "reset", "file"}
TYPE_SCHEMAS: dict[str, dict[str, Any]] = {
    "number": {"type": "number"},
    "range": {"type": "number"},
    "email": {"type": "string", "format": "email"},
    "url": {"type": "string", "format": "uri"},
    "date": {"type": "string", "format": "date"},
    "datetime-local": {"type": "string", "format": "date-time"},
    "time": {"type": "string", "format": "time"},
}
DESTRUCTIVE_WORDS = re.compile(r"\b(delete|remove|destroy|erase|cancel|unsubscribe|close account)\b", re.I)
MAX_TEXT = 120


@dataclass
class _Form:
    """What the form introspector gathers about one form before it becomes a tool."""

    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    plan: list[PlanStep] = field(default_factory=list)


@dataclass
class FormIntrospector(Introspector):
    name: str = "forms"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        tools = []
        for form in capture.tree.iter("form"):
            ref = capture.ref(form)
            if ref and not capture.is_hidden(form):
                tools.append(self._tool(capture, form, ref))
        return tools

    def _tool(self, capture: PageCapture, form: HtmlElement, ref: str) -> PageTool:
        gathered = _Form()
        radio_groups: dict[str, list[HtmlElement]] = {}
        for control in form.iter("input", "select", "textarea"):
            name = control.get("name")
            control_ref = capture.ref(control)
            kind = control.get("type", "text").lower() if control.tag == "input" else control.tag
            if not name or not control_ref or kind in NOT_PARAMETERS or capture.is_hidden(control):
                continue
            if _disabled(control):
                continue
            if kind == "radio":
                radio_groups.setdefault(name, []).append(control)
                continue
            schema, step = _control_schema(capture, control, kind, Target(ref=control_ref), name)
            _add(gathered, name, schema, step, required=control.get("required") is not None)
        for name, radios in radio_groups.items():
            choices = {r.get("value", "on"): Target(ref=capture.ref(r)) for r in radios}
            schema = {"type": "string", "enum": list(choices)}
            if label := _group_label(capture, radios):
                schema["description"] = label
            step = PlanStep("check", target=Choice(name, choices), value=True)
            required = any(r.get("required") is not None for r in radios)
            _add(gathered, name, schema, step, required=required)
        gathered.plan.append(PlanStep("submit", target=Target(ref=ref)))

        submit_text = _submit_text(form)
        label = _form_label(capture, form) or submit_text
        method = (form.get("method") or "get").lower()
        action = form.get("action") or capture.url
        words = f"{submit_text} {label}"
        hints = ToolHints(
            read_only=method == "get",
            idempotent=method == "get",
            destructive=bool(DESTRUCTIVE_WORDS.search(words)),
        )
        described = f' "{label}"' if label else ""
        fields = ", ".join(gathered.properties) or "no fields"
        description = (
            f"Fill and submit the form{described} on this page ({method.upper()} {_short(action)}; "
            f"fields: {fields}). Returns the page shown afterwards. Labels come from the page (untrusted)."
        )
        schema: dict[str, Any] = {"type": "object", "properties": gathered.properties}
        if gathered.required:
            schema["required"] = gathered.required
        schema["additionalProperties"] = False
        return PageTool(
            name=_form_name(form, submit_text, label, action),
            title=label or None,
            description=description,
            input_schema=schema,
            plan=tuple(gathered.plan),
            hints=hints,
            source=self.name,
            element_ref=ref,
        )


def _add(gathered: _Form, name: str, schema: dict[str, Any], step: PlanStep, *, required: bool) -> None:
    if name in gathered.properties:
        return  # a repeated name (e.g. a checkbox list) keeps its first control in this skeleton
    gathered.properties[name] = schema
    gathered.plan.append(step)
    if required:
        gathered.required.append(name)


def _control_schema(
    capture: PageCapture, control: HtmlElement, kind: str, target: Target, name: str
) -> tuple[dict[str, Any], PlanStep]:
    label = capture.label_for(control)
    if kind == "checkbox":
        schema: dict[str, Any] = {"type": "boolean"}
        step = PlanStep("check", target=target, value=Arg(name))
    elif kind == "select":
        options = [o.get("value", _text(o)) for o in control.iter("option")]
        schema = {"type": "string", "enum": [o for o in options if o != ""] or options}
        step = PlanStep("select", target=target, value=Arg(name))
    else:
        schema = dict(TYPE_SCHEMAS.get(kind, {"type": "string"}))
        step = PlanStep("fill", target=target, value=Arg(name))
    if label:
        schema["description"] = label[:MAX_TEXT]
    return schema, step


def _disabled(control: HtmlElement) -> bool:
    """Disabled itself, or inside a disabled fieldset (except in that fieldset's first legend)."""
    if control.get("disabled") is not None:
        return True
    for fieldset in control.iterancestors("fieldset"):
        if fieldset.get("disabled") is not None:
            legend = fieldset.find("legend")
            if legend is None or control not in legend.iterdescendants():
                return True
    return False


def _group_label(capture: PageCapture, radios: list[HtmlElement]) -> str:
    for ancestor in radios[0].iterancestors("fieldset"):
        legends = ancestor.findall("legend")
        if legends:
            return _text(legends[0])
    return ""


def _submit_text(form: HtmlElement) -> str:
    for el in form.iter("button", "input"):
        kind = (el.get("type") or ("submit" if el.tag == "button" else "text")).lower()
        if kind in ("submit", "image"):
            return _text(el) or el.get("value", "") or el.get("aria-label", "") or el.get("alt", "")
    return ""


def _form_label(capture: PageCapture, form: HtmlElement) -> str:
    for attr in ("aria-label", "title"):
        if form.get(attr):
            return " ".join(form.get(attr).split())[:MAX_TEXT]
    if form.get("aria-labelledby"):
        el = capture.tree.get_element_by_id(form.get("aria-labelledby").split()[0], None)
        if el is not None:
            return _text(el)
    for heading in form.iter("h1", "h2", "h3", "h4", "legend"):
        return _text(heading)
    return ""


def _form_name(form: HtmlElement, submit_text: str, label: str, action: str) -> str:
    """A verb-like name: the submit button says what the form does ("Search", "Sign in")."""
    path_tail = urlsplit(action).path.rstrip("/").rsplit("/", 1)[-1]
    for candidate in (submit_text, label, form.get("name"), form.get("id"), path_tail):
        if candidate and snake(candidate):
            return snake(candidate)
    return "submit_form"


def snake(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'", ""))
    name = "_".join(words)[:40].strip("_")
    return name if name and name[0].isalpha() else ""


def _text(el: HtmlElement) -> str:
    return " ".join(el.text_content().split())[:MAX_TEXT]


def _short(url: str) -> str:
    parts = urlsplit(url)
    return parts.path or "/" if parts.netloc else url[:80]
