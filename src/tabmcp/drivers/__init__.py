"""Drivers hide which backend reaches the browser: the extension today, CDP later."""
