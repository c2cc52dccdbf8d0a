"""Settings: defaults, overridden by ``TABMCP_*`` environment variables, overridden by CLI flags.

One object carries every knob so that the CLI, the server and the tests agree on names.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TABMCP_", extra="ignore")

    ws_host: str = Field("127.0.0.1", description="Address the extension bridge listens on.")
    ws_port: int = Field(8765, description="Port the extension bridge listens on (0 picks a free one).")
    request_timeout: float = Field(30.0, description="Seconds before a request to the extension fails.")
    launch_timeout: float = Field(30.0, description="Seconds to wait for a launched browser's extension.")
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
    navigation_timeout_ms: int = Field(30_000, description="How long navigate and navigating actions wait.")
    screenshot_max_side: int = Field(2000, description="Screenshots are scaled down to this many px on the long side.")
    screenshot_max_bytes: int = Field(5_000_000, description="Screenshots are re-encoded until this small.")
    enable_evaluate: bool = Field(False, description="List the evaluate tool (runs JavaScript in the page).")
    log_level: str = Field("INFO", description="Logging level (logs go to stderr).")
    record: Path | None = Field(None, description="Append a JSONL recording of the session here.")

    def resolved_headless(self) -> bool:
        if self.headless is not None:
            return self.headless
        return not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")

    def resolved_browser_path(self) -> str | None:
        """The configured browser, else the first Chromium found on the usual paths."""
        if self.browser_path:
            return self.browser_path
        for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"):
            if Path(candidate).exists():
                return candidate
        return None
