"""Calling the page agent (extension/agent/) in a tab's frames, and the frame bookkeeping around it.

The same agent the extension injects: Playwright evaluates it in each frame's main world (it has no
isolated worlds), with ``page_hooks.js`` before it. Refs follow the extension's scheme
(docs/page-agent.md §2): subframes are numbered ``f1, f2…`` in order of first sight, and a ref
``f2e3`` is ``e3`` in frame 2's document as of the last snapshot.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.page_scripts import page_scripts
from tabmcp.protocol import ErrorCode

log = logging.getLogger(__name__)
MAX_CANDIDATES = 10
TOKEN_RETRY_S = 0.05
LOCATE_FIELDS = ("hint", "context")  # what a locate-mode snapshot row adds
REF_PATTERN = re.compile(r"^(?:f([1-9]\d*))?(e[1-9]\d*)$")

# Runs in the page: one JSON string crosses faster than the same data as structured values.
AGENT_ENTRY = """async ([method, arg]) => {
  const agent = globalThis.__tabmcpAgent;
  if (!agent) return { __missing: true };
  try {
    const value = await agent[method](arg);
    return { __json: JSON.stringify(value === undefined ? null : value) };
  } catch (e) {
    return { __error: String((e && e.stack) || e) };
  }
}"""
FRAME_OFFSET = """(el, point) => globalThis.__tabmcpAgent
  ? globalThis.__tabmcpAgent.frameOffset({ element: el, point })
  : { ok: false, code: 'NOT_SCRIPTABLE', message: 'the page agent is not in the parent frame' }"""


def scripts() -> tuple[str, str]:
    """(page hooks, page agent) as the extension's manifest lists them."""
    return page_scripts()


class FrameGone(DriverError):
    """The frame went away (navigated, removed) while it was asked; a ref into it is stale."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.NOT_SCRIPTABLE, message)


def closed_error(exc: PlaywrightError) -> bool:
    return bool(
        re.search(r"(Target|Page|Browser)( page, context or browser)? (has been )?closed|Target closed", str(exc))
    )


def frame_gone(exc: PlaywrightError) -> bool:
    return bool(re.search(r"detached|Execution context was destroyed|navigat|Cannot find context", str(exc), re.I))


@dataclass
class FrameInfo:
    ordinal: int
    doc_id: str | None = None
    parent_token: str | None = None


@dataclass
class TabFrames:
    """A tab's frames by first sight; Playwright keeps one Frame object per frame across navigations."""

    next: int = 1
    by_frame: dict[Frame, FrameInfo] = field(default_factory=dict)
    by_ordinal: dict[int, Frame] = field(default_factory=dict)

    def info(self, frame: Frame, main: Frame) -> FrameInfo:
        info = self.by_frame.get(frame)
        if info is None:
            ordinal = 0 if frame is main else self.next
            if frame is not main:
                self.next += 1
            info = FrameInfo(ordinal)
            self.by_frame[frame] = info
            self.by_ordinal[ordinal] = frame
        return info

    def prune(self, live: list[Frame]) -> None:
        for frame in [f for f in self.by_frame if f not in live]:
            info = self.by_frame.pop(frame)
            self.by_ordinal.pop(info.ordinal, None)


@dataclass(frozen=True)
class Resolved:
    """Where a target is: the frame, the target as that frame's agent takes it, and a label for errors."""

    frame: Frame
    target: dict[str, Any] | None
    label: str


def prefix_ref(ordinal: int, ref: str) -> str:
    return f"f{ordinal}{ref}" if ref and ordinal else ref or ""


def split_token(token: object) -> tuple[str, str] | None:
    if not isinstance(token, str):
        return None
    at = token.rfind(":")
    return (token[:at], token[at + 1 :]) if at > 0 else None


def agent_ok(value: Any, method: str) -> dict[str, Any]:
    """The agent's answer, with its ``{ok: false, code, message}`` raised as the protocol error."""
    if value is None:
        raise DriverError(
            ErrorCode.NOT_SCRIPTABLE, f"The page agent did not answer {method} (did the page navigate away?)"
        )
    if isinstance(value, dict) and value.get("__error"):
        raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} failed: {value['__error']}"[:2000])
    if isinstance(value, dict) and value.get("ok") is False:
        error = DriverError(
            str(value.get("code") or ErrorCode.INTERNAL), str(value.get("message") or f"{method} failed")
        )
        if isinstance(value.get("candidates"), list):
            error.candidates = value["candidates"]  # type: ignore[attr-defined]
        raise error
    if not isinstance(value, dict):
        raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} answered {type(value).__name__}")
    return value


def stale_ref(ref: str, why: str) -> DriverError:
    return DriverError(ErrorCode.STALE_REF, f"Ref {ref} is stale ({why}): take a new snapshot and use its refs")


class PageAgent:
    """The agent in one tab's frames."""

    def __init__(self, page: Page, tab_id: int, hooks: str, agent: str) -> None:
        self.page = page
        self.tab_id = tab_id
        self.frames = TabFrames()
        self._hooks = hooks
        self._agent = agent

    # ------------------------------------------------------------- calls

    async def _evaluate(self, frame: Frame, method: str, arg: Any) -> Any:
        try:
            raw = await frame.evaluate(AGENT_ENTRY, [method, arg])
        except PlaywrightError as exc:
            if closed_error(exc) or self.page.is_closed():
                raise DriverError(ErrorCode.NO_TAB, f"No tab with id {self.tab_id}") from None
            if frame.is_detached() or frame_gone(exc):
                raise FrameGone(f"The frame went away while the page agent ran {method}: {exc}"[:500]) from None
            raise DriverError(ErrorCode.NOT_SCRIPTABLE, f"The page cannot be scripted: {exc}"[:500]) from None
        if isinstance(raw, dict) and isinstance(raw.get("__json"), str):
            return json.loads(raw["__json"])
        return raw

    async def inject(self, frame: Frame) -> None:
        """The hooks, then the agent, into a document that has neither (open before the driver came)."""
        for source in (self._hooks, self._agent):
            try:
                await frame.evaluate(source)
            except PlaywrightError as exc:
                if closed_error(exc) or self.page.is_closed():
                    raise DriverError(ErrorCode.NO_TAB, f"No tab with id {self.tab_id}") from None
                raise FrameGone(f"The page agent could not be injected: {exc}"[:500]) from None

    async def call_in(self, frame: Frame, method: str, arg: Any = None) -> Any:
        """agent[method](arg) in one frame, injecting the agent if needed; the answer as sent."""
        value = await self._evaluate(frame, method, arg)
        if isinstance(value, dict) and value.get("__missing"):
            await self.inject(frame)
            value = await self._evaluate(frame, method, arg)
        if value is None or (isinstance(value, dict) and value.get("__missing")):
            raise DriverError(
                ErrorCode.NOT_SCRIPTABLE, f"The page agent did not answer {method} (did the page navigate away?)"
            )
        return value

    async def call(self, method: str, arg: Any = None) -> dict[str, Any]:
        """In the main frame; ``__error`` answers raised (``ok: false`` is the caller's to read)."""
        value = await self.call_in(self.page.main_frame, method, arg)
        if isinstance(value, dict) and value.get("__error"):
            raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} failed: {value['__error']}"[:2000])
        return value

    async def call_frame(self, frame: Frame, method: str, arg: Any, stale: str | None = None) -> dict[str, Any]:
        """In one frame, its ``ok: false`` raised; a frame gone is STALE_REF when a ref named it."""
        try:
            value = await self.call_in(frame, method, arg)
        except FrameGone:
            if stale:
                raise stale_ref(stale, "its frame is gone") from None
            raise
        return agent_ok(value, method)

    async def call_all(self, method: str, arg: Any = None, frames: list[Frame] | None = None) -> dict[Frame, Any]:
        """In several frames (every frame by default); frames that could not answer are left out."""
        targets = frames if frames is not None else list(self.page.frames)
        answers = await asyncio.gather(*(self.call_in(f, method, arg) for f in targets), return_exceptions=True)
        kept: dict[Frame, Any] = {}
        for frame, answer in zip(targets, answers, strict=True):
            if isinstance(answer, DriverError) and answer.code == ErrorCode.NO_TAB:
                raise answer
            if isinstance(answer, BaseException):
                if not isinstance(answer, DriverError):
                    raise answer
                log.debug("frame %s did not answer %s: %s", frame.url, method, answer.message)
                continue
            kept[frame] = answer
        return kept

    # ------------------------------------------------------------- snapshot

    def _info(self, frame: Frame) -> FrameInfo:
        return self.frames.info(frame, self.page.main_frame)

    async def snapshot(self, mode: str) -> dict[str, Any]:
        answers = _snapshots(await self.call_all("snapshot", {"mode": mode}))
        main = self.page.main_frame
        if main not in answers:
            raise DriverError(ErrorCode.NOT_SCRIPTABLE, "The page agent did not answer snapshot in the main frame")
        # A child learns its token from a message its parent posts during the parent's snapshot; on
        # a first snapshot it may not have it yet, so such children are asked once more.
        listed = {n["frameToken"] for a in answers.values() for n in a["nodes"] if n.get("frameToken")}
        claimed = {a.get("parentToken") for a in answers.values()}
        unmatched = [f for f, a in answers.items() if f is not main and a.get("parentToken") not in listed]
        if any(t not in claimed for t in listed) and unmatched:
            await asyncio.sleep(TOKEN_RETRY_S)
            answers.update(_snapshots(await self.call_all("snapshot", {"mode": mode}, unmatched)))
        child_by_token: dict[str, Frame] = {}
        for frame, answer in answers.items():
            token = answer.get("parentToken")
            if frame is not main and token and token not in child_by_token:
                child_by_token[token] = frame
        nodes: list[dict[str, Any]] = []
        included: set[Frame] = set()

        def splice(frame: Frame, base_depth: int) -> None:
            answer = answers[frame]
            info = self._info(frame)  # numbered in document order
            info.doc_id, info.parent_token = answer.get("docId"), answer.get("parentToken")
            included.add(frame)
            for node in answer["nodes"]:
                depth = node.get("depth")
                row = {
                    "ref": prefix_ref(info.ordinal, str(node.get("ref") or "")),
                    "role": str(node.get("role") or ""),
                    "name": str(node.get("name") or ""),
                    "value": str(node.get("value") or ""),
                    "states": [str(s) for s in node.get("states") or []],
                    "depth": (depth if isinstance(depth, int) and depth >= 0 else 0) + base_depth,
                }
                for extra in LOCATE_FIELDS:  # locate mode only (docs/nl-tools.md)
                    if node.get(extra):
                        row[extra] = str(node[extra])
                nodes.append(row)
                child = child_by_token.get(node.get("frameToken") or "")
                if child is not None and child not in included:
                    splice(child, row["depth"] + 1)

        splice(main, 0)
        for frame in self.page.frames:  # frames left out (hidden iframes) still get a number, for css/role targets
            if frame in answers and frame not in included:
                info = self._info(frame)
                info.doc_id, info.parent_token = answers[frame].get("docId"), answers[frame].get("parentToken")
        self.frames.prune(list(self.page.frames))
        top = answers[main]
        return {
            "url": str(top.get("url") or ""),
            "title": str(top.get("title") or ""),
            "docId": str(top.get("docId") or ""),
            "nodes": nodes,
            "frames": len(included),
        }

    # ------------------------------------------------------------- targets

    def parse_ref(self, ref: str) -> tuple[Frame, dict[str, Any]]:
        """``f2e3`` → (frame 2, the agent's target); STALE_REF when frame 2 is not known (any more)."""
        match = REF_PATTERN.match(ref)
        if not match:
            raise DriverError(
                ErrorCode.ELEMENT_NOT_FOUND,
                f'"{ref}" is not a snapshot ref (refs look like e5, or f1e3 inside a frame)',
            )
        ordinal = int(match.group(1) or 0)
        frame = self.page.main_frame if ordinal == 0 else self.frames.by_ordinal.get(ordinal)
        if frame is None or frame.is_detached():
            raise stale_ref(ref, f"this tab has no frame f{ordinal} now")
        info = self.frames.by_frame.get(frame)
        target: dict[str, Any] = {"ref": match.group(2)}
        if info is not None and info.doc_id:
            target["doc"] = info.doc_id
        return frame, target

    async def resolve(self, target: dict[str, Any]) -> Resolved:
        """A ref names its frame; a css or role target must match exactly once across all frames."""
        if target.get("ref") is not None:
            frame, agent_target = self.parse_ref(target["ref"])
            return Resolved(frame, agent_target, target["ref"])
        # as the model writes a target (tools/targets.py)
        if target.get("css") is not None:
            label = f"css={target['css']}"
        else:
            label = f"role={target['role']}" + (f"[name={target['name']}]" if target.get("name") is not None else "")
        answers = await self.call_all("find", {"target": target, "limit": MAX_CANDIDATES + 1})
        matches: list[dict[str, Any]] = []
        failure: Any = None
        for frame in self.page.frames:
            answer = answers.get(frame)
            if answer is None:
                continue
            if not isinstance(answer, dict) or answer.get("__error") or answer.get("ok") is False:
                failure = failure or answer
                continue
            ordinal = self._info(frame).ordinal
            for m in answer.get("matches") or []:
                ref = str(m.get("ref"))
                matches.append({"frame": frame, "local": ref, "ref": prefix_ref(ordinal, ref), **_who(m)})
        if len(matches) == 1:
            return Resolved(matches[0]["frame"], {"ref": matches[0]["local"]}, label)
        if len(matches) > 1:
            candidates = [{"ref": m["ref"], "role": m["role"], "name": m["name"]} for m in matches[:MAX_CANDIDATES]]
            listed = ", ".join(f'{c["ref"]} {c["role"]} "{c["name"]}"' for c in candidates)
            count = f"more than {MAX_CANDIDATES}" if len(matches) > MAX_CANDIDATES else str(len(matches))
            more = " …" if len(matches) > MAX_CANDIDATES else ""
            error = DriverError(ErrorCode.ELEMENT_AMBIGUOUS, f"{label} matches {count} elements: {listed}{more}")
            error.candidates = candidates  # type: ignore[attr-defined]
            raise error
        if failure is not None:
            agent_ok(failure, "find")  # e.g. an invalid selector: say so
        raise DriverError(ErrorCode.ELEMENT_NOT_FOUND, f"No element matches {label}")

    async def focused_frame(self) -> Frame:
        """The deepest frame whose focused element is not an iframe (for press without a target)."""
        check = """() => { const a = document.activeElement; return document.hasFocus() && !!a && a !== document.body
          && a.localName !== 'iframe' && a.localName !== 'frame'; }"""
        focused = self.page.main_frame
        for frame in self.page.frames:
            try:
                if await frame.evaluate(check):
                    focused = frame
            except PlaywrightError:
                continue
        return focused

    async def point_in_tab(self, frame: Frame, x: float, y: float) -> tuple[float, float]:
        """A point of ``frame``'s viewport in the tab's viewport (CSS px): each ancestor's agent adds
        where the iframe's content box starts, scrolling so the point is in its view."""
        current = frame
        for _ in range(20):
            parent = current.parent_frame
            if parent is None:
                return x, y
            try:
                element: ElementHandle = await current.frame_element()
                offset = await element.evaluate(FRAME_OFFSET, {"x": x, "y": y})
            except PlaywrightError as exc:
                if self.page.is_closed():
                    raise DriverError(ErrorCode.NO_TAB, f"No tab with id {self.tab_id}") from None
                raise DriverError(
                    ErrorCode.STALE_REF, f"The element's frame is gone: take a new snapshot ({exc})"[:300]
                ) from None
            answer = agent_ok(offset, "frameOffset")
            x, y = x + float(answer["x"]), y + float(answer["y"])
            current = parent
        raise DriverError(ErrorCode.INTERNAL, "Frames nested too deep")


def _snapshots(answers: dict[Frame, Any]) -> dict[Frame, dict[str, Any]]:
    """The answers that look like snapshots (a frame mid-navigation may answer anything)."""
    return {
        f: a
        for f, a in answers.items()
        if isinstance(a, dict)
        and not a.get("__error")
        and a.get("ok") is not False
        and isinstance(a.get("nodes"), list)
    }


def _who(match: dict[str, Any]) -> dict[str, str]:
    return {"role": str(match.get("role") or ""), "name": str(match.get("name") or "")}
