"""Package layout that pyproject.toml cannot say: the wheel carries ``extension/`` as ``tabmcp/extension``.

DESIGN.md keeps the MV3 extension at the repository root (one folder for Chrome's "Load unpacked", no
build step). A wheel must carry it inside the package so that ``tabmcp extension-path`` and
``connect_browser(launch=true)`` find it after ``pipx install`` / ``uvx``; ``package_dir`` maps the
folder there, with no second copy in git. Everything else (metadata, package data) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, find_packages, setup

setup(
    packages=[
        *find_namespace_packages("src", include=["tabmcp", "tabmcp.*"]),
        *find_packages(".", include=["introspectors", "introspectors.*"]),
        "tabmcp.extension",
    ],
    package_dir={"": "src", "introspectors": "introspectors", "tabmcp.extension": "extension"},
)
