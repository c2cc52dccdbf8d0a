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
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.npm_tools import npm_tool

PACKAGE = "@anthropic-ai/claude-code"
VERSION = "2.1.328"  # pinned: the request shapes and the deferral behaviour the tests read are this version's


def install() -> Path:
    """The CLI, installed from the npm registry on first use and reused after."""
    return npm_tool(PACKAGE, VERSION, "claude", f"claude-code-{VERSION}")


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
