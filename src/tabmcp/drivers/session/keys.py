"""Trusted input: key combinations ("Control+Shift+A", "Esc") and mouse clicks as CDP ``Input.*`` commands."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabmcp.drivers.base import DriverError
from tabmcp.echo import quote
from tabmcp.protocol import ErrorCode

Send = Callable[[str, Mapping[str, Any]], Awaitable[Any]]

MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
MODIFIER_KEYS = {
    "Alt": ("AltLeft", 18),
    "Control": ("ControlLeft", 17),
    "Meta": ("MetaLeft", 91),
    "Shift": ("ShiftLeft", 16),
}
MODIFIER_ALIASES = {"Ctrl": "Control", "Cmd": "Meta", "Command": "Meta", "Option": "Alt"}
KEY_ALIASES = {
    "Space": " ", "Esc": "Escape", "Return": "Enter", "Del": "Delete",
    "Up": "ArrowUp", "Down": "ArrowDown", "Left": "ArrowLeft", "Right": "ArrowRight",
}  # fmt: skip
# key -> (code, windowsVirtualKeyCode, text)
NAMED_KEYS: dict[str, tuple[str, int, str]] = {
    "Enter": ("Enter", 13, "\r"),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""),
    "Delete": ("Delete", 46, ""),
    "Insert": ("Insert", 45, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
    "PageUp": ("PageUp", 33, ""),
    "PageDown": ("PageDown", 34, ""),
    " ": ("Space", 32, " "),
    **{f"F{n}": (f"F{n}", 111 + n, "") for n in range(1, 13)},
}
SHORTCUT_BITS = MODIFIER_BITS["Control"] | MODIFIER_BITS["Alt"] | MODIFIER_BITS["Meta"]


@dataclass(frozen=True)
class KeyCombo:
    key: str
    code: str
    key_code: int
    text: str
    modifiers: tuple[str, ...]


def parse_key_combo(combo: str) -> KeyCombo:
    """``"Control+Shift+A"`` → the key and its modifiers; BAD_MESSAGE for an unknown key or modifier."""
    parts = ["+"] if combo == "+" else [part.strip() for part in combo.split("+")]
    if combo.endswith("++"):
        parts[-2:] = ["+"]
    name = parts.pop()
    modifiers = tuple(MODIFIER_ALIASES.get(m, m) for m in parts)
    for modifier in modifiers:
        if modifier not in MODIFIER_BITS:
            raise DriverError(
                ErrorCode.BAD_MESSAGE,
                f"Unknown modifier {quote(modifier)} in key {quote(combo)} (Control, Shift, Alt, Meta)",
            )
    key = KEY_ALIASES.get(name, name)
    if key in NAMED_KEYS:
        code, key_code, text = NAMED_KEYS[key]
        return KeyCombo(key, code, key_code, text, modifiers)
    if len(key) != 1:
        raise DriverError(ErrorCode.BAD_MESSAGE, f"Unknown key {quote(name)} in {quote(combo)}")
    char = (key.upper() if "Shift" in modifiers else key.lower()) if re.match(r"[a-zA-Z]", key) else key
    upper = char.upper()
    code = f"Key{upper}" if re.match(r"[A-Z]", upper) else f"Digit{char}" if char.isdigit() else ""
    key_code = ord(upper) if re.match(r"[A-Z0-9]", upper) else 0
    return KeyCombo(char, code, key_code, char, modifiers)


async def press_key(send: Send, combo: str) -> None:
    """Modifiers down, the key down and up, modifiers up: as a user types it."""
    key = parse_key_combo(combo)
    bits = 0
    for modifier in key.modifiers:
        bits |= MODIFIER_BITS[modifier]
        code, key_code = MODIFIER_KEYS[modifier]
        await send(
            "Input.dispatchKeyEvent",
            {"type": "rawKeyDown", "key": modifier, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits},
        )
    text = key.text if key.text and not bits & SHORTCUT_BITS else ""  # Control/Alt/Meta make a shortcut, not text
    down: dict[str, Any] = {
        "type": "keyDown" if text else "rawKeyDown",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "modifiers": bits,
    }
    if text:
        down.update(text=text, unmodifiedText=text)
    if bits & (MODIFIER_BITS["Control"] | MODIFIER_BITS["Meta"]) and key.key.lower() == "a":
        down["commands"] = ["selectAll"]
    await send("Input.dispatchKeyEvent", down)
    up = {"type": "keyUp", "key": key.key, "code": key.code, "windowsVirtualKeyCode": key.key_code, "modifiers": bits}
    await send("Input.dispatchKeyEvent", up)
    for modifier in reversed(key.modifiers):
        bits &= ~MODIFIER_BITS[modifier]
        code, key_code = MODIFIER_KEYS[modifier]
        await send(
            "Input.dispatchKeyEvent",
            {"type": "keyUp", "key": modifier, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": bits},
        )


async def mouse_move(send: Send, x: float, y: float) -> None:
    await send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0})


async def mouse_click(send: Send, x: float, y: float, clicks: int = 1) -> None:
    await mouse_move(send, x, y)
    for count in range(1, clicks + 1):
        for kind, buttons in (("mousePressed", 1), ("mouseReleased", 0)):
            await send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": count},
            )
