"""Settings: defaults, overridden by ``TABMCP_*`` environment variables, overridden by CLI flags.

One object carries every knob so that the CLI, the server and the tests agree on names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TABMCP_", extra="ignore")

    ws_host: str = Field("127.0.0.1", description="Address the extension bridge listens on.")
    ws_port: int = Field(8765, description="Port the extension bridge listens on (0 picks a free one).")
    request_timeout: float = Field(30.0, description="Seconds before a request to the extension fails.")
    launch_timeout: float = Field(30.0, description="Seconds to wait for a launched browser's extension.")
    relink_grace: float = Field(
        5.0,
        ge=0,
        description="Seconds a lost extension link may take to come back by itself (a cut-off, a restarted "
        "service worker) before clients see the browser disconnected; the same browser relinking restores "
        "the connection and the focused tab without connect_browser.",
    )
    browser_path: str | None = Field(None, description="Chromium/Chrome executable for launch=true.")
    headless: bool | None = Field(None, description="Launch headless; default: headless when no display.")
    user_data_dir: Path | None = Field(None, description="Profile folder for the launched browser (temp if unset).")
    follow_user_tab_switches: bool = Field(False, description="Focus follows the tab the user activates.")
    introspectors_dir: Path | None = Field(None, description="Extra folder of site introspector modules.")
    max_page_tools: int = Field(
        30, ge=0, le=100, description="Most page tools listed for one page (the most useful first)."
    )
    capture_max_chars: int = Field(1_000_000, description="Largest DOM serialisation taken for introspection.")
    snapshot_max_chars: int = Field(30_000, description="Default character budget of one snapshot result.")
    action_timeout_ms: int = Field(5_000, description="How long an action waits for its element to be actionable.")
    navigation_timeout_ms: int = Field(30_000, description="How long open_tab and navigate wait for the page.")
    screenshot_max_side: int = Field(2000, description="Screenshots are scaled down to this many px on the long side.")
    screenshot_max_bytes: int = Field(5_000_000, description="Screenshots are re-encoded until this small.")
    enable_evaluate: bool = Field(False, description="List the evaluate tool (runs JavaScript in the page).")
    # --- security (docs/security.md) -------------------------------------------------
    config_dir: Path | None = Field(
        None, description="Where the pairing and HTTP tokens live (default: $XDG_CONFIG_HOME/tabmcp)."
    )
    pairing_token: str | None = Field(
        None, description="Bridge pairing token; default: generated once and stored in the config dir."
    )
    extension_ids: list[str] = Field(
        default_factory=list, description="Extension ids allowed on the bridge besides tabmcp's own."
    )
    ws_allow_remote: bool = Field(False, description="Allow the bridge to bind a non-loopback address.")
    ws_max_frame_bytes: int = Field(16 * 2**20, description="Largest frame the bridge accepts from the extension.")
    ws_max_frames_per_second: int = Field(
        500, description="Frames per second one extension connection may send before it is cut off."
    )
    # --- native messaging (docs/native-messaging.md) ---------------------------------------
    native_bridge: bool = Field(
        True,
        description="Also serve the bridge on a local (Unix domain) socket, which the native messaging host "
        "relays to: for machines where the extension cannot reach a local TCP port.",
    )
    native_socket: Path | None = Field(
        None, description="That socket's path (default: bridge.sock in the config dir)."
    )
    extension_transport: Literal["websocket", "native"] = Field(
        "websocket",
        description="How a browser tabmcp launches connects: websocket, or native (the host manifest is "
        "written into the launched profile).",
    )
    http: str | None = Field(None, description="Serve Streamable HTTP on HOST:PORT instead of stdio.")
    http_token: str | None = Field(
        None, description="Bearer token HTTP clients must send; required when HTTP is not on loopback."
    )
    http_allowed_hosts: list[str] = Field(
        default_factory=list, description="Extra Host header values accepted on HTTP (host:port)."
    )
    http_allowed_origins: list[str] = Field(
        default_factory=list, description="Extra Origin header values accepted on HTTP."
    )
    share_tabs: Literal["own", "user", "all"] = Field(
        "own",
        description="With several clients (HTTP): which tabs a client sees besides its own: "
        "own = only the tabs it opened, user = also tabs no client opened, all = every tab.",
    )
    session_idle_timeout: float = Field(
        1800.0, description="Seconds after which an idle HTTP session and its workspace are closed."
    )
    max_sessions: int = Field(10, ge=1, description="Most concurrent client sessions over HTTP.")
    allow_urls: list[str] = Field(
        default_factory=list,
        description="If set, only URLs matching one of these patterns may be opened or navigated to. "
        "chrome://, file:// and extension pages need a pattern here to be allowed at all.",
    )
    block_urls: list[str] = Field(
        default_factory=list, description="URLs matching one of these patterns are never loaded."
    )
    screenshot_origins: list[str] = Field(
        default_factory=list, description="If set, screenshots only of pages matching these URL patterns."
    )
    enable_trusted_input: bool | None = Field(
        None,
        description="Trusted input (real input events through CDP) for interact. Unset: on in tabmcp's own "
        "browser (the CDP driver, a browser tabmcp launched), where fill, clear, type and press use it by "
        "default, and off in the user's own Chrome; true: allowed everywhere; false: never.",
    )
    confirm_destructive: bool = Field(
        False, description="Ask the user (MCP elicitation) before running a destructive tool or action."
    )
    audit_log: Path | None = Field(None, description="Append one JSON line per tool call to this file.")
    secrets: list[str] = Field(
        default_factory=list, description="Values redacted wherever they appear in the audit log and a recording."
    )
    rate_limit_per_minute: int = Field(
        600, ge=0, description="Tool calls one client may make per minute (0: no limit)."
    )
    rate_limit_burst: int = Field(60, ge=1, description="Calls a client may make at once before the rate applies.")
    # --- CDP driver (docs/scaling.md) ---------------------------------------------------
    cdp_endpoint: str | None = Field(
        None,
        description="Drive the browser at this Chrome DevTools Protocol endpoint (ws://… or http://host:port) "
        "instead of the extension.",
    )
    browser: Literal["chromium", "chrome"] | None = Field(
        None,
        description="Launch this browser and drive it over CDP, without the extension (browser_path picks "
        "the executable).",
    )
    webmcp_native: bool = Field(
        False,
        description="Launch the browser with Chromium's own WebMCP (--enable-features=WebMCP); page_hooks.js "
        "then wraps the browser's document.modelContext instead of installing its polyfill.",
    )
    share_browser_context: bool = Field(
        False,
        description="CDP driver with several clients: all use the browser's default context (one profile) "
        "instead of one browser context each.",
    )
    playwright_object_cap: int = Field(
        500,
        ge=50,
        description="CDP driver: Playwright request and response objects kept at most (each kind); "
        "past it the oldest are released, so memory stays flat over many navigations.",
    )
    # --- natural-language tools (docs/nl-tools.md) ----------------------------------
    nl_tools: bool = Field(
        False,
        description="List the natural-language tools (ai_tap, ai_input, ai_query…) while a tab is focused, "
        "and the connection verbs (ai_connect_current_tab, ai_connect_new_tab, ai_disconnect).",
    )
    nl_model_base_url: str | None = Field(
        None,
        description="OpenAI-compatible chat endpoint (e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1) "
        "for ai_query, ai_assert, ai_wait_for, ai_action and unsure locating; without it those tools are not listed.",
    )
    nl_model: str | None = Field(None, description="Model name sent to that endpoint (e.g. gpt-4o-mini).")
    nl_model_api_key: str | None = Field(None, description="API key for that endpoint (sent as a bearer token).")
    nl_model_timeout: float = Field(30.0, gt=0, description="Seconds to wait for one answer of the model.")
    nl_model_screenshot: bool = Field(
        False, description="Send a screenshot of the viewport with the page text (for vision models)."
    )
    nl_model_max_page_chars: int = Field(
        24_000, ge=2000, description="Characters of the page snapshot sent to the model with each question."
    )
    # --- tool list mode (docs/clients.md) ------------------------------------------------
    tools: Literal["auto", "dynamic", "static"] = Field(
        "auto",
        description="Tool list: dynamic (follows the browser, sends list_changed), static (fixed: every core tool "
        "plus list_page_tools and call_page_tool, for clients that ignore list_changed), or auto (static for "
        "clients known to ignore list_changed, by their clientInfo name; dynamic otherwise).",
    )
    always_load: list[str] = Field(
        default_factory=lambda: ["page", "connect_browser", "snapshot", "interact"],
        description="Tools Claude Code loads at once instead of deferring them behind its tool search "
        "(_meta anthropic/alwaysLoad): 'page' for every page tool, or core tool names.",
    )
    list_reread_wait: float = Field(
        1.5,
        ge=0,
        description="Seconds a call that changed the tool list waits for the client to re-read it (0: never).",
    )
    log_level: str = Field("INFO", description="Logging level (logs go to stderr).")
    record: Path | None = Field(None, description="Append a JSONL recording of the session here.")
    trace_phases: bool = Field(
        False,
        description="Time each tool call's phases (navigation, agent round trips, capture, introspection, "
        "notice, answer) and return them in the result's _meta['tabmcp/phases'] (for the benchmarks).",
    )

    def resolved_headless(self) -> bool:
        if self.headless is not None:
            return self.headless
        return not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")

    @property
    def nl_model_configured(self) -> bool:
        """Whether the model-backed natural-language tools exist (docs/nl-tools.md)."""
        return self.nl_tools and bool(self.nl_model_base_url) and bool(self.nl_model)

    @property
    def uses_cdp(self) -> bool:
        """Whether the CDP driver runs instead of the extension (docs/scaling.md)."""
        return self.cdp_endpoint is not None or self.browser is not None

    def resolved_browser_path(self) -> str | None:
        """The configured browser, else the first one of the chosen kind found on the usual paths."""
        if self.browser_path:
            return self.browser_path
        candidates = CHROME_PATHS if self.browser == "chrome" else CHROMIUM_PATHS
        for candidate in candidates:
            if Path(candidate).exists():
                return candidate
        return None


CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROME_PATHS = (
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
