"""A tab's frames as the model sees them, and calling the page agent in them (docs/page-agent.md §2).

Subframes are numbered ``f1, f2…`` in order of first sight (keyed by the host's frame id, which a
frame keeps across its navigations); a ref ``f2e3`` is ``e3`` in frame 2's document as of the last
snapshot (its ``docId``): the agent answers STALE_REF when that document changed since. Each
frame's ``parentToken`` (``docId:ref`` of its iframe element in the parent) places it in the tab.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import MAIN_FRAME, FrameGone, PageHost
from tabmcp.drivers.session.limits import MAX_CANDIDATES, TOKEN_RETRY_S
from tabmcp.protocol import ErrorCode

MAX_NEAR_ROWS = 5  # rows shown when no row shows the text a row target asked for

log = logging.getLogger(__name__)
LOCATE_FIELDS = ("hint", "context")  # what a locate-mode snapshot row adds
REF_PATTERN = re.compile(r"^(?:f([1-9]\d*))?(e[1-9]\d*)$")
MAX_DEPTH = 20


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
            error.candidates = value["candidates"]
        raise error
    if not isinstance(value, dict):
        raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} answered {type(value).__name__}")
    return value


def stale_ref(ref: str, why: str) -> DriverError:
    return DriverError(ErrorCode.STALE_REF, f"Ref {ref} is stale ({why}): take a new snapshot and use its refs")


def prefix_ref(ordinal: int, ref: str) -> str:
    return f"f{ordinal}{ref}" if ref and ordinal else ref or ""


def split_token(token: object) -> tuple[str, str] | None:
    if not isinstance(token, str):
        return None
    at = token.rfind(":")
    return (token[:at], token[at + 1 :]) if at > 0 else None


@dataclass
class FrameRecord:
    ordinal: int
    doc_id: str | None = None
    parent_token: str | None = None


@dataclass
class TabFrames:
    """A tab's frames by first sight."""

    next: int = 1
    by_frame: dict[int, FrameRecord] = field(default_factory=dict)
    by_ordinal: dict[int, int] = field(default_factory=dict)

    def info(self, frame_id: int) -> FrameRecord:
        info = self.by_frame.get(frame_id)
        if info is None:
            ordinal = 0 if frame_id == MAIN_FRAME else self.next
            if frame_id != MAIN_FRAME:
                self.next += 1
            info = FrameRecord(ordinal)
            self.by_frame[frame_id] = info
            self.by_ordinal[ordinal] = frame_id
        return info

    def forget(self, frame_id: int) -> None:
        info = self.by_frame.pop(frame_id, None)
        if info is not None:
            self.by_ordinal.pop(info.ordinal, None)

    def prune(self, live: Sequence[int]) -> None:
        for frame_id in [f for f in self.by_frame if f not in live]:
            self.forget(frame_id)


@dataclass(frozen=True)
class Resolved:
    """Where a target is: the frame, the target as that frame's agent takes it, and a label for errors."""

    frame: int
    target: dict[str, Any] | None
    label: str


class Agent:
    """The page agent in one tab's frames, over the host."""

    def __init__(self, host: PageHost, tab_id: int, frames: TabFrames) -> None:
        self.host = host
        self.tab_id = tab_id
        self.frames = frames

    # ------------------------------------------------------------- calls

    async def call_all(self, method: str, arg: Any = None, frames: Sequence[int] | None = None) -> dict[int, Any]:
        """In several frames (every frame by default); frames that could not answer are left out."""
        return await self.host.call_agent(self.tab_id, frames, method, arg)

    async def call_in(self, frame: int, method: str, arg: Any = None) -> Any:
        """In one frame, the answer as sent; NOT_SCRIPTABLE (FrameGone when the frame went away) when none came."""
        answers = await self.host.call_agent(self.tab_id, [frame], method, arg)
        if frame in answers and answers[frame] is not None:
            return answers[frame]
        if frame != MAIN_FRAME and frame not in {f.frame_id for f in await self.host.frames(self.tab_id)}:
            raise FrameGone(f"The frame went away while the page agent ran {method}")
        raise DriverError(
            ErrorCode.NOT_SCRIPTABLE, f"The page agent did not answer {method} (did the page navigate away?)"
        )

    async def call(self, method: str, arg: Any = None) -> dict[str, Any]:
        """In the main frame; ``__error`` raised (``ok: false`` is the caller's to read)."""
        value = await self.call_in(MAIN_FRAME, method, arg)
        if isinstance(value, dict) and value.get("__error"):
            raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} failed: {value['__error']}"[:2000])
        if not isinstance(value, dict):
            raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} answered {type(value).__name__}")
        return value

    async def call_frame(self, frame: int, method: str, arg: Any, stale: str | None = None) -> dict[str, Any]:
        """In one frame, its ``ok: false`` raised; a frame gone is STALE_REF when a ref named it."""
        try:
            value = await self.call_in(frame, method, arg)
        except FrameGone:
            if stale:
                raise stale_ref(stale, "its frame is gone") from None
            raise
        return agent_ok(value, method)

    # ------------------------------------------------------------- snapshot and text search

    async def snapshot(self, mode: str, root: dict[str, Any] | None = None) -> dict[str, Any]:
        """The rows of every frame spliced into one list; with ``root`` (a target) its subtree only."""
        start, answers = await self._gather("snapshot", {"mode": mode}, root)
        rows, included = self._splice(start, answers, LOCATE_FIELDS)
        await self._prune()
        top = answers[start]
        return {
            "url": str(top.get("url") or ""),
            "title": str(top.get("title") or ""),
            "docId": str(top.get("docId") or ""),
            "nodes": rows,
            "frames": len(included),
        }

    async def find_text(self, text: str, root: dict[str, Any] | None, limit: int) -> dict[str, Any]:
        """The matches of every rendered frame (of ``root``'s subtree) in page order, the first ``limit``;
        ``total`` counts them all."""
        start, answers = await self._gather("findText", {"text": text, "limit": limit}, root)
        rows, included = self._splice(start, answers, ())
        await self._prune()
        top = answers[start]
        total = sum(int(answers[f].get("total") or 0) for f in included)
        return {
            "url": str(top.get("url") or ""),
            "title": str(top.get("title") or ""),
            "docId": str(top.get("docId") or ""),
            "nodes": [{k: v for k, v in row.items() if k != "depth"} for row in rows[:limit]],
            "total": max(total, len(rows)),
        }

    async def _gather(
        self, method: str, arg: dict[str, Any], root: dict[str, Any] | None
    ) -> tuple[int, dict[int, dict[str, Any]]]:
        """(the frame the list starts in, each frame's answer): the main frame and every other frame, or
        the root's frame, and the other frames only when an iframe is inside the root."""
        if root is None:
            start = MAIN_FRAME
            answers = _snapshots(await self.call_all(method, arg))
            if MAIN_FRAME not in answers:
                raise DriverError(ErrorCode.NOT_SCRIPTABLE, f"The page agent did not answer {method} in the main frame")
        else:
            resolved = await self.resolve(root)
            start = resolved.frame
            first = await self.call_frame(start, method, {**arg, "root": resolved.target}, resolved.label)
            if not isinstance(first.get("nodes"), list):
                raise DriverError(ErrorCode.INTERNAL, f"Page agent {method} answered no nodes")
            answers = {start: first}
            if any(n.get("frameToken") for n in first["nodes"]):
                others = [f.frame_id for f in await self.host.frames(self.tab_id) if f.frame_id != start]
                if others:
                    answers.update(_snapshots(await self.call_all(method, arg, others)))
        # A child learns its token from a message its parent posts while the parent answers; the first
        # time it may not have it yet. Only when a listed iframe still waits for its child (a hidden
        # iframe gets no token, and a page of hidden ad frames must not pay the wait).
        listed = {n["frameToken"] for a in answers.values() for n in a["nodes"] if n.get("frameToken")}
        claimed = {a.get("parentToken") for a in answers.values()}
        unmatched = [f for f, a in answers.items() if f != start and a.get("parentToken") not in listed]
        if any(t not in claimed for t in listed) and unmatched:
            await asyncio.sleep(TOKEN_RETRY_S)
            try:
                answers.update(_snapshots(await self.call_all(method, arg, unmatched)))
            except DriverError as exc:
                if exc.code == ErrorCode.NO_TAB:
                    raise
        return start, answers

    def _splice(
        self, start: int, answers: dict[int, dict[str, Any]], extras: Sequence[str]
    ) -> tuple[list[dict[str, Any]], set[int]]:
        """The rows from ``start`` on, each child frame's right after its iframe's row (refs prefixed,
        depths shifted); rows marked ``skip`` only place a frame. Frames are numbered in document order."""
        child_by_token: dict[str, int] = {}
        for frame, answer in answers.items():
            token = answer.get("parentToken")
            if frame != start and token and token not in child_by_token:
                child_by_token[token] = frame
        nodes: list[dict[str, Any]] = []
        included: set[int] = set()

        def splice(frame: int, base_depth: int) -> None:
            answer = answers[frame]
            info = self.frames.info(frame)  # numbered in document order
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
                for extra in extras:  # locate mode only (docs/nl-tools.md)
                    if node.get(extra):
                        row[extra] = str(node[extra])
                if not node.get("skip"):
                    nodes.append(row)
                child = child_by_token.get(node.get("frameToken") or "")
                if child is not None and child not in included:
                    splice(child, row["depth"] + 1)

        splice(start, 0)
        for frame in sorted(answers):  # frames left out (hidden iframes) still get a number, for css/role targets
            if frame not in included:
                info = self.frames.info(frame)
                info.doc_id, info.parent_token = answers[frame].get("docId"), answers[frame].get("parentToken")
        return nodes, included

    async def _prune(self) -> None:
        try:
            self.frames.prune([f.frame_id for f in await self.host.frames(self.tab_id)])
        except DriverError as exc:
            if exc.code == ErrorCode.NO_TAB:
                raise

    # ------------------------------------------------------------- targets

    def parse_ref(self, ref: str) -> tuple[int, dict[str, Any]]:
        """``f2e3`` → (frame 2's id, the agent's target); STALE_REF when frame 2 is not known (any more)."""
        match = REF_PATTERN.match(ref)
        if not match:
            raise DriverError(
                ErrorCode.ELEMENT_NOT_FOUND,
                f'"{ref}" is not a snapshot ref (refs look like e5, or f1e3 inside a frame)',
            )
        ordinal = int(match.group(1) or 0)
        frame = MAIN_FRAME if ordinal == 0 else self.frames.by_ordinal.get(ordinal)
        if frame is None:
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
        label = describe_target(target)
        answers = await self.call_all("find", {"target": target, "limit": MAX_CANDIDATES + 1})
        matches: list[dict[str, Any]] = []
        near: list[str] = []  # a row target: the rows most like the text asked for
        failure: Any = None
        for frame in sorted(answers):
            answer = answers[frame]
            if not isinstance(answer, dict) or answer.get("__error") or answer.get("ok") is False:
                failure = failure or answer
                continue
            near += [str(text) for text in answer.get("near") or []]
            ordinal = self.frames.info(frame).ordinal
            for m in answer.get("matches") or []:
                ref = str(m.get("ref"))
                who = {"role": str(m.get("role") or ""), "name": str(m.get("name") or "")}
                matches.append({"frame": frame, "local": ref, "ref": prefix_ref(ordinal, ref), **who})
        if len(matches) == 1:
            return Resolved(matches[0]["frame"], {"ref": matches[0]["local"]}, label)
        if len(matches) > 1:
            candidates = [{"ref": m["ref"], "role": m["role"], "name": m["name"]} for m in matches[:MAX_CANDIDATES]]
            listed = ", ".join(f'{c["ref"]} {c["role"]} "{c["name"]}"' for c in candidates)
            count = f"more than {MAX_CANDIDATES}" if len(matches) > MAX_CANDIDATES else str(len(matches))
            more = " …" if len(matches) > MAX_CANDIDATES else ""
            error = DriverError(ErrorCode.ELEMENT_AMBIGUOUS, f"{label} matches {count} elements: {listed}{more}")
            error.candidates = candidates
            raise error
        if failure is not None:
            agent_ok(failure, "find")  # e.g. an invalid selector: say so
        if near:
            shown = "; ".join(f'"{text}"' for text in near[:MAX_NEAR_ROWS])
            text = json.dumps(target["row"], ensure_ascii=False)
            message = f"No row on the page shows {text}; the closest rows: {shown}"
            raise DriverError(ErrorCode.ELEMENT_NOT_FOUND, message)
        raise DriverError(ErrorCode.ELEMENT_NOT_FOUND, f"No element matches {label}")

    async def focused_frame(self) -> int:
        """The frame holding focus (for press without a target): the deepest one whose active element is
        not an iframe."""
        try:
            answers = await self.call_all("holdsFocus")
        except DriverError as exc:
            if exc.code == ErrorCode.NO_TAB:
                raise
            return MAIN_FRAME
        focused = [f for f, a in answers.items() if isinstance(a, dict) and a.get("focused") is True]
        if len(focused) <= 1:
            return focused[0] if focused else MAIN_FRAME
        parents = {f.frame_id: f.parent_id for f in await self.host.frames(self.tab_id)}
        return max(focused, key=lambda f: _depth(f, parents))

    async def point_in_tab(self, frame: int, x: float, y: float) -> tuple[float, float]:
        """A point of ``frame``'s viewport in the tab's viewport (CSS px): each ancestor's agent adds where
        the iframe's content box starts (``frameOffset``), scrolling so the point is in its view. The
        iframe element is known from the child's parentToken."""
        current = frame
        parents: dict[int, int | None] | None = None
        for _ in range(MAX_DEPTH):
            if current == MAIN_FRAME:
                return x, y
            if parents is None or current not in parents:
                parents = {f.frame_id: f.parent_id for f in await self.host.frames(self.tab_id)}
            parent = parents.get(current)
            if current not in parents or parent is None:
                raise DriverError(ErrorCode.STALE_REF, "The element's frame is gone: take a new snapshot")
            token = await self._parent_token(current, parent)
            if token is None:
                raise DriverError(
                    ErrorCode.ELEMENT_NOT_INTERACTABLE, "The element's frame is not visible in its parent page"
                )
            offset = await self.call_frame(
                parent, "frameOffset", {"ref": token[1], "doc": token[0], "point": {"x": x, "y": y}}
            )
            x, y = x + float(offset["x"]), y + float(offset["y"])
            current = parent
        raise DriverError(ErrorCode.INTERNAL, "Frames nested too deep")

    async def _parent_token(self, frame: int, parent: int) -> tuple[str, str] | None:
        known = split_token(self.frames.info(frame).parent_token)
        parent_doc = self.frames.info(parent).doc_id
        if known and (not parent_doc or known[0] == parent_doc):
            return known
        # let the parent hand out tokens, then read the child's
        answer = agent_ok(
            (await self.call_all("snapshot", {"mode": "interactive"}, [parent])).get(parent), "snapshot"
        )
        self.frames.info(parent).doc_id = answer.get("docId")
        for _ in range(3):
            await asyncio.sleep(TOKEN_RETRY_S)
            child = (await self.call_all("snapshot", {"mode": "interactive"}, [frame])).get(frame)
            token = split_token(child.get("parentToken")) if isinstance(child, dict) else None
            if token and token[0] == answer.get("docId"):
                info = self.frames.info(frame)
                info.doc_id, info.parent_token = child.get("docId"), child.get("parentToken")  # type: ignore[union-attr]
                return token
        return None


def describe_target(target: dict[str, Any]) -> str:
    """A css or role target as the model writes it (tools/targets.py)."""
    if target.get("css") is not None and target.get("row") is not None:
        return f"the row showing {json.dumps(target['row'], ensure_ascii=False)}"
    if target.get("css") is not None:
        return f"css={target['css']}"
    return f"role={target['role']}" + (f"[name={target['name']}]" if target.get("name") is not None else "")


def _depth(frame: int, parents: dict[int, int | None]) -> int:
    depth = 0
    current: int | None = frame
    while current is not None and current != MAIN_FRAME and depth < MAX_DEPTH:
        current = parents.get(current)
        depth += 1
    return depth


def _snapshots(answers: dict[int, Any]) -> dict[int, dict[str, Any]]:
    """The answers that look like snapshots (a frame mid-navigation may answer anything)."""
    return {
        f: a
        for f, a in answers.items()
        if isinstance(a, dict)
        and not a.get("__error")
        and a.get("ok") is not False
        and isinstance(a.get("nodes"), list)
    }
