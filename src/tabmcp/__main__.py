"""``python -m tabmcp``: the same command line as the ``tabmcp`` script.

The native messaging host's launcher script runs this, so it needs no ``tabmcp`` on Chrome's PATH.
"""

import sys

from tabmcp.cli import main

sys.exit(main())
