"""The scripted tasks with Playwright MCP's generic tools, the way a model does them.

A model sees a page only through ``browser_snapshot`` (Playwright MCP 0.0.83 writes each action's own
snapshot to a file and returns its link, so the action results are small, and the model snapshots to
see the page). So: snapshot, find the control by role and name, act with its ref, snapshot again to read
what happened. Where a model would batch (``browser_fill_form`` for the plain fields, ``browser_type``
with ``submit``) or reuse refs it already has (refs stay valid while the element lives), the script does
too; it snapshots only when it needs refs it has not seen or must read the result.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from bench import aria_rows
from bench import task_defs as d
from bench.aria_rows import AriaRow
from bench.task_meter import Meter, TaskFailed

Script = Callable[[Meter, str], Awaitable[dict[str, Any]]]


class Page:
    """One snapshot as the model reads it: rows with role, name and ref."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.rows = aria_rows.rows(text)

    def find(
        self, role: str, name: str | None = None, *, starts: str | None = None, within: AriaRow | None = None
    ) -> list[AriaRow]:
        rows = aria_rows.subtree(self.rows, within) if within else self.rows
        return [
            r
            for r in rows
            if r.role == role and (name is None or r.name == name) and (starts is None or r.name.startswith(starts))
        ]

    def one(
        self, role: str, name: str | None = None, *, starts: str | None = None, within: AriaRow | None = None
    ) -> AriaRow:
        found = self.find(role, name, starts=starts, within=within)
        if not found:
            what = name if name is not None else f"{starts}…"
            raise TaskFailed(f"no {role} {what!r} in the snapshot:\n{self.text[:3000]}")
        return found[0]

    def ref(
        self, role: str, name: str | None = None, *, starts: str | None = None, within: AriaRow | None = None
    ) -> str:
        row = self.one(role, name, starts=starts, within=within)
        if not row.ref:
            raise TaskFailed(f"{role} {row.name!r} has no ref in the snapshot")
        return row.ref

    def words(self, root: AriaRow | None = None) -> str:
        rows = self.rows if root is None else aria_rows.subtree(self.rows, root)
        return " ".join(p for r in rows if r.role != "/url" for p in (r.name, r.text) if p)


async def snapshot(m: Meter) -> Page:
    return Page(await m.call("browser_snapshot"))


async def navigate(m: Meter, url: str) -> Page:
    await m.call("browser_navigate", {"url": url})
    m.opened()
    return await snapshot(m)


async def mail(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    box = page.ref("textbox", "Search mail")
    await m.call("browser_type", {"target": box, "element": "Search mail", "text": d.MAIL_QUERY, "submit": True})
    page = await snapshot(m)
    grid = page.one("grid", "Search results")
    links = page.find("link", within=grid)
    if not links:
        raise TaskFailed(f"no conversation listed for {d.MAIL_QUERY!r}:\n{page.text[:3000]}")
    await m.call("browser_click", {"target": links[0].ref, "element": links[0].name[:80]})
    page = await snapshot(m)
    main = page.one("main")
    subject = page.one("heading", within=main)
    return {"found": len(links), "subject": subject.name, "body": page.words(main)}


async def _pick_airport(m: Meter, page: Page, box: str, listbox: str, code: str) -> None:
    """Type the code, look at the suggestions, click the one for that airport (as a user does)."""
    await m.call("browser_type", {"target": page.ref("combobox", box), "element": box, "text": code})
    shown = await snapshot(m)
    option = shown.one("option", starts=f"{code} ", within=shown.one("listbox", listbox))
    await m.call("browser_click", {"target": option.ref, "element": option.name})


async def flights(m: Meter, url: str) -> dict[str, Any]:
    form = await navigate(m, url)
    await _pick_airport(m, form, "Flight origin input", "Origin airports", d.FLIGHT_FROM)
    await _pick_airport(m, form, "Flight destination input", "Destination airports", d.FLIGHT_TO)
    fields = [
        ("Departure date", "textbox", "textbox", d.flight_date()),
        ("Travelers", "combobox", "combobox", f"{d.FLIGHT_PASSENGERS} adults"),
        ("Cabin class", "combobox", "combobox", d.FLIGHT_CABIN.capitalize()),
    ]
    await m.call(
        "browser_fill_form",
        {
            "fields": [
                {"target": form.ref(role, name), "name": name, "type": kind, "value": v}
                for name, role, kind, v in fields
            ]
        },
    )
    await m.call("browser_click", {"target": form.ref("button", "Search"), "element": "Search"})
    page = await snapshot(m)
    if "Searching flights" in page.text or not page.find("list", "Flights"):
        await m.call("browser_wait_for", {"textGone": "Searching flights"})
        page = await snapshot(m)
    cards = page.find("listitem", starts="Result ", within=page.one("list", "Flights"))
    if not cards:
        raise TaskFailed(f"no flight results:\n{page.text[:3000]}")
    priced = []
    for card in cards:
        words = [r.text or r.name for r in aria_rows.subtree(page.rows, card) if r.role == "generic"]
        price = next((w for w in words if re.fullmatch(r"\$[\d,]+", w)), "")
        total = next((w for w in words if w.endswith(" total")), "")
        priced.append((d.money(price), d.money(total), card))
    price, total, card = min(priced, key=lambda p: p[0])
    select = page.one("button", starts="Select", within=card)
    await m.call("browser_click", {"target": select.ref, "element": select.name})
    review = await snapshot(m)
    words = review.words()
    trip = re.search(r"Trip total \$([\d,]+\.\d\d)", words)
    if not trip:
        raise TaskFailed(f"no trip total on the review page:\n{review.text[:3000]}")
    return {
        "results": len(cards),
        "cheapest_price": price,
        "cheapest_total": total,
        "trip_total": d.money("$" + trip.group(1)),
        "review": words,
    }


async def repo(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    await m.call("browser_click", {"target": page.ref("button", starts="Star this repository"), "element": "Star"})
    await m.call("browser_click", {"target": page.ref("link", starts="Issues"), "element": "Issues tab"})
    page = await snapshot(m)
    box = page.ref("textbox", "Search all issues")
    await m.call(
        "browser_type",
        {"target": box, "element": "Search all issues", "text": "is:issue is:open label:bug", "submit": True},
    )
    page = await snapshot(m)
    unstar = page.find("button", starts="Unstar this repository")
    star = unstar or page.find("button", starts="Star this repository")
    count = re.search(r"\((\d+)\)", star[0].name) if star else None
    group = page.one("group", "Issues")
    numbers, labels = [], []
    for row in aria_rows.subtree(page.rows, group):
        opened = re.match(r"#(\d+) opened", row.text)
        if opened:
            numbers.append(int(opened.group(1)))
    for title in [r for r in page.find("link", within=group) if r.ref and "/issues/" in _url_of(page, r)]:
        if "comment" in title.name:
            continue
        issue = _issue_block(page, title)
        labels.append([r.name for r in page.find("link", within=issue) if "label%3A" in _url_of(page, r)])
    return {
        "stars": int(count.group(1)) if count else None,
        "starred": bool(unstar),
        "issues": numbers,
        "labels": labels,
    }


def _url_of(page: Page, link: AriaRow) -> str:
    inside = aria_rows.subtree(page.rows, link)
    return next((r.text for r in inside[1:] if r.role == "/url"), "")


def _issue_block(page: Page, title: AriaRow) -> AriaRow:
    """The row that holds an issue's title link, its labels and its "#N opened" line."""
    i = page.rows.index(title)
    parent = next(r for r in reversed(page.rows[:i]) if r.depth < title.depth)
    return parent


async def todos(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    await m.call("browser_click", {"target": page.ref("checkbox", d.TODO_DONE), "element": d.TODO_DONE})
    box = page.ref("textbox", "New to-do")
    await m.call("browser_type", {"target": box, "element": "New to-do", "text": d.TODO_NEW, "submit": True})
    page = await snapshot(m)
    boxes = page.find("checkbox", within=page.one("list", "To-do list"))
    summary = re.search(r"(\d+) open, (\d+) done", page.words(page.one("banner")))
    return {
        "todos": {b.name: "checked" in b.attrs for b in boxes},
        "open": int(summary.group(1)) if summary else None,
        "done": int(summary.group(2)) if summary else None,
    }


SCRIPTS: dict[str, Script] = {"mail": mail, "flights": flights, "repo": repo, "todos": todos}
