"""``tabmcp install-native-host``: the host manifest Chrome reads, and the launcher it points at.

Chrome finds a native messaging host by name in a per-user folder (Linux, macOS) or the registry
(Windows), and starts the executable the manifest's ``path`` names with no arguments but the caller
origin, so the manifest points at a small launcher script that runs this Python with
``-m tabmcp native-host --socket PATH`` (the socket resolved now, so Chrome's environment does not
matter). Where the folders are is computed purely from the platform, home and environment given,
so every OS's answer is tested here on Linux.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tabmcp import pairing
from tabmcp.native import HOST_NAME

Browser = Literal["chromium", "chrome"]
BROWSERS: tuple[Browser, ...] = ("chromium", "chrome")
MANIFEST_FILE = f"{HOST_NAME}.json"
LAUNCHER_DIR = "native-host"
LAUNCHER_FILE = "tabmcp-native-host"
DESCRIPTION = "tabmcp: relays the tabmcp browser extension to the tabmcp MCP server on this computer"
# Linux: chrome_paths_linux.cc's default user data dirs; macOS: under Application Support
LINUX_DIRS = {"chrome": "google-chrome", "chromium": "chromium"}
MAC_DIRS = {"chrome": Path("Google") / "Chrome", "chromium": Path("Chromium")}
WINDOWS_KEYS = {
    "chrome": rf"HKCU\Software\Google\Chrome\NativeMessagingHosts\{HOST_NAME}",
    "chromium": rf"HKCU\Software\Chromium\NativeMessagingHosts\{HOST_NAME}",
}


class UnsupportedPlatform(Exception):
    """This command cannot register the host here; the message says what would be needed."""


@dataclass(frozen=True)
class Target:
    """One folder Chrome reads host manifests from, and for whom."""

    browser: str  # "chrome", "chromium", or "profile" for an explicit --user-data-dir
    folder: Path

    @property
    def manifest(self) -> Path:
        return self.folder / MANIFEST_FILE


def targets(
    browsers: Iterable[Browser],
    *,
    platform: str,
    home: Path,
    environ: Mapping[str, str],
    user_data_dir: Path | None = None,
) -> list[Target]:
    """The user-level manifest folders for these browsers on ``platform`` (``sys.platform``).

    With ``user_data_dir`` (a profile started with ``--user-data-dir``), Chromium on Linux and macOS
    reads ``DIR/NativeMessagingHosts`` (chrome::DIR_USER_NATIVE_MESSAGING is the user data dir's
    ``NativeMessagingHosts``), so that folder alone, whatever the browser.
    """
    if platform == "win32":
        keys = "; ".join(WINDOWS_KEYS[b] for b in browsers)
        raise UnsupportedPlatform(
            "on Windows Chrome finds native hosts through the registry "
            f"({keys}, default value = the manifest's path), and tabmcp's server has no named-pipe "
            "listener yet: use the WebSocket bridge there (docs/native-messaging.md)"
        )
    if user_data_dir is not None:
        return [Target("profile", user_data_dir.expanduser().absolute() / "NativeMessagingHosts")]
    if platform == "darwin":
        support = home / "Library" / "Application Support"
        return [Target(b, support / MAC_DIRS[b] / "NativeMessagingHosts") for b in browsers]
    if platform.startswith(("linux", "freebsd", "openbsd")):
        return [Target(b, _linux_config(home, environ) / LINUX_DIRS[b] / "NativeMessagingHosts") for b in browsers]
    raise UnsupportedPlatform(f"no known native messaging host folder for platform {platform!r}")


def _linux_config(home: Path, environ: Mapping[str, str]) -> Path:
    """Chrome's config base on Linux: $CHROME_CONFIG_HOME, else $XDG_CONFIG_HOME, else ~/.config."""
    for name in ("CHROME_CONFIG_HOME", "XDG_CONFIG_HOME"):
        value = environ.get(name, "")
        if value and Path(value).is_absolute():
            return Path(value)
    return home / ".config"


def host_manifest(launcher: Path, extension_ids: Iterable[str] = ()) -> dict[str, object]:
    """The manifest: Chrome requires an absolute ``path`` and exact ``chrome-extension://ID/`` origins."""
    ids = dict.fromkeys(i.strip() for i in (pairing.EXTENSION_ID, *extension_ids) if i.strip())
    return {
        "name": HOST_NAME,
        "description": DESCRIPTION,
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [f"{pairing.extension_origin(i)}/" for i in ids],
    }


def launcher_script(python: str, socket: Path) -> str:
    """The shell script Chrome runs; ``"$@"`` passes on the caller origin."""
    command = shlex.join([python, "-m", "tabmcp", "native-host", "--socket", str(socket)])
    return (
        "#!/bin/sh\n"
        "# Written by `tabmcp install-native-host`: Chrome starts this for the tabmcp extension.\n"
        f'exec {command} "$@"\n'
    )


def launcher_path(config_dir: Path) -> Path:
    return config_dir / LAUNCHER_DIR / LAUNCHER_FILE


def install(found: list[Target], launcher: Path, python: str, socket: Path, extension_ids: Iterable[str] = ()) -> None:
    """Write the launcher (0700) and one manifest per target."""
    launcher.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    launcher.write_text(launcher_script(python, socket))
    launcher.chmod(0o700)
    text = json.dumps(host_manifest(launcher.absolute(), extension_ids), indent=2) + "\n"
    for target in found:
        target.folder.mkdir(parents=True, exist_ok=True)
        target.manifest.write_text(text)


def uninstall(found: list[Target], launcher: Path, others: Iterable[Target] = ()) -> list[Path]:
    """Remove these targets' manifests, and the launcher once no manifest in ``others`` still uses it."""
    removed = []
    for target in found:
        if target.manifest.exists():
            target.manifest.unlink()
            removed.append(target.manifest)
    if launcher.exists() and not any(_points_at(t.manifest, launcher) for t in others):
        launcher.unlink()
        removed.append(launcher)
        if launcher.parent.is_dir() and not any(launcher.parent.iterdir()):
            launcher.parent.rmdir()
    return removed


def _points_at(manifest: Path, launcher: Path) -> bool:
    try:
        return json.loads(manifest.read_text()).get("path") == str(launcher.absolute())
    except (OSError, ValueError, AttributeError):
        return False


def current_platform() -> tuple[str, Path, Mapping[str, str]]:
    """This machine's platform, home and environment: what ``targets`` needs."""
    import sys

    return sys.platform, Path.home(), os.environ
