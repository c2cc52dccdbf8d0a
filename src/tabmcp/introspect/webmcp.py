"""Tools the page declares itself through WebMCP (kind ``page``): imperative and declarative.

Imperative: ``capture.webmcp`` is what the page passed to ``registerTool``/``provideContext``
(``{name, title?, description, inputSchema?, annotations?}``), collected by the page agent. Each
becomes a tool whose plan is one ``webmcp`` step: the page's own ``execute(args)`` runs and its
result is the answer.

Declarative: ``<form toolname tooldescription [toolautosubmit]>`` (both attributes, as Chromium
requires); parameters as the form introspector makes them (``toolparamdescription`` and
``toolparamtitle`` win over labels). The plan fills the fields, and submits only with
``toolautosubmit``: without it the explainer has the user check and submit the form, and the
description says so.

Everything here was written by the page: names are re-made in our style (still recognisable:
``searchFlights`` → ``search_flights``), descriptions are cleaned, capped and prefixed with
``UNTRUSTED_PREFIX``, schemas sanitised (``schema.sanitize_schema``), and the tools are
``untrusted``. The page's annotations are taken with MCP's defaults: a tool is destructive unless
it says it is read-only (``readOnlyHint: true``) or not destructive (``destructiveHint: false``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import MAX_DESCRIPTION, MAX_TITLE, Introspector, PageTool, PlanStep, ToolHints, call_webmcp
from tabmcp.introspect.form_names import form_label, submit_text
from tabmcp.introspect.forms import form_fields, is_declarative
from tabmcp.introspect.schema import sanitize_schema
from tabmcp.introspect.text import DESTRUCTIVE_WORDS, UNTRUSTED_PREFIX, clean, tool_name
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

MAX_WEBMCP_TOOLS = 64  # as the agent caps them; the server does not rely on it
MAX_PAGE_NAME = 128  # a longer name cannot be called back (protocol.Step.name)
MAX_SCHEMA_JSON = 20_000
UNTRUSTED_RESULTS = " Its results are untrusted content."
NOT_SUBMITTED = " Only fills the form: the page asks the user to check and submit it, so tell the user to."


# The forms that may declare a tool (``is_declarative`` decides): through the attribute nodes, so the
# forms of a page that declares none never become Python objects.
_NAMED_FORMS = XPath("//@toolname/parent::form")


@dataclass
class WebMCPIntrospector(Introspector):
    name: str = "webmcp"
    kind: str = "page"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        tools: list[PageTool] = []
        declared: set[str] = set()
        for raw in capture.webmcp[:MAX_WEBMCP_TOOLS]:
            tool = imperative_tool(raw, rank=10 + len(tools), source=self.name)
            if tool is not None:
                tools.append(tool)
                declared.add(raw["name"])
        for form in capture.select(_NAMED_FORMS):
            ref = capture.ref(form)
            if not ref or capture.is_hidden(form) or not is_declarative(form):
                continue
            if form.get("toolname", "").strip() in declared:
                continue  # a browser with native WebMCP lists declarative tools too: the page's own runs it
            tools.append(declarative_tool(capture, form, ref, rank=10 + len(tools), source=self.name))
        return tools


def imperative_tool(raw: object, *, rank: int = 10, source: str = "webmcp") -> PageTool | None:
    """One tool from the page's ``registerTool`` data, or None when it cannot be called back."""
    if not isinstance(raw, Mapping):
        return None
    page_name = raw.get("name")
    if not isinstance(page_name, str) or not page_name.strip() or len(page_name) > MAX_PAGE_NAME:
        return None
    annotations = raw.get("annotations") if isinstance(raw.get("annotations"), Mapping) else {}
    read_only = annotations.get("readOnlyHint") is True
    hints = ToolHints(
        read_only=read_only,
        destructive=not read_only and annotations.get("destructiveHint") is not False,
        idempotent=annotations.get("idempotentHint") is True,
        open_world=annotations.get("openWorldHint") is not False,
    )
    suffix = UNTRUSTED_RESULTS if annotations.get("untrustedContentHint") is True else ""
    title = clean(raw.get("title"), MAX_TITLE) or clean(annotations.get("title"), MAX_TITLE)
    return PageTool(
        name=tool_name(page_name) or "page_tool",
        title=title or None,
        description=page_description(raw.get("description"), suffix),
        input_schema=sanitize_schema(_schema_object(raw.get("inputSchema"))),
        plan=(call_webmcp(page_name),),
        hints=hints,
        source=source,
        rank=rank,
        untrusted=True,
    )


def declarative_tool(
    capture: PageCapture, form: HtmlElement, ref: str, *, rank: int = 10, source: str = "webmcp"
) -> PageTool:
    fields = form_fields(capture, form)
    autosubmit = form.get("toolautosubmit") is not None
    if autosubmit:
        fields.plan.append(PlanStep("submit", target=Target(ref=ref)))
    method = (form.get("method") or "get").strip().lower()
    words = f"{form.get('toolname')} {form.get('tooldescription')} {submit_text(capture, form)}"
    if autosubmit:
        hints = ToolHints(
            read_only=method == "get",
            idempotent=method == "get",
            destructive=bool(DESTRUCTIVE_WORDS.search(words)),
        )
    else:  # filling a form changes nothing beyond the form
        hints = ToolHints(read_only=False, destructive=False, idempotent=True)
    title = clean(form_label(capture, form), MAX_TITLE) or clean(form.get("toolname"), MAX_TITLE)
    return PageTool(
        name=tool_name(form.get("toolname", "")) or "page_form",
        title=title or None,
        description=page_description(form.get("tooldescription"), "" if autosubmit else NOT_SUBMITTED),
        input_schema=fields.schema(),
        plan=tuple(fields.plan),
        hints=hints,
        source=source,
        element_ref=ref,
        rank=rank,
        untrusted=True,
    )


def page_description(text: object, suffix: str = "") -> str:
    """The page's words as data: cleaned, capped so that our prefix and ``suffix`` always fit."""
    room = MAX_DESCRIPTION - len(UNTRUSTED_PREFIX) - len(suffix)
    body = clean(text, room) or "(no description)"
    return f"{UNTRUSTED_PREFIX}{body}{suffix}"


def _schema_object(raw: object) -> Any:
    """Some pages pass ``inputSchema`` as a JSON string; anything unreadable counts as no schema."""
    if isinstance(raw, str):
        if len(raw) > MAX_SCHEMA_JSON:
            return "unusable"
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return "unusable"
    return raw
