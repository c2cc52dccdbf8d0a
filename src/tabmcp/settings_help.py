"""Help for the command-line flags that set a ``Settings`` field: each names its ``TABMCP_*`` variable
and its default, both read from the settings model, so ``--help`` says what the server really does.

``annotate`` appends ``[env: TABMCP_WS_PORT] [default: 8765]`` to the help of every flag whose ``dest``
is a settings field; other flags are left as they are.
"""

from __future__ import annotations

import argparse
from typing import get_origin

from tabmcp.config import Settings


def env_name(field: str) -> str:
    return f"{Settings.model_config.get('env_prefix', '')}{field}".upper()


def is_list(field: str) -> bool:
    return get_origin(Settings.model_fields[field].annotation) is list


def default_text(field: str) -> str:
    """The default as a user would write it in the variable: ``true``, ``30``, ``none`` for an empty list,
    ``unset`` where the flag's help says what an unset value means."""
    value = Settings.model_fields[field].get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def suffix(field: str) -> str:
    env = env_name(field) + (", a JSON list" if is_list(field) else "")
    return f"[env: {env}] [default: {default_text(field)}]"


def annotate(parser: argparse.ArgumentParser) -> None:
    """Append ``suffix`` to each settings flag's help (argparse formats help with %, hence the escaping)."""
    for action in parser._actions:
        if action.dest not in Settings.model_fields or action.help == argparse.SUPPRESS:
            continue
        added = suffix(action.dest).replace("%", "%%")
        action.help = f"{action.help} {added}" if action.help else added
