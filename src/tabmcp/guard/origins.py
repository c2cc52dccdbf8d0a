"""Which pages may be screenshotted (``screenshot_origins``); pure.

A pattern is matched case-insensitively, ``*`` matching any run of characters:

- with a path (``https://mail.example/inbox/*``): against the whole URL;
- with a scheme (``https://example.com``, ``https://*.example.com``, ``http://127.0.0.1:*``):
  against the page's origin, ``scheme://host[:port]`` with the scheme's default port left out;
- a bare host (``example.com``, ``*.example.com``): against the host, any scheme and port.

An empty list allows every page (the default). The page's top-level URL decides: a cross-origin
frame inside an allowed page is in the picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if not scheme or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"  # IPv6
    shown_port = f":{port}" if port is not None and port != DEFAULT_PORTS.get(scheme) else ""
    return f"{scheme}://{host}{shown_port}"


def matches(url: str, pattern: str) -> bool:
    pattern = pattern.strip().lower()
    if not pattern:
        return False
    _, sep, rest = pattern.partition("://")
    if not sep:  # a bare host
        return fnmatchcase((urlsplit(url.strip()).hostname or "").lower(), pattern)
    if "/" in rest.rstrip("/"):
        return fnmatchcase(url.strip().lower(), pattern)
    origin = origin_of(url)
    wanted = pattern.rstrip("/")
    return bool(origin) and (fnmatchcase(origin, wanted) or fnmatchcase(origin, _with_default_port(wanted)))


def allowed(url: str, patterns: Sequence[str]) -> bool:
    """True when no patterns are set, or one matches ``url``."""
    return not patterns or any(matches(url, p) for p in patterns)


def _with_default_port(pattern: str) -> str:
    """``https://example.com:443`` written out in the pattern still matches ``https://example.com``."""
    scheme, _, rest = pattern.partition("://")
    default = DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{rest.removesuffix(f':{default}')}" if default else pattern
