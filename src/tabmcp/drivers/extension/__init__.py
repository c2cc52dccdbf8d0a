"""The extension driver: the browser reached through tabmcp's extension, over the WebSocket bridge
(or the native messaging channel, which serves the same bridge). Only this package imports the
bridge; the rest of tabmcp uses the names below."""

from tabmcp.drivers.extension.bridge import IDENTITY
from tabmcp.drivers.extension.driver import ExtensionDriver
from tabmcp.drivers.extension.endpoint import ExtensionEndpoint, ExtensionStatus

__all__ = ["IDENTITY", "ExtensionDriver", "ExtensionEndpoint", "ExtensionStatus"]
