"""``make bench``: every benchmark in bench/, then the report's charts.

Runs, one after another (never two at once: they would share the 2 cores), each entry point as its own
process, the way a user would, with ``--json`` into a scratch folder:

1. ``bench.run``: tool lists, click latency, snapshot sizes and times; tabmcp on both drivers and the
   peers (Playwright MCP, Chrome DevTools MCP) when bench/setup.sh installed them;
2. ``bench.tasks``: the scripted tasks on the demo sites, tabmcp against Playwright MCP;
3. ``bench.app_tasks``: the scripted tasks on the real-app corpus (bench/apps, installed by ``make apps``),
   tabmcp against Playwright MCP;
4. ``bench.introspection``: from capture to tool list at 1k/5k/10k controls, both drivers;
5. ``bench.nl``: the natural-language tools;
6. ``bench.claude_tasks``: the scripted tasks through the real Claude Code CLI (tool search, always_load),
   when Playwright MCP is installed (its block compares with it).

Each writes its part of docs/benchmarks.md; then ``bench.glance`` draws the PNG charts into
docs/benchmarks/ and puts the "At a glance" block at the top of the document. A failing entry point does
not stop the others; the exit code says whether all succeeded.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import glance

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PEERS = Path(os.environ.get("TABMCP_BENCH_PEERS", Path.home() / ".cache" / "tabmcp-bench" / "peers"))
PEER_PACKAGES = {"playwright": "@playwright/mcp", "devtools": "chrome-devtools-mcp"}


def log(text: str) -> None:
    sys.stderr.write(f"bench.all: {text}\n")
    sys.stderr.flush()


def installed_peers(peers_dir: Path) -> list[str]:
    return [key for key, package in PEER_PACKAGES.items() if (peers_dir / "node_modules" / package).is_dir()]


def steps(args: argparse.Namespace, scratch: Path, peers: list[str]) -> list[tuple[str, list[str]]]:
    """(name, argv after ``python -m``) for each entry point, with the figures asked of it."""
    quick = args.quick
    run = ["bench.run", "--only", *peers, "tabmcp", "tabmcp-cdp", "--rounds", str(args.rounds)]
    run += ["--peers-dir", str(args.peers_dir), "--json", str(scratch / "run.json")]
    if quick:
        run += ["--clicks", "5", "--repeat", "1"]
    if "playwright" in peers:
        tasks = ["bench.tasks", "--peers-dir", str(args.peers_dir)]
    else:  # the tasks compare with Playwright MCP only; tabmcp alone still shows its own figures
        tasks = ["bench.tasks", "--only", "tabmcp", "--no-doc"]
    tasks += ["--json", str(scratch / "tasks.json"), "--repeat", "1" if quick else "3"]
    if "playwright" in peers:
        apps = ["bench.app_tasks", "--peers-dir", str(args.peers_dir)]
    else:
        apps = ["bench.app_tasks", "--only", "tabmcp", "--no-doc"]
    apps += ["--json", str(scratch / "apps.json"), "--repeat", "1" if quick else "2"]
    introspection = ["bench.introspection", "--json", str(scratch / "introspection.json")]
    introspection += ["--repeat", "2" if quick else "7"]
    nl = ["bench.nl", "--json", str(scratch / "nl.json")] + (["--repeat", "3", "--clicks", "3"] if quick else [])
    every = [("run", run), ("tasks", tasks), ("apps", apps), ("introspection", introspection), ("nl", nl)]
    if "playwright" in peers:
        claude = ["bench.claude_tasks", "--peers-dir", str(args.peers_dir), "--json", str(scratch / "claude.json")]
        every.append(("claude", claude + (["--tasks", "mail", "--no-doc"] if quick else [])))
    return [(name, argv) for name, argv in every if name not in args.skip]


def figures_from(scratch: Path, done: list[str]) -> glance.Figures:
    readers = {
        "run": glance.from_run,
        "tasks": glance.from_tasks,
        "introspection": glance.from_introspection,
    }
    parts = []
    for name, read in readers.items():
        path = scratch / f"{name}.json"
        if name in done and path.exists():
            parts.append(read(json.loads(path.read_text(encoding="utf-8"))))
    return glance.merge(*parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.all", description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="bench.run's --rounds (default 3)")
    p.add_argument("--quick", action="store_true", help="few samples each: a smoke run, not figures to publish")
    p.add_argument("--skip", nargs="+", default=[], choices=["run", "tasks", "apps", "introspection", "nl", "claude"])
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    args = p.parse_args(argv)
    peers = installed_peers(args.peers_dir)
    skipped = [f"{PEER_PACKAGES[k]} (not installed: run bench/setup.sh)" for k in PEER_PACKAGES if k not in peers]
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    done, failed = [], []
    with tempfile.TemporaryDirectory(prefix="tabmcp-bench-") as folder:
        scratch = Path(folder)
        for name, command in steps(args, scratch, peers):
            log(f"{name}: python -m {' '.join(command)}")
            began = time.monotonic()
            code = subprocess.call([sys.executable, "-m", *command], cwd=REPO)
            log(f"{name}: exit {code} after {time.monotonic() - began:.0f} s")
            (done if code == 0 else failed).append(name)
            if code != 0 and (scratch / f"{name}.json").exists():
                done.append(name)  # some servers failed, the others' figures are still worth drawing
        figures = figures_from(scratch, done)
    figures["measured"] = started + (" (--quick: few samples)" if args.quick else "")
    figures["skipped"] = skipped + [f"bench.{name}" for name in args.skip]
    figures["errors"] = figures.get("errors", []) + [f"bench.{name} exited with an error" for name in failed]
    for path in glance.write(figures):
        log(f"wrote {path.relative_to(REPO)}")
    log(f"wrote the glance block of {glance.DOC.relative_to(REPO)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
