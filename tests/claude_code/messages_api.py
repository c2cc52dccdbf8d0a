"""A scripted Anthropic Messages API on 127.0.0.1, for running the real Claude Code CLI offline.

Claude Code is pointed at it with ``ANTHROPIC_BASE_URL``. ``POST /v1/messages`` answers with a
streamed (SSE) or plain message; every request body is recorded with the time it arrived. The
model's turns come from a ``Script``: a callable that gets the request (a ``Turn``) and returns what
the assistant says next (a ``Reply`` with tool calls, or ``say(...)`` text and stop). Requests that are not
the main conversation (Claude Code's small side queries) get a short text answer and are recorded
apart. Runs in a thread of the test process.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

SERVER_PREFIX = "mcp__tabmcp__"
TOOL_SEARCH = "ToolSearch"
_DEFERRED_NAME = re.compile(r"(?m)^(mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+)$")


@dataclass(frozen=True)
class Reply:
    """One assistant message: text, then tool calls (none: the turn ends)."""

    text: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


def say(text: str) -> Reply:
    return Reply(text=text)


@dataclass
class Turn:
    """A main-conversation request as the model sees it."""

    body: dict[str, Any]
    at: float
    index: int  # 0 for the first request of the conversation

    @property
    def tool_names(self) -> list[str]:
        """The tools in the request's tools array (loaded, callable now)."""
        return [t.get("name", "") for t in self.body.get("tools", [])]

    @property
    def deferred(self) -> list[str]:
        """MCP tools the request names but does not load: Claude Code lists them by name for ToolSearch."""
        loaded = set(self.tool_names)
        return [n for n in dict.fromkeys(_DEFERRED_NAME.findall(self.text_seen)) if n not in loaded]

    @property
    def text_seen(self) -> str:
        """Every text of the request, one after another: system prompt and messages (tool results included)."""
        return "\n".join(_texts([self.body.get("system"), self.body.get("messages")]))

    def last_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks of the last user message (what the previous calls answered)."""
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") == "assistant":
                return []  # no result since the model's last message
            content = message.get("content")
            blocks = (
                [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
                if isinstance(content, list)
                else []
            )
            if blocks:
                return blocks
        return []

    def last_result_text(self) -> str:
        parts: list[str] = []
        for block in self.last_results():
            content = block.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts += [c.get("text", "") for c in content if isinstance(c, dict)]
        return "\n".join(parts)


Script = Callable[[Turn], Reply]


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for key in ("text", "content"):
            if key in value:
                yield from _texts(value[key])


def is_main(body: dict[str, Any]) -> bool:
    """The main conversation carries tools; Claude Code's side queries (titles, quota checks) do not."""
    return bool(body.get("tools"))


@dataclass
class MessagesApi:
    """The scripted endpoint. ``delay``: seconds before each main answer starts, as a real model thinks."""

    script: Script = field(default=lambda turn: say("done"))
    delay: float = 1.0
    url: str = ""
    turns: list[Turn] = field(default_factory=list)
    side: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: count(1))

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for one request (the server streams or sends it)."""
        with self._lock:
            if not is_main(body):
                self.side.append(body)
                return self._message(Reply(text="ok"), body)
            turn = Turn(body=body, at=time.monotonic(), index=len(self.turns))
            self.turns.append(turn)
        try:
            reply = self.script(turn)
        except Exception as exc:  # the test reads errors; Claude Code gets a plain ending
            self.errors.append(f"turn {turn.index}: {type(exc).__name__}: {exc}")
            reply = say(f"script failed: {exc}")
        time.sleep(self.delay)
        return self._message(reply, body)

    def _message(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for name, arguments in reply.calls:
            content.append({"type": "tool_use", "id": f"toolu_{next(self._ids):04d}", "name": name, "input": arguments})
        return {
            "id": f"msg_{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-scripted"),
            "content": content,
            "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": len(json.dumps(body)) // 4, "output_tokens": 10},
        }


def sse_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A message as the Messages API streams it."""
    start = {**message, "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": opening}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _handler(api: MessagesApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet: the test reads api.turns
            pass

        def _send_json(self, status: int, data: dict[str, Any]) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            self._send_json(200, {"data": [], "has_more": False})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send_json(
                    400, {"type": "error", "error": {"type": "invalid_request_error", "message": "body is not JSON"}}
                )
                return
            path = self.path.split("?")[0]
            if path.endswith("/count_tokens"):
                self._send_json(200, {"input_tokens": len(json.dumps(body)) // 4})
                return
            if not path.endswith("/v1/messages"):
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
                return
            message = api.answer(body)
            if not body.get("stream"):
                self._send_json(200, message)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for event, data in sse_events(message):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

    return Handler


@contextmanager
def messages_api(script: Script | None = None, *, delay: float = 1.0) -> Iterator[MessagesApi]:
    api = MessagesApi(delay=delay)
    if script is not None:
        api.script = script
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="messages-api", daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
