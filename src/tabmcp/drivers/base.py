"""The Driver interface the runtime and tools use, and the events every driver emits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tabmcp.bridge import BridgeError
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step
from tabmcp.state import Browser, Tab

DriverError = BridgeError  # one error type with a protocol code, whatever the backend


@dataclass(frozen=True)
class LinkChanged:
    """The backend appeared or went away (extension socket, CDP endpoint)."""

    up: bool
    reason: str = ""


@dataclass(frozen=True)
class UserFocusedTab:
    """The user activated a tab in the browser; the runtime decides whether focus follows."""

    tab_id: int


class Driver(Protocol):
    @property
    def linked(self) -> bool: ...

    async def wait_linked(self, timeout: float) -> bool: ...

    async def next_event(self) -> object:
        """The next state event (``state.TabCreated`` …), ``LinkChanged`` or ``UserFocusedTab``."""
        ...

    async def connect(self) -> tuple[Browser, list[Tab]]: ...

    async def open_tab(self, url: str, focus: bool) -> Tab: ...

    async def focus_tab(self, tab_id: int) -> Tab: ...

    async def close_tab(self, tab_id: int) -> None: ...

    async def capture(self, tab_id: int, max_chars: int) -> PageCapture: ...

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[Step]) -> dict[str, Any]: ...
