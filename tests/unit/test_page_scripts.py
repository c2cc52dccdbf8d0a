"""The page agent's files: one list in the manifest, read in that order by every driver."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tabmcp.drivers.launch import LaunchError
from tabmcp.drivers.page_scripts import agent_entry, page_scripts

REPO_EXTENSION = Path(__file__).resolve().parents[2] / "extension"
MAX_LINES = 800


def agent_files() -> list[str]:
    manifest = json.loads((REPO_EXTENSION / "manifest.json").read_text(encoding="utf-8"))
    isolated = [entry for entry in manifest["content_scripts"] if entry.get("world") != "MAIN"]
    assert len(isolated) == 1
    files: list[str] = isolated[0]["js"]
    return files


def test_the_manifest_lists_every_agent_file_once_the_entry_last() -> None:
    files = agent_files()
    on_disk = sorted(p.relative_to(REPO_EXTENSION).as_posix() for p in (REPO_EXTENSION / "agent").glob("*.js"))
    assert sorted(files) == on_disk  # a file left out of the list would never load
    assert len(set(files)) == len(files)
    assert files[0] == "agent/base.js" and files[-1] == "agent/entry.js"  # base makes the namespace, entry the agent


def test_no_agent_file_is_over_the_size_limit() -> None:
    sizes = {name: len((REPO_EXTENSION / name).read_text(encoding="utf-8").splitlines()) for name in agent_files()}
    assert max(sizes.values()) <= MAX_LINES, sizes


def test_the_real_scripts_are_the_hooks_and_the_agent_files_in_order() -> None:
    hooks, agent = page_scripts()
    assert hooks == (REPO_EXTENSION / "page_hooks.js").read_text(encoding="utf-8")
    assert agent == "\n".join((REPO_EXTENSION / name).read_text(encoding="utf-8") for name in agent_files())


def write_extension(folder: Path, content_scripts: list[dict[str, object]]) -> None:
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"manifest_version": 3, "content_scripts": content_scripts}))
    for name in ("h.js", "a.js", "b.js"):
        (folder / name).write_text(f"// {name}\n")


def test_each_world_is_its_files_joined_in_the_manifests_order(tmp_path: Path) -> None:
    folder = tmp_path / "extension"
    write_extension(folder, [{"js": ["b.js", "a.js"]}, {"js": ["h.js"], "world": "MAIN"}])
    assert page_scripts(folder) == ("// h.js\n", "// b.js\n\n// a.js\n")


def test_a_manifest_without_the_agent_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "extension"
    write_extension(folder, [{"js": ["h.js"], "world": "MAIN"}])
    with pytest.raises(LaunchError, match="no content script"):
        page_scripts(folder)



def test_the_agent_entry_calls_the_agent_packs_its_answer_and_reports_a_throw() -> None:
    """The extension's own entry, as the CDP driver evaluates it, run by node against a stand-in agent."""
    script = f"""
const entry = {agent_entry()};
(async () => {{
  const out = [await entry(['ping', 1])];
  globalThis.__tabmcpAgent = {{ echo: async (a) => ({{ ok: true, a }}), fail: () => {{ throw new Error('boom'); }} }};
  out.push(await entry(['echo', {{ x: 2 }}]), await entry(['fail', null]));
  console.log(JSON.stringify(out));
}})();
"""
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30, check=True)
    missing, echoed, failed = json.loads(done.stdout)
    assert missing == {"__missing": True}
    assert json.loads(echoed["__json"]) == {"ok": True, "a": {"x": 2}}
    assert isinstance(echoed["__ms"], float | int) and echoed["__ms"] >= 0  # the time in the page, for the trace
    assert "boom" in failed["__error"]
