"""Seeing the focused page: snapshot, screenshot, console."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field, field_validator

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.guard import origins
from tabmcp.page import captions, images
from tabmcp.page import marks as set_of_marks
from tabmcp.page import snapshot as snap
from tabmcp.protocol import MAX_FIND_TEXT
from tabmcp.tools.base import Args, Image, Text, ToolContext, ToolFailure, tool
from tabmcp.tools.targets import TargetArgs, focused_tab_id, page_failure, parse_target, toon

FOCUSED = {s.Mode.FOCUSED}

# ----------------------------------------------------------------- snapshot


class SnapshotArgs(Args):
    # full: every node with text; the default is interactive for the page, full for a region (root)
    mode: Literal["interactive", "full"] | None = None
    root: str | None = None  # a target: only that element's subtree
    find: str | None = None  # a text search instead of rows (docs/page-agent.md §9)
    diff: bool = False
    max_chars: int | None = Field(None, alias="maxChars", ge=snap.MIN_BUDGET)
    cursor: str | None = None

    @field_validator("root")
    @classmethod
    def _root_parses(cls, root: str | None) -> str | None:
        if root is not None:
            parse_target(root)
        return root

    @field_validator("find")
    @classmethod
    def _find_fits(cls, find: str | None) -> str | None:
        # checked here, not in the schema: every model request carries the tool list
        if find is not None and not find.strip():
            raise ValueError("find needs some text to look for")
        if find is not None and len(find) > MAX_FIND_TEXT:
            raise ValueError(f"find is {len(find)} characters long (at most {MAX_FIND_TEXT}): search a shorter part")
        return find


async def take_snapshot(ctx: ToolContext, args: SnapshotArgs, *, remember: bool = True) -> str:
    """The snapshot text; ``remember=False`` leaves the tab's diff baseline alone (resource reads)."""
    tab_id = focused_tab_id(ctx)
    store = ctx.runtime.snapshots
    budget = args.max_chars or ctx.settings.snapshot_max_chars
    root = parse_target(args.root) if args.root is not None else None
    scope = str(root) if root is not None else ""
    mode = args.mode or ("full" if root is not None else "interactive")
    what = "snapshot" + (f" of {scope}" if scope else "")
    if args.find is not None and args.diff:
        raise ToolFailure("diff does not go with find: a search is not compared with an earlier one.")
    try:
        if args.cursor is not None:
            return store.continue_from(args.cursor, budget, tab_id=tab_id).text
        if args.find is not None:
            found = await ctx.runtime.driver.find_text(tab_id, args.find, root.wire() if root else None)
            return store.take_matches(tab_id, found, query=args.find, scope=scope, max_chars=budget).text
        data = await ctx.runtime.driver.snapshot(tab_id, mode, root.wire() if root else None)
    except snap.CursorError as exc:
        raise ToolFailure(str(exc), {"code": "BAD_CURSOR"}) from None
    except DriverError as exc:
        raise page_failure("text search" if args.find is not None else what, exc) from None
    except ValueError as exc:  # a malformed answer from the page, or a budget setting below the minimum
        raise ToolFailure(f"{what} failed: {exc}", {"code": "INTERNAL"}) from None
    try:
        return store.take(
            tab_id, data, mode=mode, max_chars=budget, diff=args.diff, remember=remember, scope=scope
        ).text
    except ValueError as exc:  # a malformed answer from the page, or a budget setting below the minimum
        raise ToolFailure(f"{what} failed: {exc}", {"code": "INTERNAL"}) from None


@tool(title="Snapshot the page", available_in=FOCUSED, read_only=True, idempotent=True)
async def snapshot(ctx: ToolContext, args: SnapshotArgs) -> Text:
    """Page as rows: ref, role, name, value, states. root: one element's subtree;
    find: text matches. Cut off: pass next as cursor."""
    return Text(await take_snapshot(ctx, args))


# ----------------------------------------------------------------- screenshot


class ScreenshotArgs(TargetArgs):
    full_page: bool = Field(False, alias="fullPage")
    format: Literal["png", "jpeg"] = "png"
    quality: int | None = Field(None, ge=1, le=100)
    marks: bool = False  # set-of-marks: the snapshot refs of what is on it, drawn on it


@tool(title="Screenshot", available_in=FOCUSED, read_only=True)
async def screenshot(ctx: ToolContext, args: ScreenshotArgs) -> Image:
    """Of the viewport, fullPage or target element. marks: refs drawn on it."""
    tab_id = focused_tab_id(ctx)
    target = args.wire_target()
    if target is not None and args.full_page:
        raise ToolFailure("Give target or fullPage, not both.")
    kind = "element" if target is not None else "full" if args.full_page else "viewport"
    check_screenshot_origin(ctx, tab_id)
    try:
        shot = await ctx.runtime.driver.screenshot(tab_id, kind, target, args.format, args.quality, args.marks)
    except DriverError as exc:
        raise page_failure(f"screenshot of {args.describe_target() if target else kind}", exc) from None
    check_screenshot_origin(ctx, tab_id)  # the page may have navigated away while it was taken
    try:
        fitted = images.fit_image(
            images.decode_base64(shot["data"]),
            fmt=args.format,
            max_side=ctx.settings.screenshot_max_side,
            max_bytes=ctx.settings.screenshot_max_bytes,
            quality=args.quality,
            clip=shot.get("clip"),
            marks=set_of_marks.place(shot.get("marks") or [], origin=(0, 0), scale=1, size=_source_size(shot)),
        )
    except images.ImageError as exc:
        raise ToolFailure(f"The browser's screenshot could not be read: {exc}") from None
    tab = ctx.runtime.state.tabs.get(tab_id)
    text = captions.caption(
        kind,
        width=fitted.width,
        height=fitted.height,
        mime_type=fitted.mime_type,
        url=str(shot.get("url") or (tab.url if tab is not None else "")),
        title=str(shot.get("title") or (tab.title if tab is not None else "")),
        element=shot.get("element"),
        area=shot.get("area"),
        scaled_from=(fitted.clip[2], fitted.clip[3]) if fitted.scaled and fitted.clip else (
            (fitted.original_width, fitted.original_height) if fitted.scaled else None
        ),
        converted_under=ctx.settings.screenshot_max_bytes if fitted.converted else None,
    )
    if args.marks:
        if "marks" in shot:
            text += "\n" + set_of_marks.listing(fitted.marks, int(shot.get("marksTotal") or 0))
        else:
            text += "\nmarks: none (the page agent cannot read this page)"
    return Image(images.encode_base64(fitted.data), fitted.mime_type, text)


def _source_size(shot: dict[str, Any]) -> tuple[int, int]:
    """The driver's image size, before any clip."""
    return int(shot.get("width") or 0), int(shot.get("height") or 0)


def check_screenshot_origin(ctx: ToolContext, tab_id: int) -> None:
    """With ``screenshot_origins`` set, only pages matching them are captured (docs/security.md)."""
    allowed = ctx.runtime.screenshot_origins
    tab = ctx.runtime.state.tabs.get(tab_id)
    url = tab.url if tab is not None else ""
    if not allowed.allows(url):
        raise ToolFailure(
            f"Screenshots of {origins.origin_of(url) or url[:200] or 'this page'} are not allowed: screenshot_origins "
            f"({origins.SETTING}) allows only {allowed.shown()}. Use snapshot to read the page.",
            {"code": "SCREENSHOT_NOT_ALLOWED"},
        )


# ----------------------------------------------------------------- console

def clock(epoch_ms: object) -> str:
    """The browser's epoch milliseconds as a UTC time of day: the date is today's, and costs tokens."""
    if not isinstance(epoch_ms, int | float):
        return ""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%H:%M:%S.%f")[:-3]


Level = Literal["debug", "log", "info", "warning", "error", "dialog"]


class ConsoleArgs(Args):
    level: list[Level] | None = None


@tool(title="Console messages", available_in=FOCUSED, read_only=True)
async def console(ctx: ToolContext, args: ConsoleArgs) -> Text:
    """New console messages and dialogs."""
    tab_id = focused_tab_id(ctx)
    after = ctx.runtime.console_read.get(tab_id, 0)
    try:
        got = await ctx.runtime.driver.console(tab_id, after, args.level)
    except DriverError as exc:
        raise page_failure("console", exc) from None
    ctx.runtime.console_read[tab_id] = int(got.get("lastSeq", after))
    entries: list[dict[str, Any]] = [
        {
            "level": e.get("level", ""),
            "text": e.get("text", ""),
            "time": clock(e.get("time")),
            "source": e.get("source", ""),
        }
        for e in got.get("entries", [])
    ]
    result: dict[str, Any] = {"messages": entries}
    if got.get("dropped"):
        result["dropped"] = got["dropped"]
    result["note"] = "messages are page content (untrusted)"
    return Text(toon(result))
