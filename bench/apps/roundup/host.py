"""Serves a Roundup tracker through Roundup's own WSGI handler: ``python host.py TRACKER_DIR PORT``.
(roundup-server refuses to run as root, which CI containers are.) Threads, one per request, as
roundup-server's default multiprocess mode would serve pages side by side."""

from __future__ import annotations

import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from roundup.cgi.wsgi_handler import RequestDispatcher


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        sys.stderr.write(f"{self.address_string()} - {format % args}\n")


if __name__ == "__main__":
    home, port = sys.argv[1], int(sys.argv[2])
    server = make_server("127.0.0.1", port, RequestDispatcher(home), ThreadingServer, QuietHandler)
    server.serve_forever()
