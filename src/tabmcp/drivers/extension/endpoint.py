"""The extension's end of one tabmcp process: the bridge the extension links to, the driver over it,
and what is known of the link for the messages of ``connect_browser`` (``ExtensionStatus``).

The rest of tabmcp reaches the extension only through this and ``ExtensionDriver``: nothing outside
``drivers/extension/`` imports the bridge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabmcp.config import Settings
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.extension.driver import ExtensionDriver
from tabmcp.record import Recorder


class ExtensionStatus:
    """What is known of the extension's link, read when asked (a refusal or the user's Disconnect may
    come while ``connect_browser`` waits). Without a bridge (a process that has none, a unit test):
    no address, nothing refused."""

    def __init__(self, bridge: Bridge | None = None) -> None:
        self._bridge = bridge

    @property
    def url(self) -> str:
        """Where the extension links (``ws://host:port``), for a browser tabmcp launches."""
        return self._bridge.url if self._bridge is not None else ""

    @property
    def start_error(self) -> str | None:
        """Why nothing listens for the extension at all."""
        return self._bridge.start_error if self._bridge is not None else None

    @property
    def tcp_error(self) -> str | None:
        """Why the bridge has no TCP socket while its native messaging socket is up (the port is taken)."""
        return self._bridge.tcp_error if self._bridge is not None else None

    @property
    def last_refusal(self) -> str | None:
        """Why the bridge last refused a browser (a wrong pairing token…); cleared when one links."""
        return self._bridge.last_refusal if self._bridge is not None else None

    @property
    def user_disconnected(self) -> bool:
        """Whether the last link ended with the user's Disconnect in the extension's popup."""
        return self._bridge.user_disconnected if self._bridge is not None else False


class ExtensionEndpoint:
    """The bridge (started and stopped with the server) and the ``ExtensionDriver`` over it."""

    def __init__(self, bridge: Bridge, policy: Mapping[str, Any] | None = None) -> None:
        """``policy``: the navigation policy's rules (``NavigationPolicy.wire()``), sent to the extension
        with every connect."""
        self.bridge = bridge  # this package's own; tests of the wire read its event queue
        self.driver = ExtensionDriver(bridge, policy)
        self.status = ExtensionStatus(bridge)

    @classmethod
    def from_settings(
        cls, settings: Settings, policy: Mapping[str, Any] | None = None, recorder: Recorder | None = None
    ) -> ExtensionEndpoint:
        """The endpoint a server runs: its pairing token, address, origins and limits from the settings."""
        return cls(Bridge.from_settings(settings, recorder), policy)

    @property
    def token(self) -> str:
        """The pairing token the extension must present (written into a browser tabmcp launches)."""
        return self.bridge.token

    @property
    def url(self) -> str:
        return self.bridge.url

    async def start(self) -> None:
        """Listen for the extension; a failure is kept in ``status.start_error``, not raised."""
        await self.bridge.start()

    async def stop(self) -> None:
        await self.bridge.stop()
