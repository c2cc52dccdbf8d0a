"""The command line: help, settings precedence (flag > TABMCP_* env > default), extension path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabmcp.cli import _parser, main, settings_from


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
    assert (folder / "background.js").is_file() and (folder / "agent.js").is_file()


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
