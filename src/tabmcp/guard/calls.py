"""What the guards need to know about one call before it runs: is it destructive (and how to say
so to the user), and which of its arguments are passwords.

Pure: the tool's declaration and, for ``interact``, the target's accessible name (from the call
or the tab's latest snapshot) come in; facts go out.

- A core tool is destructive when it says so (``close_tab``, ``evaluate``).
- A page tool is destructive when its hints say so. A page-declared (WebMCP) tool's hints are the
  page's word, so its name and description are also checked against the destructive words that
  mark forms and buttons (``delete``, ``remove``, ``cancel my order``…).
- ``ai_tap`` / ``ai_keyboard_press`` (Enter, Space) are destructive when their description has one of
  those words ("the Delete account button").
- ``interact`` is destructive when it clicks (or presses a key on) an element whose name has one
  of those words. The name is known for ``role=…[name=…]`` targets and for refs of the latest
  snapshot; a CSS target is not resolved beforehand (that would cost a browser round trip).
- Password arguments: a page tool's schema marks them (``writeOnly: true`` or
  ``format: "password"``: the form introspector writes ``writeOnly`` for ``<input type=password>``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.introspect.text import DESTRUCTIVE_WORDS, clean

PROXY = "call_page_tool"  # tools/page_proxy.py, the static tool mode's way to the page tools
# interact actions that activate their target (a click on "Delete" deletes)
ACTIVATING = frozenset({"click", "dblclick", "press"})
ACTIVATING_KEYS = frozenset({"enter", "space", " "})
MAX_SHOWN_NAME = 80


class TargetLike(Protocol):
    """A parsed interact target (tools/targets.Target)."""

    ref: str | None
    role: str | None


class CoreToolLike(Protocol):
    name: str
    title: str
    hints: ToolHints


@dataclass(frozen=True)
class CallFacts:
    """``destructive``: what the user is asked to allow (None: not destructive); ``sensitive``:
    names of arguments known to hold passwords before the call runs."""

    destructive: str | None = None
    sensitive: frozenset[str] = frozenset()


def password_arguments(schema: Mapping[str, Any]) -> frozenset[str]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return frozenset()
    return frozenset(
        name
        for name, prop in properties.items()
        if isinstance(prop, Mapping) and (prop.get("writeOnly") is True or prop.get("format") == "password")
    )


def proxied(name: str, args: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    """The page tool a ``call_page_tool(name, arguments)`` call runs, and its arguments: the call is
    judged (confirmation, password arguments) as that page tool would be when called directly."""
    if name != PROXY:
        return None
    inner, arguments = args.get("name"), args.get("arguments") or {}
    if not isinstance(inner, str) or not isinstance(arguments, Mapping):
        return None
    return inner.strip(), arguments


def page_tool_facts(tool: PageTool) -> CallFacts:
    destructive = tool.hints.destructive
    if tool.untrusted and not destructive:
        destructive = bool(DESTRUCTIVE_WORDS.search(f"{tool.name.replace('_', ' ')} {tool.description}"))
    what = None
    if destructive:
        who = "a tool the web page declared itself (untrusted)" if tool.untrusted else "a tool made for this page"
        title = f' "{clean(tool.title, MAX_SHOWN_NAME)}"' if tool.title else ""
        what = f"run {tool.name}{title}, {who}"
    return CallFacts(destructive=what, sensitive=password_arguments(tool.schema))


def core_tool_facts(tool: CoreToolLike, args: Mapping[str, Any]) -> CallFacts:
    if not tool.hints.destructive:
        return CallFacts()
    return CallFacts(destructive=f"{tool.title.lower()} ({tool.name})")


# Natural-language tools that activate an element named in words (docs/nl-tools.md): the words are
# all that is known before the call; the tool itself refuses a destructive element the words did
# not name (tools/nl_common.check_not_destructive).
DESCRIBED_TARGETS = frozenset({"ai_tap", "ai_keyboard_press"})


def described_facts(name: str, args: Mapping[str, Any]) -> CallFacts:
    description = args.get("locate")
    if not isinstance(description, str) or not DESTRUCTIVE_WORDS.search(description):
        return CallFacts()
    if name == "ai_keyboard_press" and str(args.get("key", "")).strip().lower() not in ACTIVATING_KEYS:
        return CallFacts()
    return CallFacts(destructive=f'{name.removeprefix("ai_").replace("_", " ")} "{clean(description, MAX_SHOWN_NAME)}"')


def interact_facts(args: Mapping[str, Any], target: TargetLike | None, target_name: str | None) -> CallFacts:
    """``target``: the call's target, parsed; ``target_name``: the accessible name of the element,
    when known without asking the page."""
    action = args.get("action")
    if action not in ACTIVATING or not target_name or not DESTRUCTIVE_WORDS.search(target_name):
        return CallFacts()
    if action == "press" and str(args.get("key", "")).strip().lower() not in ACTIVATING_KEYS:
        return CallFacts()  # Tab or an arrow key on a "Delete" button does not delete
    role = (target.role if target is not None else None) or "element"
    ref = f" ({target.ref})" if target is not None and target.ref is not None else ""
    return CallFacts(destructive=f'{action} the {role} "{clean(target_name, MAX_SHOWN_NAME)}"{ref}')
