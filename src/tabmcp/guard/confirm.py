"""Asking the user before a destructive call, through MCP elicitation (``confirm_destructive``).

Both protocol eras:

- handshake era (up to 2025-11-25, what clients speak over stdio today): an ``elicitation/create``
  request is sent in the middle of the ``tools/call`` and its answer awaited;
- 2026-07-28: the call answers ``input_required`` with the question; the client asks the user and
  calls again with the answer and the ``requestState`` it was given. That state is an HMAC (with a
  key of this process) of the client, tool, arguments and question (which names the page) and the
  time it was issued, so an answer counts only for the call it was asked about, on the page it was
  asked about, for ``CONFIRM_TIMEOUT_S``.

Either way, a page that changed while the user was being asked (another page, another tool under
the same name) is not acted on with the answer given for the old one.

A client that did not declare form elicitation cannot be asked (and sending it the request would
fail the whole call): the call is refused with a message saying so. Only an explicit accept runs
the call; decline, cancel, an error or no answer within ``CONFIRM_TIMEOUT_S`` do not.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types

CONFIRM_KEY = "tabmcp_confirm"
CONFIRM_TIMEOUT_S = 300.0  # a person reads the question; longer than that, the moment has passed
STATE_PREFIX = "tabmcp-confirm:"
MAX_MESSAGE = 1000

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Allow it",
            "description": "Run this action in your browser",
            "default": True,
        }
    },
    "required": ["confirm"],
}

Verdict = Literal["accepted", "declined", "cancelled", "failed"]


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    detail: str = ""  # why it failed (client error, timeout)

    @property
    def accepted(self) -> bool:
        return self.verdict == "accepted"


def can_elicit(capabilities: types.ClientCapabilities | None) -> bool:
    """Form elicitation declared: ``elicitation: {}`` (the shape before modes) or with ``form``;
    a client that declared only URL mode cannot show our question."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def question(what: str, where: str, arguments: Mapping[str, Any]) -> str:
    """The text the user reads: what would happen, where, with which (redacted) arguments."""
    shown = json.dumps(dict(arguments), ensure_ascii=False)
    if len(shown) > 400:
        shown = shown[:399] + "…"
    text = f"An AI assistant wants to {what} in your browser"
    text += f" on {where}." if where else "."
    if arguments:
        text += f"\nArguments: {shown}"
    text += "\nAllow it?"
    return text[:MAX_MESSAGE]


def verdict_of(result: types.ElicitResult) -> Answer:
    if result.action == "accept":
        confirmed = (result.content or {}).get("confirm", True)
        return Answer("accepted") if confirmed is not False else Answer("declined")
    return Answer("declined" if result.action == "decline" else "cancelled")


async def ask_now(session: Any, message: str, request_id: types.RequestId | None) -> Answer:
    """Handshake era: send ``elicitation/create`` mid-call and wait for the user."""
    try:
        with anyio.fail_after(CONFIRM_TIMEOUT_S):
            result = await session.elicit_form(message, CONFIRM_SCHEMA, related_request_id=request_id)
    except TimeoutError:
        return Answer("failed", f"no answer within {CONFIRM_TIMEOUT_S:.0f} s")
    except Exception as exc:  # the client's error, a closed connection: not a yes
        return Answer("failed", f"{type(exc).__name__}: {exc}")
    return verdict_of(result)


class StateSigner:
    """``requestState`` for the 2026-07-28 round trip: issued-at time and an HMAC of the call."""

    def __init__(self, key: bytes, clock: Any = time.time) -> None:
        self._key = key
        self._clock = clock

    def issue(self, client: str, tool: str, arguments: Mapping[str, Any], question: str = "") -> str:
        issued = int(self._clock())
        return f"{STATE_PREFIX}{issued}:{self._mac(issued, client, tool, arguments, question)}"

    def valid(
        self, state: str | None, client: str, tool: str, arguments: Mapping[str, Any], question: str = ""
    ) -> bool:
        if not isinstance(state, str) or not state.startswith(STATE_PREFIX):
            return False
        issued_text, _, mac = state.removeprefix(STATE_PREFIX).partition(":")
        if not issued_text.isdigit():
            return False
        issued = int(issued_text)
        if not 0 <= self._clock() - issued <= CONFIRM_TIMEOUT_S:
            return False
        return hmac.compare_digest(mac, self._mac(issued, client, tool, arguments, question))

    def _mac(self, issued: int, client: str, tool: str, arguments: Mapping[str, Any], question: str) -> str:
        payload = json.dumps([issued, client, tool, arguments, question], sort_keys=True, default=str)
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()


def input_required(message: str, state: str) -> types.InputRequiredResult:
    """2026-07-28: the question, to be answered by calling again."""
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=CONFIRM_SCHEMA)
    )
    return types.InputRequiredResult(input_requests={CONFIRM_KEY: request}, request_state=state)


def answer_in(params: types.CallToolRequestParams) -> types.ElicitResult | None:
    """The user's answer a 2026-07-28 retry carries, if any."""
    responses = params.input_responses or {}
    answer = responses.get(CONFIRM_KEY)
    return answer if isinstance(answer, types.ElicitResult) else None


def declined_message(tool: str, answer: Answer) -> str:
    if answer.verdict == "failed":
        return (
            f"{tool} was not run: it needs the user's confirmation and asking failed ({answer.detail}). "
            "Ask the user whether to do it."
        )
    return f"The user {answer.verdict} {tool}: it was not run. Do not retry it unless the user asks you to."


def cannot_confirm_message(tool: str) -> str:
    return (
        f"{tool} was not run: it is destructive, and this tabmcp asks the user before destructive actions "
        "(confirm_destructive), but this MCP client cannot ask (it did not declare the elicitation "
        "capability). Ask the user to do it in the browser themselves, or to turn off "
        "TABMCP_CONFIRM_DESTRUCTIVE."
    )
