"""Key combinations as the extension takes them ("Control+Shift+A", "Esc"), in Playwright's spelling."""

from __future__ import annotations

from tabmcp.drivers.base import DriverError
from tabmcp.echo import quote
from tabmcp.protocol import ErrorCode

MODIFIERS = ("Alt", "Control", "Meta", "Shift")
MODIFIER_ALIASES = {"Ctrl": "Control", "Cmd": "Meta", "Command": "Meta", "Option": "Alt"}
KEY_ALIASES = {
    "Space": " ", "Esc": "Escape", "Return": "Enter", "Del": "Delete",
    "Up": "ArrowUp", "Down": "ArrowDown", "Left": "ArrowLeft", "Right": "ArrowRight",
}  # fmt: skip
NAMED_KEYS = {
    "Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown",
    "Home", "End", "PageUp", "PageDown", *(f"F{n}" for n in range(1, 13)),
}  # fmt: skip


def playwright_key(combo: str) -> str:
    """``combo`` for Playwright's ``keyboard.press``; BAD_MESSAGE for what the extension would refuse too."""
    parts = ["+"] if combo == "+" else [p.strip() for p in combo.split("+")]
    if combo.endswith("++"):
        parts[-2:] = ["+"]
    name = parts.pop()
    modifiers = [MODIFIER_ALIASES.get(m, m) for m in parts]
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            raise DriverError(
                ErrorCode.BAD_MESSAGE,
                f"Unknown modifier {quote(modifier)} in key {quote(combo)} (Control, Shift, Alt, Meta)",
            )
    key = KEY_ALIASES.get(name, name)
    if key not in NAMED_KEYS and len(key) != 1:
        raise DriverError(ErrorCode.BAD_MESSAGE, f"Unknown key {quote(name)} in {quote(combo)}")
    if key == " ":
        key = "Space"
    elif len(key) == 1 and key.isalpha():
        key = key.upper() if "Shift" in modifiers else key.lower()
    return "+".join([*modifiers, key])
