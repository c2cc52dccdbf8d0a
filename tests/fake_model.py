"""A fake OpenAI-compatible chat endpoint for the natural-language tools' tests: real HTTP on
127.0.0.1, answers scripted by the test.

``POST /v1/chat/completions`` answers each request with the next scripted reply (see ``answer``),
records every request body, and can be told to answer late (``delay``) or with an HTTP error.
Runs in a thread of the test process, so a test scripts it directly while ``tabmcp serve`` (another
process) talks to it over the socket.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | dict[str, Any] | Callable[[dict[str, Any]], Any]


@dataclass
class Scripted:
    """``content``: the assistant's text (a dict is sent as its JSON); a callable gets the request body
    and returns the content. ``status`` other than 200 sends ``raw`` as the body instead. ``when``: the
    reply goes only to a request whose question contains it, so a late request of an earlier call
    (one the server gave up on, still reaching the socket) cannot take it."""

    content: Reply = ""
    delay: float = 0.0
    status: int = 200
    raw: str | None = None
    when: str = ""


@dataclass
class FakeModel:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    _replies: deque[Scripted] = field(default_factory=deque)
    default: Scripted | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, *replies: Reply | Scripted) -> None:
        """Queue replies, one per request, in order."""
        with self._lock:
            for reply in replies:
                self._replies.append(reply if isinstance(reply, Scripted) else Scripted(reply))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.auth.clear()
            self._replies.clear()
            self.default = None

    def _next(self, body: dict[str, Any]) -> Scripted:
        with self._lock:
            self.requests.append(body)
            question = question_text(body)
            for reply in self._replies:
                if reply.when in question:
                    self._replies.remove(reply)
                    return reply
        if self.default is not None:
            return self.default
        return Scripted(status=500, raw='{"error": "the test scripted no answer"}')

    @property
    def questions(self) -> list[str]:
        """The user messages' text of every request, in order."""
        return [question_text(r) for r in self.requests]


def question_text(body: dict[str, Any]) -> str:
    user = next((m for m in body.get("messages", []) if m.get("role") == "user"), {})
    content = user.get("content", "")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if part.get("type") == "text")
    return str(content)


def _handler(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, '{"error": "not found"}')
                return
            with model._lock:
                model.auth.append(self.headers.get("authorization"))
            reply = model._next(body)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                self._send(reply.status, reply.raw or "{}")
                return
            if reply.raw is not None:
                self._send(200, reply.raw)
                return
            content = reply.content(body) if callable(reply.content) else reply.content
            if not isinstance(content, str):
                content = json.dumps(content)
            completion = {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": body.get("model", ""),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
            }
            self._send(200, json.dumps(completion))

        def _send(self, status: int, text: str) -> None:
            data = text.encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)

    return Handler


@contextmanager
def fake_model() -> Iterator[FakeModel]:
    model = FakeModel()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    server.daemon_threads = True
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
