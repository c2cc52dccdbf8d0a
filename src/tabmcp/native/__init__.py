"""The Native Messaging channel (docs/native-messaging.md): an alternative to the WebSocket bridge.

Chrome starts ``tabmcp native-host`` (``host.py``) for the extension; it relays Chrome's framed
messages (``framing.py``) to the server's local socket, where the same bridge code serves them.
``install.py`` writes the host manifest Chrome looks for.
"""

from __future__ import annotations

from pathlib import Path

from tabmcp import pairing

HOST_NAME = "com.tabmcp.bridge"  # what the extension passes to chrome.runtime.connectNative
SOCKET_FILE = "bridge.sock"
MAX_SOCKET_PATH = 107  # sun_path is 108 bytes on Linux (104 on macOS), one of them the NUL


def socket_path(configured: Path | None = None, config_dir: Path | None = None) -> Path:
    """Where the server listens for the native host: ``configured``, else ``bridge.sock`` in the config dir.

    The config dir (``$XDG_CONFIG_HOME/tabmcp`` or ``~/.config/tabmcp``, owner-only) is chosen over
    ``$XDG_RUNTIME_DIR`` because the server (started by an MCP client) and the host (started by
    Chrome) must find the same path from different environments, and HOME is the one both have.
    """
    if configured is not None:
        return configured.expanduser()
    return pairing.resolve_config_dir(config_dir) / SOCKET_FILE
