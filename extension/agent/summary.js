// tabmcp page agent: what a page tool's plan changed, in words (summary, watchChanges, unwatch),
// extract, and the page's rendered text (which snapshot's locate hints read too).
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    SKIPPED_TAGS, INLINE_TAGS, FORM_CONTROL_TAGS, WORK_EVENT, PENDING_EVENT, AgentError, failure, collapse, cut,
    agentTimer, DOC_ID, connectedRoots,
    forEachChild, flatParent, isRendered, isVisible, PRUNED, VISIBLE, CONTENTS, renderState,
  } = shared;

  const SUMMARY_MAX_CHARS = 2000;
  // Defined by a later file (live.js): called through `shared` (by then every file has run).
  const settledVersion = () => shared.settledVersion();

  // -------------------------------------------------------------------------------------------
  // summary, watchChanges, extract (docs/page-agent.md §11): what a page tool's plan did, in words

  const SUMMARY_TEXT_MAX = 1500;
  const CHANGED_MAX = 1500;
  const EDITOR_TEXT_MAX = 4000;
  const EDITORS_MAX = 3;
  // Same-origin child frames whose text an answer carries (a message body shown in an iframe): the
  // shown ones large enough to hold content, not a tracking pixel or a hidden helper frame
  const FRAME_TEXT_MAX = 3000;
  const FRAMES_MAX = 2;
  const FRAME_MIN_WIDTH = 100;
  const FRAME_MIN_HEIGHT = 50;
  const EXTRACT_TEXT_MAX = 300;
  const EXTRACT_LIMIT = 20;
  const EXTRACT_LIMIT_MAX = 100;
  const WATCH_MAX_MS = 10 * 60 * 1000; // a watch nobody reads (the plan failed) stops by itself
  const WATCH_MAX_NODES = 2000;
  const SETTLE_MAX_MS = 1500; // the longest a summary waits for a page whose frames keep changing (a clock)
  // The longest it waits for the work the call started (a debounced search, its request, the render):
  // a page answering slowly (a loaded machine, a slow server) is still answering.
  const SETTLE_WORK_MAX_MS = 3000;
  const SETTLE_RENDER_MS = 500; // after work that ended past the frames' bound: frames to render it in
  // Attribute changes that show or hide something (a dialog opens, a panel is revealed).
  const WATCH_ATTRIBUTES = ['hidden', 'open', 'style', 'class', 'aria-hidden'];
  const WATCH_OPTIONS = {
    childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: WATCH_ATTRIBUTES,
  };
  // Never content of their own in visible text (innerText leaves them out too), or not text at all.
  const TEXT_SKIPPED_TAGS = new Set([
    ...SKIPPED_TAGS, 'select', 'datalist', 'textarea', 'svg', 'math', 'iframe', 'frame', 'object', 'embed',
    'canvas', 'video', 'audio', 'input',
  ]);
  function mainRoot() {
    return document.querySelector('main') || document.querySelector('[role=main]') || document.body
      || document.documentElement;
  }

  /**
   * The visible text of a node in the composed tree (open and closed shadow roots, slots), like
   * innerText but bounded: the walk stops once `max` characters are gathered. Form controls'
   * values and options are left out, as innerText does.
   */
  function renderedText(node, max) {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = flatParent(node);
      return parent && isRendered(parent) ? cut(collapse(node.data), max) : '';
    }
    if (node.nodeType !== Node.ELEMENT_NODE || TEXT_SKIPPED_TAGS.has(node.localName) || !isRendered(node)) return '';
    const parts = [];
    let length = 0;
    const walk = (el, shown) => {
      const onlySummary = el.localName === 'details' && !el.open;
      forEachChild(el, false, (child) => {
        if (length > max) return false;
        if (child.nodeType === Node.TEXT_NODE) {
          if (shown && !onlySummary) {
            parts.push(child.data);
            // what shows: a template's indentation would spend the budget on spaces collapse drops
            length += collapse(child.data).length + 1;
          }
          return true;
        }
        if (child.nodeType !== Node.ELEMENT_NODE) return true;
        const tag = child.localName;
        if (TEXT_SKIPPED_TAGS.has(tag) || (onlySummary && tag !== 'summary')) return true;
        if (tag === 'br') {
          parts.push(' ');
          return true;
        }
        const rendering = renderState(child);
        if (rendering === PRUNED) return true;
        // visibility:hidden: its own text does not show, its children's may
        const childShown = rendering === VISIBLE || (rendering === CONTENTS && shown);
        const block = !INLINE_TAGS.has(tag);
        if (block) parts.push(' ');
        walk(child, childShown);
        if (block) parts.push(' ');
        return true;
      });
    };
    walk(node, true); // rendered with visibility:visible, or display:contents in a rendered parent
    return cut(collapse(parts.join('')), max);
  }

  /** The outermost host chain of a node: [its top-level ancestor's tree node, ..., node] per tree. */
  function treeChain(node) {
    const chain = [node];
    for (let root = node.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) chain.unshift(root.host);
    return chain;
  }

  /** Document order across shadow trees: a host comes before its shadow content. */
  function composedOrder(a, b) {
    const left = treeChain(a);
    const right = treeChain(b);
    for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
      const x = left[i];
      const y = right[i];
      if (x === y) continue;
      const position = x.compareDocumentPosition(y);
      if (position & Node.DOCUMENT_POSITION_CONTAINED_BY) return -1;
      if (position & Node.DOCUMENT_POSITION_CONTAINS) return 1;
      return position & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    }
    return left.length - right.length;
  }

  // ---- watchChanges: what a plan adds or changes, recorded while it runs

  let lastWatch = 0;
  const watches = new Map(); // id -> {observer, nodes: Set<Node>, added: Set<Node>, changes, timer}

  function watchChanges() {
    lastWatch += 1;
    const id = lastWatch;
    const watch = {
      observer: null, nodes: new Set(), added: new Set(), changes: 0, timer: 0, started: performance.now(),
      frames: frameTexts(), // what the child frames showed before the plan: only what changed is news
    };
    watchFrames(watch);
    watch.observer = new MutationObserver((records) => recordChanges(watch, records));
    watch.observer.observe(document, WATCH_OPTIONS);
    for (const root of connectedRoots()) watch.observer.observe(root, WATCH_OPTIONS); // its text is read through closed ones too
    watch.timer = agentTimer(() => stopWatch(id), WATCH_MAX_MS);
    if (!watches.size) countPageWork(true);
    watches.set(id, watch);
    return { ok: true, token: `${DOC_ID}:${id}`, docId: DOC_ID };
  }

  function stopWatch(id) {
    const watch = watches.get(id);
    if (!watch) return;
    watch.observer.disconnect();
    document.removeEventListener('load', watch.onFrameLoad, true);
    clearTimeout(watch.timer);
    watches.delete(id);
    if (!watches.size) countPageWork(false);
  }

  /** The watch id a token names, or null when the token is another document's. */
  function watchId(token) {
    const [docId, id] = typeof token === 'string' ? token.split(':') : [];
    return docId === DOC_ID ? Number(id) : null;
  }

  /** `{token}`: ends a watch nobody will read (its plan failed). `{ok: true, stopped}`. */
  function unwatch(arg) {
    const id = watchId(arg && arg.token);
    const stopped = watches.has(id);
    stopWatch(id);
    return { ok: true, stopped };
  }

  function recordChanges(watch, records) {
    const note = (node, content = true) => {
      if (!node || watch.nodes.size >= WATCH_MAX_NODES) return;
      watch.nodes.add(node);
      if (content) watch.added.add(node); // new content, not only a state shown or hidden
    };
    for (const record of records) {
      const { target } = record;
      if (record.type === 'attributes') {
        // a field's validation class or a body-wide state class says nothing about the page's content
        if (target === document.documentElement || target === document.body || FORM_CONTROL_TAGS.has(target.localName)) continue;
        note(target, false);
        continue;
      }
      watch.changes += 1;
      if (record.type === 'characterData') {
        note(textOwner(target));
      } else {
        for (const node of record.addedNodes) {
          if (node.nodeType === Node.TEXT_NODE) note(textOwner(node));
          else if (node.nodeType === Node.ELEMENT_NODE && !SKIPPED_TAGS.has(node.localName)) note(node);
        }
        // the text of an element that lost children changed too (a list that lost an entry is not
        // news, a label whose text node was replaced is: added nodes cover that)
      }
    }
  }

  // Text that changed is reported with its element (a button's new label), unless the element is
  // a page-wide container, or something being edited (typing is not news).
  function textOwner(text) {
    const parent = text.parentNode;
    if (!parent || parent.nodeType !== Node.ELEMENT_NODE) return text;
    if (parent.isContentEditable || parent.localName === 'textarea') return null;
    if (parent === document.body || parent === document.documentElement || parent === mainRoot()) return text;
    return parent;
  }

  // ---- settling: the page's own work, measured (docs/page-agent.md §11)

  // page_hooks.js (the page's world) counts the requests and short timers the page starts while a
  // watch is on, and says how many are pending whenever that changes.
  const pageWork = { pending: 0, wake: null };

  function countPageWork(watching) {
    pageWork.pending = 0;
    window.dispatchEvent(new CustomEvent(WORK_EVENT, { detail: JSON.stringify({ watching }) }));
  }

  window.addEventListener(PENDING_EVENT, (event) => {
    try {
      const { pending } = JSON.parse(event.detail);
      pageWork.pending = Number.isInteger(pending) && pending > 0 ? pending : 0;
    } catch {
      pageWork.pending = 0;
    }
    if (!pageWork.pending && pageWork.wake) pageWork.wake();
  }, true);

  /** The page's counted work (a debounced search, its request) is still pending: only known while a watch is on. */
  const pageBusy = () => pageWork.pending > 0;

  /** Resolves true once the page's counted work is done, false at the deadline. */
  function pageWorkDone(deadline) {
    return new Promise((resolve) => {
      const timer = agentTimer(() => finish(false), Math.max(0, deadline - performance.now()));
      function finish(done) {
        clearTimeout(timer);
        pageWork.wake = null;
        resolve(done);
      }
      pageWork.wake = () => finish(true);
    });
  }

  /**
   * Resolves true after the next animation frame (its callbacks, where pages render, have run) and
   * one task after it; in a hidden document, which runs no frames, after one task. False at the
   * deadline.
   */
  function settleFrame(deadline) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(value);
      };
      const timer = agentTimer(() => finish(false), Math.max(0, deadline - performance.now()));
      const afterTask = () => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => finish(true);
        channel.port2.postMessage(null);
      };
      if (document.visibilityState === 'hidden') afterTask();
      else requestAnimationFrame(afterTask);
    });
  }

  /**
   * Until the work the call started is done: no counted request or timer of the page pending,
   * then a frame that changed nothing. A page that changed at once settles after one frame; one that
   * fetches and renders, after the render. Frames that keep changing with nothing pending end it
   * at SETTLE_MAX_MS (a clock ticking every frame); pending work at SETTLE_WORK_MAX_MS (a request that
   * never ends), work that ends in time getting frames to render its answer.
   */
  async function settleWatch(watch) {
    const start = performance.now();
    const workDeadline = start + SETTLE_WORK_MAX_MS;
    let deadline = start + SETTLE_MAX_MS;
    for (;;) {
      recordChanges(watch, watch.observer.takeRecords());
      if (pageWork.pending) {
        if (!await pageWorkDone(workDeadline)) return;
        deadline = Math.max(deadline, Math.min(workDeadline, performance.now() + SETTLE_RENDER_MS));
        continue;
      }
      const seen = watch.changes;
      if (!await settleFrame(deadline)) return;
      recordChanges(watch, watch.observer.takeRecords());
      if (watch.changes === seen && !pageWork.pending) return;
    }
  }

  /** The visible text of the outermost changed nodes, in document order. */
  function changedText(watch) {
    const nodes = [...watch.nodes].filter((n) => n.isConnected);
    const set = new Set(nodes);
    const outermost = nodes.filter((n) => {
      for (let p = flatParent(n); p; p = flatParent(p)) if (set.has(p)) return false;
      return true;
    });
    outermost.sort(composedOrder);
    const parts = [];
    let length = 0;
    for (const node of outermost) {
      if (node.nodeType === Node.ELEMENT_NODE && node.isContentEditable) continue; // being edited, not news
      const text = renderedText(node, CHANGED_MAX);
      if (!text) continue;
      parts.push(text);
      length += text.length + 1;
      if (length > CHANGED_MAX) break;
    }
    return cut(parts.join(' '), CHANGED_MAX);
  }

  // ---- child frames: the text of the same-origin ones shown (a message body, a preview)

  /** The document of a child frame this one may read (same origin, loaded), else null. */
  function frameDocument(frame) {
    try {
      const doc = frame.contentDocument;
      return doc && doc.documentElement ? doc : null;
    } catch {
      return null; // a cross-origin frame: its text stays out
    }
  }

  /** The shown child frames large enough to hold content, in document order. */
  function shownFrames() {
    const frames = [];
    const roots = [document, ...connectedRoots()];
    for (const root of roots) {
      for (const frame of root.querySelectorAll('iframe, frame')) {
        if (!isVisible(frame)) continue;
        const box = frame.getBoundingClientRect();
        if (box.width >= FRAME_MIN_WIDTH && box.height >= FRAME_MIN_HEIGHT) frames.push(frame);
      }
    }
    return frames.sort(composedOrder);
  }

  /** The page a child frame was told to show: its src, or its srcdoc; "" for one a script writes. */
  function frameSource(frame) {
    if (frame.hasAttribute('srcdoc')) return `srcdoc:${frame.getAttribute('srcdoc')}`;
    return frame.getAttribute('src') ? frame.src : '';
  }

  /** The frames' sources as a watch starts, and the frames that load while it runs. */
  function watchFrames(watch) {
    watch.sources = new Map([...document.querySelectorAll('iframe, frame')].map((f) => [f, frameSource(f)]));
    watch.loaded = new Set();
    // a frame's load event does not bubble; its parent document's capture phase still sees it
    watch.onFrameLoad = (event) => {
      const el = event.target;
      if (el && (el.localName === 'iframe' || el.localName === 'frame')) watch.loaded.add(el);
    };
    document.addEventListener('load', watch.onFrameLoad, true);
  }

  /**
   * A shown same-origin frame whose page is not in yet: its document still loading (one in place with
   * nothing parsed into it yet, between a slow response's commit and its first bytes, included), or
   * (during a watch) a source the plan gave it (a new frame, a new src) that has not loaded since.
   */
  function frameLoading(frame, watch) {
    let doc;
    try {
      doc = frame.contentDocument;
    } catch {
      return false; // a cross-origin frame: not waited for, its text stays out
    }
    if (!doc) return false;
    if (!doc.documentElement || doc.readyState !== 'complete') return true;
    if (!watch || watch.loaded.has(frame)) return false;
    const source = frameSource(frame);
    return source !== '' && source !== watch.sources.get(frame);
  }

  /** Resolves once the shown same-origin frames have loaded their pages, or at the deadline. */
  function framesLoaded(watch, deadline) {
    const pending = shownFrames().filter((frame) => frameLoading(frame, watch));
    if (!pending.length) return Promise.resolve(true);
    return new Promise((resolve) => {
      let left = pending.length;
      const timer = agentTimer(() => finish(false), Math.max(0, deadline - performance.now()));
      const onLoad = (event) => {
        if (watch) watch.loaded.add(event.target);
        left -= 1;
        if (!left) finish(true);
      };
      function finish(done) {
        clearTimeout(timer);
        for (const frame of pending) frame.removeEventListener('load', onLoad);
        resolve(done);
      }
      for (const frame of pending) frame.addEventListener('load', onLoad, { once: true });
    });
  }

  /** [[frame, text]] of the shown same-origin child frames that have text. */
  function frameTexts() {
    const texts = [];
    for (const frame of shownFrames()) {
      const doc = frameDocument(frame);
      const body = doc && (doc.body || doc.documentElement);
      const text = body ? renderedText(body, FRAME_TEXT_MAX) : '';
      if (text) texts.push([frame, text]);
    }
    return texts;
  }

  /**
   * The texts of the frames shown now: all of them, or during a watch only those the plan changed
   * (their text, or a page they loaded again: a message opened once more).
   */
  function framesNow(watch) {
    const known = watch ? new Map(watch.frames) : null;
    const texts = [];
    for (const [frame, text] of frameTexts()) {
      if (known && known.get(frame) === text && !watch.loaded.has(frame)) continue;
      texts.push(text);
      if (texts.length === FRAMES_MAX) break;
    }
    return texts;
  }

  // ---- summary

  /**
   * Without an argument: `{url, title, text}` (the page's main text). With
   * `{token, results, skip?}` (the token of watchChanges before the plan): the PageSummary of
   * docs/protocol.md, once the page has settled: `navigated`, `changed`, `text`, `results` (the
   * main list's rows from `skip` on) and `pages` (lists.js), `status` and `errors` (status.js).
   */
  function summary(request) {
    if (!request || typeof request !== 'object') {
      const root = mainRoot();
      const text = root ? collapse(root.innerText || root.textContent || '').slice(0, SUMMARY_MAX_CHARS) : '';
      return { url: location.href, title: document.title, text };
    }
    return pageSummary(request);
  }

  async function pageSummary(request) {
    const token = typeof request.token === 'string' ? request.token : '';
    const id = watchId(token);
    const navigated = token !== '' && id === null;
    const watch = watches.get(id);
    let changed = '';
    if (watch) {
      await settleWatch(watch);
      changed = changedText(watch);
      stopWatch(id);
    }
    const root = mainRoot();
    const out = { url: location.href, title: document.title, navigated };
    const version = settledVersion();
    if (version) out.version = version;
    if (changed) out.changed = changed;
    out.text = root ? renderedText(root, SUMMARY_TEXT_MAX) : '';
    if (watch || navigated) {
      await framesLoaded(watch, performance.now() + SETTLE_WORK_MAX_MS); // a frame's load is the call's work too
      const frames = framesNow(watch);
      if (frames.length) out.frames = frames;
    }
    if (navigated) {
      const editors = editorTexts();
      if (editors.length) out.editors = editors;
    }
    if (request.results) {
      const skip = Number.isInteger(request.skip) && request.skip > 0 ? request.skip : 0;
      Object.assign(out, shared.listAnswer(skip));
    }
    // the browser's refusals during the plan; without a watch there is no telling which are new
    const { banners, errors } = shared.pageStatus(watch ? watch.started : Infinity);
    if (banners.length) out.status = banners;
    if (errors.length) out.errors = errors;
    return out;
  }

  /**
   * The text of the page's code and rich-text editors (widgets.js), which a form's tool replaces
   * whole: a page just opened says what they hold (the page's text leaves them out or cuts them).
   */
  function editorTexts() {
    const texts = [];
    const seen = new Set(); // a drawn editor's key takers stand for one editor
    for (const el of document.querySelectorAll('[contenteditable], textarea, [role=textbox]')) {
      const widget = shared.widgetOf(el);
      if (!widget || widget.kind !== 'editor' || !(isVisible(el) || shared.shownByEditor(el))) continue;
      const drawn = shared.drawnEditorOf(el);
      const root = drawn ? drawn.root : el;
      if (seen.has(root)) continue;
      seen.add(root);
      const text = shared.editorText(el);
      if (text === null || !text.trim()) continue; // an empty editor says nothing
      texts.push(cut(text, EDITOR_TEXT_MAX));
      if (texts.length === EDITORS_MAX) break;
    }
    return texts;
  }

  // ---- extract

  function checkSelector(css, what) {
    if (typeof css !== 'string' || !css.trim()) throw new AgentError('BAD_MESSAGE', `extract needs ${what}: a CSS selector`);
    try {
      document.createDocumentFragment().querySelector(css);
    } catch {
      throw new AgentError('BAD_MESSAGE', `${what} ${JSON.stringify(css)} is not a valid CSS selector`);
    }
  }

  /** Every element matching css in document order, open shadow roots included (each in place of its host's start). */
  function allMatches(css, visit) {
    const walkRoot = (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let el = walker.nextNode(); el; el = walker.nextNode()) {
        if (el.matches(css) && visit(el) === false) return false;
        if (el.shadowRoot && walkRoot(el.shadowRoot) === false) return false;
      }
      return true;
    };
    if (document.documentElement) walkRoot(document);
  }

  function fieldText(item, css) {
    const match = item.querySelector(css) || (item.shadowRoot && item.shadowRoot.querySelector(css));
    return match ? renderedText(match, EXTRACT_TEXT_MAX) : '';
  }

  /**
   * `{css, fields?, limit?}`: the visible matches of css (at most limit), each as its visible text
   * or, with fields ({key: css inside the match}), as {key: text of the first match}.
   */
  function extract(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'extract needs {css, fields?, limit?}');
      checkSelector(arg.css, '"css"');
      const fields = arg.fields === undefined || arg.fields === null ? null : arg.fields;
      if (fields !== null && (typeof fields !== 'object' || Array.isArray(fields))) {
        throw new AgentError('BAD_MESSAGE', 'extract "fields" is an object of {key: CSS selector}');
      }
      if (fields) for (const [key, css] of Object.entries(fields)) checkSelector(css, `field ${JSON.stringify(key)}`);
      const limit = arg.limit === undefined || arg.limit === null ? EXTRACT_LIMIT : arg.limit;
      if (!Number.isInteger(limit) || limit < 1 || limit > EXTRACT_LIMIT_MAX) {
        throw new AgentError('BAD_MESSAGE', `extract "limit" is an integer 1…${EXTRACT_LIMIT_MAX}`);
      }
      const items = [];
      allMatches(arg.css, (el) => {
        if (!isVisible(el)) return true;
        if (fields) {
          const item = {};
          for (const [key, css] of Object.entries(fields)) item[key] = fieldText(el, css);
          items.push(item);
        } else {
          items.push(renderedText(el, EXTRACT_TEXT_MAX));
        }
        return items.length < limit;
      });
      return { ok: true, items };
    } catch (e) {
      return failure(e);
    }
  }

  /** The watch a token of watchChanges names, while it runs; else null. */
  const watchOf = (token) => watches.get(watchId(token)) || null;

  Object.assign(shared, {
    WATCH_OPTIONS, renderedText, watches, watchChanges, unwatch, summary, extract, pageBusy, settleWatch, watchOf,
  });
})();
