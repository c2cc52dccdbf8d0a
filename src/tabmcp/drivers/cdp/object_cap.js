// Preloaded into Playwright's node driver by tabmcp's CDP driver (object_cap.py). Playwright keeps a
// Request and a Response object for every request of a page until the page closes (up to 10,000 of
// each kind), in the driver and in the Python client alike; this lowers that limit for those two
// kinds only to TABMCP_PLAYWRIGHT_OBJECT_CAP, so the oldest are released on both sides as new ones
// come (a request's Route goes with it). Frames, pages and handles keep Playwright's own limits: a
// frame or handle still in use is never released by this cap.
'use strict';
const path = require('path');

const CAPPED_KINDS = new Set(['Request', 'Response']);
const cap = Number(process.env.TABMCP_PLAYWRIGHT_OBJECT_CAP);
if (cap > 0 && process.argv[1]) {
  try {
    const core = require(path.join(path.dirname(process.argv[1]), 'lib', 'coreBundle.js'));
    const { DispatcherConnection, setMaxDispatchersForTest } = core.server;
    const dispose = DispatcherConnection.prototype.maybeDisposeStaleDispatchers;
    if (typeof dispose !== 'function' || typeof setMaxDispatchersForTest !== 'function')
      throw new Error('this Playwright has no per-kind object limit to lower');
    // Playwright's limit is one override for every kind: set it only while a capped kind is checked
    DispatcherConnection.prototype.maybeDisposeStaleDispatchers = function (kind) {
      if (!CAPPED_KINDS.has(kind)) return dispose.call(this, kind);
      setMaxDispatchersForTest(cap);
      try {
        return dispose.call(this, kind);
      } finally {
        setMaxDispatchersForTest(undefined);
      }
    };
  } catch (e) {
    process.stderr.write(`tabmcp: cannot cap Playwright's objects (${e && e.message}); memory grows per navigation\n`);
  }
}
