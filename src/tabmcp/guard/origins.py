"""Which pages may be screenshotted (``screenshot_origins``); pure.

The patterns are the navigation policy's (``policy.py``; docs/security.md, "Navigation policy"), so
a user learns one syntax: ``https://example.com`` (that origin, every path), ``https://*.example.com``
(it and its subdomains), ``http://127.0.0.1:*`` (any port), ``*://example.com`` (http and https),
``https://mail.example/inbox/*`` (a path). An invalid pattern stops ``tabmcp serve`` at startup, as
one in ``allow_urls`` does.

An empty list allows every page (the default). The page's top-level URL decides: a cross-origin
frame inside an allowed page is in the picture.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tabmcp.policy import UrlPattern, first_match, parse_patterns, parse_url

if TYPE_CHECKING:
    from tabmcp.config import Settings

SETTING = "TABMCP_SCREENSHOT_ORIGINS"


@dataclass(frozen=True)
class ScreenshotOrigins:
    patterns: tuple[UrlPattern, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> ScreenshotOrigins:
        return _origins_for(tuple(settings.screenshot_origins))  # parsed once, like the policy

    @classmethod
    def from_patterns(cls, patterns: Iterable[str]) -> ScreenshotOrigins:
        """Raises ``policy.PolicyError`` naming the setting and every invalid pattern."""
        return cls(parse_patterns({SETTING: patterns})[SETTING])

    def allows(self, url: str) -> bool:
        """True when no patterns are set, or one matches ``url``."""
        return not self.patterns or first_match(self.patterns, url) is not None

    def shown(self) -> str:
        return ", ".join(p.text for p in self.patterns)


@functools.cache
def _origins_for(patterns: tuple[str, ...]) -> ScreenshotOrigins:
    return ScreenshotOrigins.from_patterns(patterns)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a web page, as the browser writes it (for messages); "" otherwise."""
    parsed = parse_url(url)
    if parsed is None or parsed.kind != "web":
        return ""
    return "/".join(parsed.canonical.split("/", 3)[:3])
