"""The real-app corpus: open-source web apps, installed pinned, seeded and started here (README.md)."""

from __future__ import annotations

import importlib

from bench.apps.base import App

NAMES = ("flaskadmin", "sqliteweb", "otterwiki", "roundup", "maildev", "mkdocs", "wagtail")


def load(name: str) -> App:
    if name not in NAMES:
        raise KeyError(f"no app {name!r}; the apps are {', '.join(NAMES)}")
    return importlib.import_module(f"bench.apps.{name}").APP  # type: ignore[no-any-return]


def all_apps() -> list[App]:
    return [load(n) for n in NAMES]
