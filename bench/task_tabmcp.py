"""The scripted tasks with tabmcp's page tools, called the way a model calls them after reading tools/list.

Each script connects and opens the demo page focused in one call (``connect_browser {launch: true, url}``),
then uses the tools the page's introspectors (introspectors/) or its WebMCP declarations list. It reads
the results as a model does: TOON text (docs/page-agent.md §9), decoded here with ``toon_format``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from toon_format import decode

from bench import task_defs as d
from bench.task_meter import Meter, TaskFailed

Script = Callable[[Meter, str], Awaitable[dict[str, Any]]]


def data(text: str, tool: str) -> dict[str, Any]:
    try:
        found = decode(text)
    except Exception as e:  # what the model got is not the TOON a page tool promises
        raise TaskFailed(f"{tool}: the result is not readable TOON ({e}):\n{text[:1500]}") from None
    if not isinstance(found, dict):
        raise TaskFailed(f"{tool}: expected fields, got:\n{text[:1500]}")
    return found


def field_of(found: dict[str, Any], key: str, tool: str) -> Any:
    if not isinstance(found, dict) or key not in found:
        raise TaskFailed(f"{tool}: the result has no {key!r}: {found!r:.1500}")
    return found[key]


async def use(m: Meter, tool: str, arguments: dict[str, Any] | None = None, *path: str) -> Any:
    """Call a page tool and read ``path`` (keys, outermost first) from its TOON result."""
    found: Any = data(await m.call(tool, arguments), tool)
    for key in path:
        found = field_of(found, key, tool)
    return found


async def start(m: Meter, url: str) -> None:
    # one call connects and opens the page; it is the page-opening call of an open session too (as
    # open_tab would be there), so it is not set-up
    await m.call("connect_browser", {"launch": True, "url": url})
    m.opened()


async def mail(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    listed = await use(m, "search_inbox", {"query": d.MAIL_QUERY}, "messages")
    if not listed:
        raise TaskFailed(f"search_inbox listed no conversation for {d.MAIL_QUERY!r}")
    thread = await use(m, "open_thread", {"index": 1})
    subject = field_of(thread, "subject", "open_thread")
    messages = field_of(thread, "messages", "open_thread")
    return {
        "found": len(listed),
        "subject": subject[0] if isinstance(subject, list) and subject else subject,
        "body": str(messages[0].get("body", "")) if messages else "",
    }


async def flights(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    args = {
        "from": d.FLIGHT_FROM,
        "to": d.FLIGHT_TO,
        "departDate": d.flight_date(),
        "passengers": d.FLIGHT_PASSENGERS,
        "cabin": d.FLIGHT_CABIN,
    }
    found = await use(m, "search_flights", args, "flights")
    if not found:
        raise TaskFailed("search_flights listed no flights")
    prices = [d.money(str(f.get("price", ""))) for f in found]
    cheapest = prices.index(min(prices))
    review = await m.call("select_flight", {"index": cheapest + 1})
    total = re.search(r"Trip total \$([\d,]+\.\d\d)", review)
    if not total:
        raise TaskFailed(f"select_flight: no trip total in the result:\n{review[:1500]}")
    return {
        "results": len(found),
        "cheapest_price": prices[cheapest],
        "cheapest_total": d.money(str(found[cheapest].get("total", ""))),
        "trip_total": d.money("$" + total.group(1)),
        "review": review,
    }


async def repo(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    star = await use(m, "star_repo", None, "stars")
    star_text = " ".join(map(str, star)) if isinstance(star, list) else str(star)
    count = re.search(r"(\d[\d,]*)", star_text)
    issues = await use(m, "view_issues", {"state": "open", "query": "label:bug"}, "issues")
    numbers = [re.search(r"#(\d+)", str(i.get("info", ""))) for i in issues]
    return {
        "stars": int(count.group(1).replace(",", "")) if count else None,
        "starred": star_text.startswith("Starred"),
        "issues": [int(n.group(1)) for n in numbers if n],
        "labels": [str(i.get("labels", "")).split() for i in issues],
    }


async def todos(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    listed = await use(m, "list_todos", None, "result", "todos")
    ids = {t.get("text"): t.get("id") for t in listed}
    if d.TODO_DONE not in ids:
        raise TaskFailed(f"list_todos does not list {d.TODO_DONE!r}: {listed}")
    known = {str(t.get("text")): bool(t.get("done")) for t in listed}
    added = await use(m, "add_todo", {"text": d.TODO_NEW}, "result")
    known[str(added["added"]["text"])] = bool(added["added"]["done"])
    done = await use(m, "complete_todo", {"id": ids[d.TODO_DONE]}, "result")
    known[str(done["todo"]["text"])] = bool(done["todo"]["done"])
    return {"todos": known, "open": done.get("open"), "done": done.get("done")}


SCRIPTS: dict[str, Script] = {"mail": mail, "flights": flights, "repo": repo, "todos": todos}
