"""Core tools, one module per capability; ``catalog.py`` is the list of them the server offers."""
