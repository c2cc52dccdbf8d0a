"""The extension driver: the browser reached through tabmcp's extension, over the WebSocket bridge
(or the native messaging channel, which serves the same bridge)."""

from tabmcp.drivers.extension.driver import ExtensionDriver

__all__ = ["ExtensionDriver"]
