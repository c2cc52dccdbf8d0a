"""Reading a page: capture and snapshot, screenshots (viewport, full page, one element), the console
buffer, and evaluating an expression."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import math
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PIL import Image

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import MAIN_FRAME
from tabmcp.drivers.session.frames import prefix_ref
from tabmcp.drivers.session.limits import MAX_CAPTURE_SIDE, MAX_EVALUATE_CHARS
from tabmcp.page.capture import PageCapture

if TYPE_CHECKING:
    from tabmcp.drivers.session.core import SessionCore

log = logging.getLogger(__name__)
VIEWPORT = "({width: innerWidth, height: innerHeight, x: scrollX, y: scrollY})"


async def capture(session: SessionCore, tab_id: int, max_chars: int, if_changed: str | None) -> PageCapture | None:
    await session.wait_while_loading(tab_id)
    data = await session.tab(tab_id).agent.call("capture", {"maxChars": max_chars, "ifChanged": if_changed})
    if data.get("unchanged") and if_changed is not None:
        return None
    webmcp = data.get("webmcp", [])
    return PageCapture(
        url=str(data.get("url", "")),
        title=str(data.get("title", "")),
        html=str(data.get("html", "")),
        truncated=bool(data.get("truncated", False)),
        version=str(data.get("version", "")),
        webmcp=tuple(t for t in webmcp if isinstance(t, dict)) if isinstance(webmcp, list) else (),
    )


async def snapshot(session: SessionCore, tab_id: int, mode: str, root: dict[str, Any] | None = None) -> dict[str, Any]:
    await session.wait_while_loading(tab_id)
    return await session.tab(tab_id).agent.snapshot(mode, root)


async def find_text(
    session: SessionCore, tab_id: int, text: str, root: dict[str, Any] | None, limit: int
) -> dict[str, Any]:
    await session.wait_while_loading(tab_id)
    return await session.tab(tab_id).agent.find_text(text, root, limit)


def image_result(data: str, fmt: str) -> dict[str, Any]:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        width, height = image.size
    return {"data": data, "mimeType": "image/jpeg" if fmt == "jpeg" else "image/png", "width": width, "height": height}


async def _capture_cdp(
    session: SessionCore, tab_id: int, fmt: str, quality: int | None, clip: dict[str, float] | None
) -> dict[str, Any]:
    """CDP's Page.captureScreenshot; ``clip`` in page (document) CSS px, or None for the viewport."""
    params: dict[str, Any] = {"format": fmt}
    if quality is not None:
        params["quality"] = quality
    if clip is not None:
        params.update(clip={**clip, "scale": 1}, captureBeyondViewport=True)
    return image_result((await session.host.cdp(tab_id, "Page.captureScreenshot", params))["data"], fmt)


async def screenshot(
    session: SessionCore,
    tab_id: int,
    kind: str,
    target: dict[str, Any] | None,
    fmt: str,
    quality: int | None,
    marks: bool = False,
) -> dict[str, Any]:
    """The image, with what it shows: ``area`` (page CSS px), ``url``, ``title``, ``element`` (its ref,
    role and name) and, with ``marks``, the interactive elements on it (boxes in image px, before the
    ``clip``); ``marksTotal`` counts those on it when more were found than listed."""
    if kind == "element":
        return await _element(session, tab_id, target or {}, fmt, quality, marks)
    if kind == "full":
        metrics = await session.host.cdp(tab_id, "Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        width = max(1, math.ceil(size["width"]))
        height = max(1, min(math.ceil(size["height"]), MAX_CAPTURE_SIDE))
        page = {"x": 0.0, "y": 0.0, "width": float(width), "height": float(height)}
        view = await _view(session, tab_id, MAIN_FRAME, {"marks": marks}, within=page)
        image = await _capture_cdp(session, tab_id, fmt, quality, {"x": 0, "y": 0, "width": width, "height": height})
        return describe_shot(image, view, page, image["width"] / width, marks)
    view = await _view(session, tab_id, MAIN_FRAME, {"marks": marks})
    image = image_result(await session.host.capture_viewport(tab_id, fmt, quality), fmt)  # type: ignore[arg-type]
    if view is None:
        return image
    scale = viewport_scale(view, image)
    scroll = view["scroll"]
    area = {"x": scroll["x"], "y": scroll["y"], "width": image["width"] / scale, "height": image["height"] / scale}
    return describe_shot(image, view, area, scale, marks)


async def _view(
    session: SessionCore,
    tab_id: int,
    frame: int,
    arg: dict[str, Any],
    within: dict[str, float] | None = None,
) -> dict[str, Any] | None:
    """The agent's ``view`` of a frame (``within``: page CSS px, for the marks); None where no agent
    answers (a page it cannot script): the screenshot is still taken, with less said about it."""
    agent = session.tab(tab_id).agent
    if within is not None and arg.get("marks"):
        arg = {**arg, "within": within}
    try:
        view = await agent.call_frame(frame, "view", arg)
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB or arg.get("target"):
            raise
        log.debug("screenshot without the page's view: %s", exc.message)
        return None
    if not isinstance(view.get("scroll"), dict) or not isinstance(view.get("viewport"), dict):
        raise DriverError(p.ErrorCode.INTERNAL, "The page agent's view has no scroll position or viewport")
    if arg.get("marks"):  # its refs are the snapshot's: interact resolves them in this document
        agent.frames.info(frame).doc_id = view.get("docId") or agent.frames.info(frame).doc_id
    return view


def viewport_scale(view: dict[str, Any], image: dict[str, Any]) -> float:
    """Image px per CSS px of a viewport capture: the device pixel ratio, or the image's width over the
    viewport's when the page did not say."""
    dpr = float(view.get("dpr") or 0)
    return dpr if dpr > 0 else image["width"] / max(1.0, float(view["viewport"]["width"]))


def describe_shot(
    image: dict[str, Any], view: dict[str, Any] | None, area: dict[str, float], scale: float, marks: bool
) -> dict[str, Any]:
    """``image`` with what it shows. ``area``: the page CSS px it shows (its clip's, when it has one);
    ``image["origin"]``, when set, the page CSS px of the uncropped image's top left (else the area's);
    ``scale``: image px per CSS px."""
    out = {**image, "area": area}
    if view is None:
        return out
    out.update(url=str(view.get("url") or ""), title=str(view.get("title") or ""))
    if marks and isinstance(view.get("marks"), list):
        scroll = view["scroll"]
        origin = image.get("origin") or area
        placed = []
        for m in view["marks"]:
            if not isinstance(m, dict):
                continue
            try:
                x = (float(m["x"]) + scroll["x"] - origin["x"]) * scale
                y = (float(m["y"]) + scroll["y"] - origin["y"]) * scale
                box = {"x": x, "y": y, "width": float(m["width"]) * scale, "height": float(m["height"]) * scale}
            except (KeyError, TypeError, ValueError):
                continue
            placed.append({"ref": str(m.get("ref") or ""), "role": m.get("role"), "name": m.get("name"), **box})
        out["marks"] = placed
        total = view.get("total")
        if isinstance(total, int) and total > len(placed):
            out["marksTotal"] = total
    out.pop("origin", None)
    return out


async def _element(
    session: SessionCore, tab_id: int, target: dict[str, Any], fmt: str, quality: int | None, marks: bool
) -> dict[str, Any]:
    """The viewport image with ``clip`` (image px) when the element is in view, else the element's
    region rendered wherever it is on the page."""
    agent = session.tab(tab_id).agent
    resolved = await agent.resolve(target)
    answer = await agent.call_frame(resolved.frame, "rect", {"target": resolved.target}, resolved.label)
    rect, dpr = answer["rect"], float(answer.get("dpr") or 0)
    cx, cy = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
    tx, ty = await agent.point_in_tab(resolved.frame, cx, cy)
    box = {"x": rect["x"] + tx - cx, "y": rect["y"] + ty - cy, "width": rect["width"], "height": rect["height"]}
    if not (box["width"] > 0 and box["height"] > 0):
        raise DriverError(p.ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{resolved.label} has no size on screen")
    view = await _evaluate_value(session, tab_id, VIEWPORT)
    page_box = {**box, "x": box["x"] + view["x"], "y": box["y"] + view["y"]}
    named = {"target": resolved.target}
    if marks and resolved.frame == MAIN_FRAME:  # one call names the element and finds the marks
        described = seen = await _view(session, tab_id, MAIN_FRAME, {**named, "marks": True}, within=page_box)
    else:  # the marks are the main frame's
        described = await _view(session, tab_id, resolved.frame, named)
        seen = await _view(session, tab_id, MAIN_FRAME, {"marks": True}, within=page_box) if marks else described
    element = dict((described or {}).get("element") or {})
    if element.get("ref"):
        element["ref"] = prefix_ref(agent.frames.info(resolved.frame).ordinal, str(element["ref"]))
    image = image_result(await session.host.capture_viewport(tab_id, fmt, quality), fmt)  # type: ignore[arg-type]
    # the captured pixels per CSS px; the image can be smaller than innerWidth × innerHeight when the
    # viewport is emulated, so its size is what counts
    scale = dpr if dpr > 0 else image["width"] / view["width"]
    visible_w = min(view["width"], image["width"] / scale)
    visible_h = min(view["height"], image["height"] / scale)
    fits = (
        box["x"] >= -0.5
        and box["y"] >= -0.5
        and box["x"] + box["width"] <= visible_w + 0.5
        and box["y"] + box["height"] <= visible_h + 0.5
    )
    if not fits:  # larger than the viewport (or not quite in it): rendered wherever it is
        clip = {
            "x": max(0.0, page_box["x"]),
            "y": max(0.0, page_box["y"]),
            "width": max(1.0, box["width"]),
            "height": max(1.0, min(box["height"], MAX_CAPTURE_SIDE)),
        }
        image = await _capture_cdp(session, tab_id, fmt, quality, clip)
        shot = describe_shot(image, seen, clip, image["width"] / clip["width"], marks)
    else:
        x = min(image["width"] - 1, max(0, math.floor(box["x"] * scale)))
        y = min(image["height"] - 1, max(0, math.floor(box["y"] * scale)))
        width = max(1, min(image["width"], math.ceil((box["x"] + box["width"]) * scale)) - x)
        height = max(1, min(image["height"], math.ceil((box["y"] + box["height"]) * scale)) - y)
        clipped = {"x": x, "y": y, "width": width, "height": height}
        area = {k: v / scale for k, v in clipped.items()}
        area = {**area, "x": area["x"] + view["x"], "y": area["y"] + view["y"]}
        origin = {"x": float(view["x"]), "y": float(view["y"])}  # the uncropped image's top left
        shot = describe_shot({**image, "clip": clipped, "origin": origin}, seen, area, scale, marks)
    if element:
        shot["element"] = element
    return shot


async def _evaluate_value(session: SessionCore, tab_id: int, expression: str) -> Any:
    answer = await session.host.cdp(tab_id, "Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return answer["result"]["value"]


async def console(
    session: SessionCore, tab_id: int, after_seq: int, levels: Sequence[p.ConsoleLevel] | None
) -> dict[str, Any]:
    state = session.tab(tab_id)
    try:  # what the agents logged in the last 100 ms is not in the buffer yet
        for answer in (await state.agent.call_all("takeConsole")).values():
            for entry in answer.get("entries") or [] if isinstance(answer, dict) else []:
                state.console.add(entry)
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        log.debug("console read without the latest batch: %s", exc.message)
    # a batch an agent posted before takeConsole is in the buffer: the host returns an answer only
    # after the reports its page sent before it (PageHost.call_agent)
    return state.console.read(after_seq, set(levels) if levels else None)


async def evaluate(session: SessionCore, tab_id: int, expression: str, timeout_ms: int) -> dict[str, Any]:
    """The expression in the page's main world (CDP Runtime.evaluate, awaiting a promise); ``{type, json?}``."""
    params = {
        "expression": expression,
        "awaitPromise": True,
        "returnByValue": True,
        "userGesture": True,
        "timeout": timeout_ms,
    }
    started = time.monotonic()
    stopped = DriverError(p.ErrorCode.TIMEOUT, f"The expression did not finish within {timeout_ms} ms")
    try:
        answer = await asyncio.wait_for(session.host.cdp(tab_id, "Runtime.evaluate", params), timeout_ms / 1000 + 0.05)
    except TimeoutError:
        raise stopped from None
    except DriverError as exc:
        if exc.code not in (p.ErrorCode.NO_TAB, p.ErrorCode.DISCONNECTED) and (
            time.monotonic() - started
        ) * 1000 >= timeout_ms:
            raise DriverError(p.ErrorCode.TIMEOUT, f"{stopped.message} (stopped)") from None
        raise
    if answer.get("exceptionDetails"):
        details = answer["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text") or "the expression threw"
        if re.search("Execution was terminated", text, re.I):
            raise stopped
        raise DriverError(p.ErrorCode.SCRIPT_ERROR, text if len(text) <= 2000 else text[:1999] + "…")
    result = answer["result"]
    value: dict[str, Any] = {"type": result.get("subtype") or result.get("type")}
    if "unserializableValue" in result:
        value["json"] = result["unserializableValue"]
    elif result.get("type") != "undefined" and "value" in result:
        value["json"] = result["value"]
    if "json" in value and len(json.dumps(value["json"])) > MAX_EVALUATE_CHARS:
        raise DriverError(
            p.ErrorCode.SCRIPT_ERROR, f"The result is larger than {MAX_EVALUATE_CHARS} characters of JSON: return less"
        )
    return value
