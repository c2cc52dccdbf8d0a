"""The scripted tasks: what the user asks, on which demo site, and how the answer is checked.

Both servers' scripts return the same kind of answer (a dict of what the model read from the page at the
end); one check per task decides whether the task succeeded, whichever server did it. The expected values
come from the demo sites' seed data (src/tabmcp/demo/sites/): when that data changes, the check says so.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Mail (mail/mailbox.js SEED): two conversations mention Thursday; the newest is Priya's agenda.
MAIL_QUERY = "Thursday"
MAIL_FIRST_SUBJECT = "Q3 roadmap review: agenda for Thursday"
MAIL_BODY_WORDS = ("room Aurora", "top three risks")

# Flights (flights/data.js): a one-way search; the departure date must not be in the past for the site.
FLIGHT_FROM, FLIGHT_TO = "SFO", "JFK"
FLIGHT_PASSENGERS = 2
FLIGHT_CABIN = "business"  # the option's value; its label is "Business"
FLIGHT_DAYS_AHEAD = 30

# Repository (repo/codehub.js): 847 stars before ours; three open issues labelled bug.
REPO_STARS_AFTER = 848
REPO_OPEN_BUGS = {229, 217, 212}

# Tasks (webmcp/app.js SEED): three open to-dos; we add one and mark an existing one done.
TODO_NEW = "Water the plants"
TODO_DONE = "Book the dentist appointment"
TODO_COUNT_AFTER = 4


def flight_date() -> str:
    return (datetime.date.today() + datetime.timedelta(days=FLIGHT_DAYS_AHEAD)).isoformat()


def money(text: str) -> float:
    """``$1,323`` / ``$2,646.00`` / ``$2,646 total`` → 1323.0 (the first amount in the text)."""
    found = re.search(r"\$([\d,]+(?:\.\d+)?)", text)
    if not found:
        raise ValueError(f"no amount in {text!r}")
    return float(found.group(1).replace(",", ""))


@dataclass(frozen=True)
class Task:
    key: str
    title: str  # what the user asks for
    page: str  # under src/tabmcp/demo/sites
    check: Callable[[dict[str, Any]], list[str]]  # the answer's problems; none = success


def _check_mail(a: dict[str, Any]) -> list[str]:
    problems = []
    if a.get("found", 0) < 2:
        problems.append(f"the search for {MAIL_QUERY!r} should list 2 conversations, got {a.get('found')}")
    if a.get("subject") != MAIL_FIRST_SUBJECT:
        problems.append(f"opened {a.get('subject')!r}, not {MAIL_FIRST_SUBJECT!r}")
    problems += [f"the body read lacks {w!r}" for w in MAIL_BODY_WORDS if w not in a.get("body", "")]
    return problems


def _check_flights(a: dict[str, Any]) -> list[str]:
    problems = []
    if not a.get("results"):
        return ["no flights listed"]
    price, total, trip = a.get("cheapest_price", 0.0), a.get("cheapest_total", 0.0), a.get("trip_total", 0.0)
    if abs(price * FLIGHT_PASSENGERS - total) > 0.01:
        problems.append(f"listed total {total} is not {FLIGHT_PASSENGERS} × {price}")
    if abs(trip - total) > 0.01:
        problems.append(f"the review page's trip total {trip} differs from the cheapest listed total {total}")
    review = a.get("review", "")
    for words in (f"{FLIGHT_PASSENGERS} travelers", "Business", FLIGHT_FROM, FLIGHT_TO):
        if words not in review:
            problems.append(f"the review page does not say {words!r}")
    return problems


def _check_repo(a: dict[str, Any]) -> list[str]:
    problems = []
    if a.get("stars") != REPO_STARS_AFTER:
        problems.append(f"star count read {a.get('stars')}, expected {REPO_STARS_AFTER}")
    if not a.get("starred"):
        problems.append("the page does not show the repository as starred")
    if set(a.get("issues", ())) != REPO_OPEN_BUGS:
        problems.append(f"open bug issues read {sorted(a.get('issues', ()))}, expected {sorted(REPO_OPEN_BUGS)}")
    if not all("bug" in labels for labels in a.get("labels", [])):
        problems.append(f"an issue listed lacks the bug label: {a.get('labels')}")
    return problems


def _check_todos(a: dict[str, Any]) -> list[str]:
    todos: dict[str, bool] = a.get("todos", {})
    problems = []
    if todos.get(TODO_NEW) is not False:
        problems.append(f"{TODO_NEW!r} is not listed as an open to-do: {todos}")
    if todos.get(TODO_DONE) is not True:
        problems.append(f"{TODO_DONE!r} is not marked done: {todos}")
    if len(todos) != TODO_COUNT_AFTER:
        problems.append(f"{len(todos)} to-dos listed, expected {TODO_COUNT_AFTER}")
    if (a.get("open"), a.get("done")) != (TODO_COUNT_AFTER - 1, 1):
        problems.append(f"the page counts {a.get('open')} open, {a.get('done')} done; expected 3 open, 1 done")
    return problems


TASKS = {
    t.key: t
    for t in (
        Task(
            "mail",
            f'Mail: find the messages about "{MAIL_QUERY}", open the first one and read its body',
            "mail/index.html",
            _check_mail,
        ),
        Task(
            "flights",
            f"Flights: search {FLIGHT_FROM}→{FLIGHT_TO} one-way in {FLIGHT_DAYS_AHEAD} days for {FLIGHT_PASSENGERS} "
            f"passengers in business, pick the cheapest flight, read the trip total",
            "flights/index.html",
            _check_flights,
        ),
        Task("repo", "Repo: star the repository and list the open issues labelled bug", "repo/index.html", _check_repo),
        Task(
            "todos",
            f'Tasks (WebMCP): add the to-do "{TODO_NEW}" and mark "{TODO_DONE}" done',
            "webmcp/index.html",
            _check_todos,
        ),
    )
}
