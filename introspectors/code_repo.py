"""GitHub-style repository pages: star/unstar, fork, watch, and the issues list.

Matches ``https://github.com/*`` and, by structure, pages built like GitHub's repository header
(the bundled Codehub demo, ``src/tabmcp/demo/sites/repo``, reproduces it). What the selectors come
from, in GitHub's markup:

- the header ``#repository-container-header``: owner ``[itemprop=author]``, name
  ``strong[itemprop=name]``, and for a fork ``.fork-flag`` ("forked from owner/repo").
- Star: ``.starring-container`` holds two forms, ``form.starred`` (POST …/unstar, button
  aria-label "Unstar this repository (N)") and ``form.unstarred`` (POST …/star, "Star this
  repository (N)"); the container's ``on`` class shows one and hides the other. Only the form on
  show is offered: ``star_repo`` while not starred, ``unstar_repo`` while starred (so the tool list
  changes after a call). Signed out, GitHub shows a sign-in link instead and neither is offered.
- Fork: ``a#fork-button`` (aria-label "Fork your own copy of owner/repo") leads to the fork page,
  whose form has the repository name ``#repository-name-input`` and a "Create fork" button; while
  GitHub copies the repository it says "Forking owner/repo…". No link (your own repository): no tool.
- Watch: ``notifications-list-subscription-form`` wraps a ``details`` menu whose
  ``[role=menuitemradio]`` buttons carry ``value`` included (Participating and @mentions),
  subscribed (All Activity), ignore and custom; Custom opens a dialog of
  ``input[name="thread_types[]"]`` checkboxes (Issue, PullRequest, Release, Discussion,
  SecurityAlert) with an Apply button.
- Issues: the tab ``a#issues-tab``; on the list, the search box ``#js-issues-search`` (query
  "is:issue is:open …"), the Open/Closed toggles in ``.table-list-header-toggle.states``
  (``data-ga-click`` "Issues, Table state, Open|Closed"), rows ``div.js-issue-row`` with the title
  link ``a[data-hovercard-type=issue]``, labels, and ``.opened-by`` ("#231 opened 2 days ago by …").
"""

from __future__ import annotations

import re
from typing import Any

from lxml.etree import XPath
from lxml.html import HtmlElement

from introspectors.sitekit import (
    choices_model,
    css_string,
    find,
    first,
    first_in,
    has_class,
    pin,
    shown,
    text,
    with_class,
)
from tabmcp.introspect.api import (
    Arg,
    Choice,
    Contains,
    Fmt,
    Introspector,
    PageTool,
    PlanStep,
    ToolHints,
    check,
    click,
    css,
    extract,
    fill,
    press,
    role,
    wait_for,
)
from tabmcp.introspect.text import tool_name
from tabmcp.page.capture import PageCapture

OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
HEADER = "#repository-container-header"
WATCH = "notifications-list-subscription-form"
WATCH_SUMMARY = f"{WATCH} details > summary"
WATCH_LEVELS = {"participating": "included", "all": "subscribed", "ignore": "ignore"}
ISSUE_SEARCH = "#js-issues-search"
ISSUE_ROW = "div.js-issue-row"
ISSUE_FIELDS = {
    "title": "a[data-hovercard-type=issue]",
    "labels": ".labels",
    "info": ".opened-by",
    "comments": "a[aria-label$=comment], a[aria-label$=comments]",
}
STATE_TOGGLES = ".table-list-header-toggle.states"
FORK_NAME = "#repository-name-input"
REPOSITORY_FIELDS = {"owner": "[itemprop=author]", "name": "strong[itemprop=name]", "forked_from": ".fork-flag"}
SLOW_MS = 15_000


def looks_like_repository(capture: PageCapture) -> bool:
    """GitHub's repository header (star, fork, watch, tabs), or its fork page's form. Runs on every page:
    the ids are looked for through their attribute nodes (``//@id[…]``), so this predicate does not
    make the capture build its id index (every id of the page) for nothing."""
    ids = set(_HEADER_IDS(capture.tree))  # one pass
    if "repository-container-header" in ids:
        return True
    if "repository-name-input" in ids:  # the fork page
        return bool(_FORK_FORM(capture.tree))
    return bool(_STARRING(capture.tree))


# Compiled once: the predicate runs on every page.
_HEADER_IDS = XPath("//@id[.='repository-container-header' or .='repository-name-input']")
_FORK_FORM = XPath(f"boolean(//form[{has_class('js-fork-form')}]//*[@id='repository-name-input'])")
_STARRING = XPath(f"boolean({with_class('starring-container')})")


def _slug(capture: PageCapture) -> str | None:
    """owner/repo from the header, when both parts look like GitHub names (they go into descriptions)."""
    owner = text(first(capture, "//*[@itemprop='author']"))
    name = text(first(capture, "//strong[@itemprop='name']"))
    return f"{owner}/{name}" if OWNER.match(owner) and REPO.match(name) else None


class RepositoryIntrospector(Introspector):
    """Repository header tools (star/unstar, fork, watch), the issues list, and the fork page."""

    def tools(self, capture: PageCapture) -> list[PageTool]:
        slug = _slug(capture)
        tools = [_star_tool(capture, starred) for starred in (False, True)]
        tools += [_fork_tool(capture, slug), _watch_tool(capture), _watch_custom_tool(capture), _issues_tool(capture)]
        return [t for t in tools if t is not None]


# ----------------------------------------------------------------- star


def _star_tool(capture: PageCapture, starred: bool) -> PageTool | None:
    """``star_repo`` for the form on show that stars, ``unstar_repo`` for the one that unstars."""
    kind = "starred" if starred else "unstarred"
    forms = find(capture, f"//*[{has_class('starring-container')}]//form[ancestor-or-self::*[{has_class(kind)}]]")
    visible = [f for f in forms if shown(f)]
    buttons = [b for f in visible for b in f.xpath(".//button[@type='submit']")]
    if not buttons:
        return None
    all_buttons = [b for f in forms for b in f.xpath(".//button[@type='submit']")]
    selector = f".starring-container .{kind} button[type=submit]"
    after = f".starring-container .{'unstarred' if starred else 'starred'} button[type=submit]"
    verb = "Unstar" if starred else "Star"
    return PageTool(
        name="unstar_repo" if starred else "star_repo",
        title=f"{verb} repository",
        description=(
            f"{verb} this repository (it is {'' if starred else 'not '}starred now). "
            "Returns the star button afterwards, with the new star count."
        ),
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        plan=(
            click(pin(capture, selector, all_buttons, buttons[0])),
            wait_for(target=css(after)),
            extract("stars", after, limit=1),
        ),
        hints=ToolHints(idempotent=True, open_world=False),
        element_ref=capture.ref(visible[0]),
        rank=20 if starred else 10,
    )


# ----------------------------------------------------------------- fork


def _fork_tool(capture: PageCapture, slug: str | None) -> PageTool | None:
    """From the repository page (through a#fork-button) or on the fork page itself."""
    form = first(capture, f"//form[{has_class('js-fork-form')}][.//*[@id='repository-name-input']]")
    link = first(capture, "//a[@id='fork-button'][@href]")
    on_fork_page = form is not None and shown(form)
    if on_fork_page:
        claimed = form
    elif link is not None and shown(link) and link.get("aria-disabled") != "true":
        claimed = link
    else:
        return None
    upstream = slug or _fork_page_upstream(form)
    steps: list[PlanStep] = []
    if not on_fork_page:
        steps += [click(css("a#fork-button")), wait_for(target=css(FORK_NAME))]
    steps += [fill(css(FORK_NAME), Arg("name")), click(role("button", "Create fork"))]
    if upstream:
        steps.append(wait_for(text_gone=f"Forking {upstream}", timeout_ms=SLOW_MS))
    steps.append(extract("repository", HEADER, fields=REPOSITORY_FIELDS, limit=1))
    what = f" {upstream}" if upstream else " this repository"
    return PageTool(
        name="fork_repo",
        title="Fork repository",
        description=(
            f"Fork{what} into your account. Returns the new fork's "
            "owner, name and 'forked from' line, or the site's message when the name is taken or invalid."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "pattern": REPO.pattern,
                    "description": "Name of the new repository (default: the same name as this one)",
                }
            },
            "additionalProperties": False,
        },
        plan=tuple(steps),
        hints=ToolHints(open_world=False),
        element_ref=capture.ref(claimed),
        rank=30,
    )


def _fork_page_upstream(form: HtmlElement | None) -> str | None:
    """On the fork page: the repository being forked, from the form's action (``/owner/repo/fork``)."""
    if form is None:
        return None
    parts = [p for p in (form.get("action") or "").lstrip("#").split("/") if p]
    if len(parts) >= 3 and parts[-1] == "fork" and OWNER.match(parts[-3]) and REPO.match(parts[-2]):
        return f"{parts[-3]}/{parts[-2]}"
    return None


# ----------------------------------------------------------------- watch


def _watch_items(capture: PageCapture) -> dict[str, HtmlElement]:
    items = find(capture, f"//{WATCH}//*[@role='menuitemradio'][@value]")
    return {i.get("value", ""): i for i in items}


def _watch_tool(capture: PageCapture) -> PageTool | None:
    summary = first(capture, f"//{WATCH}//details/summary")
    items = _watch_items(capture)
    levels = {level: value for level, value in WATCH_LEVELS.items() if value in items}
    if summary is None or not shown(summary) or not levels:
        return None
    item = f"{WATCH} [role=menuitemradio][value={{}}]"
    choice = Choice("level", {level: css(item.format(css_string(value))) for level, value in levels.items()})
    return PageTool(
        name="watch_repo",
        title="Watch repository",
        description=(
            "Set this repository's notifications: participating (only when participating or @mentioned), "
            "all (all activity), or ignore (never). Returns the Watch button afterwards."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "level": {
                    "type": "string",
                    "enum": list(levels),
                    "description": "participating, all (all activity) or ignore",
                }
            },
            "required": ["level"],
            "additionalProperties": False,
        },
        plan=(
            click(css(WATCH_SUMMARY)),
            click(choice),
            wait_for(target=css(f"{WATCH} [role=menu]"), state="hidden"),
            extract("watching", WATCH_SUMMARY, limit=1),
        ),
        hints=ToolHints(idempotent=True, open_world=False),
        element_ref=capture.ref(summary),
        rank=40,
    )


def _watch_custom_tool(capture: PageCapture) -> PageTool | None:
    """Custom needs the events chosen in its dialog, then Apply: a separate tool, so watch_repo stays one call."""
    summary = first(capture, f"//{WATCH}//details/summary")
    custom = _watch_items(capture).get("custom")
    boxes = find(capture, f"//{WATCH}//input[@type='checkbox'][@name='thread_types[]'][@value]")
    apply = [b for b in find(capture, f"//{WATCH}//form//button") if text(b) == "Apply"]
    if summary is None or not shown(summary) or custom is None or not boxes or not apply:
        return None
    dialog = first_in(boxes[0], "ancestor::*[@role='dialog'][1]")
    box = "{} input[name='thread_types[]'][value={}]"
    events = {_event_name(b): css(box.format(WATCH, css_string(b.get("value", "")))) for b in boxes}
    steps: list[PlanStep] = [
        click(css(WATCH_SUMMARY)),
        click(css(f"{WATCH} [role=menuitemradio][value=custom]")),
        wait_for(target=css(f"{WATCH} input[name='thread_types[]']")),
        *(check(target, Contains("events", name)) for name, target in events.items()),  # exactly the chosen set
        click(role("button", "Apply")),
    ]
    if dialog is not None and dialog.get("id"):
        steps.append(wait_for(target=css(f"[id={css_string(dialog.get('id', ''))}]"), state="hidden"))
    steps.append(extract("watching", WATCH_SUMMARY, limit=1))
    return PageTool(
        name="watch_repo_custom",
        title="Watch chosen events",
        description=(
            "Set this repository's notifications to Custom: participating and @mentions plus the chosen "
            "events. Returns the Watch button afterwards."
        ),
        input_schema=choices_model("watch_repo_custom", "events", list(events), "Events to be notified of"),
        plan=tuple(steps),
        hints=ToolHints(idempotent=True, open_world=False),
        rank=45,
    )


def _event_name(box: HtmlElement) -> str:
    """The checkbox's label as a name ("Pull requests" → pull_requests), else its value's."""
    label = first_in(box, "ancestor::label[1]")
    return tool_name(text(label)) or tool_name(box.get("value", ""))


# ----------------------------------------------------------------- issues


def _issues_tool(capture: PageCapture) -> PageTool | None:
    tab = first(capture, "//a[@id='issues-tab']")
    search = first(capture, f"//form[.//*[@id='{ISSUE_SEARCH[1:]}']]")
    if tab is None or not shown(tab):
        return None
    toggles = f"{STATE_TOGGLES} a[data-ga-click$={{}}]"
    state = Choice("state", {"open": css(toggles.format('"Open"')), "closed": css(toggles.format('"Closed"'))})
    properties: dict[str, Any] = {
        "state": {"type": "string", "enum": ["open", "closed"], "description": "open or closed (default: both)"},
        "query": {
            "type": "string",
            "description": "GitHub issue search terms, e.g. label:bug, author:kmatsuda, words in the title",
        },
    }
    return PageTool(
        name="view_issues",
        title="View issues",
        description=(
            "List this repository's issues, filtered like GitHub's issue search. Returns the Open/Closed "
            "counts and the matching issues: title, labels, number/author/age, comments."
        ),
        input_schema={"type": "object", "properties": properties, "additionalProperties": False},
        plan=(
            click(css("a#issues-tab")),
            wait_for(target=css(ISSUE_SEARCH)),
            fill(css(ISSUE_SEARCH), Fmt("is:issue {query}")),
            press("Enter", css(ISSUE_SEARCH)),
            wait_for(target=css(STATE_TOGGLES)),
            click(state),
            wait_for(target=css(f"{ISSUE_ROW}, .blankslate")),
            extract("counts", f"{STATE_TOGGLES} a", limit=2),
            extract("issues", ISSUE_ROW, fields=ISSUE_FIELDS, limit=25),
        ),
        hints=ToolHints(read_only=True, idempotent=True, open_world=False),
        element_ref=capture.ref(search if search is not None and shown(search) else tab),
        rank=15,
    )


INTROSPECTORS = [
    RepositoryIntrospector(
        name="code_repo",
        kind="site",
        url_patterns=["https://github.com/*"],
        predicate=looks_like_repository,
    )
]
