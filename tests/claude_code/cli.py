"""The real Claude Code CLI (npm ``@anthropic-ai/claude-code``, pinned), installed once into
``build/npm/`` and run offline in print mode against a scripted Messages API (``messages_api.py``).

Each run gets a private ``HOME`` and working folder, telemetry and nonessential traffic off, and an
``--mcp-config`` file naming the MCP servers; ``--strict-mcp-config`` keeps any other config out.
``tool_search=False`` sets ``ENABLE_TOOL_SEARCH=false`` (every tool in every request); otherwise
Claude Code defers MCP tools behind its ``ToolSearch``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "@anthropic-ai/claude-code"
VERSION = "2.1.328"  # pinned: the request shapes and the deferral behaviour the tests read are this version's
ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "build" / "npm" / f"claude-code-{VERSION}"
BIN = INSTALL / "node_modules" / ".bin" / "claude"
NPM_TIMEOUT = 600


def install() -> Path:
    """The CLI, installed from the npm registry on first use (a clean CI machine) and reused after."""
    if BIN.exists():
        return BIN
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm (Node.js) is needed to run Claude Code: apt-get install nodejs npm (make setup does)")
    INSTALL.mkdir(parents=True, exist_ok=True)
    (INSTALL / "package.json").write_text(json.dumps({"private": True, "dependencies": {PACKAGE: VERSION}}))
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact"],
        cwd=INSTALL,
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT,
    )
    if done.returncode != 0 or not BIN.exists():
        raise RuntimeError(f"npm install {PACKAGE}@{VERSION} failed: {done.stderr[-2000:]}")
    return BIN


@dataclass
class Run:
    """What one ``claude -p`` run printed: its JSON result (``--output-format json``), exit code, stderr."""

    returncode: int
    result: dict[str, Any]
    stderr: str
    seconds: float


def run_claude(
    api_url: str,
    servers: dict[str, dict[str, Any]],
    prompt: str,
    *,
    tool_search: bool = True,
    allowed: tuple[str, ...] = ("mcp__tabmcp",),
    timeout: float = 240.0,
    extra_env: dict[str, str] | None = None,
) -> Run:
    """``claude -p PROMPT`` with these MCP servers (``mcpServers`` entries), against ``api_url``."""
    import time

    binary = install()
    with tempfile.TemporaryDirectory(prefix="tabmcp-claude-") as scratch:
        home = Path(scratch) / "home"
        work = Path(scratch) / "work"
        home.mkdir()
        work.mkdir()
        config = Path(scratch) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": servers}))
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": api_url,
            "ANTHROPIC_API_KEY": "scripted",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            **({} if tool_search else {"ENABLE_TOOL_SEARCH": "false"}),
            **(extra_env or {}),
        }
        args = [str(binary), "-p", prompt, "--mcp-config", str(config), "--strict-mcp-config",
                "--allowedTools", ",".join(allowed), "--output-format", "json"]  # fmt: skip
        started = time.monotonic()
        done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.monotonic() - started
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    except json.JSONDecodeError:
        result = {"unparsed": done.stdout[-4000:]}
    return Run(returncode=done.returncode, result=result, stderr=done.stderr, seconds=seconds)
