"""``tabmcp doctor``: checks of the setup, one small function per check.

Each check returns a ``Check`` (a title, ok or not, lines to print, and for a failure the fix);
``run_doctor`` runs them in order, prints each as it is done (a spinner on stderr while one runs:
the browser's ``--version`` can take seconds), and answers exit code 1 when one failed. The checks:
Python, the browser, the extension folder, the bridge port, pairing, the introspector plugins, and
(with ``--page``) what the introspectors make of a saved page. None of them changes anything.
"""

from __future__ import annotations

import errno
import http.client
import os
import re
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from tabmcp import config, pairing
from tabmcp.addresses import is_loopback, url_host
from tabmcp.config import Settings
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.spinner import Spinner

MIN_PYTHON = (3, 11)
BROWSER_VERSION_TIMEOUT = 20.0  # a cold first start of Chromium on a slow disk takes seconds
PORT_PROBE_TIMEOUT = 2.0
CHROME_IGNORES_LOAD_EXTENSION = 137  # branded Google Chrome from this version on (docs/scaling.md)


@dataclass
class Check:
    title: str
    ok: bool = True
    lines: list[str] = field(default_factory=list)
    fix: str = ""  # what to do about a failure, printed under it


def check_python(version: Sequence[int] = tuple(sys.version_info[:3]), executable: str = sys.executable) -> Check:
    shown = ".".join(str(n) for n in version)
    if tuple(version[:2]) >= MIN_PYTHON:
        return Check(f"python: {shown} ({executable})")
    need = ".".join(str(n) for n in MIN_PYTHON)
    return Check(
        f"python: {shown} is too old, tabmcp needs {need} or newer",
        False,
        [executable],
        f"install Python {need}+ and reinstall tabmcp with it: `pipx install --python python3.12 tabmcp` "
        "or `uvx --python 3.12 tabmcp`",
    )


def check_browser(settings: Settings, timeout: float = BROWSER_VERSION_TIMEOUT) -> Check:
    """The executable ``connect_browser(launch=true)`` would start, and what it says its version is."""
    if settings.cdp_endpoint:
        return Check(f"browser: the one at {settings.cdp_endpoint} (TABMCP_CDP_ENDPOINT); none needed here")
    path = settings.resolved_browser_path()
    install = (
        "apt-get install -y chromium (Debian/Ubuntu), or point TABMCP_BROWSER_PATH / --browser-path at a "
        "Chromium or Chrome executable"
    )
    if path is None:
        looked = config.CHROME_PATHS if settings.browser == "chrome" else config.CHROMIUM_PATHS
        return Check("browser: no Chromium/Chrome found", False, [f"looked at {', '.join(looked)}"], install)
    source = " (TABMCP_BROWSER_PATH / --browser-path)" if settings.browser_path else ""
    if not Path(path).is_file() or not os.access(path, os.X_OK):
        why = "is not an executable file" if Path(path).exists() else "does not exist"
        return Check(f"browser: {path}{source} {why}", False, [], install)
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Check(f"browser: {path} did not answer --version within {timeout:g} s", False, [], install)
    except OSError as exc:
        return Check(f"browser: {path} cannot run: {exc.strerror or exc}", False, [], install)
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    if done.returncode != 0 or not said:
        tail = said[-3:] if said else [f"exit code {done.returncode}, no output"]
        return Check(f"browser: {path} --version failed", False, tail, install)
    chosen = ["chosen by TABMCP_BROWSER_PATH / --browser-path"] if settings.browser_path else []
    return Check(f"browser: {said[0]} ({path})", True, chosen + _chrome_notes(said[0]))


def check_extension(folder: Path | None = None) -> Check:
    """The folder a user loads unpacked and ``launch=true`` copies: present, MV3, every named file there."""
    from tabmcp.drivers.launch import LaunchError, extension_source
    from tabmcp.extension_pack import ExtensionError, check_folder

    reinstall = "reinstall tabmcp (`pipx reinstall tabmcp`, or `pip install --force-reinstall tabmcp`)"
    try:
        folder = folder or extension_source()
        manifest = check_folder(folder)
    except LaunchError as exc:
        return Check("extension: folder not found", False, [str(exc)], reinstall)
    except ExtensionError as exc:
        return Check(f"extension: {folder} cannot be loaded", False, [str(exc)], reinstall)
    return Check(
        f"extension: {manifest['name']} {manifest['version']} (MV3) at {folder}",
        True,
        ["load it in your Chrome: chrome://extensions → Developer mode → Load unpacked → that folder"],
    )


def check_port(settings: Settings, timeout: float = PORT_PROBE_TIMEOUT) -> Check:
    """Whether ``tabmcp serve`` could open its bridge; if the port is taken, by a tabmcp or by what else."""
    host, port = settings.ws_host, settings.ws_port
    if not is_loopback(host) and not settings.ws_allow_remote:
        return Check(
            f"port: the bridge refuses to listen on {host} (not a loopback address)",
            False,
            [],
            "use --ws-host 127.0.0.1, or allow it on purpose with --ws-allow-remote (TABMCP_WS_ALLOW_REMOTE=true)",
        )
    if port == 0:
        return Check(
            "port: the bridge picks a free port (TABMCP_WS_PORT=0)",
            True,
            ["only a browser tabmcp launches can find such a port; your own Chrome needs a fixed one"],
        )
    where = f"{url_host(host)}:{port}"
    error = _bind_error(host, port)
    if error is None:
        return Check(f"port: {where} is free for the extension bridge")
    fix = (
        f"choose another port: --ws-port {port + 1 if port < 65535 else 8765} (TABMCP_WS_PORT), and set the same "
        "port in the extension's options"
    )
    if error.errno != errno.EADDRINUSE:
        return Check(f"port: cannot listen on {where}: {error.strerror or error}", False, [], fix)
    found = _probe_bridge(host, port, timeout)
    if found is None:
        return Check(f"port: {where} is in use by another program (not a tabmcp bridge)", False, [], fix)
    version, pid = found
    return Check(
        f"port: {where} is in use by a running tabmcp {version} (pid {pid})",
        True,
        ["your browser's extension connects to that server; a second server needs another --ws-port"],
    )


def check_pairing(settings: Settings) -> Check:
    """The token the extension must present: readable, long enough, and private (0600) once it exists.

    None yet is fine: the server makes it on first use and writes it into any browser it launches, so
    only a user's own Chrome needs it pasted; the doctor then checks that it can be made there.
    """
    if settings.pairing_token and settings.pairing_token.strip():
        return Check("pairing: the token comes from TABMCP_PAIRING_TOKEN")
    path = pairing.resolve_config_dir(settings.config_dir) / pairing.TOKEN_FILE
    paste = "paste it in the extension's options (chrome://extensions → tabmcp → Details → Extension options)"
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        token = path.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return _no_token_yet(path, paste)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Check(
            f"pairing: {path} cannot be read: {why}",
            False,
            [],
            f"it must be a file of yours; or replace it: `tabmcp token --rotate`, then {paste}",
        )
    if len(token) < pairing.MIN_TOKEN_CHARS:
        return Check(
            f"pairing: the token in {path} is empty or damaged", False, [], f"`tabmcp token --rotate`, then {paste}"
        )
    if mode & 0o077:
        return Check(f"pairing: {path} is readable by others (mode {mode:03o})", False, [], f"chmod 600 {path}")
    return Check(f"pairing: token in {path} (mode {mode:03o})", True, ["`tabmcp token` shows it"])


def _no_token_yet(path: Path, paste: str) -> Check:
    """An ok, unless the folder the token would go in cannot be made or written."""
    blocked = _unwritable_ancestor(path.parent)
    if blocked is not None:
        return Check(
            f"pairing: no pairing token yet, and it cannot be made in {path.parent}",
            False,
            [f"{blocked} is not a folder you can write to"],
            "choose a folder of yours: --config-dir DIR (TABMCP_CONFIG_DIR), or set TABMCP_PAIRING_TOKEN",
        )
    return Check(
        f"pairing: no pairing token yet ({path}): made on first use",
        True,
        [
            "a browser tabmcp launches (connect_browser(launch=true)) is paired automatically",
            f"for your own Chrome run `tabmcp token` and {paste}",
        ],
    )


def _unwritable_ancestor(folder: Path) -> Path | None:
    """The nearest existing ancestor of ``folder`` (itself included) when creating files under it would fail."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            writable = candidate.is_dir() and os.access(candidate, os.W_OK | os.X_OK)
            return None if writable else candidate
    return None


def check_introspectors(registry: Registry) -> Check:
    infos = registry.describe()
    rows = [(i.kind, i.name, i.source, _patterns(i.url_patterns, i.has_predicate)) for i in infos]
    return Check(f"introspectors: {len(infos)} found (in the order they run)", True, _table(rows))


def check_plugin_errors(registry: Registry) -> Check:
    if not registry.errors:
        return Check("plugins that failed to load: none")
    return Check(f"plugins that failed to load: {len(registry.errors)}", False, list(registry.errors))


def check_page(registry: Registry, page: Path, url: str, settings: Settings) -> list[Check]:
    """What a client would be offered on this saved page (HTML as the page agent captures it, with
    ``data-tabmcp-ref`` attributes), and which introspectors failed on it."""
    from tabmcp.tools.catalog import CATALOG

    try:
        html = page.read_text(encoding="utf-8")
    except OSError as exc:
        return [Check(f"page {page}: cannot be read", False, [str(exc)])]
    capture = PageCapture(url=url, title=page.name, html=html)
    before = {name: failure.count for name, failure in registry.failures.items()}
    tools = registry.page_tools(capture, reserved={t.name for t in CATALOG}, limit=settings.max_page_tools)
    rows = [(t.name + _signature(t.schema), t.source, t.title or "") for t in tools]
    listed = Check(f"tools on {page.name} as {url}: {len(tools)}", True, _table(rows))
    failed = {n: f for n, f in registry.failures.items() if f.count > before.get(n, 0)}
    if not failed:
        return [listed, Check("introspector failures on the page: none")]
    lines = [f"{name}: {f.last_error}" for name, f in failed.items()]
    return [listed, Check(f"introspector failures on the page: {len(failed)}", False, lines)]


def run_doctor(
    settings: Settings,
    *,
    page: Path | None = None,
    url: str = "",
    out: TextIO,
    progress: Spinner | None = None,
) -> int:
    spin = progress or Spinner(out, live=False)
    registry: list[Registry] = []

    def introspectors() -> list[Check]:
        registry.append(Registry.discover(settings.introspectors_dir))
        return [check_introspectors(registry[0]), check_plugin_errors(registry[0])]

    steps: list[tuple[str, Callable[[], Check | list[Check]]]] = [
        ("Python", check_python),
        ("the browser", lambda: check_browser(settings)),
        ("the extension", check_extension),
        ("the bridge port", lambda: check_port(settings)),
        ("pairing", lambda: check_pairing(settings)),
        ("the introspector plugins", introspectors),
    ]
    if page is not None:
        saved, as_url = page, url or "http://localhost/"
        steps.append((f"the page {page.name}", lambda: check_page(registry[0], saved, as_url, settings)))
    status = [f"[{n}/{len(steps)}] checking {label}…" for n, (label, _) in enumerate(steps, 1)]
    spin.update(status[0])
    failed = 0
    for number, (_, step) in enumerate(steps, 1):
        done = step()
        checks = done if isinstance(done, list) else [done]
        failed += sum(not check.ok for check in checks)
        with spin.hold(then=status[number] if number < len(steps) else ""):
            for check in checks:
                _print(check, out)
    return 0 if failed == 0 else 1


def _print(check: Check, out: TextIO) -> None:
    print(f"{'ok  ' if check.ok else 'FAIL'} {check.title}", file=out)
    for line in check.lines:
        print(f"       {line}", file=out)
    if not check.ok and check.fix:
        print(f"       fix: {check.fix}", file=out)
    out.flush()


def _bind_error(host: str, port: int) -> OSError | None:
    """What binding ``host:port`` as the bridge does (SO_REUSEADDR, as asyncio) raises; None when it works."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        return exc
    return None


def _probe_bridge(host: str, port: int, timeout: float) -> tuple[str, str] | None:
    """A running tabmcp bridge's (version, pid), from its answer to a plain GET (``bridge.identity``)."""
    from tabmcp.drivers.extension import IDENTITY

    target = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
    connection = http.client.HTTPConnection(target, port, timeout=timeout)
    try:
        connection.request("GET", "/", headers={"Host": f"{url_host(target)}:{port}"})
        response = connection.getresponse()
        body = response.read(200).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    found = IDENTITY.match(body) if response.status == 200 else None
    return (found["version"], found["pid"]) if found else None


def _chrome_notes(version_line: str) -> list[str]:
    found = re.match(r"Google Chrome (\d+)\.", version_line)
    if found and int(found[1]) >= CHROME_IGNORES_LOAD_EXTENSION:
        return [
            "Google Chrome 137+ ignores --load-extension: launch=true needs the CDP driver (--browser chrome), "
            "or load the extension in it yourself"
        ]
    return []


def _patterns(patterns: Sequence[str], predicate: bool) -> str:
    text = ", ".join(patterns) if patterns else "(no URL patterns)"
    return f"{text} + predicate" if predicate else text


def _signature(schema: dict[str, object]) -> str:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])  # type: ignore[arg-type]
    names = [n if n in required else f"{n}?" for n in properties]  # type: ignore[union-attr]
    return f"({', '.join(names)})"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines
