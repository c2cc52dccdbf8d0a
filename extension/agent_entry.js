// The one way into the page agent, for both of tabmcp's hosts: the service worker passes this
// function to chrome.scripting.executeScript (importScripts makes it a global there), and the CDP
// driver evaluates it in each frame (drivers/page_scripts.py reads this file). It runs in the
// agent's world and must stay self-contained: it is serialised on its way to the page.
function tabmcpAgentEntry(method, arg) {
  const agent = globalThis.__tabmcpAgent;
  if (!agent) return { __missing: true };
  const describe = (e) => String((e && e.stack) || e);
  const started = performance.now();
  // One JSON string crosses from the page to the caller far faster than the same data as
  // structured-cloned objects (a 17k-row snapshot: ~20 ms instead of ~350 ms). `__ms`: the time the
  // call took in the page, serialising included (the rest of a round trip is transfer). `__posted`:
  // the reports this document had sent through the CDP driver's binding by then (0 elsewhere).
  const pack = (value) => ({
    __json: JSON.stringify(value === undefined ? null : value), __ms: performance.now() - started,
    __doc: agent.docId, __posted: typeof agent.reportsPosted === 'function' ? agent.reportsPosted() : 0,
  });
  try {
    return Promise.resolve(agent[method](arg)).then(pack, (e) => ({ __error: describe(e) }));
  } catch (e) {
    return { __error: describe(e) };
  }
}
