"""Package layout that pyproject.toml cannot say: the wheel carries ``extension/`` as ``tabmcp/extension``.

The MV3 extension lives at the repository root (one folder for Chrome's "Load unpacked", no
build step). A wheel must carry it inside the package so that ``tabmcp extension-path`` and
``connect_browser(launch=true)`` find it after ``pipx install`` / ``uvx``; ``package_dir`` maps the
folder there, with no second copy in git. Its subfolders (``icons/``) are listed as packages too:
setuptools treats every folder under a package as an importable package, and a folder it is not told
about makes it warn that the folder's files are "data" of an unlisted package. Everything else
(metadata, package data) is in pyproject.toml.
"""

import warnings

from setuptools import find_namespace_packages, find_packages, setup

EXTENSION = "tabmcp.extension"

# An editable install of a layout like this one (three source folders) goes through an import hook, and
# setuptools says so with a warning of its InformationOnly kind on every `pip install -e .`. It cautions
# that a folder named like a package in the working directory could shadow it; the only such folder here,
# introspectors/, is that package itself. Only that message is silenced: real warnings still show.
warnings.filterwarnings("ignore", message=r"Editable installation\.")

setup(
    packages=[
        *find_namespace_packages("src", include=["tabmcp", "tabmcp.*"]),
        *find_packages(".", include=["introspectors", "introspectors.*"]),
        EXTENSION,
        *(f"{EXTENSION}.{name}" for name in find_namespace_packages("extension")),
    ],
    package_dir={"": "src", "introspectors": "introspectors", EXTENSION: "extension"},
)
