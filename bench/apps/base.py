"""What an app of the corpus is: how it is installed, seeded, started and which pages are its key pages.

Each app lives in its own package next to this file (``bench/apps/NAME/``): its pinned versions
(``requirements.txt`` or ``package.json`` + ``package-lock.json``), any small file that hosts or seeds it,
and an ``APP`` object made from the classes below. ``build/apps/NAME/`` (gitignored) holds what is
installed; every start seeds a fresh data folder, so runs never see each other's changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page as BrowserPage

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "apps"
HERE = Path(__file__).resolve().parent

# Something a person does on a page before it is captured (log in, type a search, tick rows).
Action = Callable[[BrowserPage, str], None]


@dataclass(frozen=True)
class KeyPage:
    """One page a capture is saved of: its path under the app's base URL and what is done there first."""

    name: str
    path: str
    about: str
    actions: tuple[Action, ...] = ()
    # the key page of the same kind (a list and the same list searched): their tool lists must be equal
    same_as: str = ""
    # captured before the app's login (the login page itself)
    logged_out: bool = False


@dataclass(frozen=True)
class Login:
    """The app's login form: the page it is on and the user it is seeded with."""

    path: str
    username: str
    password: str
    fill: Callable[[BrowserPage, str, str], None]

    def log_in(self, page: BrowserPage, base: str) -> None:
        page.goto(base + self.path)
        self.fill(page, self.username, self.password)
        page.wait_for_load_state("load")


def fill_login(user_field: str, password_field: str, submit: str) -> Callable[[BrowserPage, str, str], None]:
    """A login form filled by CSS selectors, as a person types into it (no user field: ``""``)."""

    def fill(page: BrowserPage, username: str, password: str) -> None:
        if user_field:
            page.fill(user_field, username)
        page.fill(password_field, password)
        with page.expect_navigation():
            page.click(submit)

    return fill


@dataclass
class App:
    """One real app. Subclasses say how it is installed, seeded and started."""

    name: str
    kind: str
    about: str
    pages: Sequence[KeyPage]
    ready_path: str = "/"
    login: Login | None = None
    # names of packages whose versions the report shows (pinned in the app's files)
    shown_versions: Sequence[str] = ()
    extra_ports: int = 0
    files: Path = field(init=False)

    def __post_init__(self) -> None:
        self.files = HERE / self.name

    # ------------------------------------------------------------- where things are

    @property
    def build(self) -> Path:
        return BUILD / self.name

    def pins(self) -> list[Path]:
        """The files that pin what is installed; a change to one reinstalls."""
        pinning = ("requirements.txt", "package.json", "package-lock.json")
        return sorted(p for p in self.files.iterdir() if p.name in pinning)

    def stamp_files(self) -> list[Path]:
        """The files whose change reinstalls the app: its pins, and what its install step uses."""
        return self.pins()

    def stamp(self) -> str:
        digest = hashlib.sha256()
        for path in self.stamp_files():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()[:16]

    def installed(self) -> bool:
        stamp = self.build / ".installed"
        return stamp.is_file() and stamp.read_text().strip() == self.stamp()

    # ------------------------------------------------------------- install, seed, start

    def install(self) -> None:
        """Installs the pinned versions into ``build/apps/NAME`` (nothing when already installed)."""
        if self.installed():
            return
        if self.build.exists():
            shutil.rmtree(self.build)
        self.build.mkdir(parents=True)
        self._install()
        (self.build / ".installed").write_text(self.stamp() + "\n")

    def _install(self) -> None:
        raise NotImplementedError

    def seed(self, data: Path, ports: Sequence[int]) -> None:
        """Writes the app's demo data into the fresh folder ``data`` (the app will listen on ``ports``)."""

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        raise NotImplementedError

    def after_start(self, base: str, ports: Sequence[int]) -> None:
        """Seeds what can only go in once the app runs (mail through its SMTP port)."""

    def env(self, data: Path) -> dict[str, str]:
        return {}

    def versions(self) -> dict[str, str]:
        """The pinned version of each package the report shows."""
        found: dict[str, str] = {}
        for path in self.pins():
            if path.name == "requirements.txt":
                for line in path.read_text().splitlines():
                    name, _, version = line.partition("==")
                    if name.strip().lower() in {n.lower() for n in self.shown_versions}:
                        found[name.strip()] = version.strip()
        return found


class PythonApp(App):
    """An app from PyPI, installed with its ``requirements.txt`` (every package pinned) into its own venv."""

    @property
    def python(self) -> Path:
        return self.build / "venv" / "bin" / "python"

    def bin(self, name: str) -> str:
        return str(self.build / "venv" / "bin" / name)

    def _install(self) -> None:
        venv.EnvBuilder(with_pip=True).create(self.build / "venv")
        run([str(self.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "-r", str(self.files / "requirements.txt")])

    def run_python(self, *args: str, env: dict[str, str] | None = None) -> None:
        run([str(self.python), *args], env=env)


class NodeApp(App):
    """An app from npm, installed with ``npm ci`` from its ``package-lock.json``."""

    def _install(self) -> None:
        for name in ("package.json", "package-lock.json"):
            shutil.copy(self.files / name, self.build / name)
        run(["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], cwd=self.build)

    def bin(self, name: str) -> str:
        return str(self.build / "node_modules" / ".bin" / name)

    def versions(self) -> dict[str, str]:
        import json

        lock = json.loads((self.files / "package-lock.json").read_text())
        packages = lock.get("packages", {})
        return {n: packages.get(f"node_modules/{n}", {}).get("version", "?") for n in self.shown_versions}


def run(cmd: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Runs an install or seed step; its output goes to stderr, and a failure says which step it was."""
    done = subprocess.run(
        list(cmd), cwd=cwd, env={**os.environ, **(env or {})}, stdout=sys.stderr, stderr=sys.stderr, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {done.returncode}")
