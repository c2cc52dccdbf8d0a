"""Starting an app of the corpus on free loopback ports, waiting until it answers, and stopping it with
every process it started (its own process group)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.apps.base import App

READY_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Running:
    """A started app: its base URL (ending in ``/``), its ports and its data folder."""

    app: App
    base: str
    ports: tuple[int, ...]
    data: Path

    def url(self, path: str) -> str:
        return self.base.rstrip("/") + path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    """True once the server sends any HTTP answer below 500 (a login redirect or a 403 is ready too)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status) < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def running(app: App) -> Iterator[Running]:
    """The app started on fresh data; stopped (its whole process group) on leaving."""
    if not app.installed():
        raise RuntimeError(f"{app.name} is not installed: run `make apps` (or python -m bench.apps install {app.name})")
    with tempfile.TemporaryDirectory(prefix=f"tabmcp-app-{app.name}-") as scratch:
        data = Path(scratch)
        ports = tuple(free_port() for _ in range(1 + app.extra_ports))
        app.seed(data, ports)
        log_path = data / "app.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                app.command(data, ports),
                cwd=data,
                env={**os.environ, **app.env(data)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: stop() ends every process it started
            )
        live = Running(app, f"http://127.0.0.1:{ports[0]}/", ports, data)
        try:
            wait_ready(proc, live.url(app.ready_path), log_path)
            app.after_start(live.base, ports)
            yield live
        finally:
            stop(proc)


@contextmanager
def serving(command: Callable[[int], list[str]], ready_path: str = "/", cwd: Path | None = None) -> Iterator[str]:
    """A server outside the corpus (an app whose fixture script starts it) on a free loopback port:
    ``command(port)`` started in its own process group, its base URL (ending in ``/``) once
    ``ready_path`` answers; stopped with every process it started on leaving."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tabmcp-serving-") as scratch:
        log_path = Path(scratch) / "server.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                command(port), cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{port}/"
        try:
            wait_ready(proc, base + ready_path.lstrip("/"), log_path)
            yield base
        finally:
            stop(proc)


def wait_ready(proc: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}:\n{_tail(log_path)}")
        if answers(url):
            return
        time.sleep(0.1)  # polling a condition (the server answering), not waiting a fixed time
    raise RuntimeError(f"{url} did not answer within {READY_TIMEOUT_S:.0f} s:\n{_tail(log_path)}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the app's process group, SIGKILL if it is still there after 5 s."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=grace)
            # the leader is gone; make sure none of its children is left in the group
            os.killpg(proc.pid, signal.SIGKILL)
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            pass
        break


def _tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""
