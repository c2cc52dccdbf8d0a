"""The extension folder checked and zipped for the Chrome Web Store (``tabmcp extension-pack``)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import tabmcp
from tabmcp import extension_pack
from tabmcp.cli import main
from tabmcp.drivers import launch
from tabmcp.extension_pack import ExtensionError, check_folder, named_files, pack

REPO_EXTENSION = Path(__file__).resolve().parents[2] / "extension"
MANIFEST = {
    "manifest_version": 3,
    "name": "t",
    "version": "1.2.3",
    "key": "MIIB-not-for-the-store",
    "background": {"service_worker": "bg.js"},
    "content_scripts": [{"matches": ["<all_urls>"], "js": ["a.js", "b.js"], "css": ["c.css"]}],
    "options_ui": {"page": "options.html"},
    "action": {"default_popup": "popup.html", "default_icon": {"16": "icons/16.png"}},
    "icons": {"16": "icons/16.png", "128": "icons/128.png"},
    "web_accessible_resources": [{"resources": ["inject.js", "img/*"], "matches": ["<all_urls>"]}],
}


def make_extension(folder: Path, manifest: dict[str, object] = MANIFEST) -> Path:
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for name in named_files(manifest):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"// {name}")
    return folder


def entries(zip_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(zip_path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_named_files_cover_every_kind_of_reference_once() -> None:
    assert named_files(MANIFEST) == [
        "bg.js", "a.js", "b.js", "c.css", "options.html", "popup.html", "icons/16.png", "icons/128.png", "inject.js",
    ]  # fmt: skip


def test_the_zip_has_the_manifest_at_its_root_without_the_key(tmp_path: Path) -> None:
    folder = make_extension(tmp_path / "ext")
    out = pack(folder, tmp_path / "store.zip")
    files = entries(out)
    manifest = json.loads(files["manifest.json"])
    assert "key" not in manifest
    assert manifest == {k: v for k, v in MANIFEST.items() if k != "key"}
    assert set(files) == {"manifest.json", *named_files(MANIFEST)}
    assert files["icons/128.png"] == b"// icons/128.png"


def test_the_zip_leaves_out_dotfiles_and_the_launch_config(tmp_path: Path) -> None:
    folder = make_extension(tmp_path / "ext")
    (folder / ".DS_Store").write_text("x")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref")
    (folder / "icons" / ".hidden.png").write_text("x")
    (folder / launch.CONFIG_FILE).write_text('{"token": "secret"}')
    (folder / "extra.txt").write_text("kept: a file the manifest does not name may still be used")

    names = set(entries(pack(folder, tmp_path / "store.zip")))

    assert "extra.txt" in names
    assert not [n for n in names if n.startswith(".") or "/." in n or n == launch.CONFIG_FILE]


def test_the_zip_is_reproducible(tmp_path: Path) -> None:
    folder = make_extension(tmp_path / "ext")
    first = pack(folder, tmp_path / "one.zip").read_bytes()
    (folder / "bg.js").touch()  # a newer mtime changes nothing
    assert pack(folder, tmp_path / "two.zip").read_bytes() == first


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: (f / "a.js").unlink(), "files named in manifest.json are missing: a.js"),
        (lambda f: (f / "manifest.json").write_text("{not json"), "is not valid JSON"),
        (lambda f: (f / "manifest.json").write_text('{"manifest_version": 2, "name": "x"}'), "not 3; no version"),
        (lambda f: (f / "manifest.json").unlink(), "no manifest.json in"),
    ],
)
def test_a_broken_folder_is_refused_with_what_to_fix(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = make_extension(tmp_path / "ext")
    change(folder)
    with pytest.raises(ExtensionError, match=message):
        pack(folder, tmp_path / "store.zip")
    assert not list(tmp_path.glob("*.zip")) and not list(tmp_path.glob(".tabmcp-pack-*"))


def test_the_real_extension_is_whole_and_its_version_is_the_packages() -> None:
    manifest = check_folder(REPO_EXTENSION)
    assert manifest["version"] == tabmcp.__version__  # a store upload carries the server's version
    assert "key" in manifest  # the unpacked copy keeps tabmcp's id; only the store zip drops it


def test_cli_writes_the_zip_into_a_folder_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extension-pack", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    written = Path(captured.out.strip())
    assert written == tmp_path / f"tabmcp-extension-{tabmcp.__version__}.zip"
    files = entries(written)
    assert set(files) == {
        p.relative_to(REPO_EXTENSION).as_posix()
        for p in REPO_EXTENSION.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }
    assert "key" not in json.loads(files["manifest.json"])
    assert files["agent/entry.js"] == (REPO_EXTENSION / "agent" / "entry.js").read_bytes()
    assert "--extension-id" in captured.err  # the store's id must be allowed on the bridge


def test_cli_writes_to_a_named_file_and_fails_clearly_on_a_missing_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extension-pack", "--out", str(tmp_path / "upload.zip")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "upload.zip")
    assert main(["extension-pack", "--out", str(tmp_path / "absent" / "upload.zip")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"folder {tmp_path / 'absent'} does not exist" in captured.err


def test_cli_refuses_a_broken_extension_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_extension(tmp_path / "ext")
    (folder / "bg.js").unlink()
    monkeypatch.setattr(launch, "extension_source", lambda: folder)
    assert main(["extension-pack", "--out", str(tmp_path)]) == 1
    assert "missing: bg.js" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.zip"))
    assert extension_pack.default_zip_name({"version": "9"}) == "tabmcp-extension-9.zip"
