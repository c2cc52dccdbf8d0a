"""Controls that are how a person works the page, not tasks a user would ask for.

Each tool listed costs characters on every re-read of the list, and one that comes and goes with
the page's state sends a ``list_changed`` of its own. Three kinds are told from what the capture
shows, never from a site's name:

- **chrome**: a control whose name says it changes the page's layout or look: "Toggle sidebar",
  "Collapse all", "Expand", "Hide the navigation", "Switch to dark mode", a colour scheme, full
  screen (``chrome_label``).
- **editor controls**: the buttons that operate on a code or rich-text editor the page shows (undo,
  bold, heading…): on a page with a rendered editor, a ``role=toolbar`` or a run of sibling buttons
  among whose names at least two are editing commands, a button whose ``aria-controls`` names
  the editor, and a button that changes how the editor shows its text ("Preview", "Side by
  side"). The editor is a string argument of its form's tool: a model writes the text it wants
  rather than pressing Bold (``editor_controls``).
- **view switchers**: a few sibling buttons alone in their parent, with short names that are not
  actions ("HTML", "Plain Text", "Headers"), one of them marked as the current one (``aria-pressed``,
  ``aria-selected``, ``aria-current``, or a class of its own that says active, selected, current
  or primary). They become one tool with a ``view`` argument whose choices are all the views, so
  going from one view to another does not change the list (``view_switchers``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.text import DESTRUCTIVE_WORDS, clean
from tabmcp.page.capture import PageCapture

_LAYOUT = (
    r"(?:side\s*bar|side\s*panel|panel|nav(?:igation)?|menu|breadcrumbs?|tool\s*bar|mini\s*map|outline|"
    r"table of contents|preview)"
)
_CHROME = re.compile(
    rf"^(?:toggle|collapse|expand|show|hide|open|close|pin|unpin)\s+(?:the\s+)?{_LAYOUT}\b"
    r"|^(?:collapse|expand)\s+all\b"
    r"|\b(?:dark|light|night|day|auto|system)\s+(?:mode|theme)\b|\bcolou?r\s+(?:scheme|mode|theme)\b"
    r"|^(?:switch|change|cycle|toggle)\s+(?:the\s+)?(?:colou?r\s+)?(?:theme|mode)\b"
    r"|\bfull\s*screen\b",
    re.I,
)
# Commands of a text or code editor, as toolbars name them (a shortcut in brackets stripped first).
EDITING_COMMANDS = frozenset({
    "undo", "redo", "bold", "italic", "underline", "strikethrough", "strike", "heading", "header", "headline",
    "quote", "block quote", "blockquote", "code", "code block", "inline code", "link", "image", "table",
    "list", "bulleted list", "bullet list", "numbered list", "ordered list", "unordered list", "checklist",
    "task list", "indent", "outdent", "subscript", "superscript", "horizontal rule", "horizontal line",
    "clear formatting", "remove formatting", "font", "font size", "text color", "highlight", "emoji",
    "search and replace", "find and replace", "find", "search", "preview", "side by side", "fullscreen",
    "toggle preview", "toggle fullscreen", "insert", "paragraph",
})
_EDITING_PREFIX = re.compile(r"^(?:insert|format|align|heading|toggle (?:bold|italic|heading|code))\b", re.I)
_SHORTCUT_TAIL = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
# How an editor shows its text: on a page with an editor, such a button is one of the editor's own.
_EDITOR_MODE = re.compile(r"\b(?:preview|side by side|split view|split screen)\b", re.I)
MIN_EDITING = 2  # editing commands among a group's names that make it an editor's
MIN_RUN = 3  # sibling buttons in a run of an editor's own toolbar

# The page's editors, through the widget attribute nodes (a test on every element costs ~6x as much);
# read with ``PageCapture.select``: the forms' and the actions' introspectors share one pass.
EDITORS = XPath("//@data-tabmcp-widget[.='editor']/..")
_IN_TOOLBAR = XPath("ancestor::*[@role='toolbar'][1]")
_TOOLBAR_BUTTONS = XPath(".//button | .//*[@role='button']")
_HAS_CONTROL = XPath("boolean(.//button | .//*[@role='button'] | .//input | .//select | .//textarea | .//a)")

# Views: 2 to 8 of them, each named in at most 3 words.
MIN_VIEWS, MAX_VIEWS, MAX_VIEW_WORDS = 2, 8, 3
_STATE_ATTRS = ("aria-pressed", "aria-selected", "aria-current")
_STATE_CLASS = re.compile(r"active|selected|current|checked|pressed|primary", re.I)
# First words of a button that does something rather than shows something.
ACTION_VERBS = frozenset({
    "add", "new", "create", "save", "edit", "delete", "remove", "refresh", "reload", "mark", "download",
    "upload", "send", "reply", "forward", "archive", "move", "copy", "share", "print", "open", "close", "run",
    "execute", "submit", "cancel", "apply", "reset", "clear", "publish", "approve", "reject", "merge", "assign",
    "log", "sign", "import", "export", "switch", "toggle", "start", "stop", "restart", "back", "next",
    "previous", "load", "sync", "follow", "watch", "star", "like", "invite", "join", "leave", "buy", "pay",
})


# "Toggle …", "Collapse …", "Expand …": layout only on a disclosure (it says what it shows or hides);
# "Toggle done" on a to-do list is a task.
_DISCLOSURE_VERB = re.compile(r"^(?:toggle|collapse|expand)\b", re.I)


def chrome_label(label: str, control: HtmlElement | None = None) -> bool:
    """Whether a control's name (and, given the control, its being a disclosure: ``aria-expanded`` or
    ``aria-controls``) says it changes the page's layout or look, not its data."""
    text = clean(label)
    if _CHROME.search(text):
        return True
    disclosure = control is not None and (
        control.get("aria-expanded") is not None or control.get("aria-controls") is not None
    )
    return disclosure and bool(_DISCLOSURE_VERB.search(text))


def is_button(el: HtmlElement) -> bool:
    kind = (el.get("type") or "").lower()
    return (el.tag == "button" and kind != "submit") or el.get("role") == "button" or (
        el.tag == "input" and kind == "button"
    )


def editing_command(label: str) -> bool:
    name = _SHORTCUT_TAIL.sub("", clean(label)).lower().strip(" .…:")
    return name in EDITING_COMMANDS or bool(_EDITING_PREFIX.match(name))


def editor_controls(capture: PageCapture, buttons: Iterable[HtmlElement]) -> set[HtmlElement]:
    """Those of ``buttons`` that operate on the page's rendered editor (see the module's docstring)."""
    editors = [e for e in capture.select(EDITORS) if not capture.is_hidden(e)]
    if not editors:
        return set()
    # elements, not their ids: an lxml proxy is made anew (and its id reused) once nothing holds it
    near = {a for e in editors for a in (e, *e.iterancestors())}
    name = capture.accessible_name
    found: set[HtmlElement] = set()
    seen: set[HtmlElement] = set()
    runs_of: dict[HtmlElement, dict[HtmlElement, list[HtmlElement]]] = {}
    for button in buttons:
        if button in found:
            continue
        if _controls_editor(capture, button, editors, near) or _EDITOR_MODE.search(name(button)):
            found.add(button)
            continue
        group = _toolbar_or_run(button, runs_of)
        if group[0] in seen:
            continue
        seen.add(group[0])
        if sum(editing_command(name(b)) for b in group) >= MIN_EDITING:
            found.update(group)
    return found


def _controls_editor(
    capture: PageCapture, button: HtmlElement, editors: list[HtmlElement], near: set[HtmlElement]
) -> bool:
    """``aria-controls`` names the editor, one of its ancestors, or something inside it."""
    for ident in (button.get("aria-controls") or "").split():
        for target in capture.tree.xpath("//*[@id=$ident]", ident=ident):
            if target in near or any(target in e.iterancestors() for e in editors):
                return True
    return False


def _toolbar_or_run(
    button: HtmlElement, runs_of: dict[HtmlElement, dict[HtmlElement, list[HtmlElement]]]
) -> list[HtmlElement]:
    """The buttons of the ``role=toolbar`` the button is in, else its run of sibling buttons (empty
    separators between them allowed); a run shorter than ``MIN_RUN`` is the button alone. A
    parent's runs are found once (``runs_of``): a page may have hundreds of sibling buttons."""
    toolbar = _IN_TOOLBAR(button)
    if toolbar:
        return [b for b in _TOOLBAR_BUTTONS(toolbar[0]) if is_button(b) or b.tag == "button"] or [button]
    parent = button.getparent()
    if parent is None:
        return [button]
    if parent not in runs_of:
        runs_of[parent] = {member: run for run in _runs(parent) for member in run}
    run = runs_of[parent].get(button, [button])
    return run if len(run) >= MIN_RUN else [button]


def _runs(parent: HtmlElement) -> list[list[HtmlElement]]:
    runs: list[list[HtmlElement]] = [[]]
    for child in parent.iterchildren():
        if not isinstance(child.tag, str):
            continue
        if is_button(child) or child.tag == "button":
            runs[-1].append(child)
            if (child.tail or "").strip():
                runs.append([])
        elif (child.text_content() or "").strip() or _HAS_CONTROL(child):
            runs.append([])
    return [r for r in runs if r]


@dataclass(frozen=True)
class ViewSwitcher:
    parent: HtmlElement
    views: tuple[tuple[str, HtmlElement], ...]  # (name, button), in the page's order


def view_switchers(
    capture: PageCapture, buttons: Iterable[HtmlElement], label: Callable[[HtmlElement], str]
) -> list[ViewSwitcher]:
    """Groups of ``buttons`` that switch between views of one thing (see the module's docstring);
    ``label`` names a button as the actions introspector does ("" for one it would not list; a
    disabled view is named by its accessible name, so the choices do not depend on the item shown)."""
    switchers: list[ViewSwitcher] = []
    seen: set[HtmlElement] = set()
    for button in buttons:
        parent = button.getparent()
        if parent is None or parent in seen:
            continue
        seen.add(parent)
        members = [c for c in parent.iterchildren() if isinstance(c.tag, str)]
        if not MIN_VIEWS <= len(members) <= MAX_VIEWS or not all(is_button(m) for m in members):
            continue
        if any(m.get("aria-haspopup") not in (None, "false") or not capture.ref(m) for m in members):
            continue
        names = [label(m) or clean(capture.accessible_name(m)) for m in members]
        if not all(_view_name(n) for n in names) or len({n.lower() for n in names}) != len(names):
            continue
        if _one_current(members):
            switchers.append(ViewSwitcher(parent, tuple(zip(names, members, strict=True))))
    return switchers


def _view_name(name: str) -> bool:
    words = name.split()
    return (
        0 < len(words) <= MAX_VIEW_WORDS
        and sum(c.isalpha() for c in name) >= 2
        and words[0].lower() not in ACTION_VERBS
        and not DESTRUCTIVE_WORDS.search(name)
    )


def _one_current(members: list[HtmlElement]) -> bool:
    """One member marked as the current view: by an ARIA state, or by a class of its own that says so."""
    if any(m.get(attr) not in (None, "false") for m in members for attr in _STATE_ATTRS):
        return True
    classes = [set((m.get("class") or "").split()) for m in members]
    if not set.intersection(*classes):
        return False  # not alike: buttons styled apart are not one switcher
    marked = 0
    for i, own in enumerate(classes):
        others = set().union(*(c for j, c in enumerate(classes) if j != i))
        marked += any(_STATE_CLASS.search(token) for token in own - others)
    return marked == 1
