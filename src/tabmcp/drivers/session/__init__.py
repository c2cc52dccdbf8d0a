"""The page session, written once over a ``PageHost`` (drivers/host.py); both drivers delegate their
page requests to it."""

from tabmcp.drivers.session.session import PageSession

__all__ = ["PageSession"]
