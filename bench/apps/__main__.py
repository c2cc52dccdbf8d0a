"""python -m bench.apps {list,install,start,capture,report} [NAME...]: the real-app corpus (bench/README.md)."""

from __future__ import annotations

import argparse
import sys
import time

from bench.apps import NAMES, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.apps", description=__doc__)
    parser.add_argument("command", choices=("list", "install", "start", "capture", "report"))
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"apps (default: all of {', '.join(NAMES)})")
    parser.add_argument("--live", action="store_true", help="report: also start each app and read its pages live")
    parser.add_argument("--json", action="store_true", help="report: the figures as JSON on stdout")
    parser.add_argument("--summary", action="store_true", help="report: only the table of counts per app")
    options = parser.parse_intermixed_args(argv)
    apps = [load(n) for n in (options.names or NAMES)]
    if options.command == "list":
        for app in apps:
            versions = ", ".join(f"{k} {v}" for k, v in app.versions().items())
            state = "installed" if app.installed() else "not installed"
            print(f"{app.name:<11} {app.kind:<14} {state:<14} {versions}\n{'':<11} {app.about}")
        return 0
    if options.command == "install":
        for app in apps:
            started = time.monotonic()
            fresh = not app.installed()
            app.install()
            took = f"{time.monotonic() - started:.1f} s" if fresh else "already installed"
            print(f"{app.name}: {took}", file=sys.stderr)
        return 0
    if options.command == "start":
        from bench.apps.runner import running

        if len(apps) != 1:
            parser.error("start takes one app")
        with running(apps[0]) as live:
            login = apps[0].login
            who = f" (log in as {login.username} / {login.password})" if login else ""
            print(f"{apps[0].name} at {live.base}{who}; data in {live.data}; Ctrl-C stops it", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
    if options.command == "capture":
        from bench.apps.capture import capture_app

        for app in apps:
            pages = capture_app(app)
            print(f"{app.name}: {len(pages)} pages saved ({', '.join(pages)})")
        return 0
    from bench.apps.report import run_report

    return run_report(apps, live=options.live, as_json=options.json, summary_only=options.summary)


if __name__ == "__main__":
    sys.exit(main())
