"""The MCP Inspector's CLI (the npm package ``@modelcontextprotocol/inspector``, docs/clients.md) against
`tabmcp serve`, exactly as a user runs it: list the tools, call one, and get an error for a tool that is
not there. The pinned version is installed once with npm into ``build/npm/`` (git-ignored) and reused."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.client import tabmcp_command
from tests.integration.conftest import PAIRING_TOKEN
from tests.npm_tools import npm_tool

INSPECTOR = "@modelcontextprotocol/inspector"
VERSION = "2.12.0"  # pinned: the CLI's options and output are what this test reads


@pytest.fixture(scope="module")
def inspector() -> Path:
    """The Inspector's CLI, installed from the npm registry on first use."""
    return npm_tool(INSPECTOR, VERSION, "mcp-inspector", f"inspector-{VERSION}")


def run_cli(inspector: Path, tmp_path: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector --cli -e … tabmcp serve <args>``; the server's settings go in as ``-e`` (the CLI does
    not pass its own environment on), its catalog file stays in tmp_path."""
    command, prefix = tabmcp_command()
    env_args: list[str] = []
    for key, value in {"ws_port": "0", "pairing_token": PAIRING_TOKEN, "log_level": "WARNING", **settings}.items():
        env_args += ["-e", f"TABMCP_{key.upper()}={value}"]
    return subprocess.run(
        # the server's start can take longer than the CLI's 15 s default on a loaded machine
        [str(inspector), "--cli", "--connect-timeout", "90000", *env_args, command, *prefix, "serve", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")},
    )


def output(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"not JSON (exit {done.returncode}): {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        ) from None


def test_inspector_lists_tools(inspector: Path, tmp_path: Path) -> None:
    done = run_cli(inspector, tmp_path, "--method", "tools/list")
    assert done.returncode == 0, done.stderr[-2000:]
    tools = {t["name"]: t for t in output(done)["tools"]}
    assert list(tools) == ["connect_browser"]  # dynamic: disconnected, one tool
    assert tools["connect_browser"]["inputSchema"]["properties"]["launch"]["type"] == "boolean"
    static = output(run_cli(inspector, tmp_path, "--method", "tools/list", tools="static"))
    assert {"list_page_tools", "call_page_tool", "list_tabs"} <= {t["name"] for t in static["tools"]}


def test_inspector_calls_tools(inspector: Path, tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    launched = run_cli(
        inspector,
        tmp_path,
        *("--method", "tools/call", "--tool-name", "connect_browser", "--tool-arg", "launch=true"),
        user_data_dir=str(profile),
    )
    assert launched.returncode == 0, launched.stdout[-2000:] + launched.stderr[-2000:]
    result = output(launched)
    assert result["isError"] is False
    assert result["structuredContent"]["connected"] is True and result["structuredContent"]["browser"]["version"]

    # a call the server refuses: isError with what to do, and a failing exit code
    refused = run_cli(inspector, tmp_path, "--method", "tools/call", "--tool-name", "list_tabs", tools="static")
    assert refused.returncode != 0
    body = output(refused)
    assert body["isError"] is True and body["structuredContent"]["code"] == "NOT_CONNECTED"
    assert "call connect_browser first" in body["structuredContent"]["error"]


def test_inspector_reports_an_unknown_tool(inspector: Path, tmp_path: Path) -> None:
    done = run_cli(
        inspector, tmp_path, "--method", "tools/call", "--tool-name", "book_hotel", "--tool-arg", "city=Oslo"
    )
    assert done.returncode != 0
    assert "book_hotel" in done.stdout + done.stderr and "not found" in (done.stdout + done.stderr).lower()
