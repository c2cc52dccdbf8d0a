"""The guards around every tool call: rate limit, confirmation of destructive calls, audit log.

``server.py`` calls ``Guards.call`` once per ``tools/call``, in this order:

1. rate limit (``ratelimit.py``): over the limit → an ``isError`` result with a retry hint;
2. confirmation (``confirm.py``), when ``confirm_destructive`` is on and the call is destructive
   (``calls.py``): the user is asked through MCP elicitation; not accepted → not run;
3. the call itself;
4. audit (``audit.py``, ``redact.py``): one JSON line, also for calls refused by 1 or 2.

Capabilities that are off by default (trusted input, screenshots per origin) are checked by the
tools themselves (``tools/act.py``, ``tools/observe.py`` with ``origins.py``); page content is
marked and bounded where results are made (``untrusted.py``). docs/security.md has the model.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tabmcp.echo import escaped
from tabmcp.guard import confirm
from tabmcp.guard.audit import MAX_TOOL_NAME, AuditEntry, AuditLog, outcome_of
from tabmcp.guard.calls import (
    DESCRIBED_TARGETS,
    CallFacts,
    core_tool_facts,
    described_facts,
    interact_facts,
    page_tool_facts,
    proxied,
)
from tabmcp.guard.ratelimit import RateLimiter, retry_text
from tabmcp.guard.redact import Redaction, redact_arguments
from tabmcp.guard.sensitive import collecting
from tabmcp.results import error_result
from tabmcp.tools.targets import Target, parse_target

if TYPE_CHECKING:
    from tabmcp.config import Settings
    from tabmcp.runtime import Runtime
    from tabmcp.tools.base import CoreTool

__all__ = ["Guards"]

Run = Callable[[], Awaitable[types.CallToolResult]]
Result = types.CallToolResult | types.InputRequiredResult


def refusal(message: str, code: str, **data: Any) -> types.CallToolResult:
    """A call a guard stopped: an ``isError`` result like every other tool error."""
    return error_result(message, {**data, "code": code})


class Guards:
    """One per server process. Each call passes the runtime it runs in (the client's workspace),
    read for the focused page's tools, URL and latest snapshot when the call's facts are needed."""

    def __init__(
        self,
        settings: Settings,
        *,
        catalog: Sequence[CoreTool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.limiter = RateLimiter(settings.rate_limit_per_minute, settings.rate_limit_burst, clock)
        self.audit = AuditLog(settings.audit_log)
        self.confirm_destructive = settings.confirm_destructive
        self.secrets = list(settings.secrets)
        self.signer = confirm.StateSigner(secrets.token_bytes(32))
        self._core = {t.name: t for t in catalog}
        self._clock = clock

    async def call(
        self,
        ctx: Any,
        client: str,
        params: types.CallToolRequestParams,
        runtime: Runtime,
        run: Run,
        *,
        label: str | None = None,
    ) -> Result:
        """``ctx``: the SDK's request context (its session is asked for confirmation); ``client``:
        the unique identity the rate limit and confirmations are kept for (a workspace's key);
        ``label``: how the audit log names it (default ``client``); ``run``: the call itself."""
        name, args = params.name, params.arguments or {}
        started, when = self._clock(), datetime.now(UTC)
        facts = _facts(self._core, runtime, name, args)
        extra: dict[str, Any] = {}
        with collecting() as noted:
            result = await self._guarded(ctx, client, params, facts, runtime, run, extra)
        audited = label if label is not None else client
        self._write_audit(audited, name, args, facts.sensitive | noted, result, (when, started), extra)
        return result

    async def _guarded(
        self,
        ctx: Any,
        client: str,
        params: types.CallToolRequestParams,
        facts: CallFacts,
        runtime: Runtime,
        run: Run,
        extra: dict[str, Any],
    ) -> Result:
        name, args = params.name, params.arguments or {}
        wait = self.limiter.take(client)
        if wait is not None:
            extra["refused"] = "rate_limit"
            return refusal(self.limiter.message(wait), "RATE_LIMITED", retryAfterSeconds=float(retry_text(wait)))
        if self.confirm_destructive and facts.destructive is not None:
            session = ctx.session
            if not confirm.can_elicit(session.client_capabilities):
                extra["refused"] = "cannot_confirm"
                return refusal(confirm.cannot_confirm_message(name), "CANNOT_CONFIRM")
            message = self._question(runtime, name, args)
            if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                # the answer counts for this question only: a page that changed since is asked about anew
                given = confirm.answer_in(params)
                if given is None or not self.signer.valid(params.request_state, client, name, args, message):
                    return confirm.input_required(message, self.signer.issue(client, name, args, message))
                answer = confirm.verdict_of(given)
            elif session.can_send_request:
                answer = await confirm.ask_now(session, message, ctx.request_id)
                if answer.accepted and self._question(runtime, name, args) != message:
                    answer = confirm.Answer("failed", "the page changed while the user was being asked")
            else:  # a handshake-era connection with no way back to the client (stateless HTTP)
                extra["refused"] = "cannot_confirm"
                return refusal(confirm.cannot_confirm_message(name), "CANNOT_CONFIRM")
            if not answer.accepted:
                extra["refused"] = answer.verdict
                code = "NOT_CONFIRMED" if answer.verdict == "failed" else "DECLINED"
                return refusal(confirm.declined_message(name, answer), code)
            extra["confirmed"] = True
        return await run()

    def _question(self, runtime: Runtime, name: str, args: Mapping[str, Any]) -> str:
        """What the user is asked to allow: the action, the page it acts on now, the arguments
        (empty when the call, as things are now, is not destructive)."""
        name, args = proxied(name, args) or (name, args)  # the user is asked about the page tool itself
        facts = _facts(self._core, runtime, name, args)
        if facts.destructive is None:
            return ""
        shown, redaction = redact_arguments(args, facts.sensitive, self.secrets)
        return redaction.text(confirm.question(facts.destructive, _page_url(runtime), shown))  # a URL may hold one

    # ------------------------------------------------------------- audit

    def _write_audit(
        self,
        client: str,
        name: str,
        args: Mapping[str, Any],
        sensitive: frozenset[str] | set[str],
        result: Result,
        began: tuple[datetime, float],
        extra: Mapping[str, Any],
    ) -> None:
        if not self.audit.enabled:
            return
        target = proxied(name, args)
        if target is None:
            shown, redaction = redact_arguments(args, frozenset(sensitive), self.secrets)
        else:  # call_page_tool: the password arguments are those of the page tool, inside ``arguments``
            inner, redaction = redact_arguments(target[1], frozenset(sensitive), self.secrets)
            shown = {**{k: redaction.value(v) for k, v in args.items() if k != "arguments"}, "arguments": inner}
        outcome, error = outcome_of(result, redaction)
        self.audit.write(
            AuditEntry(
                time=began[0],
                client=client,
                tool=escaped(Redaction(self.secrets).text(name), MAX_TOOL_NAME),  # the name is the caller's
                arguments=shown,
                outcome=outcome,
                error=error,
                duration_ms=(self._clock() - began[1]) * 1000,
                extra=extra,
            )
        )

    def close(self) -> None:
        self.audit.close()


# ----------------------------------------------------------------- facts


def _facts(core: Mapping[str, CoreTool], runtime: Runtime, name: str, args: Mapping[str, Any]) -> CallFacts:
    """Facts of a tool the client can call now; any other call fails as unavailable anyway.
    ``call_page_tool`` runs a page tool: the facts are that page tool's (none for another name)."""
    target = proxied(name, args)
    if target is not None:
        page = next((t for t in runtime.state.page_tools if t.name == target[0]), None)
        return page_tool_facts(page) if page is not None else CallFacts()
    if name not in runtime.visible_tool_names():
        return CallFacts()
    if name in core:
        if name == "interact":
            target = _target_of(args)
            return interact_facts(args, target, _target_name(runtime, target))
        if name in DESCRIBED_TARGETS:
            return described_facts(name, args)
        return core_tool_facts(core[name], args)
    page = next((t for t in runtime.state.page_tools if t.name == name), None)
    return page_tool_facts(page) if page is not None else CallFacts()


def _target_of(args: Mapping[str, Any]) -> Target | None:
    """The call's target, parsed; None without one, or with one the tool itself will refuse."""
    raw = args.get("target")
    if not isinstance(raw, str):
        return None
    try:
        return parse_target(raw)
    except ValueError:
        return None


def _target_name(runtime: Runtime, target: Target | None) -> str | None:
    """The element's name without asking the page: given (role=…[name=…]), or the row of the tab's
    latest snapshot with that ref."""
    if target is None:
        return None
    if target.name is not None:
        return target.name
    ref = target.ref
    tab_id = runtime.state.focused_tab_id
    if ref is None or tab_id is None:
        return None
    return runtime.snapshots.name_of(tab_id, ref)


def _page_url(runtime: Runtime) -> str:
    state = runtime.state
    tab = state.tabs.get(state.focused_tab_id) if state.focused_tab_id is not None else None
    return tab.url if tab is not None else ""
