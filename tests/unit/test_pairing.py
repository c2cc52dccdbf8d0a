"""The pairing token's file, its resolution order, `tabmcp token`, and tabmcp's fixed extension id."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tabmcp import pairing
from tabmcp.cli import main
from tabmcp.config import Settings
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.launch import CONFIG_FILE, extension_source, prepare_extension


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_token_is_created_private_and_reused(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "tabmcp"
    token = pairing.load_or_create(folder)
    path = folder / pairing.TOKEN_FILE
    assert len(token) >= 43  # token_urlsafe(32)
    assert path.read_text().strip() == token
    assert mode(path) == 0o600
    assert mode(folder) == 0o700
    assert pairing.load_or_create(folder) == token  # the second load reads, it does not regenerate


def test_a_token_file_others_can_read_is_tightened(tmp_path: Path) -> None:
    token = pairing.load_or_create(tmp_path)
    path = tmp_path / pairing.TOKEN_FILE
    path.chmod(0o644)
    assert pairing.load_or_create(tmp_path) == token
    assert mode(path) == 0o600


def test_an_empty_token_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / pairing.TOKEN_FILE).write_text("\n")
    token = pairing.load_or_create(tmp_path)
    assert len(token) >= 43 and (tmp_path / pairing.TOKEN_FILE).read_text().strip() == token


def test_rotate_replaces_the_token(tmp_path: Path) -> None:
    old = pairing.load_or_create(tmp_path)
    new = pairing.rotate(tmp_path)
    assert new != old and pairing.load_or_create(tmp_path) == new
    assert mode(tmp_path / pairing.TOKEN_FILE) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [pairing.TOKEN_FILE]  # no temporary file left


def test_the_config_dir_follows_settings_then_xdg_then_home(tmp_path: Path) -> None:
    assert pairing.resolve_config_dir(tmp_path / "mine", {"XDG_CONFIG_HOME": "/x"}) == tmp_path / "mine"
    assert pairing.resolve_config_dir(None, {"XDG_CONFIG_HOME": "/x/cfg"}) == Path("/x/cfg/tabmcp")
    home = Path.home() / ".config" / "tabmcp"
    assert pairing.resolve_config_dir(None, {}) == home
    assert pairing.resolve_config_dir(None, {"XDG_CONFIG_HOME": "relative/cfg"}) == home  # ignored, per XDG


def test_the_configured_token_wins_over_the_file(tmp_path: Path) -> None:
    stored = pairing.load_or_create(tmp_path)
    assert pairing.resolve_token(None, tmp_path) == stored
    assert pairing.resolve_token("  from-the-environment-123456  ", tmp_path) == "from-the-environment-123456"
    assert pairing.resolve_token("", tmp_path) == stored  # an empty variable is unset


def test_the_environment_reaches_the_server_bridge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABMCP_CONFIG_DIR", str(tmp_path))
    from_file = Bridge.from_settings(Settings(ws_port=0))
    assert from_file.token == (tmp_path / pairing.TOKEN_FILE).read_text().strip()
    monkeypatch.setenv("TABMCP_PAIRING_TOKEN", "env-token-env-token-env-token")
    assert Bridge.from_settings(Settings(ws_port=0)).token == "env-token-env-token-env-token"


def test_tokens_are_compared_exactly() -> None:
    assert pairing.tokens_match("abc-123", "abc-123")
    assert not pairing.tokens_match("abc-124", "abc-123")
    assert not pairing.tokens_match("abc-1234", "abc-123")
    assert not pairing.tokens_match(None, "abc-123")
    assert not pairing.tokens_match("ábc", "abc")


# ----------------------------------------------------------------- CLI


def test_tabmcp_token_prints_the_stored_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABMCP_PAIRING_TOKEN", raising=False)
    assert main(["token", "--config-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert out == token + "\n"  # only the token on stdout: `tabmcp token | xclip` works
    assert token == (tmp_path / pairing.TOKEN_FILE).read_text().strip()
    assert str(tmp_path) in err and "options" in err
    assert main(["token", "--config-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == token  # same token the second time


def test_tabmcp_token_uses_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABMCP_CONFIG_DIR", str(tmp_path / "from-env"))
    assert main(["token"]) == 0
    assert capsys.readouterr().out.strip() == (tmp_path / "from-env" / pairing.TOKEN_FILE).read_text().strip()
    monkeypatch.setenv("TABMCP_PAIRING_TOKEN", "override-override-override")
    assert main(["token"]) == 0
    assert capsys.readouterr().out == "override-override-override\n"
    assert main(["token", "--rotate"]) == 2  # the environment's token cannot be rotated from here


def test_tabmcp_token_rotate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABMCP_PAIRING_TOKEN", raising=False)
    old = pairing.load_or_create(tmp_path)
    assert main(["token", "--config-dir", str(tmp_path), "--rotate"]) == 0
    new = capsys.readouterr().out.strip()
    assert new != old and new == pairing.load_or_create(tmp_path)


def test_serve_flags_for_the_bridge() -> None:
    from tabmcp.cli import _parser, settings_from

    args = ["serve", "--config-dir", "/tmp/x", "--extension-id", "a" * 32, "--extension-id", "b" * 32]
    settings = settings_from(_parser().parse_args([*args, "--ws-allow-remote"]))
    assert settings.config_dir == Path("/tmp/x")
    assert settings.extension_ids == ["a" * 32, "b" * 32]
    assert settings.ws_allow_remote is True
    assert settings_from(_parser().parse_args(["serve"])).ws_allow_remote is False


# ----------------------------------------------------------------- the extension's id


def test_the_extension_id_is_the_one_the_manifest_key_gives() -> None:
    manifest = json.loads((extension_source() / "manifest.json").read_text())
    assert pairing.extension_id_from_key(manifest["key"]) == pairing.EXTENSION_ID
    assert pairing.allowed_origins() == frozenset({f"chrome-extension://{pairing.EXTENSION_ID}"})


def test_the_id_derivation_matches_chromium() -> None:
    # Chromium's rule on a known value: sha256 of the key bytes, first 32 hex digits, 0-f → a-p
    key = "AAAA"  # three zero bytes
    import base64
    import hashlib

    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    expected = digest.translate(str.maketrans("0123456789abcdef", "abcdefghijklmnop"))
    assert pairing.extension_id_from_key(key) == expected
    assert len(expected) == 32 and set(expected) <= set("abcdefghijklmnop")


def test_the_launcher_writes_the_token_for_the_extension(tmp_path: Path) -> None:
    folder = prepare_extension(tmp_path / "ext", "ws://127.0.0.1:9", token="launch-token-launch-token")
    config = json.loads((folder / CONFIG_FILE).read_text())
    assert config == {"serverUrl": "ws://127.0.0.1:9", "token": "launch-token-launch-token"}
    assert mode(folder / CONFIG_FILE) == 0o600
    assert json.loads((folder / "manifest.json").read_text())["key"]  # the copy keeps tabmcp's id
    unpaired = prepare_extension(tmp_path / "ext2", "ws://127.0.0.1:9")
    assert json.loads((unpaired / CONFIG_FILE).read_text()) == {"serverUrl": "ws://127.0.0.1:9"}


def test_an_unwritable_config_dir_does_not_stop_the_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")  # a file where the config folder should be: nothing can be stored
    bridge = Bridge.from_settings(Settings(ws_port=0, config_dir=blocked / "tabmcp"))
    assert len(bridge.token) >= 43  # a one-off token for this run
    assert main(["token", "--config-dir", str(blocked / "tabmcp")]) == 1
    assert "cannot read or store the pairing token" in capsys.readouterr().err
