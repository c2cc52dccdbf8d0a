"""The wheel as ``pipx install tabmcp`` / ``uvx tabmcp`` get it: built from the sources, installed with its
dependencies into a fresh venv, and run from there, far from the repository.

It proves the wheel carries the extension (inside the package, where ``extension-path`` finds it), the
site introspectors and the demo sites, and that its declared dependencies are enough to run; and that
building it, or installing the sources editable as ``make setup`` does, prints no setuptools warning.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import tabmcp
from tabmcp.drivers.launch import CONFIG_FILE as LAUNCH_CONFIG

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "src", "extension", "introspectors")  # all a build may need
PYTHON_WARNING = re.compile(r"\.py:\d+: \w+: ")  # how Python prints a warning: FILE.py:LINE: CATEGORY: TEXT
STEP_TIMEOUT = 300  # pip may fetch the build backend and the dependencies from the index on a cold cache


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    return run_all(args, cwd, env).stdout


def run_all(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def python_warnings(output: str) -> list[str]:
    """The warnings a build printed (run with ``--verbose``: a quiet pip may hide the backend's output); pip's
    own ``WARNING: …`` lines about its configuration are not the build's."""
    return [line.strip() for line in output.splitlines() if PYTHON_WARNING.search(line)]


def copy_sources(source: Path) -> None:
    """A copy, so the build's own build/ and egg-info never land in the repository."""
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)


@dataclass
class Built:
    wheel: Path
    output: str  # what building it printed, stdout and stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    copy_sources(source)
    # what connect_browser(launch=true) writes into a copy of the folder: it holds a pairing token
    (source / "extension" / LAUNCH_CONFIG).write_text('{"token": "never-in-a-wheel"}')
    done = run_all(
        [sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--verbose", "-w", root / "dist"], cwd=root
    )
    (wheel,) = (root / "dist").glob("tabmcp-*.whl")
    return Built(wheel, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def installed(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel (and its dependencies) installed; its bin folder."""
    root = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", root / "venv"], cwd=root)
    run([root / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", built.wheel], cwd=root)
    return root / "venv" / "bin"


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABMCP_", "PYTHON", "VIRTUAL_ENV"))}
    return {**env, **extra}


def site_packages(bin_dir: Path) -> Path:
    return Path(run([bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    cwd=bin_dir).strip())  # fmt: skip


def extension_files() -> list[str]:
    source = REPO / "extension"
    return sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file())


def test_building_the_wheel_prints_no_warning(built: Built) -> None:
    assert python_warnings(built.output) == [], built.output[-5000:]


def test_the_wheel_carries_every_extension_file_and_no_launch_config(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as archive:
        names = archive.namelist()
    prefix = "tabmcp/extension/"
    assert sorted(n.removeprefix(prefix) for n in names if n.startswith(prefix)) == extension_files()
    assert {"icons/icon-16.png", "icons/icon-128.png"} <= set(extension_files())
    assert not [n for n in names if n.endswith(LAUNCH_CONFIG)]


def test_an_editable_install_prints_no_warning(tmp_path: Path) -> None:
    """``make setup``'s ``pip install -e``: no warning, and both packages imported from the sources."""
    source = tmp_path / "source"
    copy_sources(source)
    run([sys.executable, "-m", "venv", tmp_path / "venv"], cwd=tmp_path)
    bin_dir = tmp_path / "venv" / "bin"
    done = run_all([bin_dir / "python", "-m", "pip", "install", "--no-deps", "--verbose", "-e", source], cwd=tmp_path)
    assert python_warnings(done.stdout + done.stderr) == [], (done.stdout + done.stderr)[-5000:]
    where = "import importlib.util as u; print(*(u.find_spec(n).origin for n in ('tabmcp', 'introspectors')))"
    found = run([bin_dir / "python", "-c", where], cwd=tmp_path, env=clean_env()).split()  # no dependencies needed
    assert found == [str(source / "src" / "tabmcp" / "__init__.py"), str(source / "introspectors" / "__init__.py")]


def test_the_console_script_runs_from_the_fresh_venv(installed: Path) -> None:
    assert run([installed / "tabmcp", "--version"], cwd=installed.parent, env=clean_env()).strip() == (
        f"tabmcp {tabmcp.__version__}"
    )


def test_extension_path_points_inside_the_installed_package(installed: Path) -> None:
    folder = Path(run([installed / "tabmcp", "extension-path"], cwd=installed.parent, env=clean_env()).strip())
    assert folder == site_packages(installed) / "tabmcp" / "extension"
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in (REPO / "extension").iterdir())
    assert json.loads((folder / "manifest.json").read_text())["key"]  # the unpacked copy keeps tabmcp's id


def test_extension_pack_writes_the_store_zip_from_the_installed_copy(installed: Path, tmp_path: Path) -> None:
    printed = run([installed / "tabmcp", "extension-pack", "--out", tmp_path], cwd=tmp_path, env=clean_env())
    written = Path(printed.strip())
    assert written == tmp_path / f"tabmcp-extension-{tabmcp.__version__}.zip"
    with zipfile.ZipFile(written) as archive:
        names = sorted(archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
    assert names == extension_files()
    assert manifest["manifest_version"] == 3 and "key" not in manifest
    assert "icons/icon-128.png" in names and manifest["icons"]["128"] == "icons/icon-128.png"  # the store's icon


def test_the_installed_package_has_its_plugins_and_demo_sites(installed: Path, tmp_path: Path) -> None:
    """doctor imports everything a server needs (the dependencies are enough) and finds the site plugins;
    on a machine that has never run tabmcp (no pairing token yet) it passes, and makes no token."""
    config = tmp_path / "config"
    report = run(
        [installed / "tabmcp", "doctor", "--ws-port", "0", "--config-dir", config], cwd=tmp_path, env=clean_env()
    )
    assert "ok   pairing: no pairing token yet" in report and not config.exists()
    assert f"extension: tabmcp {tabmcp.__version__} (MV3) at {site_packages(installed) / 'tabmcp' / 'extension'}" in (
        report
    )
    for plugin in ("introspectors.code_repo", "introspectors.flight_search", "introspectors.mail_inbox"):
        assert plugin in report
    sites = run([installed / "python", "-c", "from tabmcp.demo.sites import SITES; print(SITES)"], cwd=tmp_path,
                env=clean_env())  # fmt: skip
    assert Path(sites.strip()).is_relative_to(site_packages(installed))
    for page in ("flights/index.html", "mail/index.html", "repo/index.html", "webmcp/index.html"):
        assert (Path(sites.strip()) / page).is_file()
