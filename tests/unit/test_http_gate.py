"""The HTTP front door without a network: endpoint parsing, when a token is required, and the Gate."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tabmcp.config import Settings
from tabmcp.http_server import Endpoint, Gate, HttpConfigError, parse_endpoint, required_token, transport_security
from tabmcp.jsonrpc_check import MAX_MESSAGE_BYTES

TOKEN = "a-bearer-token-long-enough-0123"


def test_endpoints_parse_and_know_whether_they_are_loopback() -> None:
    assert parse_endpoint("127.0.0.1:8766") == Endpoint("127.0.0.1", 8766)
    assert parse_endpoint("[::1]:9000") == Endpoint("::1", 9000)
    assert parse_endpoint(":8766") == parse_endpoint("8766") == Endpoint("127.0.0.1", 8766)
    assert Endpoint("localhost", 1).loopback and Endpoint("::1", 1).loopback
    assert not Endpoint("0.0.0.0", 1).loopback and not Endpoint("192.168.1.2", 1).loopback
    assert Endpoint("::1", 9000).url == "http://[::1]:9000/mcp"
    with pytest.raises(HttpConfigError, match="HOST:PORT"):
        parse_endpoint("localhost:http")


def test_a_token_is_required_off_loopback_and_must_not_be_trivial() -> None:
    assert required_token(Endpoint("127.0.0.1", 1), Settings()) is None
    assert required_token(Endpoint("127.0.0.1", 1), Settings(http_token=TOKEN)) == TOKEN
    assert required_token(Endpoint("0.0.0.0", 1), Settings(http_token=TOKEN)) == TOKEN
    with pytest.raises(HttpConfigError, match="not a loopback address"):
        required_token(Endpoint("0.0.0.0", 1), Settings())
    with pytest.raises(HttpConfigError, match="too short"):
        required_token(Endpoint("127.0.0.1", 1), Settings(http_token="short"))


def test_allowed_hosts_and_origins_add_the_bound_address_and_configured_extras() -> None:
    local = transport_security(Endpoint("127.0.0.1", 8766), Settings())
    assert "127.0.0.1:*" in local.allowed_hosts and "http://localhost:*" in local.allowed_origins
    lan = transport_security(
        Endpoint("10.0.0.5", 8766), Settings(http_allowed_hosts=["box.lan:8766"], http_allowed_origins=["https://x"])
    )
    assert {"10.0.0.5:8766", "box.lan:8766"} <= set(lan.allowed_hosts)
    assert {"http://10.0.0.5:8766", "https://x"} <= set(lan.allowed_origins)


class Recorder:
    """An ASGI app standing for the SDK's: records that a request got through."""

    def __init__(self) -> None:
        self.reached = 0
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.reached += 1
        if scope["method"] == "POST":
            self.bodies.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


LIST = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'


async def call(
    gate: Gate, method: str = "POST", body: bytes = LIST, **headers: str
) -> tuple[int, dict[str, Any], dict[str, str]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": method,
        "path": "/mcp",
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }
    await gate(scope, receive, send)
    start, body = sent[0], sent[1]["body"]
    response_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], json.loads(body), response_headers


async def test_the_gate_asks_for_the_bearer_token() -> None:
    inner = Recorder()
    gate = Gate(inner, token=TOKEN, max_sessions=5, open_sessions=lambda: 0, idle_timeout=60)
    status, body, headers = await call(gate)
    assert status == 401 and "Bearer" in body["error"]["message"] and headers["www-authenticate"].startswith("Bearer")
    assert (await call(gate, authorization="Bearer wrong"))[0] == 401
    assert (await call(gate, authorization=f"Basic {TOKEN}"))[0] == 401
    assert inner.reached == 0
    assert (await call(gate, authorization=f"Bearer {TOKEN}"))[0] == 200
    assert inner.reached == 1


async def test_the_gate_refuses_new_sessions_past_the_cap_but_not_existing_ones() -> None:
    inner = Recorder()
    gate = Gate(inner, token=None, max_sessions=2, open_sessions=lambda: 2, idle_timeout=1800)
    status, body, _ = await call(gate)
    assert status == 503 and "TABMCP_MAX_SESSIONS" in body["error"]["message"]
    assert (await call(gate, mcp_session_id="abc"))[0] == 200  # a session that exists goes on
    modern = sorted(MODERN_PROTOCOL_VERSIONS)[0]
    assert (await call(gate, mcp_protocol_version=modern))[0] == 200  # sessionless era: opens no session
    assert (await call(gate, mcp_protocol_version="2025-11-25"))[0] == 503
    assert inner.reached == 2


async def test_the_gate_answers_a_malformed_body_itself_with_its_json_rpc_error() -> None:
    inner = Recorder()
    gate = Gate(inner, token=None, max_sessions=5, open_sessions=lambda: 0, idle_timeout=60)
    status, body, _ = await call(gate, body=b'{"jsonrpc": "1.0", "id": 7, "method": "tools/list"}')
    assert status == 400 and body["id"] == 7 and body["error"]["code"] == -32600
    status, body, _ = await call(gate, body=b'{"jsonrpc": "2.0", "id": 7, "meth')
    assert status == 400 and body["id"] is None and body["error"]["code"] == -32700
    assert inner.reached == 0
    assert (await call(gate))[0] == 200  # a good body reaches the SDK's app, read once by the gate
    assert inner.bodies == [LIST]


async def test_the_gate_answers_a_body_over_the_limit_with_413_without_reading_it_all() -> None:
    inner = Recorder()
    gate = Gate(inner, token=None, max_sessions=5, open_sessions=lambda: 0, idle_timeout=60)
    head = b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"pad": "'
    mib = 1024 * 1024
    pieces = [head, *[b"x" * mib] * (MAX_MESSAGE_BYTES // mib + 20)]  # 20 MiB more than the limit, in 1 MiB pieces
    taken = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal taken
        taken += 1
        return {"type": "http.request", "body": pieces[taken - 1], "more_body": taken < len(pieces)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await gate({"type": "http", "method": "POST", "path": "/mcp", "headers": []}, receive, send)
    body = json.loads(sent[1]["body"])
    assert sent[0]["status"] == 413 and body["id"] == 12
    assert f"over {MAX_MESSAGE_BYTES // mib} MiB" in body["error"]["message"]
    assert taken == MAX_MESSAGE_BYTES // mib + 1  # the head and the limit's worth: no further
    assert inner.reached == 0
