"""Connecting to a browser: the one tool a disconnected client sees."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.launch import LaunchError
from tabmcp.tools.base import Args, ToolContext, ToolFailure, tool
from tabmcp.tools.tabs import OpenTabArgs, check_url, open_tab

# An extension that is already installed but whose service worker is between reconnect attempts
# (its back-off tops out at 5 s) deserves a short wait before we say there is no browser.
WAIT_FOR_RUNNING_EXTENSION = 6.0
NO_BROWSER = {
    "connected": False,
    "error": "No browser found",
    "instructions": (
        "Open Chrome/Chromium with the tabmcp extension loaded (chrome://extensions → Load unpacked → "
        "the extension/ folder) and paired (paste the output of `tabmcp token` into the extension's "
        "options; see `tabmcp --help`), or call connect_browser with launch=true to start a browser "
        "with it."
    ),
}


USER_DISCONNECTED = {
    **NO_BROWSER,
    "error": "Disconnected by the user",
    "instructions": (
        "The user disconnected this browser from tabmcp (the Disconnect button of the tabmcp extension's "
        "popup). Ask the user to press Connect in that popup, then call connect_browser again."
    ),
}


class ConnectArgs(Args):
    launch: bool = Field(False, description="Launch a new browser with the extension if none is connected")
    url: str | None = Field(None, description="Then open this URL in a new tab and focus it (as open_tab)")


@tool(title="Connect to the browser", available_in={s.Mode.DISCONNECTED}, idempotent=True)
async def connect_browser(ctx: ToolContext, args: ConnectArgs) -> dict[str, Any]:
    """Connect to the browser (the one running the tabmcp extension, or launch one). Unlocks the tab tools."""
    if args.url is not None:
        check_url(args.url, ctx.policy)  # refused before any browser is started for it
    driver = ctx.runtime.driver
    if ctx.settings.uses_cdp:
        await link_cdp(ctx)
    elif ctx.extension.start_error:
        raise ToolFailure(f"The extension bridge is not running: {ctx.extension.start_error}", dict(NO_BROWSER))
    if not driver.linked and args.launch:
        await ctx.progress.step("launching the browser", total=3)
        async with ctx.launcher.lock:
            if not driver.linked:  # else another client's launch got there first: use that browser
                await launch_browser(ctx)
    elif not driver.linked and not await driver.wait_linked(WAIT_FOR_RUNNING_EXTENSION):
        refusal = ctx.extension.last_refusal
        if refusal:  # a browser is there but could not link: say why, that is what the user must fix
            raise ToolFailure(
                f"A browser's tabmcp extension tried to connect and was refused: {refusal}.",
                {**NO_BROWSER, "error": "Browser refused", "refusal": refusal},
            )
        if ctx.extension.user_disconnected:  # the user unlinked the browser on purpose: only they can undo it
            raise ToolFailure(USER_DISCONNECTED["instructions"], dict(USER_DISCONNECTED))
        raise ToolFailure("No browser found. " + NO_BROWSER["instructions"], dict(NO_BROWSER))
    try:
        browser, tabs = await driver.connect()
    except DriverError as exc:
        raise ToolFailure(f"The browser did not answer: {exc.message}", dict(NO_BROWSER)) from None
    await ctx.progress.step(f"connected to {browser.name}: {len(tabs)} tabs read")
    await ctx.runtime.dispatch(s.ExtensionConnected(browser, tuple(tabs)))
    connected = {
        "connected": True,
        "browser": {"name": browser.name, "version": browser.version},
        "tabCount": len(ctx.runtime.state.tabs),
    }
    if args.url is None:
        return connected
    try:
        opened = await open_tab(ctx, OpenTabArgs(url=args.url))
    except ToolFailure as exc:  # the link stands: the model goes on with the tab tools
        exc.message = f"Connected to {browser.name}, but the page did not open: {exc.message}"
        exc.data = {**(exc.data or {}), "connected": True}
        raise
    return {**connected, "tabCount": len(ctx.runtime.state.tabs), **opened}


async def launch_browser(ctx: ToolContext) -> None:
    """Start a browser with the extension and wait until it links (the caller holds the launcher's lock)."""
    if ctx.extension.tcp_error and ctx.settings.extension_transport == "websocket":
        # its extension would knock on a port nobody of ours listens on, and time out saying nothing
        raise ToolFailure(
            f"Cannot launch a browser: it would connect over WebSocket, but the extension bridge is not "
            f"listening on TCP ({ctx.extension.tcp_error}). Ask the user to restart tabmcp with "
            "--extension-transport native (TABMCP_EXTENSION_TRANSPORT=native), or with a free --ws-port.",
            dict(NO_BROWSER),
        )
    try:
        await ctx.launcher.launch(ctx.extension.url)
        linked = await ctx.launcher.until_linked(ctx.runtime.driver.wait_linked(ctx.settings.launch_timeout))
    except LaunchError as exc:
        await ctx.launcher.close()
        raise ToolFailure(str(exc), dict(NO_BROWSER)) from None
    if not linked:
        await ctx.launcher.close()
        raise ToolFailure(
            f"The browser started but its extension did not connect within {ctx.settings.launch_timeout:g} s.",
            dict(NO_BROWSER),
        )
    await ctx.progress.step("the browser's extension linked")


async def link_cdp(ctx: ToolContext) -> None:
    """The CDP driver: connect to the configured endpoint, or launch the configured browser (docs/scaling.md)."""
    driver = ctx.runtime.driver
    async with ctx.launcher.lock:  # several clients (HTTP) may ask at once; one link serves them all
        if driver.linked:
            return
        where = ctx.settings.cdp_endpoint
        await ctx.progress.step(f"connecting to {where} over CDP" if where else f"launching {ctx.settings.browser}")
        try:
            await driver.link()
        except DriverError as exc:
            where = ctx.settings.cdp_endpoint or f"a launched {ctx.settings.browser}"
            raise ToolFailure(
                f"{exc.message}. Check that the browser at {where} is running and reachable "
                "(docs/scaling.md), then call connect_browser again.",
                {**NO_BROWSER, "error": "Browser unreachable", "instructions": "See docs/scaling.md."},
            ) from None
