"""The command line: help, settings precedence (flag > TABMCP_* env > default), extension path."""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

import pytest

from tabmcp.cli import _parser, main, settings_from
from tabmcp.config import Settings


def test_help_names_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for command in ("serve", "demo", "doctor", "extension-path", "extension-pack", "claude mcp add tabmcp"):
        assert command in out


def test_flags_override_environment_which_overrides_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABMCP_WS_PORT", "9999")
    monkeypatch.setenv("TABMCP_REQUEST_TIMEOUT", "7.5")
    from_env = settings_from(_parser().parse_args(["serve"]))
    assert (from_env.ws_port, from_env.request_timeout) == (9999, 7.5)
    assert from_env.ws_host == "127.0.0.1"  # default
    from_flag = settings_from(_parser().parse_args(["serve", "--ws-port", "8111", "--no-headless"]))
    assert from_flag.ws_port == 8111
    assert from_flag.headless is False
    assert from_flag.request_timeout == 7.5


def test_boolean_environment_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABMCP_FOLLOW_USER_TAB_SWITCHES", "true")
    assert settings_from(_parser().parse_args(["serve"])).follow_user_tab_switches is True


def test_extension_path_points_at_the_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension-path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert (folder / "manifest.json").is_file()
    assert (folder / "background.js").is_file() and (folder / "agent" / "entry.js").is_file()


def test_driver_flags_select_the_cdp_driver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("TABMCP_BROWSER", "TABMCP_CDP_ENDPOINT", "TABMCP_BROWSER_PATH"):
        monkeypatch.delenv(name, raising=False)
    assert not settings_from(_parser().parse_args(["serve"])).uses_cdp  # the extension by default
    remote = settings_from(_parser().parse_args(["serve", "--cdp-endpoint", "http://127.0.0.1:9222"]))
    assert remote.uses_cdp and remote.cdp_endpoint == "http://127.0.0.1:9222"
    chrome = tmp_path / "chrome"
    chrome.write_text("")
    launched = settings_from(
        _parser().parse_args(
            [
                "serve",
                "--browser",
                "chrome",
                "--browser-path",
                str(chrome),
                "--share-browser-context",
                "--webmcp-native",
            ]
        )
    )
    assert launched.uses_cdp and launched.browser == "chrome"
    assert launched.resolved_browser_path() == str(chrome)
    assert launched.share_browser_context and launched.webmcp_native
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--browser", "firefox"])


def test_natural_language_flags_and_the_model_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABMCP_NL_MODEL_API_KEY", "sk-from-env")
    args = ["serve", "--nl-tools", "--nl-model-base-url", "http://127.0.0.1:11434/v1", "--nl-model", "llama3"]
    settings = settings_from(_parser().parse_args([*args, "--nl-model-timeout", "12"]))
    assert settings.nl_tools and settings.nl_model_configured
    assert (settings.nl_model, settings.nl_model_timeout, settings.nl_model_api_key) == ("llama3", 12.0, "sk-from-env")
    no_model = settings_from(_parser().parse_args(["serve", "--nl-tools"]))
    assert no_model.nl_tools and not no_model.nl_model_configured  # ai_query… are not listed then
    assert not settings_from(_parser().parse_args(["serve"])).nl_tools  # off by default


def test_tools_mode_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABMCP_TOOLS", raising=False)
    assert settings_from(_parser().parse_args(["serve"])).tools == "auto"
    monkeypatch.setenv("TABMCP_TOOLS", "dynamic")
    assert settings_from(_parser().parse_args(["serve"])).tools == "dynamic"
    assert settings_from(_parser().parse_args(["serve", "--tools", "static"])).tools == "static"
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--tools", "sometimes"])


def test_native_messaging_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("TABMCP_NATIVE_BRIDGE", "TABMCP_NATIVE_SOCKET", "TABMCP_EXTENSION_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
    default = settings_from(_parser().parse_args(["serve"]))
    assert (default.native_bridge, default.native_socket, default.extension_transport) == (True, None, "websocket")
    monkeypatch.setenv("TABMCP_EXTENSION_TRANSPORT", "native")
    chosen = settings_from(
        _parser().parse_args(["serve", "--no-native-bridge", "--native-socket", str(tmp_path / "b.sock")])
    )
    assert (chosen.native_bridge, chosen.native_socket, chosen.extension_transport) == (
        False,
        tmp_path / "b.sock",
        "native",
    )
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--extension-transport", "carrier-pigeon"])


def test_native_commands_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "install-native-host" in out and "native-host" in out


# ----------------------------------------------------------------- serve --help: variables and defaults


SHOWN = re.compile(r"\[env: (TABMCP_\w+)(, a JSON list)?\] \[default: ([^\]]+)\]$")


def serve_parser() -> argparse.ArgumentParser:
    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return commands.choices["serve"]


def serve_flags() -> list[argparse.Action]:
    return [a for a in serve_parser()._actions if a.option_strings and a.dest != "help"]


def help_of_each_flag(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """`tabmcp serve --help` as printed, cut into one entry per flag, its wrapped lines joined."""
    monkeypatch.setenv("COLUMNS", "100")  # wrapped as on a terminal, which may split "[env: X]" over two lines
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    blocks: dict[str, str] = {}
    flag = ""
    for line in capsys.readouterr().out.split("options:", 1)[1].splitlines():
        if line.startswith("  -"):
            flag = line.split()[0].rstrip(",")
            blocks[flag] = line
        elif flag:
            blocks[flag] += " " + line
    return {name: " ".join(text.split()) for name, text in blocks.items()}


def test_every_serve_flag_is_a_setting() -> None:
    """What settings_from passes on: a serve flag that were not a Settings field would be dropped."""
    assert [a.dest for a in serve_flags() if a.dest not in Settings.model_fields] == []


def test_serve_help_names_each_flags_variable_and_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = help_of_each_flag(capsys, monkeypatch)
    for action in serve_flags():
        text = shown[action.option_strings[0]]
        assert f"[env: TABMCP_{action.dest.upper()}" in text, text
        assert re.search(r"\[default: [^\]]+\]$", text), text
    assert shown["--ws-port"].endswith("[env: TABMCP_WS_PORT] [default: 8765]")
    assert shown["--ws-host"].endswith("[env: TABMCP_WS_HOST] [default: 127.0.0.1]")
    assert shown["--request-timeout"].endswith("[env: TABMCP_REQUEST_TIMEOUT] [default: 30]")
    assert shown["--headless"].endswith("[env: TABMCP_HEADLESS] [default: unset]")
    assert shown["--native-bridge"].endswith("[env: TABMCP_NATIVE_BRIDGE] [default: true]")
    assert shown["--allow-url"].endswith("[env: TABMCP_ALLOW_URLS, a JSON list] [default: none]")
    assert shown["--tools"].endswith("[env: TABMCP_TOOLS] [default: auto]")


def other_value(action: argparse.Action, default: object) -> str:
    """A value for the flag's variable that is not its default."""
    if action.choices:
        return next(str(c) for c in action.choices if c != default)
    if isinstance(action, argparse.BooleanOptionalAction):
        return "false" if default else "true"
    if isinstance(default, int | float):
        return str(default + 1)
    return '["x"]' if isinstance(default, list) else "x"


def test_each_variable_shown_is_read_and_each_default_shown_is_the_real_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default a flag's help shows, written into the variable it names, gives the settings' own default;
    any other value there changes the setting."""
    shown = help_of_each_flag(capsys, monkeypatch)
    for name in [n for n in os.environ if n.startswith("TABMCP_")]:
        monkeypatch.delenv(name)
    for action in serve_flags():
        found = SHOWN.search(shown[action.option_strings[0]])
        assert found, shown[action.option_strings[0]]
        variable, as_json, text = found.groups()
        default = Settings.model_fields[action.dest].get_default(call_default_factory=True)
        if text == "unset":
            assert default is None, variable
        else:
            monkeypatch.setenv(variable, json.dumps([] if text == "none" else text.split(", ")) if as_json else text)
            assert getattr(Settings(), action.dest) == default, variable
        monkeypatch.setenv(variable, other_value(action, default))
        assert getattr(Settings(), action.dest) != default, variable
        monkeypatch.delenv(variable)
