"""A tiny HTTP server for the bundled demo sites (the demo and the tests use it).

Pages must come over http://127.0.0.1: the extension cannot script data: or file: pages.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SITES = Path(__file__).parent / "sites"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # stdout/stderr stay clean: under stdio, stdout is the protocol


class SiteServer:
    """Serves a folder on 127.0.0.1 in a background thread; use as a context manager."""

    def __init__(self, root: Path = SITES, port: int = 0) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def url(self, page: str) -> str:
        return self.base_url + page

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
