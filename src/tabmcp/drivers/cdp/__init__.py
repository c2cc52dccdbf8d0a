"""The CDP driver: the Driver interface over Playwright's Chrome DevTools Protocol connection.

For browsers the extension cannot reach: a local Chrome that ignores ``--load-extension``, a browser
in a container, a grid (docs/scaling.md). The DOM work is the extension's own ``agent.js`` and
``page_hooks.js``, injected into every frame; the page requests are the page session's
(drivers/session/), over ``CdpHost`` (host.py).
"""

from tabmcp.drivers.cdp.driver import CdpDriver

__all__ = ["CdpDriver"]
