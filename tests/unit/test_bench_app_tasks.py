"""The real-app task bench's pure parts (bench/app_task_*.py), without a browser or an app: each task's
check on the answers and app states it can meet, the tabmcp script's choice of tools from a tool list as
a model reads it, the Playwright script's reading of its snapshots, and the report's figures; and the
blocks both task benches print and write (bench/task_report.py, bench/app_task_report.py), as recorded."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from bench import app_task_defs as d
from bench import app_task_report, task_report
from bench.app_task_playwright import boxes_beside, button, search_box, textbox
from bench.app_task_tabmcp import _refs, pick, results
from bench.report import LoadWatch, machine
from bench.task_meter import Entry
from bench.task_playwright import Page
from bench.task_runner import Run

# ------------------------------------------------------------------ checks


def test_every_app_of_the_corpus_has_a_task() -> None:
    from bench.apps import NAMES

    assert sorted(t.app for t in d.TASKS.values()) == sorted(NAMES)


def test_admin_check_wants_the_book_gone_and_the_others_kept() -> None:
    others = [f"The {w} Lighthouse" for w in "ABCDEFGHI"]
    check = d.TASKS["admin"].check
    assert check({"found": 10}, {"titles": others}) == []
    assert any("still in the database" in p for p in check({"found": 10}, {"titles": [*others, d.BOOK_DELETE]}))
    assert any("8 Lighthouse books left" in p for p in check({"found": 10}, {"titles": others[:8]}))
    assert any("listed 3" in p for p in check({"found": 3}, {"titles": others}))


def test_data_check_compares_the_answer_with_the_database() -> None:
    check = d.TASKS["data"].check
    assert check({"orders": d.CUSTOMER_ORDERS}, {"orders": d.CUSTOMER_ORDERS}) == []
    assert check({"orders": None}, {"orders": d.CUSTOMER_ORDERS})


def test_wiki_check_wants_the_line_added_and_the_page_kept() -> None:
    check = d.TASKS["wiki"].check
    kept = "1. Check lag.\n2. Promote the replica.\n"
    assert check({}, {"text": kept + d.WIKI_LINE + "\n"}) == []
    assert check({}, {"text": kept})
    assert check({}, {"text": d.WIKI_LINE})  # the page replaced by the line: not an append


def test_tracker_check_wants_the_comment_on_the_newest_only() -> None:
    check = d.TASKS["tracker"].check
    assert check({"found": 3}, {"ids": [17, 35, 89], "commented": [89]}) == []
    assert check({"found": 3}, {"ids": [17, 35, 89], "commented": [35]})
    assert check({"found": 3}, {"ids": [17, 35, 89], "commented": [35, 89]})
    assert check({"found": 2}, {"ids": [17, 35, 89], "commented": [89]})


def test_mail_check_wants_the_newest_and_its_body() -> None:
    check = d.TASKS["mail"].check
    mails = [{"subject": "Contract draft v1006", "text": ""}, {"subject": "Contract draft v1042", "text": ""}]
    body = "Hi, Contract draft v1042. Details below."
    assert check({"subject": "Contract draft v1042", "body": body}, {"mails": mails}) == []
    assert check({"subject": "Contract draft v1006", "body": body}, {"mails": mails})
    assert check({"subject": "Contract draft v1042", "body": "Hi"}, {"mails": mails})
    assert check({"subject": "x", "body": body}, {"mails": []})


def test_docs_check_wants_the_option_from_the_configuration_page() -> None:
    check = d.TASKS["docs"].check
    line = "1 matching document Configuration Bandwidth max_upload_rate and max_download_rate"
    assert check({"answer": line, "page": line}, {}) == []
    assert check({"answer": "Scheduling", "page": "Home"}, {})


def test_cms_check_wants_the_intro_on_the_story_with_a_draft() -> None:
    check = d.TASKS["cms"].check
    assert check({}, {"drafts": [63], "intros": {39: "old", 63: d.CMS_INTRO}}) == []
    assert check({}, {"drafts": [63], "intros": {39: d.CMS_INTRO, 63: "old"}})
    assert check({}, {"drafts": [], "intros": {}})


# ------------------------------------------------------------------ tabmcp: tools chosen from the list


@dataclass
class Listed:
    """Stands in for the Meter: only the tool list the model has."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)

    def listed(self) -> dict[str, dict[str, Any]]:
        return self.tools


def _tool(name: str, title: str, description: str, **props: str) -> dict[str, Any]:
    return {"name": name, "title": title, "description": description,
            "inputSchema": {"properties": {k: {"type": "string", "description": v} for k, v in props.items()}}}


def test_pick_reads_titles_descriptions_and_arguments_not_names_known_in_advance() -> None:
    m = Listed({
        "snapshot": _tool("snapshot", "Snapshot the page", "search rows", find="text"),
        "toggle_sidebar": _tool("toggle_sidebar", "Toggle Sidebar", "Click the button."),
        "go": _tool("go", "Go", "Search with the page's search box", q="What to search for"),
        "login": _tool("login", "Login", "Fill and submit the form", email="eMail", password="Password"),
    })
    found = pick(m, ("search",), (("query", "search"),))  # type: ignore[arg-type]
    assert found and (found.name, found.args) == ("go", ["q"])  # core tools (snapshot) are never picked
    login = pick(m, ("log in", "login"), (("password",),))  # type: ignore[arg-type]
    assert login and (login.name, login.args) == ("login", ["password"])
    assert pick(m, ("delete",)) is None  # type: ignore[arg-type]


def test_refs_reads_the_snapshot_rows_of_a_role() -> None:
    text = 'nodes[3]{ref,role,name,value,states}:\n  e16,textbox,Commit Message,"",""\n' \
           '  e69,button,Save,"",""\n  e81,textbox,"","# Title 1. Promote the replica, then…",focused\n'
    assert [r[0] for r in _refs(text, "textbox")] == ["e16", "e81"]
    assert "Promote the replica" in _refs(text, "textbox")[1][2]


def test_results_are_the_rows_of_the_answer() -> None:
    text = ("tool: search\nsteps: 2\nresults[2]: 71 | 1 minute ago | Webhook retries never stop (4) | carol,"
            "89 | 1 minute ago | Webhook retries never stop (5) | carol\nnote: data")
    assert [r.split(" | ")[0] for r in results(text)] == ["71", "89"]
    assert results("done: click") == []  # no list: nothing to read


# ------------------------------------------------------------------ Playwright MCP: snapshots read


SNAPSHOT = """### Snapshot
```yaml
- generic [ref=e1]:
  - search [ref=e6]:
    - generic [ref=e7]:
      - textbox [ref=e8]
      - button "Search" [ref=e9]
  - paragraph [ref=e20]:
    - text: Login
    - textbox [ref=e21]
    - textbox [ref=e22]
    - button "Login" [ref=e24]
  - table [ref=e40]:
    - row [ref=e74]:
      - rowheader "Change Note" [ref=e75]
      - cell [ref=e76]:
        - textbox [ref=e77]
  - button [ref=e90] [cursor=pointer]:
    - emphasis [ref=e91]: Sign in
```"""


def test_playwright_boxes_are_found_as_a_model_reads_them() -> None:
    page = Page(SNAPSHOT)
    assert search_box(page).ref == "e8"  # unlabelled, beside the Search button
    assert [b.ref for b in boxes_beside(page, button(page, "login"))] == ["e21", "e22"]
    assert textbox(page, "change note").ref == "e77"  # labelled by its row's header
    assert button(page, "sign in").ref == "e90"  # named by the text inside it
    with pytest.raises(Exception, match="no textbox"):
        textbox(page, "intro")


# ------------------------------------------------------------------ the report


def _run(server: str, task: str, calls: int, lists: list[int], workarounds: int = 0, ok: bool = True) -> Run:
    entries = [Entry("tools/list", "at start", 500, 0.0, True)]
    for i in range(calls):
        entries.append(Entry("call", f"c{i}", 1_000, 0.1, False))
        if i < len(lists):
            entries.append(Entry("tools/list", f"after c{i}", lists[i], 0.0, False))
    return Run(server, task, ok=ok, entries=entries, workarounds=[f"snapshot: why {i}" for i in range(workarounds)],
               error="" if ok else "wrong")


def test_report_totals_against_the_targets() -> None:
    runs = [
        _run("tabmcp", "admin", 2, [4_000]), _run("playwright", "admin", 8, []),
        _run("tabmcp", "wiki", 4, [4_000, 4_000], workarounds=2), _run("playwright", "wiki", 12, []),
        _run("tabmcp", "docs", 3, [], ok=False), _run("playwright", "docs", 4, []),
    ]
    cells = app_task_report.summarise(runs)
    t = app_task_report.totals(cells)
    assert t["tasks"] == 2  # docs failed on tabmcp: out of the ratios
    assert t["calls"] == pytest.approx(6 / 20)
    ours = 2 * 500 + 6 * 1_000 + 3 * 4_000
    theirs = 2 * 500 + 20 * 1_000
    assert t["chars"] == pytest.approx(ours / theirs)
    assert t["list_changed_per_call"] == pytest.approx(3 / 6)
    # the connect (each task's first call) and its re-read left out: admin 1 call, 0; wiki 3 calls, 1
    assert t["open_list_changed_per_call"] == pytest.approx(1 / 4)
    assert (t["workarounds"], t["tabmcp_done"], t["playwright_done"]) == (2, 2, 3)
    table = app_task_report.tabmcp_table(cells)
    assert "| wiki | yes | 4 | 2 (0.50 ✗) | 3, 1 (0.33 ✗) | 2: snapshot: why 0; snapshot: why 1 |" in table
    assert "| docs | **no** (0/1) |" in table
    text = app_task_report.tables(cells)
    assert "0.30 ✓" in text  # calls ≤ 1/2
    assert "docs on tabmcp: 1/1 run(s) failed: wrong" in text
    json.dumps(t)  # the totals are plain numbers


# ------------------------------------------------------------------ the rendered blocks, on recorded runs

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "task_runs"
REPORTS = {"tasks": task_report, "app_tasks": app_task_report}


def _recorded(name: str) -> list[Run]:
    """The runs a bench dumped with ``--json`` (a small run of both servers on two tasks)."""
    runs = json.loads((RECORDED / f"{name}.json").read_text())
    return [Run(**{**r, "entries": [Entry(**e) for e in r["entries"]]}) for r in runs]


def rendered(name: str) -> str:
    """The printed tables and the docs/benchmarks.md section of the recorded runs, and again with the last
    tabmcp run failed; what depends on the machine and the hour is replaced by a placeholder."""
    report = REPORTS[name]
    load = LoadWatch()
    load.samples = [1.5, 2.25, 3.0]
    info = machine()
    blocks = []
    for fail in (False, True):
        runs = _recorded(name)
        if fail:
            last = [r for r in runs if r.server == "tabmcp"][-1]
            last.ok, last.error = False, "TaskFailed: the answer has no subject"
        cells = report.summarise(runs)
        section = report.section(cells, 1, load)
        section = re.sub(r"^Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Measured {today}", section, flags=re.M)
        section = re.sub(r"^- tabmcp .*?, Playwright MCP", "- tabmcp {version}, Playwright MCP", section, flags=re.M)
        section = section.replace(f"\n- {info['cpu']}; {info['chromium']}\n", "\n- {machine}\n")
        blocks += [report.tables(cells), section]
    return "\n\n<!-- next block -->\n\n".join(blocks) + "\n"


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_blocks_of_a_recorded_run_read_as_recorded(name: str) -> None:
    assert rendered(name) == (RECORDED / f"{name}.md").read_text()
