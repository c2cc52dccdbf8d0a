"""A code editor that stands outside the form it is saved with.

Some pages keep their editor (CodeMirror 6, Monaco, a contenteditable) apart from the form that
saves it: the form carries an empty hidden field, and the page's submit handler copies the
editor's text into it. The form's tool would then take no content at all. The link is read from
what the capture shows, never from a site's name:

- the page has exactly one editor (``data-tabmcp-widget=editor``) that is rendered;
- that editor is in no form that sends anything itself (no form, or one without an ``action``
  and without a submit button: a wrapper the page's scripts use);
- the saving form has no editor of its own, a submit button, and an empty hidden field whose
  name says it holds text (``content``, ``body``, ``text``…) or shares a word with the editor's
  field.

The editor then becomes an optional string argument of that form's tool, named by the hidden
field and filled through the editor as a person types into it (extension/agent/editors.js)
before the submit; omitted, the editor keeps what it holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.chrome import EDITORS
from tabmcp.page.capture import PageCapture

# through the attribute nodes: libxml2 walks those far faster than it tests every element (``//*[@…]``)
_EDITOR_INSIDE = XPath(".//*[@data-tabmcp-widget='editor']")
# Names of fields that hold a document's text.
TEXT_WORDS = frozenset(
    {"content", "contents", "body", "text", "markdown", "source", "code", "html", "document", "page"}
)


@dataclass(frozen=True)
class OutsideEditor:
    form: HtmlElement  # the form that saves the editor's text
    editor: HtmlElement
    field: str  # the hidden field the page's script fills: the argument's name


def outside_editor(capture: PageCapture, submits: Callable[[HtmlElement], bool]) -> OutsideEditor | None:
    """The page's one editor and the form that saves it, when the page links them as above
    (``submits``: whether a form has a submit button)."""
    editors = [e for e in capture.select(EDITORS) if capture.ref(e) and not capture.is_hidden(e)]
    if len(editors) != 1:
        return None
    editor = editors[0]
    own = capture.form_of(editor)
    if own is not None and (own.get("action") or submits(own)):
        return None  # its own form saves it
    words = _words(editor.get("data-tabmcp-field") or "") | _words(editor.get("id") or "")
    for form in capture.tree.iter("form"):
        if form is own or not capture.ref(form) or capture.is_hidden(form) or not submits(form):
            continue
        if _EDITOR_INSIDE(form):
            continue
        for control in capture.controls_of(form):
            name = control.get("name") or ""
            hidden = control.tag == "input" and (control.get("type") or "").lower() == "hidden"
            if hidden and name and not (control.get("value") or "").strip() and _words(name) & (TEXT_WORDS | words):
                return OutsideEditor(form, editor, name)
    return None


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}

