// tabmcp page agent: builds globalThis.__tabmcpAgent from the parts, the last file of the list.
//
// background.js calls it through globalThis.__tabmcpAgent[method](arg). docs/page-agent.md is the
// contract:
// - snapshot / findText / find / act / point / rect / probe / frameOffset: the page as rows with
//   refs, element targets, actions with actionability checks, waits;
// - view: what a screenshot shows (viewport, scroll, an element, the marks of set-of-marks);
// - capture / summary: the DOM as HTML for introspection, a page summary. Page-tool plan
//   steps run through act, like interact.
// - live updates: the top frame posts toolsChanged when the tool-relevant structure
//   changed (debounced fingerprint); capture carries the version; watchChanges / summary({token})
//   say what a plan changed (unwatch ends a watch whose plan failed), extract reads every match
//   of a selector, browse moves the main list to a page, sort or page size (lists.js), liveResults reads what a
//   live search shows near its box (results.js); capture lists the page's WebMCP tools and webmcpCall runs one.
// page_hooks.js (main world) reports console entries, dialogs and the WebMCP registry through
// CustomEvents; this agent forwards the first two to the service worker over its runtime port.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    IS_TOP, DOC_ID, watchChanges, unwatch, summary, extract, snapshot, findText, frameOffset, find, probe, act, point, rect,
    openPort, takeConsoleQueue, flushConsole, reportsPosted, startLiveUpdates, webmcpSync, webmcpCall, capture, view, browse,
    liveResults,
  } = shared;

  const VERSION = '0.2.0';

  globalThis.__tabmcpAgent = Object.freeze({
    version: VERSION,
    docId: DOC_ID,
    reportsPosted,
    snapshot,
    findText,
    find,
    act,
    point,
    rect,
    probe,
    frameOffset,
    capture,
    view,
    summary,
    watchChanges,
    unwatch,
    extract,
    browse,
    liveResults,
    webmcpCall,
    // sends the queued console entries now: {ok, sent} (for a reader that must not wait 100 ms)
    flushConsole: () => ({ ok: true, sent: flushConsole() }),
    // hands the queued entries to the caller instead of the port: a console read is then complete
    // without racing the port's messages
    takeConsole: () => ({ ok: true, entries: takeConsoleQueue() }),
    // where a meta refresh of this document will send it: {ok, url, delayS}, url null without one
    // (it starts a navigation only after the load: a call right after the load can miss it)
    pendingRefresh: () => {
      const meta = document.querySelector('meta[http-equiv="refresh" i]');
      const found = /^\s*(\d+(?:\.\d*)?)\s*(?:[;,]\s*(?:url\s*=\s*)?['"]?([^'"]*)['"]?)?\s*$/i
        .exec(meta?.getAttribute('content') || '');
      if (!found || !found[2]) return { ok: true, url: null };
      let url = null;
      try { url = new URL(found[2].trim(), document.baseURI).href; } catch { url = null; }
      return { ok: true, url, delayS: Number(found[1]) };
    },
    // whether this document holds the focus itself (not through an iframe): a key press without a
    // target goes to the deepest such frame
    holdsFocus: () => {
      const active = document.activeElement;
      const focused = document.hasFocus() && Boolean(active) && active !== document.body
        && active.localName !== 'iframe' && active.localName !== 'frame';
      return { ok: true, focused };
    },
  });
  delete globalThis.__tabmcpParts; // the methods keep what they use
  if (IS_TOP) {
    openPort();
    startLiveUpdates();
  }
  webmcpSync(); // hooks that ran first (or served an earlier agent) send what the page declared so far
})();
