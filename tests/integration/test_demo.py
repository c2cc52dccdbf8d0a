"""`tabmcp demo` (what `make demo` runs) walks the demo sites and shows what the client sees."""

from __future__ import annotations

import subprocess

from tabmcp.demo.client import tabmcp_command


def test_demo_walks_the_states() -> None:
    command, prefix = tabmcp_command()
    done = subprocess.run([command, *prefix, "demo"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "tools.listChanged = True" in out
    assert "page tools: search_flights" in out
    assert "page tools: select_flight" in out
    assert "page tools: search, send" in out
    assert "is not available in the current state" in out
    counts = [int(line.rsplit(":", 1)[1]) for line in out.splitlines() if "list_changed received" in line]
    assert "nodes[" in out and ",button,Send" in out  # the snapshot step shows the mail form's controls
    assert counts == [1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1]
