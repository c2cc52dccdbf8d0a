"""Command line: ``tabmcp serve | demo | doctor | extension-path``.

Flags override ``TABMCP_*`` environment variables, which override defaults. Logs go to stderr:
under stdio, stdout is the MCP protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from pathlib import Path

from tabmcp import __version__
from tabmcp.config import Settings

EPILOG = """\
Add to Claude Code:   claude mcp add tabmcp -- tabmcp serve
Use your own Chrome:  chrome://extensions → Developer mode → Load unpacked → the folder printed by
                      `tabmcp extension-path`; then call connect_browser. Or let tabmcp start one:
                      connect_browser(launch=true).
Settings also come from TABMCP_* environment variables (e.g. TABMCP_WS_PORT=8765).
"""


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
    serve.add_argument("--ws-host", help="address the extension bridge listens on (default 127.0.0.1)")
    serve.add_argument("--ws-port", type=int, help="port the extension bridge listens on (default 8765)")
    serve.add_argument("--browser-path", help="Chromium/Chrome executable used by connect_browser(launch=true)")
    serve.add_argument("--headless", action=argparse.BooleanOptionalAction, default=None,
                       help="launch the browser headless (default: headless when there is no display)")
    serve.add_argument("--request-timeout", type=float, help="seconds before a browser request fails")
    serve.add_argument("--follow-user-tab-switches", action=argparse.BooleanOptionalAction, default=None,
                       help="move focus when the user switches tabs in the browser")
    serve.add_argument("--introspectors-dir", type=Path, help="extra folder of site introspector modules")
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING, ERROR (logs go to stderr)")

    demo = commands.add_parser("demo", help="run a real MCP session against the bundled demo sites")
    demo.add_argument("--port", type=int, default=0, help="port for the demo web server (default: any free)")

    doctor = commands.add_parser(
        "doctor", help="check the setup: introspector plugins found and failed (exit code 1 when one failed)"
    )
    doctor.add_argument("--introspectors-dir", type=Path, help="extra folder of site introspector modules")
    doctor.add_argument("--page", type=Path, help="a saved page (HTML as the agent captures it) to introspect")
    doctor.add_argument("--url", default="http://localhost/", help="the URL the saved page is treated as")

    commands.add_parser("extension-path", help="print the folder to load as an unpacked extension")
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
        from tabmcp.server import serve_stdio

        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_stdio(settings))
        return 0
    if args.command == "demo":
        from tabmcp.demo.run import run_demo

        return asyncio.run(run_demo(port=args.port))
    if args.command == "doctor":
        from tabmcp.doctor import run_doctor

        logging.basicConfig(stream=sys.stderr, level=logging.ERROR)  # doctor prints what the logs would say
        return run_doctor(settings_from(args), page=args.page, url=args.url, out=sys.stdout)
    if args.command == "extension-path":
        from tabmcp.drivers.launch import extension_source

        print(extension_source())
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
