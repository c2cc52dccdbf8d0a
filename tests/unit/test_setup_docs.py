"""The set-up lines a new user copies from the README, docs/clients.md and `tabmcp --help`: every
`claude mcp add` is one Claude Code accepts, the first one after `make demo` is the clone's venv, and no
line installs tabmcp from PyPI, where it is not published yet."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tabmcp.cli import EPILOG

REPO = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/clients.md")
QUICK_START = "## Quick start (Debian/Ubuntu, Python 3.11+)"
AFTER_MAKE_DEMO = 'claude mcp add tabmcp -- "$PWD/.venv/bin/tabmcp" serve'
OPTIONS_WITH_A_VALUE = {"-s", "--scope", "-t", "--transport", "-H", "--header"}
ENV_OPTIONS = {"-e", "--env"}  # variadic in Claude Code: before the name it takes the name as a value


def code_lines(text: str) -> list[str]:
    """The lines of the ```sh blocks, comments cut off."""
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    return [line.split(" #")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def claude_mcp_adds(text: str) -> list[str]:
    """Each `claude mcp add` command in the text, in code blocks or inline, without a trailing comment."""
    return [found.strip() for found in re.findall(r"claude mcp add [^`\n#]*", text)]


def section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def problems(line: str) -> list[str]:
    """What Claude Code would refuse or misread in one `claude mcp add` line."""
    words = shlex.split(line)[3:]
    command = words[words.index("--") + 1 :] if "--" in words else []
    own = words[: words.index("--")] if "--" in words else words
    positional, seen_name, found = [], False, []
    index = 0
    while index < len(own):
        word = own[index]
        if word in OPTIONS_WITH_A_VALUE | ENV_OPTIONS:
            if word in ENV_OPTIONS and not seen_name:
                found.append(f"{word} before the server name takes the name as a value")
            index += 2
            continue
        if word.startswith("-"):
            found.append(f"unknown option {word}")
        positional.append(word)
        seen_name = True
        index += 1
    remote = "http" in own or "sse" in own
    if remote and (command or len(positional) != 2):
        found.append("a remote server is `--transport http NAME URL`")
    if not remote and (not command or len(positional) != 1):
        found.append("a local server is `NAME -- COMMAND [ARGS…]`")
    return found


def test_every_claude_mcp_add_line_is_one_claude_code_accepts() -> None:
    lines = [line for name in DOCS for line in claude_mcp_adds((REPO / name).read_text(encoding="utf-8"))]
    lines += claude_mcp_adds(EPILOG)
    assert len(lines) >= 6
    assert {line: problems(line) for line in lines if problems(line)} == {}


def test_the_checker_refuses_what_claude_code_refuses() -> None:
    assert problems("claude mcp add tabmcp tabmcp serve")  # no --: serve would be taken for a second name
    assert problems("claude mcp add -e TABMCP_NL_TOOLS=true tabmcp -- tabmcp serve")
    assert problems("claude mcp add -- tabmcp serve")
    assert not problems('claude mcp add --scope user tabmcp -e A=1 -- "/x y/tabmcp" serve --headless')
    assert not problems('claude mcp add --transport http tabmcp "http://127.0.0.1:8766/mcp"')


def test_after_make_demo_the_first_line_is_the_clones_venv() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for heading in (QUICK_START, "## Use it from Claude Code"):
        assert claude_mcp_adds(section(readme, heading))[0] == AFTER_MAKE_DEMO, heading
    clients = (REPO / "docs/clients.md").read_text(encoding="utf-8")
    assert code_lines(section(clients, "## Claude Code"))[0] == AFTER_MAKE_DEMO
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^VENV := \.venv$", makefile, flags=re.MULTILINE)  # where make setup puts tabmcp
    assert re.search(r"^BIN := \$\(VENV\)/bin$", makefile, flags=re.MULTILINE)


def test_the_quick_start_says_what_make_setup_installs() -> None:
    (setup,) = re.findall(r"^setup: (.*)$", (REPO / "Makefile").read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert {"chromium", "node"} <= set(setup.split())
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick_start = " ".join(section(readme, QUICK_START).split())
    assert "Chromium" in quick_start and "Node.js and npm" in quick_start


def test_no_line_installs_tabmcp_from_pypi() -> None:
    """Not published there yet: `pipx install tabmcp` would install nothing, or someone else's package."""
    from_pypi = re.compile(r"(pipx install|pip install|uv tool install) tabmcp\b|uvx tabmcp\b")
    for name in DOCS:
        lines = code_lines((REPO / name).read_text(encoding="utf-8"))
        assert [line for line in lines if from_pypi.search(line)] == [], name
