"""Command-line tools from the npm registry, pinned, installed once into ``build/npm/`` (git-ignored)
and reused: the MCP Inspector and the Claude Code CLI run by the tests as their users run them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NPM_TIMEOUT = 600


def npm_tool(package: str, version: str, command: str, folder: str) -> Path:
    """The ``command`` of ``package@version``, installed into ``build/npm/<folder>`` on first use (a clean
    CI machine)."""
    install = ROOT / "build" / "npm" / folder
    binary = install / "node_modules" / ".bin" / command
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(f"npm (Node.js) is needed for {package}: apt-get install nodejs npm (make setup does)")
    install.mkdir(parents=True, exist_ok=True)
    (install / "package.json").write_text(json.dumps({"private": True, "dependencies": {package: version}}))
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact"],
        cwd=install,
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT,
    )
    if done.returncode != 0 or not binary.exists():
        raise RuntimeError(f"npm install {package}@{version} failed: {done.stderr[-2000:]}")
    return binary
