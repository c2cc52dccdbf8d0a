"""The CDP driver: the Driver interface over Playwright's Chrome DevTools Protocol connection.

For browsers the extension cannot reach: a local Chrome that ignores ``--load-extension``, a browser
in a container, a grid (docs/scaling.md). The DOM work is the extension's own page agent and
``page_hooks.js``, injected into every frame; what the extension's service worker does around them
(frames, navigation waits, plans, trusted input, screenshots) is done here with Playwright.
"""

from tabmcp.drivers.cdp.driver import CdpDriver

__all__ = ["CdpDriver"]
