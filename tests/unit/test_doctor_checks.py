"""``tabmcp doctor``'s setup checks, one by one, against real files, real executables and real ports;
then the whole command through a subprocess, as a user runs it."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tabmcp import config, pairing
from tabmcp.config import Settings
from tabmcp.demo.client import tabmcp_command
from tabmcp.doctor import (
    check_browser,
    check_extension,
    check_pairing,
    check_port,
    check_python,
    run_doctor,
)
from tabmcp.drivers import launch
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.spinner import ERASE_LINE, Spinner

TOKEN = "doctor-test-token-abcdefghijklmnop"
REPO_EXTENSION = Path(__file__).resolve().parents[2] / "extension"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("TABMCP_"):
            monkeypatch.delenv(name)


def settings(**values: object) -> Settings:
    return Settings(**values)  # type: ignore[arg-type]


def executable(path: Path, script: str) -> Path:
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)
    return path


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


# ----------------------------------------------------------------- python


def test_python_3_11_or_newer_passes_and_older_says_how_to_get_one() -> None:
    assert check_python((3, 11, 0), "/usr/bin/python3").ok
    assert check_python((3, 13, 1), "/usr/bin/python3").title == "python: 3.13.1 (/usr/bin/python3)"
    old = check_python((3, 10, 12), "/usr/bin/python3")
    assert not old.ok
    assert "3.10.12 is too old" in old.title and "3.11" in old.title
    assert "pipx install --python" in old.fix and "uvx --python" in old.fix


# ----------------------------------------------------------------- browser


def test_a_browser_that_answers_its_version_passes(tmp_path: Path) -> None:
    browser = executable(tmp_path / "chromium", 'echo "Chromium 123.0.6312.58 built on Debian"')
    check = check_browser(settings(browser_path=str(browser)))
    assert check.ok
    assert check.title == f"browser: Chromium 123.0.6312.58 built on Debian ({browser})"
    assert check.lines == ["chosen by TABMCP_BROWSER_PATH / --browser-path"]


def test_a_missing_browser_path_fails_with_how_to_install_one(tmp_path: Path) -> None:
    check = check_browser(settings(browser_path=str(tmp_path / "nowhere" / "chromium")))
    assert not check.ok
    assert "does not exist" in check.title and str(tmp_path / "nowhere" / "chromium") in check.title
    assert "apt-get install -y chromium" in check.fix and "TABMCP_BROWSER_PATH" in check.fix


def test_no_browser_anywhere_says_where_it_looked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(config, "CHROMIUM_PATHS", (str(tmp_path / "chromium"), str(tmp_path / "chrome")))
    check = check_browser(settings())
    assert not check.ok and check.title == "browser: no Chromium/Chrome found"
    assert check.lines == [f"looked at {tmp_path / 'chromium'}, {tmp_path / 'chrome'}"]
    assert "apt-get install -y chromium" in check.fix


def test_a_file_that_is_not_executable_fails(tmp_path: Path) -> None:
    (tmp_path / "chromium").write_text("not a program")
    check = check_browser(settings(browser_path=str(tmp_path / "chromium")))
    assert not check.ok and "is not an executable file" in check.title


def test_a_browser_that_fails_or_hangs_on_version_fails(tmp_path: Path) -> None:
    broken = executable(tmp_path / "broken", 'echo "error while loading shared libraries: libnss3.so" >&2; exit 127')
    check = check_browser(settings(browser_path=str(broken)))
    assert not check.ok and check.title.endswith("--version failed")
    assert check.lines == ["error while loading shared libraries: libnss3.so"]
    hangs = executable(tmp_path / "hangs", "exec sleep 30")
    check = check_browser(settings(browser_path=str(hangs)), timeout=0.3)
    assert not check.ok and "did not answer --version within 0.3 s" in check.title


def test_branded_chrome_137_or_newer_gets_a_note_about_load_extension(tmp_path: Path) -> None:
    new = executable(tmp_path / "chrome-new", 'echo "Google Chrome 140.0.7339.80"')
    old = executable(tmp_path / "chrome-old", 'echo "Google Chrome 136.0.7103.92"')
    noted = check_browser(settings(browser_path=str(new)))
    assert noted.ok and len(noted.lines) == 2 and "ignores --load-extension" in noted.lines[1]
    assert len(check_browser(settings(browser_path=str(old))).lines) == 1


def test_a_remote_browser_needs_none_here(tmp_path: Path) -> None:
    check = check_browser(settings(cdp_endpoint="http://127.0.0.1:9222", browser_path=str(tmp_path / "absent")))
    assert check.ok and "http://127.0.0.1:9222" in check.title


# ----------------------------------------------------------------- extension


def test_the_packaged_extension_passes() -> None:
    check = check_extension()
    assert check.ok
    assert check.title.startswith("extension: tabmcp ") and "(MV3)" in check.title
    assert check.title.endswith(str(launch.extension_source()))


def test_an_extension_with_a_missing_file_fails_with_its_name(tmp_path: Path) -> None:
    folder = tmp_path / "extension"
    shutil.copytree(REPO_EXTENSION, folder)
    (folder / "agent" / "entry.js").unlink()
    check = check_extension(folder)
    assert not check.ok and check.title == f"extension: {folder} cannot be loaded"
    assert "missing: agent/entry.js" in check.lines[0]
    assert "reinstall" in check.fix
    (folder / "manifest.json").write_text("{")
    assert "not valid JSON" in check_extension(folder).lines[0]


def test_no_extension_folder_at_all_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def nowhere() -> Path:
        raise launch.LaunchError("tabmcp's extension/ folder was not found next to the package")

    monkeypatch.setattr(launch, "extension_source", nowhere)
    check = check_extension()
    assert not check.ok and check.title == "extension: folder not found"
    assert "pipx reinstall tabmcp" in check.fix


# ----------------------------------------------------------------- port


def test_a_free_port_passes() -> None:
    with listening_socket() as sock:
        port = sock.getsockname()[1]
    check = check_port(settings(ws_port=port))
    assert check.ok and check.title == f"port: 127.0.0.1:{port} is free for the extension bridge"


def test_a_port_held_by_another_program_fails_with_another_port_to_use() -> None:
    with listening_socket() as sock:
        port = sock.getsockname()[1]
        check = check_port(settings(ws_port=port), timeout=0.5)  # it accepts, and never answers
    assert not check.ok
    assert check.title == f"port: 127.0.0.1:{port} is in use by another program (not a tabmcp bridge)"
    assert f"--ws-port {port + 1}" in check.fix and "TABMCP_WS_PORT" in check.fix


class _Other(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"tabmcp is not here, but a web server is\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def other_web_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Other)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_another_web_server_is_not_taken_for_tabmcp(other_web_server: int) -> None:
    check = check_port(settings(ws_port=other_web_server))
    assert not check.ok and "another program" in check.title


async def test_a_port_held_by_a_running_tabmcp_passes_and_says_which() -> None:
    bridge = Bridge(port=0, token=TOKEN)
    await bridge.start()
    try:
        check = await asyncio.to_thread(check_port, settings(ws_port=bridge.port))
    finally:
        await bridge.stop()
    assert check.ok
    assert check.title.startswith(f"port: 127.0.0.1:{bridge.port} is in use by a running tabmcp ")
    assert check.title.endswith(f"(pid {os.getpid()})")
    assert bridge.last_refusal is None


def test_port_zero_and_a_refused_address() -> None:
    assert check_port(settings(ws_port=0)).ok
    remote = check_port(settings(ws_host="0.0.0.0", ws_port=8765))
    assert not remote.ok and "--ws-allow-remote" in remote.fix


# ----------------------------------------------------------------- pairing


def test_a_private_token_passes(tmp_path: Path) -> None:
    pairing.load_or_create(tmp_path)
    check = check_pairing(settings(config_dir=tmp_path))
    assert check.ok and check.title == f"pairing: token in {tmp_path / pairing.TOKEN_FILE} (mode 600)"
    assert check_pairing(settings(config_dir=tmp_path / "absent", pairing_token=TOKEN)).ok  # from the environment


def test_no_token_yet_is_fine_and_says_how_each_browser_gets_it(tmp_path: Path) -> None:
    check = check_pairing(settings(config_dir=tmp_path / "tabmcp"))
    path = tmp_path / "tabmcp" / pairing.TOKEN_FILE
    assert check.ok and check.title == f"pairing: no pairing token yet ({path}): made on first use"
    assert "paired automatically" in check.lines[0]
    assert "`tabmcp token`" in check.lines[1] and "extension's options" in check.lines[1]
    assert not path.exists() and not path.parent.exists()  # the doctor looks, it does not make one


def test_no_token_and_no_folder_it_could_go_in_fails(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    check = check_pairing(settings(config_dir=tmp_path / "a-file" / "tabmcp"))
    assert not check.ok
    assert check.title == f"pairing: no pairing token yet, and it cannot be made in {tmp_path / 'a-file' / 'tabmcp'}"
    assert check.lines == [f"{tmp_path / 'a-file'} is not a folder you can write to"]
    assert "--config-dir" in check.fix and "TABMCP_PAIRING_TOKEN" in check.fix


def test_a_token_others_can_read_fails_and_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / pairing.TOKEN_FILE
    path.write_text(TOKEN)
    path.chmod(0o644)
    check = check_pairing(settings(config_dir=tmp_path))
    assert not check.ok and check.title == f"pairing: {path} is readable by others (mode 644)"
    assert check.fix == f"chmod 600 {path}"
    assert path.stat().st_mode & 0o777 == 0o644


def test_an_unreadable_or_damaged_token_fails(tmp_path: Path) -> None:
    path = tmp_path / pairing.TOKEN_FILE
    path.mkdir()  # something that exists and cannot be read as a file
    unreadable = check_pairing(settings(config_dir=tmp_path))
    assert not unreadable.ok and unreadable.title.startswith(f"pairing: {path} cannot be read: ")
    assert "tabmcp token --rotate" in unreadable.fix
    path.rmdir()
    path.write_text("short")
    path.chmod(0o600)
    damaged = check_pairing(settings(config_dir=tmp_path))
    assert not damaged.ok and "empty or damaged" in damaged.title and "--rotate" in damaged.fix


# ----------------------------------------------------------------- the whole run


def test_a_failed_check_prints_its_fix_and_the_run_answers_1(tmp_path: Path) -> None:
    browser = executable(tmp_path / "chromium", 'echo "Chromium 1.0"')
    fresh = settings(config_dir=tmp_path / "config", ws_port=0, browser_path=str(browser))
    out = io.StringIO()
    assert run_doctor(fresh, out=out) == 0  # no token yet is not a failure
    assert f"ok   pairing: no pairing token yet ({tmp_path / 'config' / pairing.TOKEN_FILE})" in out.getvalue()
    token = tmp_path / "config" / pairing.TOKEN_FILE
    pairing.load_or_create(token.parent)
    token.chmod(0o644)
    out = io.StringIO()
    assert run_doctor(fresh, out=out) == 1
    lines = out.getvalue().splitlines()
    failed = lines.index(f"FAIL pairing: {token} is readable by others (mode 644)")
    assert lines[failed + 1] == f"       fix: chmod 600 {token}"
    titles = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    assert titles == [
        "ok   python", "ok   browser", "ok   extension", "ok   port", "FAIL pairing", "ok   introspectors",
        "ok   plugins that failed to load",
    ]  # fmt: skip
    token.chmod(0o600)
    assert run_doctor(fresh, out=io.StringIO()) == 0


def test_progress_shows_each_step_on_the_terminal_and_leaves_the_report_alone(tmp_path: Path) -> None:
    class FakeTTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, out = FakeTTY(), io.StringIO()
    pairing.load_or_create(tmp_path)
    with Spinner(tty, interval=None) as spin:
        run_doctor(settings(config_dir=tmp_path, ws_port=0), out=out, progress=spin)
    shown = tty.getvalue()
    for number, label in enumerate(["Python", "the browser", "the extension", "the bridge port", "pairing"], 1):
        assert f"[{number}/6] checking {label}…" in shown
    assert shown.endswith(ERASE_LINE)
    assert ERASE_LINE not in out.getvalue() and "checking" not in out.getvalue()


def test_the_command_as_a_user_runs_it(tmp_path: Path) -> None:
    """A real process: the real browser's --version, a real token file, a port really taken."""
    command, prefix = tabmcp_command()
    pairing.load_or_create(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABMCP_")}
    env["TABMCP_CONFIG_DIR"] = str(tmp_path)
    with listening_socket() as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(
            [command, *prefix, "doctor", "--ws-port", str(port)],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL port: 127.0.0.1:{port} is in use by another program (not a tabmcp bridge)" in done.stdout
    assert f"fix: choose another port: --ws-port {port + 1}" in done.stdout
    assert "ok   browser: " in done.stdout and "ok   pairing: " in done.stdout
    assert done.stderr == ""  # not a terminal: no progress line, no noise
    free = subprocess.run(
        [command, *prefix, "doctor", "--ws-port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert free.returncode == 0, free.stdout + free.stderr
    assert "FAIL" not in free.stdout


def test_a_new_user_with_an_empty_home_gets_no_failure(tmp_path: Path) -> None:
    """No config folder, no token, no TABMCP_* variable: what `tabmcp doctor` sees on a fresh machine."""
    command, prefix = tabmcp_command()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABMCP_") and k != "XDG_CONFIG_HOME"}
    env["HOME"] = str(tmp_path)
    done = subprocess.run(
        [command, *prefix, "doctor", "--ws-port", "0"],  # 8765 may be taken by a test run on this machine
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    token = tmp_path / ".config" / "tabmcp" / pairing.TOKEN_FILE
    assert f"ok   pairing: no pairing token yet ({token}): made on first use" in done.stdout
    assert "FAIL" not in done.stdout and not (tmp_path / ".config").exists()
