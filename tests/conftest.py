"""Every test run gets its own tabmcp config dir, so no test (in-process or a `tabmcp serve`
subprocess, which inherits the environment) ever reads or creates the user's real pairing token."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

_CONFIG_DIR = tempfile.mkdtemp(prefix="tabmcp-test-config-")
os.environ["TABMCP_CONFIG_DIR"] = _CONFIG_DIR
atexit.register(shutil.rmtree, _CONFIG_DIR, True)
