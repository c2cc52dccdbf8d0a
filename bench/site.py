"""The pages every server is pointed at, served over http://127.0.0.1 (the extension cannot script file:).

One throw-away root with two links in it: ``bench/`` → this folder's ``pages/`` (the counter page),
``py/`` → the Python docs that Debian's ``python3.11-doc`` installs. Nothing is copied into the repo.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tabmcp.demo.sites import SiteServer

PAGES = Path(__file__).parent / "pages"
PY_DOCS = Path("/usr/share/doc/python3.11/html")
COUNTER = "bench/counter.html"
DOC_PAGE = "library/functions.html"  # 290 KB, the page the anchors' peer figures were taken on
BIG_PAGE = "genindex-all.html"  # 1.7 MB


class MissingPages(RuntimeError):
    pass


class BenchSite:
    """Context manager: serves the counter page and the Python docs; ``url(...)`` builds page URLs."""

    def __init__(self, docs: Path = PY_DOCS) -> None:
        if not (docs / DOC_PAGE).exists():
            raise MissingPages(f"{docs / DOC_PAGE} is missing: run bench/setup.sh (apt-get install python3.11-doc)")
        self.docs = docs
        self._tmp = tempfile.TemporaryDirectory(prefix="tabmcp-bench-site-")
        root = Path(self._tmp.name)
        (root / "bench").symlink_to(PAGES, target_is_directory=True)
        (root / "py").symlink_to(docs, target_is_directory=True)
        self.server = SiteServer(root)

    def url(self, page: str) -> str:
        return self.server.url(page)

    def doc_url(self, page: str) -> str:
        return self.server.url("py/" + page)

    def doc_size(self, page: str) -> int:
        return (self.docs / page).stat().st_size

    def __enter__(self) -> BenchSite:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)
        self._tmp.cleanup()
