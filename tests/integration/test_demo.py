"""`tabmcp demo` (what `make demo` runs) walks the demo sites and shows what the client sees."""

from __future__ import annotations

import subprocess

from tabmcp.demo.client import tabmcp_command


def test_demo_walks_the_states() -> None:
    command, prefix = tabmcp_command()
    done = subprocess.run([command, *prefix, "demo"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "\r" not in out + done.stderr and "⠋" not in done.stderr  # off a terminal: no progress line at all
    assert "tools.listChanged = True" in out
    assert "page tools: search_flights\n" in out  # the flight search page, before a search
    assert "page tools: search_flights, select_flight" in out  # results listed: select_flight appears
    assert "page tools: search_inbox, compose_email, open_thread" in out
    assert "page tools: star_repo" in out and "page tools: view_issues, unstar_repo" in out
    assert "page tools: list_todos, add_todo, complete_todo, clear_completed" in out  # WebMCP
    assert "flights[" in out and "messages[1]{" in out and "issues[" in out  # results come back as data
    assert "Message sent" in out
    assert '"toolCount": 6' in out  # the mailbox's tools, counted while it is in the background
    assert "is not available in the current state" in out
    assert "nodes[" in out  # the snapshot step shows the page's controls as rows
    counts = [int(line.rsplit(":", 1)[1]) for line in out.splitlines() if "list_changed received" in line]
    assert counts == [1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1]
