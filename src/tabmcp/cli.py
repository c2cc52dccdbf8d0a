"""Command line: ``tabmcp serve | demo | doctor | token | extension-path | extension-pack |
install-native-host | native-host``.

Flags override ``TABMCP_*`` environment variables, which override defaults. Logs go to stderr:
under stdio, stdout is the MCP protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from tabmcp import __version__, settings_help
from tabmcp.config import Settings

EPILOG = """\
Add to Claude Code:   claude mcp add tabmcp -- tabmcp serve
Use your own Chrome:  chrome://extensions → Developer mode → Load unpacked → the folder printed by
                      `tabmcp extension-path`; paste `tabmcp token` into the extension's options;
                      then call connect_browser. Or let tabmcp start (and pair) one:
                      connect_browser(launch=true).
No local ports allowed:  `tabmcp install-native-host`, then choose "Native messaging" in the
                      extension's options (docs/native-messaging.md).
Settings also come from TABMCP_* environment variables (e.g. TABMCP_WS_PORT=8765): `tabmcp serve --help`
names each flag's variable and default.
"""
CONFIG_DIR_HELP = "where the pairing token lives; unset: $XDG_CONFIG_HOME/tabmcp, else ~/.config/tabmcp"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabmcp",
        description="An MCP server whose tool list follows the browser's state.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tabmcp {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the MCP server over stdio (what an MCP client launches)")
    serve.add_argument("--ws-host", help="address the extension bridge listens on")
    serve.add_argument("--ws-port", type=int, help="port the extension bridge listens on (0: any free port)")
    serve.add_argument("--browser-path",
                       help="Chromium/Chrome executable used by connect_browser(launch=true); unset: the first "
                            "found on the usual paths (`tabmcp doctor` shows which)")
    serve.add_argument("--cdp-endpoint", metavar="URL",
                       help="drive the browser at this DevTools endpoint (ws://… or http://HOST:PORT) "
                            "instead of the extension (docs/scaling.md)")
    serve.add_argument("--browser", choices=["chromium", "chrome"],
                       help="launch this browser and drive it over CDP, without the extension "
                            "(--browser-path picks the executable)")
    serve.add_argument("--webmcp-native", action=argparse.BooleanOptionalAction, default=None,
                       help="launch the browser with Chromium's own WebMCP (--enable-features=WebMCP)")
    serve.add_argument("--share-browser-context", action=argparse.BooleanOptionalAction, default=None,
                       help="CDP driver over HTTP: every client uses the browser's default context")
    serve.add_argument("--headless", action=argparse.BooleanOptionalAction, default=None,
                       help="launch the browser headless; unset: headless when there is no display")
    serve.add_argument("--request-timeout", type=float, help="seconds before a browser request fails")
    serve.add_argument("--follow-user-tab-switches", action=argparse.BooleanOptionalAction, default=None,
                       help="move focus when the user switches tabs in the browser")
    serve.add_argument("--introspectors-dir", type=Path, help="extra folder of site introspector modules")
    # capabilities off by default, confirmation, audit, rate limit (docs/security.md)
    serve.add_argument("--enable-evaluate", action=argparse.BooleanOptionalAction, default=None,
                       help="list the evaluate tool (runs JavaScript in the page)")
    serve.add_argument("--enable-trusted-input", action=argparse.BooleanOptionalAction, default=None,
                       help="real input events for interact: unset, the default in tabmcp's own browser and "
                            "off in the user's Chrome; --enable-trusted-input allows them there too")
    serve.add_argument("--screenshot-origin", dest="screenshot_origins", action="append", metavar="PATTERN",
                       help="only screenshot pages matching PATTERN (as --allow-url), e.g. https://*.example.com "
                            "(repeatable)")
    serve.add_argument("--allow-url", dest="allow_urls", action="append", metavar="PATTERN",
                       help="open only URLs matching PATTERN, e.g. https://example.com or *://*.example.com/* "
                            "(repeatable); needed for chrome://, file:// and extension pages")
    serve.add_argument("--block-url", dest="block_urls", action="append", metavar="PATTERN",
                       help="never load URLs matching PATTERN, e.g. *://*.bank.example/* (repeatable)")
    serve.add_argument("--confirm-destructive", action=argparse.BooleanOptionalAction, default=None,
                       help="ask the user (MCP elicitation) before destructive tools and actions")
    serve.add_argument("--audit-log", type=Path, metavar="FILE",
                       help="append one JSON line per tool call to FILE (created 0600)")
    serve.add_argument("--record", type=Path, metavar="FILE",
                       help="append a JSONL recording of the session (frames, calls, notifications, tool lists) "
                            "to FILE (created 0600)")
    serve.add_argument("--secret", dest="secrets", action="append", metavar="VALUE",
                       help="redact VALUE wherever it appears in the audit log (repeatable; "
                            "TABMCP_SECRETS keeps it out of the process list)")
    serve.add_argument("--rate-limit-per-minute", type=int, metavar="N",
                       help="tool calls one client may make per minute (0: no limit)")
    serve.add_argument("--rate-limit-burst", type=int, metavar="N",
                       help="calls a client may make at once before the rate applies")
    # natural-language tools (docs/nl-tools.md); the model's key only as TABMCP_NL_MODEL_API_KEY (not in ps)
    serve.add_argument("--nl-tools", action=argparse.BooleanOptionalAction, default=None,
                       help="list ai_tap, ai_input, ai_query… and the ai_connect_* verbs")
    serve.add_argument("--nl-model-base-url", metavar="URL",
                       help="OpenAI-compatible endpoint for ai_query, ai_assert, ai_wait_for, ai_action "
                            "(e.g. https://api.openai.com/v1; key in TABMCP_NL_MODEL_API_KEY)")
    serve.add_argument("--nl-model", metavar="NAME", help="model name for that endpoint (e.g. gpt-4o-mini)")
    serve.add_argument("--nl-model-timeout", type=float, metavar="SECONDS", help="one answer's limit")
    serve.add_argument("--nl-model-screenshot", action=argparse.BooleanOptionalAction, default=None,
                       help="send the model a screenshot with the page text (vision models)")
    serve.add_argument("--tools", choices=["auto", "dynamic", "static"],
                       help="tool list: dynamic (follows the browser), static (fixed list with list_page_tools and "
                            "call_page_tool, for clients that ignore list_changed), auto (static for clients known to "
                            "ignore it; docs/clients.md)")
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING, ERROR (logs go to stderr)")
    serve.add_argument("--http", metavar="HOST:PORT",
                       help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (several clients)")
    serve.add_argument("--http-token", help="bearer token HTTP clients must send (required off loopback)")
    serve.add_argument("--http-allowed-host", dest="http_allowed_hosts", action="append", metavar="HOST:PORT",
                       help="also accept this Host header on HTTP (repeatable)")
    serve.add_argument("--http-allowed-origin", dest="http_allowed_origins", action="append", metavar="ORIGIN",
                       help="also accept this Origin header on HTTP (repeatable)")
    serve.add_argument("--share-tabs", choices=["own", "user", "all"],
                       help="HTTP: tabs a client sees besides its own")
    serve.add_argument("--max-sessions", type=int, help="HTTP: most concurrent client sessions")
    serve.add_argument("--session-idle-timeout", type=float,
                       help="HTTP: seconds before an idle session and its workspace close")
    serve.add_argument("--config-dir", type=Path, help=CONFIG_DIR_HELP)
    serve.add_argument("--extension-id", dest="extension_ids", action="append", metavar="ID",
                       help="also accept this extension id on the bridge (repeatable)")
    serve.add_argument("--ws-allow-remote", action=argparse.BooleanOptionalAction, default=None,
                       help="let the bridge bind a non-loopback --ws-host (the pairing token still applies)")
    serve.add_argument("--native-bridge", action=argparse.BooleanOptionalAction, default=None,
                       help="also serve the bridge on a local socket for the native messaging host")
    serve.add_argument("--native-socket", type=Path, metavar="PATH",
                       help="that socket's path; unset: bridge.sock in the config dir")
    serve.add_argument("--extension-transport", choices=["websocket", "native"],
                       help="how a browser launched by connect_browser(launch=true) connects")

    demo = commands.add_parser("demo", help="run a real MCP session against the bundled demo sites")
    demo.add_argument("--port", type=int, default=0, help="port for the demo web server (default: any free)")

    doctor = commands.add_parser(
        "doctor",
        help="check the setup: Python, the browser, the extension, the port, pairing, the introspector plugins "
        "(says how to fix each failure; exit code 1 when one failed)",
    )
    doctor.add_argument("--ws-host", help="address the bridge would listen on")
    doctor.add_argument("--ws-port", type=int, help="port the bridge would listen on")
    doctor.add_argument("--browser-path", help="Chromium/Chrome executable to check")
    doctor.add_argument("--config-dir", type=Path, help=CONFIG_DIR_HELP)
    doctor.add_argument("--introspectors-dir", type=Path, help="extra folder of site introspector modules")
    doctor.add_argument("--page", type=Path, help="a saved page (HTML as the agent captures it) to introspect")
    doctor.add_argument("--url", default="http://localhost/", help="the URL the saved page is treated as")

    token = commands.add_parser(
        "token", help="print the pairing token to paste in the extension's options (made on first use)"
    )
    token.add_argument("--config-dir", type=Path, help=CONFIG_DIR_HELP)
    token.add_argument("--rotate", action="store_true", help="replace the stored token with a new one")

    commands.add_parser("extension-path", help="print the folder to load as an unpacked extension")
    pack = commands.add_parser(
        "extension-pack", help="write the extension as a zip for the Chrome Web Store and print its path"
    )
    pack.add_argument("--out", type=Path, metavar="PATH",
                      help="zip file or folder to write to (default: tabmcp-extension-VERSION.zip here)")

    install = commands.add_parser(
        "install-native-host",
        help="register the native messaging host with Chrome/Chromium (for machines that block local ports)",
    )
    install.add_argument("--browser", choices=["chromium", "chrome", "all"], default="all",
                         help="which browser's user-level folder (default all)")
    install.add_argument("--user-data-dir", type=Path, metavar="DIR",
                         help="a profile started with --user-data-dir=DIR: write DIR/NativeMessagingHosts instead")
    install.add_argument("--uninstall", action="store_true", help="remove the manifest(s) and the launcher")
    install.add_argument("--extension-id", dest="extension_ids", action="append", metavar="ID",
                         help="also allow this extension id (repeatable; tabmcp's own is always allowed)")
    install.add_argument("--native-socket", type=Path, metavar="PATH",
                         help="the server's socket (default: bridge.sock in the config dir; as `serve` uses)")
    install.add_argument("--config-dir", type=Path, help="where the launcher goes (default ~/.config/tabmcp)")

    host = commands.add_parser(
        "native-host", help="the native messaging host Chrome starts (not run by hand; see install-native-host)"
    )
    host.add_argument("origin", nargs="?", help="the caller origin Chrome passes (chrome-extension://ID/)")
    host.add_argument("--socket", type=Path, help="the server's socket (default: as `serve` resolves it)")
    host.add_argument("--parent-window", help=argparse.SUPPRESS)  # Chrome on Windows adds it
    host.add_argument("--config-dir", type=Path, help=argparse.SUPPRESS)
    for reads_settings in (serve, doctor, token):  # the commands whose flags go through settings_from
        settings_help.annotate(reads_settings)
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    overrides = {
        key: value
        for key, value in vars(args).items()
        if key in Settings.model_fields and value is not None
    }
    return Settings(**overrides)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        settings = settings_from(args)
        logging.basicConfig(
            stream=sys.stderr,
            level=settings.log_level.upper(),
            format="%(asctime)s tabmcp %(levelname)s %(name)s: %(message)s",
        )
        from tabmcp.guard.origins import ScreenshotOrigins
        from tabmcp.policy import NavigationPolicy, PolicyError

        try:  # a pattern that cannot be enforced is a startup error, not a surprise later
            NavigationPolicy.from_settings(settings)
            ScreenshotOrigins.from_settings(settings)
        except PolicyError as exc:
            print(f"tabmcp: {exc}", file=sys.stderr)
            return 2
        if settings.http:
            return _serve_http(settings)
        from tabmcp.server import serve_stdio

        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_stdio(settings))
        return 0
    if args.command == "demo":
        from tabmcp.demo.run import run_demo
        from tabmcp.spinner import Spinner

        with Spinner(sys.stderr) as progress:
            return asyncio.run(run_demo(port=args.port, progress=progress))
    if args.command == "doctor":
        from tabmcp.doctor import run_doctor
        from tabmcp.spinner import Spinner

        logging.basicConfig(stream=sys.stderr, level=logging.ERROR)  # doctor prints what the logs would say
        with Spinner(sys.stderr) as progress:
            return run_doctor(settings_from(args), page=args.page, url=args.url, out=sys.stdout, progress=progress)
    if args.command == "token":
        return print_token(settings_from(args), rotate=args.rotate)
    if args.command == "extension-path":
        from tabmcp.drivers.launch import extension_source

        print(extension_source())
        return 0
    if args.command == "extension-pack":
        return pack_extension(args.out)
    if args.command == "install-native-host":
        return install_native_host(args)
    if args.command == "native-host":
        return run_native_host(args)
    parser.print_help()
    return 0


def _serve_http(settings: Settings) -> int:
    from tabmcp.http_server import HttpConfigError, serve_http

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_http(settings))
    except HttpConfigError as exc:
        print(f"tabmcp: {exc}", file=sys.stderr)
        return 2
    return 0


def print_token(settings: Settings, *, rotate: bool = False) -> int:
    """The token on stdout (nothing else, so it can be piped); where it comes from on stderr."""
    from tabmcp import pairing

    if settings.pairing_token and settings.pairing_token.strip():
        if rotate:
            print("TABMCP_PAIRING_TOKEN is set: change it there, not with --rotate", file=sys.stderr)
            return 2
        print(settings.pairing_token.strip())
        print("(from TABMCP_PAIRING_TOKEN)", file=sys.stderr)
        return 0
    folder = pairing.resolve_config_dir(settings.config_dir)
    try:
        token = pairing.rotate(folder) if rotate else pairing.load_or_create(folder)
    except OSError as exc:
        print(f"cannot read or store the pairing token in {folder}: {exc}", file=sys.stderr)
        return 1
    print(token)
    print(
        f"(stored in {folder / pairing.TOKEN_FILE}; paste it in the tabmcp extension's options: "
        "chrome://extensions → tabmcp → Details → Extension options)",
        file=sys.stderr,
    )
    return 0


def pack_extension(out: Path | None) -> int:
    """The zip's path on stdout (nothing else, so scripts can use it); what to do with it on stderr."""
    from tabmcp import extension_pack
    from tabmcp.drivers.launch import LaunchError, extension_source

    try:
        folder = extension_source()
        manifest = extension_pack.check_folder(folder)
        name = extension_pack.default_zip_name(manifest)
        target = (out or Path.cwd()).expanduser()
        written = extension_pack.pack(folder, target / name if target.is_dir() else target)
    except (LaunchError, extension_pack.ExtensionError, OSError) as exc:
        print(f"tabmcp: {exc}", file=sys.stderr)
        return 1
    print(written.resolve())
    print(
        "Upload it at https://chrome.google.com/webstore/devconsole. The store gives the extension its own id "
        "(the manifest's key is left out): start the server with --extension-id THAT_ID so the bridge accepts it.",
        file=sys.stderr,
    )
    if not manifest.get("icons"):
        print('note: the manifest names no "icons"; the Web Store asks for a 128x128 icon.', file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def install_native_host(args: argparse.Namespace) -> int:
    """Write (or remove) the host manifest(s) and launcher; the files touched on stdout."""
    from tabmcp.native import MAX_SOCKET_PATH, socket_path
    from tabmcp.native import install as native

    chosen = {"native_socket": args.native_socket, "config_dir": args.config_dir, "extension_ids": args.extension_ids}
    settings = Settings(**{k: v for k, v in chosen.items() if v is not None})
    browsers = native.BROWSERS if args.browser == "all" else (args.browser,)
    platform, home, environ = native.current_platform()
    try:
        found = native.targets(
            browsers, platform=platform, home=home, environ=environ, user_data_dir=args.user_data_dir
        )
    except native.UnsupportedPlatform as exc:
        print(f"tabmcp: {exc}", file=sys.stderr)
        return 2
    from tabmcp import pairing

    launcher = native.launcher_path(pairing.resolve_config_dir(settings.config_dir)).absolute()
    if args.uninstall:
        every = native.targets(native.BROWSERS, platform=platform, home=home, environ=environ)
        removed = native.uninstall(found, launcher, others=[t for t in every if t not in found])
        for path in removed:
            print(path)
        if not removed:
            print("nothing to remove", file=sys.stderr)
        return 0
    socket = socket_path(settings.native_socket, settings.config_dir).absolute()
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        print(f"tabmcp: socket path too long for a Unix socket: {socket} (use --native-socket)", file=sys.stderr)
        return 2
    try:
        native.install(found, launcher, sys.executable, socket, settings.extension_ids)
    except OSError as exc:
        print(f"tabmcp: cannot write the native host files: {exc}", file=sys.stderr)
        return 1
    for target in found:
        print(target.manifest)
    print(launcher)
    print(
        f"(host {native.HOST_NAME} relays to {socket}; in the extension's options choose "
        '"Connect through: Native messaging" and save)',
        file=sys.stderr,
    )
    return 0


def run_native_host(args: argparse.Namespace) -> int:
    """Chrome's stdio is the channel: logs go to stderr only, at WARNING unless TABMCP_LOG_LEVEL says."""
    from tabmcp.native import host, socket_path

    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("TABMCP_LOG_LEVEL", "WARNING").upper(),
        format="%(asctime)s tabmcp-native-host %(levelname)s: %(message)s",
    )
    path = args.socket or socket_path(Settings().native_socket, args.config_dir or Settings().config_dir)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(host.run(args.origin, path))
    return 0
