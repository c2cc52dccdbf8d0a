"""The saved captures of the demo sites (tests/fixtures/captures) are what the page agent captures of
the sites today, so the site introspector tests run on the sites and agent as they are.

The capture script records every state again in its own process (its own Chromium, the pages' clock
fixed, apart from this package's browser) and compares in memory: with ``--check`` it writes nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "tests/fixtures/captures/make_captures.py"


def test_the_saved_captures_are_what_the_agent_captures_of_the_demo_sites() -> None:
    checked = subprocess.run(
        [sys.executable, SCRIPT, "--check"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert checked.returncode == 0 and checked.stdout.strip() == "up to date", (
        f"{checked.stdout}{checked.stderr[-2000:]}\nThe demo sites or the page agent changed: refresh with "
        f"`.venv/bin/python {SCRIPT}` and re-run tests/unit/test_site_*.py"
    )
