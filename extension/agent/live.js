// tabmcp page agent: live updates, the top frame's toolsChanged messages.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    IS_TOP, CAPTURE_INTERACTIVE_SELECTOR, DOC_ID, noteRoot, openRoots, collectShadowRoots, WATCH_OPTIONS, watches,
    HOST_BINDING, post, agentTimer,
  } = shared;
  // Defined by a later file: called through `shared` (by then every file has run).
  const isHiddenForCapture = (el) => shared.isHiddenForCapture(el);

  // -------------------------------------------------------------------------------------------
  // Live updates (docs/page-agent.md §10). The top frame tells the service worker, without being
  // polled, when the page's tools may have changed. A MutationObserver marks the page dirty; after
  // a quiet period (LIVE_QUIET_MS, LIVE_MAX_MS at most) the tool-relevant structure is
  // fingerprinted, and only a different fingerprint is a change: typing, checking, focus and edits
  // of plain text never are. `pageVersion()` is "<docId>:<seq>"; `onToolRelevantChange(reason)` is
  // called by anything else that may have changed the tools (webmcp.js: 'webmcp').

  const LIVE_QUIET_MS = 300;
  const LIVE_MAX_MS = 1500;
  const LIVE_TEXT_MAX = 120; // characters of a named element's text in the fingerprint
  // The capture's ref selector, plus what names an enum value or a declared tool.
  const LIVE_SELECTOR = `${CAPTURE_INTERACTIVE_SELECTOR},option,[toolname]`;
  // Elements whose text names them (a button's label, an option's text): their text is part of
  // the fingerprint, and a text edit inside them is worth a look.
  const LIVE_NAMED_SELECTOR = 'a[href],button,label,option,summary,legend,[role],[toolname],[toolparamdescription]';
  const LIVE_TEXT_TAGS = new Set(['a', 'button', 'label', 'option', 'summary']);
  const LIVE_TEXT_ROLES = new Set([
    'button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'checkbox', 'radio', 'switch',
    'treeitem',
  ]);
  // Inputs whose value attribute is a label (a button's) or an enum value (a radio's), not typed text.
  const LIVE_VALUE_TYPES = new Set(['button', 'submit', 'reset', 'image', 'radio', 'checkbox']);
  const LIVE_ATTRIBUTES = [
    'hidden', 'style', 'class', 'disabled', 'open', 'inert', 'aria-hidden', 'aria-expanded', 'aria-disabled',
    'aria-label', 'aria-labelledby', 'role', 'id', 'name', 'type', 'href', 'for', 'value', 'placeholder', 'title',
    'required', 'multiple', 'action', 'method', 'contenteditable', 'tabindex', 'toolname', 'tooldescription',
    'toolparamdescription', 'toolautosubmit',
  ];
  const LIVE_OPTIONS = {
    childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: LIVE_ATTRIBUTES,
  };
  // When changes of several kinds come in one burst, the report names the most telling one.
  const LIVE_REASON_RANK = { mutation: 0, webmcp: 1, history: 2 };

  const live = {
    observer: null,
    fingerprint: null, // null until the first capture: until then no change is looked at
    seq: 0,
    dirty: false, // something that may matter happened since the last fingerprint
    forced: false, // a change that counts even when the fingerprint stays the same (WebMCP)
    reason: null,
    timer: 0,
    since: 0, // when the pending burst began
  };

  function pageVersion() {
    if (IS_TOP) settleLive();
    return `${DOC_ID}:${live.seq}`;
  }

  /**
   * The page version when nothing tool-relevant is pending, else null: an answer that carries it
   * spares the server a capture when its tools are of that version. Null in a frame (no page tools)
   * and before the first capture. Never settles anything: a pending change is the capture's to read.
   */
  function settledVersion() {
    if (!IS_TOP || live.fingerprint === null) return null;
    const pending = live.observer ? live.observer.takeRecords() : [];
    if (pending.length) noteTitle(); // what the observer's callback would have done with them
    if (isLiveRelevant(pending)) markLive('mutation');
    return live.dirty ? null : `${DOC_ID}:${live.seq}`;
  }

  /** `reason`: a key of LIVE_REASON_RANK. Only the top document has page tools. */
  function onToolRelevantChange(reason) {
    if (IS_TOP) markLive(reason);
  }

  function markLive(reason) {
    if (live.fingerprint === null) return; // nothing was read yet: the first capture takes the baseline
    live.dirty = true;
    if (reason === 'webmcp') live.forced = true; // the list changed by content: no fingerprint to ask
    if (live.reason === null || LIVE_REASON_RANK[reason] > LIVE_REASON_RANK[live.reason]) live.reason = reason;
    // While the parser builds the page nobody can have read it yet: checked at DOMContentLoaded.
    if (document.readyState !== 'loading') scheduleLive();
  }

  // Debounce: LIVE_QUIET_MS after the last change, but no later than LIVE_MAX_MS after the first.
  function scheduleLive() {
    const now = performance.now();
    if (live.timer) clearTimeout(live.timer);
    else live.since = now;
    live.timer = agentTimer(onLiveTimer, Math.max(0, Math.min(LIVE_QUIET_MS, live.since + LIVE_MAX_MS - now)));
  }

  function onLiveTimer() {
    live.timer = 0;
    const reason = settleLive();
    if (reason) post({ type: 'toolsChanged', reason, version: `${DOC_ID}:${live.seq}` });
  }

  /**
   * Brings seq up to date now (records not yet delivered included) and cancels the pending
   * timer. Returns the reason when seq moved, else null. The caller decides whether to post.
   */
  function settleLive() {
    const pending = live.observer ? live.observer.takeRecords() : [];
    if (live.fingerprint === null) { // the document's first read: its baseline, at seq 0
      live.fingerprint = liveFingerprint();
      return null;
    }
    if (isLiveRelevant(pending)) markLive('mutation');
    if (live.timer) clearTimeout(live.timer);
    live.timer = 0;
    if (!live.dirty) return null;
    const fingerprint = liveFingerprint();
    const changed = live.forced || fingerprint !== live.fingerprint;
    const reason = live.reason || 'mutation';
    live.fingerprint = fingerprint;
    live.dirty = false;
    live.forced = false;
    live.reason = null;
    if (!changed) return null;
    live.seq += 1;
    return reason;
  }

  /**
   * The tool-relevant structure as one string: the URL (site introspectors match it), then per
   * interactive element what introspectors read: tag, id, name, type, role, labels, required,
   * disabled, rendered or not, and a short text for what is named by its text. Never a typed
   * value, a checked state or focus.
   */
  function liveFingerprint() {
    if (live.fingerprint === null && document.documentElement) collectShadowRoots(document, []);
    const parts = [location.href];
    const add = (list) => {
      for (let i = 0, n = list.length; i < n; i += 1) parts.push(liveEntry(list[i])); // faster than for…of
    };
    add(document.querySelectorAll(LIVE_SELECTOR));
    for (const root of openRoots()) {
      parts.push('#shadow');
      add(root.querySelectorAll(LIVE_SELECTOR));
    }
    return parts.join('\n');
  }

  // What of an element's attributes can change a tool: names, labels, kinds, availability, the
  // declared WebMCP bits. Never a text field's value or a checked state.
  const LIVE_ENTRY_ATTRIBUTES = new Set([
    'id', 'name', 'type', 'role', 'aria-label', 'aria-labelledby', 'placeholder', 'title', 'disabled', 'aria-disabled',
    'required', 'multiple', 'for', 'action', 'method', 'toolname', 'tooldescription', 'toolparamdescription',
    'toolautosubmit',
  ]);

  function liveEntry(el) {
    const tag = el.localName;
    let entry = tag;
    let role = '';
    // getAttributeNames + getAttribute: no Attr objects (iterating el.attributes costs 1.5x more)
    for (const name of el.getAttributeNames()) {
      if (LIVE_ENTRY_ATTRIBUTES.has(name)) {
        const value = el.getAttribute(name);
        entry += `|${name}=${value}`;
        if (name === 'role') role = value;
      } else if (name === 'value' && (tag === 'option' || (tag === 'input' && LIVE_VALUE_TYPES.has(el.type)))) {
        entry += `|value=${el.getAttribute(name)}`;
      }
    }
    // rendered or not, as the capture marks it (data-tabmcp-hidden); options and labels show or
    // hide with their control, which has its own entry
    if (tag !== 'option' && tag !== 'label' && isHiddenForCapture(el)) entry += '|hidden';
    if (LIVE_TEXT_TAGS.has(tag) || (role && LIVE_TEXT_ROLES.has(role.trim().split(/\s+/)[0].toLowerCase()))) {
      const text = el.textContent; // as it is: only ever compared with itself
      entry += `|${text.length > LIVE_TEXT_MAX ? text.slice(0, LIVE_TEXT_MAX) : text}`;
    }
    return entry;
  }

  /** Whether a batch of mutation records can have touched the tools (cheap: the fingerprint decides). */
  function isLiveRelevant(records) {
    for (const record of records) {
      if (record.type === 'attributes') {
        // a spinner's style, a paragraph's class: nothing in there to show, hide or rename
        if (record.target.nodeType === Node.ELEMENT_NODE && mayHoldControls(record.target)) return true;
        continue;
      }
      if (record.type === 'characterData') {
        if (namesSomething(record.target.parentNode)) return true;
        continue;
      }
      for (const list of [record.addedNodes, record.removedNodes]) {
        for (const node of list) {
          if (node.nodeType === Node.ELEMENT_NODE) {
            if (node.localName === 'script') continue;
            if (node.shadowRoot && list === record.addedNodes) noteRoot(node.shadowRoot);
            if (mayHoldControls(node)) return true;
          } else if (node.nodeType === Node.TEXT_NODE && namesSomething(record.target)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  function namesSomething(el) {
    return !!el && el.nodeType === Node.ELEMENT_NODE && el.closest(LIVE_NAMED_SELECTOR) !== null;
  }

  // Style sheets change what renders; custom elements may hide controls in shadow roots.
  function mayHoldControls(el) {
    const tag = el.localName;
    return tag === 'style' || tag === 'link' || tag.includes('-') || el.matches(LIVE_SELECTOR)
      || el.querySelector(LIVE_SELECTOR) !== null;
  }

  function onHistoryChange() {
    markLive('history');
  }

  /** Called for every shadow root the agent learns about (noteRoot). */
  function observeRoot(root) {
    if (live.observer && root.mode === 'open') live.observer.observe(root, LIVE_OPTIONS); // as liveFingerprint reads
    for (const watch of watches.values()) watch.observer.observe(root, WATCH_OPTIONS);
  }

  // The page's title as it changes (a script renaming its tab), for the CDP driver: the extension
  // hears titles from tabs.onUpdated, headless Chromium's targets do not report them. Posted a
  // moment later, once per burst: a post through the driver's binding is a round trip of its own
  // (the driver answers it in the page), which the answer of an action that renamed the page
  // would otherwise wait behind. The action's own answer carries the title it left.
  const TITLE_POST_MS = 100;
  let lastTitle = null;
  let titleTimer = 0;

  function noteTitle() {
    if (titleTimer || typeof globalThis[HOST_BINDING] !== 'function' || document.title === lastTitle) return;
    titleTimer = agentTimer(postTitle, lastTitle === null ? 0 : TITLE_POST_MS);
  }

  function postTitle() {
    titleTimer = 0;
    const title = document.title;
    if (title === lastTitle) return;
    lastTitle = title;
    post({ type: 'title', title: title.slice(0, 500) });
  }

  function startLiveUpdates() {
    // SPA route changes: the Navigation API sees pushState/replaceState from the page's own world
    // too; popstate and hashchange cover browsers without it.
    const nav = globalThis.navigation;
    if (nav && typeof nav.addEventListener === 'function') nav.addEventListener('currententrychange', onHistoryChange);
    addEventListener('popstate', onHistoryChange, true);
    addEventListener('hashchange', onHistoryChange, true);
    // The mutations start to be observed once the parser is done: what it builds is nobody's change
    // (markLive waits for DOMContentLoaded anyway), and a document-wide observer from document_start
    // is handed a record for every node parsed (measured: a 1.7 MB page loaded 0.5 s slower with the
    // agent, most of it this).
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', observeLive, true);
    else observeLive();
  }

  function observeLive() {
    if (live.observer) return;
    live.observer = new MutationObserver((records) => {
      noteTitle();
      if (live.fingerprint === null) return; // no baseline yet: nothing can have changed for anyone
      if (isLiveRelevant(records)) markLive('mutation');
    });
    live.observer.observe(document, LIVE_OPTIONS);
    for (const root of openRoots()) live.observer.observe(root, LIVE_OPTIONS);
    noteTitle(); // the title the parser read
    // read while it was parsed (a capture of a page still loading): the rest the parser added is
    // looked at as a change (the fingerprint decides), as are a route change or a WebMCP registration
    // marked meanwhile
    if (live.fingerprint !== null) markLive('mutation');
  }

  Object.assign(shared, {
    pageVersion, settledVersion, onToolRelevantChange, observeRoot, startLiveUpdates,
  });
})();
