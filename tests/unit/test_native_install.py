"""Where `tabmcp install-native-host` writes for each OS (from a fake home and platform), what it
writes, and how it uninstalls; and the command itself on this machine, into a fake profile."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tabmcp import pairing
from tabmcp.cli import main
from tabmcp.native import install as native

HOME = Path("/home/ada")


def folders(browsers: tuple[native.Browser, ...], platform: str, **environ: str) -> list[Path]:
    return [t.folder for t in native.targets(browsers, platform=platform, home=HOME, environ=environ)]


def test_linux_user_level_folders() -> None:
    assert folders(native.BROWSERS, "linux") == [
        HOME / ".config/chromium/NativeMessagingHosts",
        HOME / ".config/google-chrome/NativeMessagingHosts",
    ]
    assert folders(("chrome",), "linux", XDG_CONFIG_HOME="/xdg") == [Path("/xdg/google-chrome/NativeMessagingHosts")]
    assert folders(("chromium",), "linux", XDG_CONFIG_HOME="relative") == [
        HOME / ".config/chromium/NativeMessagingHosts"  # the XDG spec: a relative value is ignored
    ]
    assert folders(("chrome",), "linux", CHROME_CONFIG_HOME="/cc", XDG_CONFIG_HOME="/xdg") == [
        Path("/cc/google-chrome/NativeMessagingHosts")
    ]


def test_macos_user_level_folders() -> None:
    support = HOME / "Library/Application Support"
    assert folders(native.BROWSERS, "darwin", XDG_CONFIG_HOME="/ignored") == [
        support / "Chromium/NativeMessagingHosts",
        support / "Google/Chrome/NativeMessagingHosts",
    ]


def test_a_profile_dir_wins_over_the_browser_folders(tmp_path: Path) -> None:
    for platform in ("linux", "darwin"):
        found = native.targets(native.BROWSERS, platform=platform, home=HOME, environ={}, user_data_dir=tmp_path)
        assert [t.manifest for t in found] == [tmp_path / "NativeMessagingHosts/com.tabmcp.bridge.json"]


def test_windows_names_the_registry_keys_and_says_it_is_not_done() -> None:
    with pytest.raises(native.UnsupportedPlatform) as refused:
        native.targets(native.BROWSERS, platform="win32", home=HOME, environ={})
    text = str(refused.value)
    assert r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabmcp.bridge" in text
    assert r"HKCU\Software\Chromium\NativeMessagingHosts\com.tabmcp.bridge" in text
    assert "WebSocket" in text


def test_manifest_content() -> None:
    manifest = native.host_manifest(
        Path("/opt/x/launcher"), ["  ", "abcdefghijklmnopabcdefghijklmnop", pairing.EXTENSION_ID]
    )
    assert manifest == {
        "name": "com.tabmcp.bridge",
        "description": native.DESCRIPTION,
        "path": "/opt/x/launcher",
        "type": "stdio",
        "allowed_origins": [
            f"chrome-extension://{pairing.EXTENSION_ID}/",
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop/",
        ],
    }


def test_launcher_script_runs_this_python_with_the_socket(tmp_path: Path) -> None:
    script = native.launcher_script("/venv path/bin/python", Path("/run/it's/bridge.sock"))
    assert script.startswith("#!/bin/sh\n")
    line = script.splitlines()[-1]
    assert line.startswith("exec '/venv path/bin/python' -m tabmcp native-host --socket ")
    assert line.endswith(' "$@"')
    # the shell reads the quoting back to the exact arguments
    out = subprocess.run(
        ["sh", "-c", line.replace("exec ", "printf '%s\\n' ", 1), "sh", "chrome-extension://x/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out == [
        "/venv path/bin/python",
        "-m",
        "tabmcp",
        "native-host",
        "--socket",
        "/run/it's/bridge.sock",
        "chrome-extension://x/",
    ]


def test_install_then_uninstall_keeps_a_launcher_still_in_use(tmp_path: Path) -> None:
    launcher = tmp_path / "config/native-host/tabmcp-native-host"
    chromium = native.Target("chromium", tmp_path / "chromium/NativeMessagingHosts")
    chrome = native.Target("chrome", tmp_path / "chrome/NativeMessagingHosts")
    native.install([chromium, chrome], launcher, sys.executable, tmp_path / "s.sock")
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o700
    assert json.loads(chrome.manifest.read_text())["path"] == str(launcher)
    assert native.uninstall([chromium], launcher, others=[chrome]) == [chromium.manifest]
    assert launcher.exists()  # Chrome's manifest still points at it
    assert native.uninstall([chrome], launcher, others=[chromium]) == [chrome.manifest, launcher]
    assert not launcher.parent.exists()


def test_the_command_writes_a_profile_manifest_chrome_can_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, config = tmp_path / "profile", tmp_path / "config"
    assert main(["install-native-host", "--user-data-dir", str(profile), "--config-dir", str(config)]) == 0
    written = capsys.readouterr().out.split()
    manifest_path = profile / "NativeMessagingHosts/com.tabmcp.bridge.json"
    assert written == [str(manifest_path), str(config / "native-host/tabmcp-native-host")]
    manifest = json.loads(manifest_path.read_text())
    assert manifest["allowed_origins"] == [f"chrome-extension://{pairing.EXTENSION_ID}/"]
    launcher = Path(manifest["path"])
    assert launcher.is_absolute() and os.access(launcher, os.X_OK)
    assert f"--socket {config / 'bridge.sock'}" in launcher.read_text()
    assert sys.executable in launcher.read_text()

    # run by hand (no caller origin), the launcher reaches `tabmcp native-host`, which explains itself
    ran = subprocess.run([str(launcher)], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    assert ran.returncode == 2
    assert b"caller origin" in ran.stderr
    assert b'"state":"closed"' in ran.stdout  # and tells the extension, on Chrome's channel

    assert (
        main(["install-native-host", "--uninstall", "--user-data-dir", str(profile), "--config-dir", str(config)]) == 0
    )
    assert not manifest_path.exists() and not launcher.exists()


def test_the_command_refuses_a_socket_path_too_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_socket = tmp_path / ("d" * 120) / "bridge.sock"
    code = main(["install-native-host", "--user-data-dir", str(tmp_path), "--native-socket", str(long_socket)])
    assert code == 2
    assert "too long" in capsys.readouterr().err
    assert not (tmp_path / "NativeMessagingHosts").exists()
