"""The extension folder as a product: is it whole, and the zip the Chrome Web Store takes.

``tabmcp doctor`` asks whether the folder a user loads (``tabmcp extension-path``) is whole: a
valid MV3 manifest whose named files exist. ``tabmcp extension-pack`` writes the zip a developer
uploads to the Web Store: the manifest at the zip's root, without its ``key`` (the store refuses
it and assigns its own id), and without what only a local copy has: dotfiles and the
``tabmcp-config.json`` that ``connect_browser(launch=true)`` writes (it holds a pairing token).
The zip is reproducible: same folder, same bytes.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tabmcp.drivers.launch import CONFIG_FILE

MANIFEST = "manifest.json"
STORE_REFUSED_FIELDS = ("key",)  # the Web Store rejects an upload whose manifest has a key
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: a fixed date makes the zip reproducible


class ExtensionError(Exception):
    """The folder cannot be packed or loaded; the message says what to fix."""


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExtensionError(f"no {MANIFEST} in {folder}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExtensionError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ExtensionError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise ExtensionError(f"{path} is not a JSON object")
    return manifest


def manifest_problems(manifest: dict[str, Any]) -> list[str]:
    """What Chromium would refuse to load: not MV3, no name, no version."""
    problems = []
    if manifest.get("manifest_version") != 3:
        problems.append(f"manifest_version is {manifest.get('manifest_version')!r}, not 3")
    for name in ("name", "version"):
        if not isinstance(manifest.get(name), str) or not manifest[name]:
            problems.append(f"no {name}")
    return problems


def named_files(manifest: dict[str, Any]) -> list[str]:
    """The files a manifest points at (service worker, content scripts, pages, icons), in order, once each."""
    names: list[str] = []
    background = manifest.get("background") or {}
    names.append(background.get("service_worker", ""))
    for script in manifest.get("content_scripts") or []:
        names += [*script.get("js", []), *script.get("css", [])]
    names.append((manifest.get("options_ui") or {}).get("page", ""))
    names.append(manifest.get("options_page", ""))
    action = manifest.get("action") or {}
    names.append(action.get("default_popup", ""))
    names += _icon_files(action.get("default_icon"))
    names += _icon_files(manifest.get("icons"))
    for entry in manifest.get("web_accessible_resources") or []:
        names += [r for r in entry.get("resources", []) if "*" not in r]
    return list(dict.fromkeys(n for n in names if isinstance(n, str) and n))


def missing_files(folder: Path, manifest: dict[str, Any]) -> list[str]:
    return [name for name in named_files(manifest) if not (folder / name).is_file()]


def check_folder(folder: Path) -> dict[str, Any]:
    """The folder's manifest if Chromium can load the folder; ExtensionError saying why not otherwise."""
    manifest = read_manifest(folder)
    problems = manifest_problems(manifest)
    missing = missing_files(folder, manifest)
    if missing:
        problems.append(f"files named in {MANIFEST} are missing: {', '.join(missing)}")
    if problems:
        raise ExtensionError(f"{folder / MANIFEST}: " + "; ".join(problems))
    return manifest


def store_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in manifest.items() if k not in STORE_REFUSED_FIELDS}


def store_files(folder: Path) -> Iterator[Path]:
    """The folder's files that belong in an upload, relative to it, sorted (dot-names and the local config left out)."""
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_dir() or any(part.startswith(".") for part in relative.parts):
            continue
        if relative.as_posix() == CONFIG_FILE or "__pycache__" in relative.parts:
            continue
        yield relative


def pack(folder: Path, out: Path) -> Path:
    """Write the Web Store zip of ``folder`` to ``out`` (replaced whole or not at all); answer its path."""
    manifest = check_folder(folder)
    if not out.parent.is_dir():
        raise ExtensionError(f"cannot write {out}: folder {out.parent} does not exist")
    fd, scratch = tempfile.mkstemp(prefix=".tabmcp-pack-", suffix=".zip", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
            for relative in store_files(folder):
                if relative.as_posix() == MANIFEST:
                    data = (json.dumps(store_manifest(manifest), indent=2, ensure_ascii=False) + "\n").encode()
                else:
                    data = (folder / relative).read_bytes()
                entry = zipfile.ZipInfo(relative.as_posix(), ZIP_DATE)
                entry.external_attr = 0o644 << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(entry, data)
        os.chmod(scratch, 0o644)  # mkstemp made it 0600; a build artefact is for sharing
        os.replace(scratch, out)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise
    return out


def default_zip_name(manifest: dict[str, Any]) -> str:
    return f"tabmcp-extension-{manifest.get('version', 'unknown')}.zip"


def _icon_files(icons: object) -> list[str]:
    if isinstance(icons, str):
        return [icons]
    if isinstance(icons, dict):
        return [v for v in icons.values() if isinstance(v, str)]
    return []
