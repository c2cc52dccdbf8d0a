"""The figures as tables (printed, and written into docs/benchmarks.md): tabmcp against the peers with the
ratios and the targets, and tabmcp's two drivers side by side."""

from __future__ import annotations

import datetime
import os
import platform
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from bench import doc_sections
from bench.adapters import DRIVERS, PEERS
from bench.cases import PageSnap, Result
from bench.opens import opens_section
from bench.site import BIG_PAGE, COUNTER, DOC_PAGE, PY_DOCS

CLICK_TARGET_MS = 25.0
DOC_RATIO_TARGET = 0.25
BIG_FIRST_TARGET_S = 1.0
BUSY_LOAD = 1.5  # 1-minute load average above which the document warns that times are inflated
REPO = Path(__file__).resolve().parent.parent


def n(value: float) -> str:
    return f"{value:,.0f}"


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def ours_of(results: list[Result]) -> Result | None:
    """The tabmcp compared with the peers: the extension driver's, else the CDP driver's when only it ran."""
    return next((r for k in DRIVERS for r in results if r.key == k), None)


def driver_pair(results: list[Result]) -> tuple[Result, Result] | None:
    """The extension and CDP drivers' results, when both were measured."""
    found = {r.key: r for r in results if r.key in DRIVERS}
    return (found[DRIVERS[0]], found[DRIVERS[1]]) if len(found) == len(DRIVERS) else None


def table(results: list[Result], clicks: int) -> str:
    ours = ours_of(results)
    peers = [r for r in results if r.key in PEERS]
    results = [r for r in results if r.key in PEERS or r is ours]  # the other driver has its own table
    head = ["figure", *[f"{r.label} {r.version}".strip() for r in results], "tabmcp vs best peer", "target"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def row(figure: str, values: list[str], ratio: str = "", target: str = "") -> None:
        lines.append("| " + " | ".join([figure, *values, ratio, target]) + " |")

    # tools/list
    def tl(r: Result, state: str = "at start") -> str:
        t = r.tool_lists.get(state)
        return f"{t.count} tool{'s' if t.count != 1 else ''}, {n(t.chars)} chars" if t else "—"

    focused = [k for k in (ours.tool_lists if ours else {}) if k.startswith("focused on")]
    row("`tools/list` at start", [tl(r) for r in results])
    if ours and focused:
        row(
            "`tools/list` while on a page (tabmcp: focused on the counter page)",
            [tl(r) if r is not ours else tl(r, focused[0]) for r in results],
            _ratio_chars(
                ours.tool_lists[focused[0]].chars,
                [p.tool_lists["at start"].chars for p in peers if "at start" in p.tool_lists],
            ),
        )

    # clicks
    def click(r: Result) -> str:
        if not r.clicks:
            return "—"
        c = r.clicks
        flag = "" if c.verified else " ⚠ page did not count every click"
        return f"**{c.median_ms:,.1f} ms** (p90 {c.p90_ms:,.1f}){flag}"

    best_click = min((p.clicks.median_ms for p in peers if p.clicks), default=None)
    ratio = target = ""
    if ours and ours.clicks:
        target = f"≤ {CLICK_TARGET_MS:.0f} ms {mark(ours.clicks.median_ms <= CLICK_TARGET_MS)}"
        if best_click:
            ratio = f"{best_click / ours.clicks.median_ms:,.1f}× faster"
    row(f"click by ref (non-navigating), median of {clicks}", [click(r) for r in results], ratio, target)
    row("one click's result text", [f"{n(r.clicks.result_chars)} chars" if r.clicks else "—" for r in results])

    # documentation page
    def doc_chars(r: Result) -> str:
        if not r.doc:
            return "—"
        s = r.doc.first
        pages = f" in {s.pages} pages" if s.pages > 1 else ""
        return f"**{n(s.chars)} chars**{pages}"

    smallest = min((p.doc.first.chars for p in peers if p.doc), default=None)
    ratio = target = ""
    if ours and ours.doc and smallest:
        share = ours.doc.first.chars / smallest
        ratio = f"{share:.3f} of the smaller peer (1/{smallest / ours.doc.first.chars:.1f})"
        target = f"≤ {DOC_RATIO_TARGET:.2f} {mark(share <= DOC_RATIO_TARGET)}"
    doc_kb = _kb(results, "doc")
    row(f"snapshot of `{DOC_PAGE}` ({doc_kb}): result size", [doc_chars(r) for r in results], ratio, target)
    row(f"snapshot of `{DOC_PAGE}`: time to first result, median", [_secs(r, "doc") for r in results])
    if ours and ours.coverage:
        cov = ours.coverage
        per_kind = ", ".join(f"{k}s {cov.matched[k]}/{cov.expected[k]}" for k in ("link", "button", "field"))
        text = f"{cov.total_matched}/{cov.total_expected} ({per_kind})"
        row(
            f"`{DOC_PAGE}`: visible links, buttons, fields with a ref",
            [text if r is ours else "" for r in results],
            "",
            f"all {mark(cov.total_matched == cov.total_expected)}",
        )

    # big page
    big_kb = _kb(results, "big")
    best_big = min((p.big.median_seconds for p in peers if p.big), default=None)
    ratio = target = ""
    if ours and ours.big:
        first = ours.big.first
        target = f"≤ {BIG_FIRST_TARGET_S:.0f} s {mark(max(ours.big.seconds) <= BIG_FIRST_TARGET_S)}"
        if best_big:
            ratio = f"{best_big / ours.big.median_seconds:,.1f}× sooner"
    row(
        f"snapshot of `{BIG_PAGE}` ({big_kb}): time to first result, median",
        [_secs(r, "big") for r in results],
        ratio,
        target,
    )

    def big_first(r: Result) -> str:
        if not r.big:
            return "—"
        s = r.big.first
        budget = f" (budget {n(s.budget)})" if s.budget else ""
        return f"**{n(s.first_chars)} chars**{budget}"

    target = ""
    if ours and ours.big and ours.big.first.budget:
        first = ours.big.first
        target = f"≤ budget, every page {mark(max(first.page_chars) <= first.budget)}"
    row(f"snapshot of `{BIG_PAGE}`: first result size", [big_first(r) for r in results], "", target)

    def big_all(r: Result) -> str:
        if not r.big:
            return "—"
        s = r.big.first
        if s.pages == 1:
            return "(one result)"
        return f"{n(s.chars)} chars in {s.pages} pages, {s.total_seconds:.1f} s"

    row(f"snapshot of `{BIG_PAGE}`: paging through it all", [big_all(r) for r in results])
    row(
        "open the 1.7 MB page (navigate / open_tab)", [f"{r.big.open_seconds:.2f} s" if r.big else "—" for r in results]
    )
    return "\n".join(lines)


def tool_states(result: Result) -> str:
    lines = ["| state | tools | JSON chars |", "|---|---|---|"]
    for state, tl in result.tool_lists.items():
        lines.append(f"| {state} | {tl.count} | {n(tl.chars)} |")
    return "\n".join(lines)


def errors(results: list[Result]) -> str:
    return "\n".join(f"- {r.label}: {r.error}" for r in results if r.error)


def coverage_misses(results: list[Result]) -> str:
    lines = []
    for r in results:
        if r.key in DRIVERS and r.coverage and r.coverage.missing:
            listed = "; ".join(f"{c.kind} {c.name!r} <{c.tag}>" for c in r.coverage.missing)
            lines.append(f"Not matched in {r.label}'s snapshot (first few): {listed}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the two drivers


def _times(cdp: float, ext: float) -> str:
    return f"{cdp / ext:.2f}×" if ext > 0 else ""


def _same_or_ratio(cdp: int, ext: int) -> str:
    return "same" if cdp == ext else _times(cdp, ext)


def _ms(snap: PageSnap | None) -> str:
    """Milliseconds: the two drivers' snapshot times differ by less than the peers' table's 10 ms steps."""
    return f"{snap.median_seconds * 1000:,.0f} ms" if snap else "—"


def drivers_table(results: list[Result], clicks: int, repeat: int) -> str:
    """One column per driver and the ratio CDP / extension; empty unless both drivers were measured."""
    pair = driver_pair(results)
    if not pair:
        return ""
    ext, cdp = pair
    head = ["figure", "extension driver", "CDP driver", "CDP / extension"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def row(figure: str, e: str, c: str, ratio: str = "") -> None:
        lines.append(f"| {figure} | {e} | {c} | {ratio} |")

    for state in dict.fromkeys([*ext.tool_lists, *cdp.tool_lists]):
        te, tc = ext.tool_lists.get(state), cdp.tool_lists.get(state)
        cell = [f"{t.count} tool{'s' if t.count != 1 else ''}, {n(t.chars)} chars" if t else "—" for t in (te, tc)]
        row(f"`tools/list` {state}", *cell, _same_or_ratio(tc.chars, te.chars) if te and tc else "")

    def click(r: Result) -> str:
        if not r.clicks:
            return "—"
        flag = "" if r.clicks.verified else " ⚠ page did not count every click"
        return f"**{r.clicks.median_ms:,.1f} ms** (p90 {r.clicks.p90_ms:,.1f}){flag}"

    ratio = _times(cdp.clicks.median_ms, ext.clicks.median_ms) if ext.clicks and cdp.clicks else ""
    row(f"click by ref (non-navigating), median of {clicks}", click(ext), click(cdp), f"**{ratio}**" if ratio else "")
    chars = [f"{n(r.clicks.result_chars)} chars" if r.clicks else "—" for r in (ext, cdp)]
    row("one click's result text", *chars)
    _page_tool_row(row, ext, cdp, clicks)

    for which, page in (("doc", DOC_PAGE), ("big", BIG_PAGE)):
        e: PageSnap | None = getattr(ext, which)
        c: PageSnap | None = getattr(cdp, which)
        kb = _kb(results, which)
        ratio = f"**{_times(c.median_seconds, e.median_seconds)}**" if e and c else ""
        row(f"snapshot of `{page}` ({kb}): time to first result, median of {repeat}", _ms(e), _ms(c), ratio)
        size = [f"{n(s.first.first_chars)} chars" if s else "—" for s in (e, c)]
        row(
            f"snapshot of `{page}`: first result size",
            *size,
            _same_or_ratio(c.first.first_chars, e.first.first_chars) if e and c else "",
        )
        if e and c and max(e.first.pages, c.first.pages) > 1:
            paged = [
                f"{n(s.first.chars)} chars in {s.first.pages} pages, {s.first.total_seconds:.2f} s" for s in (e, c)
            ]
            row(
                f"snapshot of `{page}`: paging through it all",
                *paged,
                _times(c.first.total_seconds, e.first.total_seconds) + " (time)",
            )
        opened = [f"{s.open_seconds:.2f} s" if s else "—" for s in (e, c)]
        row(f"open `{page}` (open_tab)", *opened, _times(c.open_seconds, e.open_seconds) if e and c else "")
        if which == "doc":
            cov = [f"{r.coverage.total_matched}/{r.coverage.total_expected}" if r.coverage else "—" for r in (ext, cdp)]
            row(f"`{page}`: visible links, buttons, fields with a ref", *cov)
    return "\n".join(lines)


def _page_tool_row(row: Callable[..., None], ext: Result, cdp: Result, calls: int) -> None:
    """The counter page's page tool (`add_one`): the page changes at once, so the time is the server's."""

    def cell(r: Result) -> str:
        if not r.page_tool:
            return "—"
        flag = "" if r.page_tool.verified else " ⚠ page did not count every call"
        return f"**{r.page_tool.median_ms:,.1f} ms** (p90 {r.page_tool.p90_ms:,.1f}){flag}"

    both = ext.page_tool and cdp.page_tool
    ratio = f"**{_times(cdp.page_tool.median_ms, ext.page_tool.median_ms)}**" if both else ""  # type: ignore[union-attr]
    row(f"page tool call on a page that reacts at once (`add_one`), median of {calls}", cell(ext), cell(cdp), ratio)


def drivers_section(
    results: list[Result], clicks: int, warmup: int, repeat: int, load: LoadWatch, rounds: int = 1
) -> str:
    """The marked block ``drivers`` of docs/benchmarks.md; empty unless both drivers were measured.
    ``clicks`` and ``repeat`` are per round; the medians are over all rounds' samples."""
    body = drivers_table(results, clicks * rounds, repeat * rounds)
    if not body:
        return ""
    info = machine()
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "## tabmcp's two drivers: extension and CDP",
        "",
        f"Measured {today} by `.venv/bin/python -m bench.run --only tabmcp tabmcp-cdp{rounds_flag(rounds)}`",
        "(`bench/run.py`): the cases above, on tabmcp's two drivers, in one run;",
        f"{rounds_text(rounds)}.",
        "",
        f"- tabmcp {tabmcp_version()}",
        f"- {info['cpu']}; {info['chromium']}",
        f"- 1-minute load average during the run: {load.describe()}",
        "",
        "Same server (`tabmcp serve` with `TABMCP_WS_PORT=0 TABMCP_HEADLESS=true",
        "TABMCP_BROWSER_PATH=/usr/bin/chromium`), same tools and calls, same pages. The **extension driver**",
        "(the default) launches Chromium with the tabmcp extension and talks to it over the extension's",
        "WebSocket; the **CDP driver** (`TABMCP_BROWSER=chromium`) launches Chromium itself and drives it over",
        'the Chrome DevTools Protocol, without the extension. "CDP / extension" is the CDP driver\'s figure',
        "divided by the extension driver's: below 1, the CDP driver is faster (or smaller).",
        "",
        body,
        "",
        f"Click: in each round, {warmup} warm-up clicks, then {clicks} timed ones; the median is over all rounds'",
        f"clicks ({clicks * rounds}). Snapshot times: {repeat} snapshot(s) to the first result per page and round,",
        "median over all rounds; `open_tab` times: the median of the rounds; sizes and paging from the first round.",
        "Page tool call: the counter page's `add_one` (a plan clicking its button), called like the clicks; the",
        "answer says what changed once the page settled (docs/page-agent.md §11).",
    ]
    ext, cdp = driver_pair(results) or (None, None)
    sizes = {DOC_PAGE: _kb(results, "doc"), BIG_PAGE: _kb(results, "big"), COUNTER: "1 KB"}
    opens = opens_section(ext.opens if ext else None, cdp.opens if cdp else None, sizes)
    if opens:
        parts += ["", opens]
    busiest = max(load.samples)
    if busiest > BUSY_LOAD:
        parts += [
            "",
            f"The machine was busy during this run (1-minute load up to {busiest:.1f} on {os.cpu_count()} cores,",
            "other processes included): the times are inflated for both drivers alike; sizes are not affected.",
        ]
    failed = errors([r for r in results if r.key in DRIVERS])
    if failed:
        parts += ["", "Failures in this run:", "", failed]
    return "\n".join(parts)


def _ratio_chars(ours: int, peers: list[int]) -> str:
    return f"{ours / min(peers):.2f} of the smaller peer" if peers else ""


def _kb(results: list[Result], which: str) -> str:
    page = PY_DOCS / (DOC_PAGE if which == "doc" else BIG_PAGE)
    return f"{page.stat().st_size / 1000:,.0f} KB" if page.exists() else "?"


def _secs(r: Result, which: str) -> str:
    snap = getattr(r, which)
    if not snap:
        return "—"
    runs = len(snap.seconds)
    return f"{snap.median_seconds:.2f} s" + (f" (of {runs})" if runs > 1 else "")


# ---------------------------------------------------------------------------- machine and versions


def _run(*cmd: str) -> str:
    if not shutil.which(cmd[0]):
        return "?"
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30, cwd=REPO).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


class LoadWatch:
    """Samples the 1-minute load average every few seconds while the run goes on: other processes on a
    shared 2-core box inflate every server's times, and the document should say when they did."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.samples: list[float] = [os.getloadavg()[0]]
        self._every = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(self._every):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def describe(self) -> str:
        mean = sum(self.samples) / len(self.samples)
        return f"{self.samples[0]:.2f} at the start, mean {mean:.2f}, max {max(self.samples):.2f} (a shared box)"


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = found.group(1) if found else "?"
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))  # type: ignore[union-attr]
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        pass
    distro = "?"
    try:
        found = re.search(r'^PRETTY_NAME="?([^"\n]+)', Path("/etc/os-release").read_text(), re.M)
        distro = found.group(1) if found else "?"
    except OSError:
        pass
    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": mem,
        "os": f"{distro}, {platform.system()} {platform.release()}",
        "chromium": _run("/usr/bin/chromium", "--version"),
        "node": _run("node", "--version"),
        "python": platform.python_version(),
    }


def tabmcp_version() -> str:
    try:
        version = metadata.version("tabmcp")
    except metadata.PackageNotFoundError:
        version = "?"
    commit = _run("git", "rev-parse", "--short", "HEAD")
    dirty = _run("git", "status", "--porcelain", "--untracked-files=no")
    return f"{version} ({commit}{', uncommitted changes' if dirty and dirty != '?' else ''})"


def rounds_flag(rounds: int) -> str:
    return f" --rounds {rounds}" if rounds > 1 else ""


def rounds_text(rounds: int) -> str:
    if rounds == 1:
        return "one server after the other"
    return f"{rounds} rounds, each server once per round, the order reversed every other round"


def document(results: list[Result], clicks: int, warmup: int, repeat: int, load: LoadWatch, rounds: int = 1) -> str:
    """``clicks`` and ``repeat`` are per round (``--rounds``); the medians are over all rounds' samples."""
    info = machine()
    info["1-minute load average during the run"] = load.describe()
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    ours = ours_of(results)
    drivers = drivers_section(results, clicks, warmup, repeat, load, rounds)
    parts = [
        "# Benchmarks: tabmcp against Playwright MCP and Chrome DevTools MCP",
        "",
        f"Measured {today} by `make bench` (`bench/run.py`, the first of `bench/all.py`'s runs), on this machine:",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        f"- tabmcp {tabmcp_version()}",
        *[f"- {r.label} {r.version}" for r in results if r.key in PEERS],
        "",
        "## Results",
        "",
        table(results, clicks * rounds),
        "",
    ]
    busiest = max(load.samples)
    if busiest > BUSY_LOAD:
        parts += [
            f"The machine was busy during this run (1-minute load up to {busiest:.1f} on {os.cpu_count()} cores, other",
            "processes included): the times are inflated for every server alike; sizes are not affected.",
            "",
        ]
    if errors(results):
        parts += ["Failures in this run:", "", errors(results), ""]
    if coverage_misses(results):
        parts += [coverage_misses(results), ""]
    if ours and ours.tool_lists:
        parts += ["### tabmcp's `tools/list` in each state", "", tool_states(ours), ""]
    parts += [
        "## How it is measured",
        "",
        "- Every server is started the way an MCP host starts it, over stdio, and driven by the MCP Python",
        "  SDK's `ClientSession`. A time is the client's wall clock around one `tools/call`, pipe included.",
        "- Each server launches its own headless Chromium (`/usr/bin/chromium`); the servers run one after",
        "  another, never at the same time. Pages come from a local HTTP server on 127.0.0.1: the",
        "  counter page in `bench/pages/`, and Debian's `python3.11-doc` for the documentation pages.",
        "- Peers run with their defaults, plus what they need here: Playwright MCP `--executable-path",
        "  /usr/bin/chromium --headless --isolated --no-sandbox`; Chrome DevTools MCP `--executablePath",
        "  /usr/bin/chromium --headless --isolated --chromeArg=--no-sandbox --no-usage-statistics`.",
        "  Playwright MCP's click waits for its default settle time (`--timeout-settle`, 500 ms): that is",
        "  what its users get unless they change it.",
        "- tabmcp: `tabmcp serve` with `TABMCP_WS_PORT=0 TABMCP_HEADLESS=true`, `connect_browser",
        "  {launch: true}`, `open_tab {url}` (focused), `snapshot` (default mode, default budget), then",
        "  `snapshot {cursor}` until there is no `next`; `interact {action: click, target: <ref>}`.",
        f"- Click: open the counter page, snapshot, find the button's ref, {warmup} warm-up clicks, then",
        f"  {clicks} timed clicks; a last snapshot must show the count ({warmup + clicks}) in the page title.",
        *([f"- {rounds} rounds ({rounds_text(rounds)}): medians over all rounds' samples."] if rounds > 1 else []),
        f"- Snapshots: the first snapshot after opening the page gives the sizes; {repeat} snapshot(s) give",
        "  the median time to the first result. Size is the characters of the result's text; for tabmcp, the",
        "  sum over all pages of the cursor.",
        "- Coverage: Playwright (Python) opens the page in its own headless Chromium at 1280×720 and lists",
        "  visible links, buttons and fields with their names; each must appear as a row with a ref in",
        "  tabmcp's snapshot, same kind and name (compared without whitespace and case, first 100 chars).",
        "",
        "## Rerun",
        "",
        "```sh",
        "make bench   # bench/setup.sh (peers into ~/.cache/tabmcp-bench, python3.11-doc), then every benchmark",
        ".venv/bin/python -m bench.run --help   # this table alone",
        "```",
        "",
        "See `bench/README.md`. The run rewrites this file when all three servers were measured; the",
        "section on tabmcp's two drivers is rewritten whenever both drivers were measured.",
        "",
    ]
    if drivers:
        parts += [doc_sections.block("drivers", drivers)]
    return "\n".join(parts)
