"""Command-line tools from the npm registry, pinned, installed once into ``build/npm/`` (git-ignored)
and reused: the MCP Inspector and the Claude Code CLI run by the tests as their users run them."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NPM_TIMEOUT = 600


def npm_tool(package: str, version: str, command: str, folder: str) -> Path:
    """The ``command`` of ``package@version``, installed into ``build/npm/<folder>`` on first use (a clean
    CI machine). A lock file makes parallel test workers wait for one install instead of racing npm."""
    install = ROOT / "build" / "npm" / folder
    binary = install / "node_modules" / ".bin" / command
    if binary.exists():
        return binary
    install.mkdir(parents=True, exist_ok=True)
    with (install.parent / f"{folder}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even if the install fails
        return binary if binary.exists() else _install(package, version, install, binary)


def _install(package: str, version: str, install: Path, binary: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(f"npm (Node.js) is needed for {package}: apt-get install nodejs npm (make setup does)")
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
