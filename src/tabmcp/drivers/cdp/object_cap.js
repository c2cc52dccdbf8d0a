// Preloaded into Playwright's node driver by tabmcp's CDP driver (object_cap.py). Playwright keeps an
// object for every navigation request and response of a page until the page closes (up to 10,000 of
// each kind), in the driver and in the Python client alike; this lowers that limit to
// TABMCP_PLAYWRIGHT_OBJECT_CAP, so the oldest are released on both sides as new ones come.
'use strict';
const path = require('path');

const cap = Number(process.env.TABMCP_PLAYWRIGHT_OBJECT_CAP);
if (cap > 0 && process.argv[1]) {
  try {
    const core = require(path.join(path.dirname(process.argv[1]), 'lib', 'coreBundle.js'));
    core.server.setMaxDispatchersForTest(cap);
  } catch (e) {
    process.stderr.write(`tabmcp: cannot cap Playwright's objects (${e && e.message}); memory grows per navigation\n`);
  }
}
