"""Memory of an MCP server and the processes it started, read from /proc (Linux; no psutil needed).

The server is the child of this process whose command line says ``serve``; under it, the Playwright
node driver (``run-driver``, CDP driver only) and the browser (the Chromium process without
``--type=``, with all its helpers). The server's and the driver's figure is RSS; the browser's is the
PSS summed over its processes, so memory its processes share is counted once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
KIB = 1024
MIB = 1024 * 1024


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    cmdline: str


@dataclass(frozen=True)
class Memory:
    server_mb: float
    driver_mb: float | None  # None: no node driver (the extension driver's browser is a plain child)
    browser_mb: float | None


def processes() -> list[Proc]:
    found: list[Proc] = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        found.append(Proc(int(entry.name), ppid, cmdline))
    return found


def descendants(root: int, table: list[Proc]) -> list[Proc]:
    children: dict[int, list[Proc]] = {}
    for proc in table:
        children.setdefault(proc.ppid, []).append(proc)
    out: list[Proc] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child.pid)
    return out


def _status_kib(pid: int, field: str) -> int:
    for line in (PROC / str(pid) / "status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _pss_kib(pid: int) -> int:
    for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def measure() -> Memory:
    """The memory of this process's ``serve`` child and what it started; LookupError if none runs."""
    table = processes()
    servers = [p for p in table if p.ppid == os.getpid() and " serve" in p.cmdline]
    if not servers:
        raise LookupError("no `serve` child process found")
    server = servers[0]
    below = descendants(server.pid, table)
    drivers = [p for p in below if "run-driver" in p.cmdline]
    browsers = [p for p in below if "chrom" in p.cmdline.split(" ", 1)[0] and "--type=" not in p.cmdline]
    driver_mb = _status_kib(drivers[0].pid, "VmRSS") * KIB / MIB if drivers else None
    browser_mb = None
    if browsers:
        helpers = [browsers[0], *descendants(browsers[0].pid, table)]
        total = 0
        for proc in helpers:
            try:
                total += _pss_kib(proc.pid)
            except OSError:
                continue
        browser_mb = total * KIB / MIB
    return Memory(_status_kib(server.pid, "VmRSS") * KIB / MIB, driver_mb, browser_mb)
