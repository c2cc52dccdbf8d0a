"""Every test run gets its own tabmcp config dir, so no test (in-process or a `tabmcp serve`
subprocess, which inherits the environment) ever reads or creates the user's real pairing token;
tokens the user's shell exports are dropped for the same reason (a test that wants one sets it).
Each pytest-xdist worker imports this file itself, so each worker has its own dir (its own pairing
token file and native bridge socket), named after the worker to tell them apart."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

for _secret in ("TABMCP_PAIRING_TOKEN", "TABMCP_HTTP_TOKEN"):
    os.environ.pop(_secret, None)
_CONFIG_DIR = tempfile.mkdtemp(prefix=f"tabmcp-test-config-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-")
os.environ["TABMCP_CONFIG_DIR"] = _CONFIG_DIR
atexit.register(shutil.rmtree, _CONFIG_DIR, True)
