"""Addresses tabmcp listens on (the extension bridge, the HTTP endpoint): loopback or not, and how a
host is written in a URL. Pure; one definition, so the bridge and the HTTP server agree on what
"loopback only" means.
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """``localhost`` (any case), ``127.0.0.0/8`` or ``::1`` (with or without brackets)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """``host`` as a URL's authority writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
