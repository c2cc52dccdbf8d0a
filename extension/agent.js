// tabmcp page agent.
//
// Runs in every frame's ISOLATED world: declared in manifest.json (document_start, all frames)
// and injected on demand by background.js into pages that were open before the extension loaded.
// background.js calls it through globalThis.__tabmcpAgent[method](arg); injecting it twice is
// harmless. docs/page-agent.md is the contract:
// - snapshot / find / act / point / rect / probe / frameOffset: the page as rows with
//   refs, element targets, actions with actionability checks, waits;
// - capture / summary: the DOM as HTML for introspection, a page summary. Page-tool plan
//   steps run through act, like interact.
// - live updates: the top frame posts toolsChanged when the tool-relevant structure
//   changed (debounced fingerprint); capture carries the version; watchChanges / summary({token})
//   say what a plan changed (unwatch ends a watch whose plan failed), extract reads every match
//   of a selector; capture lists the page's WebMCP tools and webmcpCall runs one.
// page_hooks.js (main world) reports console entries, dialogs and the WebMCP registry through
// CustomEvents; this agent forwards the first two to the service worker over its runtime port.
(() => {
  'use strict';

  if (globalThis.__tabmcpAgent) return;

  const VERSION = '0.2.0';
  const DEFAULT_MAX_CHARS = 1000000;
  const SUMMARY_MAX_CHARS = 2000;
  const NAME_MAX = 120;
  const VALUE_MAX = 120;
  const TEXT_ROW_MAX = 200;
  const DESCRIBE_NAME_MAX = 40;
  const CANDIDATES_MAX = 10;
  const FIND_LIMIT = 20;
  const DEFAULT_TIMEOUT_MS = 5000;
  const RETRY_MS = 50;
  const ZERO_SIZE_SCAN = 200;
  const PORT_NAME = 'tabmcp-agent';
  const PORT_RETRIES = 20;
  const CONSOLE_FLUSH_MS = 100;
  const CONSOLE_QUEUE_MAX = 1000;
  const CONSOLE_TEXT_MAX = 2000;
  const CONSOLE_LEVELS = new Set(['debug', 'log', 'info', 'warning', 'error', 'dialog']);
  const POINT_POLICY_MS = 5000;
  const IS_TOP = window.top === window;

  // Events shared with page_hooks.js (main world); details are JSON strings.
  const CONSOLE_EVENT = 'tabmcp:console';
  const DIALOG_EVENT = 'tabmcp:dialog';
  const POLICY_EVENT = 'tabmcp:policy';
  const SHADOW_EVENT = 'tabmcp:shadow';

  // Never walked: no rendered content, or content that is not the page's (head).
  const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base']);
  // Content for capture: written as an empty element.
  const CONTENTLESS_TAGS = new Set(['svg']);
  const VOID_TAGS = new Set([
    'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
    'track', 'wbr',
  ]);
  // Inline in text: no space is added around them when text is gathered from content.
  const INLINE_TAGS = new Set([
    'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'label',
    'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'slot', 'img',
  ]);
  const CAPTURE_INTERACTIVE_SELECTOR = [
    'a[href]', 'button', 'input', 'select', 'textarea', 'form', 'label', 'summary', '[role]',
    '[tabindex]', '[contenteditable=""]', '[contenteditable="true"]', '[contenteditable="plaintext-only"]',
  ].join(',');
  // Attributes the capture adds; a page's own copies are dropped so they cannot spoof refs.
  const OWN_ATTRIBUTES = new Set(['data-tabmcp-ref', 'data-tabmcp-hidden']);
  const SAFE_ATTRIBUTE_NAME = /^[^\s"'<>\/=]+$/;

  const VALID_ROLES = new Set([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox',
    'code', 'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory',
    'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img',
    'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu',
    'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph',
    'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar',
    'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript',
    'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree',
    'treegrid', 'treeitem',
  ]);
  // Roles that are not rows in full mode: their children move up.
  const GENERIC_ROLES = new Set(['', 'generic', 'none', 'presentation', 'rowgroup', 'caption']);
  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'option', 'checkbox', 'radio', 'switch',
    'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
  ]);
  const NAME_FROM_CONTENT = new Set([
    'link', 'button', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'cell', 'gridcell',
    'columnheader', 'rowheader', 'checkbox', 'radio', 'switch', 'treeitem', 'tooltip',
  ]);
  const CHECKABLE_ROLES = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox', 'listbox']);
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar']);
  const LABELABLE_TAGS = new Set(['input', 'select', 'textarea', 'meter', 'output', 'progress']);
  const LANDMARK_SCOPE = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), '
    + 'section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
  const UNFILLABLE_INPUT_TYPES = new Set(['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'hidden']);
  // Input types whose value is the text typed (no sanitising to a format).
  const TEXT_INPUT_TYPES = new Set(['text', 'search', 'url', 'tel', 'email', 'password']);
  // Fields that block implicit submission (HTML: "a field that blocks implicit submission").
  const IMPLICIT_SUBMISSION_BLOCKERS = new Set([
    'text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number',
  ]);
  const FOCUSABLE_TAGS = new Set(['button', 'select', 'textarea', 'iframe', 'summary']);
  const FORM_CONTROL_TAGS = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset']);

  /** A failure with a protocol error code (docs/page-agent.md §6). */
  class AgentError extends Error {
    constructor(code, message, candidates) {
      super(message);
      this.code = code;
      this.candidates = candidates;
    }
  }

  function failure(e) {
    if (e instanceof AgentError) {
      const out = { ok: false, code: e.code, message: e.message };
      if (e.candidates) out.candidates = e.candidates;
      return out;
    }
    return { ok: false, code: 'INTERNAL', message: String((e && e.stack) || e) };
  }

  const collapse = (text) => String(text).replace(/\s+/g, ' ').trim();
  const cut = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * Resolves true once animations have advanced by a frame (a rAF callback can run in the frame
   * whose time was already read, so wait until the timeline moves, at most three frames), or
   * false after 500 ms without frames (a hidden tab, where frames do not run).
   */
  function nextFrame() {
    const start = document.timeline ? document.timeline.currentTime : null;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 500);
      let frames = 0;
      const onFrame = () => {
        frames += 1;
        const now = document.timeline ? document.timeline.currentTime : null;
        if (now === start && frames < 3) {
          requestAnimationFrame(onFrame);
          return;
        }
        clearTimeout(timer);
        resolve(true);
      };
      requestAnimationFrame(onFrame);
    });
  }

  /** Two animation frames (what changed is painted), or 200 ms in a tab that paints nothing. */
  function framesPainted() {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 200);
      requestAnimationFrame(() => requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve();
      }));
    });
  }

  const DOC_ID = (() => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return [...crypto.getRandomValues(new Uint8Array(8))].map((b) => alphabet[b % 36]).join('');
  })();

  // -------------------------------------------------------------------------------------------
  // Refs: e1, e2, ... handed out on first sight and kept for the element while the document lives.

  const refByElement = new WeakMap();
  const elementByRef = new Map();
  let lastRef = 0;
  let pruneAt = 4096;

  function refFor(el) {
    let ref = refByElement.get(el);
    if (!ref) {
      lastRef += 1;
      ref = `e${lastRef}`;
      refByElement.set(el, ref);
      elementByRef.set(ref, new WeakRef(el));
      if (elementByRef.size >= pruneAt) pruneRefs();
    }
    return ref;
  }

  // Refs of collected elements can never resolve again; drop their entries now and then.
  function pruneRefs() {
    for (const [ref, weak] of elementByRef) if (!weak.deref()) elementByRef.delete(ref);
    pruneAt = Math.max(4096, elementByRef.size * 2);
  }

  function elementForRef(ref) {
    const weak = elementByRef.get(ref);
    return (weak && weak.deref()) || null;
  }

  // -------------------------------------------------------------------------------------------
  // The composed (flat) tree: shadow roots in place of their host's children, slots' assigned nodes.

  const chromeDom = typeof chrome !== 'undefined' && chrome.dom && chrome.dom.openOrClosedShadowRoot
    ? chrome.dom : null;
  // Hosts of closed shadow roots on built-in elements, reported by page_hooks.js. Closed roots on
  // custom elements are looked up directly (asking chrome.dom about every element is too slow).
  const closedHosts = new WeakSet();
  // Every shadow root seen, for text searches (innerText does not enter shadow trees).
  const knownRoots = new Set();
  const knownRootSet = new WeakSet();

  function noteRoot(root) {
    if (knownRootSet.has(root)) return;
    knownRootSet.add(root);
    knownRoots.add(new WeakRef(root));
    observeRoot(root); // live updates and change watches see inside it from now on
  }

  /** The shadow roots known so far whose host is in the document (collected ones are forgotten). */
  function connectedRoots() {
    const roots = [];
    for (const weak of knownRoots) {
      const root = weak.deref();
      if (!root) knownRoots.delete(weak);
      else if (root.host.isConnected) roots.push(root);
    }
    return roots;
  }

  /** The open ones: what the capture serialises, so what the live fingerprint reads. */
  function openRoots() {
    return connectedRoots().filter((root) => root.mode === 'open');
  }

  // Only these elements (and custom elements) can host a shadow root; asking the others is waste.
  const SHADOW_HOST_TAGS = new Set([
    'article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main',
    'nav', 'p', 'section', 'span',
  ]);

  function shadowRootOf(el, tag = el.localName) {
    const custom = tag.includes('-');
    if (!custom && !SHADOW_HOST_TAGS.has(tag)) return null;
    const open = el.shadowRoot;
    if (open) return open;
    if (!chromeDom) {
      // the CDP driver: page_hooks.js, in this same world, kept the closed roots
      const kept = globalThis[Symbol.for('tabmcp.closedShadowRoots')];
      return kept instanceof WeakMap ? kept.get(el) || null : null;
    }
    if (custom || closedHosts.has(el)) {
      try {
        return chromeDom.openOrClosedShadowRoot(el) || null;
      } catch {
        return null;
      }
    }
    return null;
  }

  /** Where el's rendered children are: its shadow root, a slot's assigned nodes (an array), or el. */
  function childSource(el, tag = el.localName) {
    const root = shadowRootOf(el, tag);
    if (root) {
      noteRoot(root);
      return root;
    }
    if (tag === 'slot') {
      const assigned = el.assignedNodes();
      if (assigned.length) return assigned;
    }
    return el;
  }

  /**
   * Calls visit(child) for el's children in the flat tree (only elements when elementsOnly),
   * until visit returns false. Sibling pointers: indexing childNodes is several times slower.
   */
  function forEachChild(el, elementsOnly, visit, tag = el.localName) {
    const source = childSource(el, tag);
    if (Array.isArray(source)) {
      for (const node of source) {
        if (elementsOnly && node.nodeType !== Node.ELEMENT_NODE) continue;
        if (visit(node) === false) return false;
      }
    } else if (elementsOnly) {
      for (let c = source.firstElementChild; c; c = c.nextElementSibling) if (visit(c) === false) return false;
    } else {
      for (let c = source.firstChild; c; c = c.nextSibling) if (visit(c) === false) return false;
    }
    return true;
  }

  function flatParent(node) {
    const slot = node.assignedSlot;
    if (slot) return slot;
    const parent = node.parentNode;
    if (!parent) return null;
    if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE) return parent.host || null;
    return parent.nodeType === Node.ELEMENT_NODE ? parent : null;
  }

  function composedContains(ancestor, node) {
    for (let n = node; n; n = flatParent(n)) if (n === ancestor) return true;
    return false;
  }

  function deepActiveElement() {
    let active = document.activeElement;
    while (active) {
      const root = shadowRootOf(active);
      if (!root || !root.activeElement) break;
      active = root.activeElement;
    }
    return active;
  }

  function deepElementFromPoint(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit) {
      const root = shadowRootOf(hit);
      const inner = root && root.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  /** All shadow roots under root (recursively), found by walking its elements. */
  function collectShadowRoots(root, out) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      const shadow = shadowRootOf(el);
      if (shadow) {
        noteRoot(shadow);
        out.push(shadow);
        collectShadowRoots(shadow, out);
      }
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Visibility

  /**
   * Rendered with visibility:visible. display:contents elements have no box of their own but
   * render their children, so they count as rendered when their parent is.
   */
  function isRendered(el) {
    if (el.checkVisibility({ visibilityProperty: true })) return true;
    if (getComputedStyle(el).display !== 'contents') return false;
    const parent = flatParent(el);
    return !parent || isRendered(parent);
  }

  function hasBox(el) {
    // offsetWidth/Height are cheaper than a DOMRect; sub-pixel or SVG boxes take the slow path
    if (el.offsetWidth > 0 && el.offsetHeight > 0) return true;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  /** A zero-size element still counts as visible when something inside it shows (overflow). */
  function hasVisibleDescendant(el, budget) {
    let found = false;
    forEachChild(el, true, (child) => {
      budget.left -= 1;
      if (budget.left < 0) return false;
      found = (hasBox(child) && child.checkVisibility({ visibilityProperty: true })) || hasVisibleDescendant(child, budget);
      return !found;
    });
    return found;
  }

  function isVisible(el) {
    if (el instanceof HTMLInputElement && el.type === 'hidden') return false;
    if (optionInsideSelect(el)) return optionVisible(el);
    if (!isRendered(el)) return false;
    return hasBox(el) || hasVisibleDescendant(el, { left: ZERO_SIZE_SCAN });
  }

  function optionInsideSelect(el) {
    return el.localName === 'option' && el.closest('select') !== null;
  }

  // Options have no boxes of their own: a listbox's options show when the listbox does, a
  // drop-down's options only while it is open (never, for our purposes).
  function optionVisible(option) {
    const select = option.closest('select');
    return (select.multiple || select.size > 1) && isRendered(select) && hasBox(select);
  }

  const PRUNED = 0; // nothing in the subtree renders
  const INVISIBLE = 1; // the element does not show, its children may
  const VISIBLE = 2;
  const ZERO_SIZE = 3; // rendered without a box and nothing shows inside: its text does not show
  const CONTENTS = 4; // display:contents: no box of its own, shows as its parent does

  /** How el renders, from styles alone (no box): VISIBLE, INVISIBLE, CONTENTS or PRUNED. */
  function renderState(el) {
    if (el.checkVisibility({ visibilityProperty: true })) return VISIBLE;
    if (el.checkVisibility()) return INVISIBLE; // visibility:hidden; a child may be visible again
    if (getComputedStyle(el).display === 'contents') return CONTENTS;
    return PRUNED; // display:none on it or an ancestor, or inside content-visibility:hidden
  }

  function visibilityOf(el) {
    if (optionInsideSelect(el)) return optionVisible(el) ? VISIBLE : PRUNED;
    const state = renderState(el);
    if (state === VISIBLE) return hasBox(el) || hasVisibleDescendant(el, { left: ZERO_SIZE_SCAN }) ? VISIBLE : ZERO_SIZE;
    if (state === CONTENTS) {
      const parent = flatParent(el);
      return !parent || isRendered(parent) ? VISIBLE : PRUNED;
    }
    return state;
  }

  function hiddenReason(el) {
    if (el instanceof HTMLInputElement && el.type === 'hidden') return 'it is an <input type=hidden>';
    if (getComputedStyle(el).visibility !== 'visible') return 'it is not visible (visibility:hidden)';
    for (let n = el; n; n = flatParent(n)) {
      if (getComputedStyle(n).display === 'none') {
        const where = n === el ? '' : ` on ${describeTag(n)}`;
        return `it is not visible (display:none${n.hasAttribute('hidden') ? ' via the hidden attribute' : ''}${where})`;
      }
    }
    if (!el.checkVisibility()) return 'it is not visible (inside a collapsed or content-visibility:hidden section)';
    return 'it is not visible (zero size)';
  }

  // -------------------------------------------------------------------------------------------
  // Roles

  function explicitRole(el) {
    const attr = el.getAttribute('role');
    if (!attr) return '';
    for (const token of attr.trim().toLowerCase().split(/\s+/)) if (VALID_ROLES.has(token)) return token;
    return '';
  }

  function isContentEditableHost(el) {
    const attr = el.getAttribute('contenteditable');
    return attr !== null && attr.toLowerCase() !== 'false';
  }

  function isNativelyFocusable(el) {
    const tag = el.localName;
    if (FOCUSABLE_TAGS.has(tag)) return true;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href');
    if (tag === 'input') return el.type !== 'hidden';
    return isContentEditableHost(el);
  }

  function isFocusable(el) {
    if (FORM_CONTROL_TAGS.has(el.localName) && el.matches(':disabled')) return false;
    return isNativelyFocusable(el) || el.hasAttribute('tabindex');
  }

  function hasAriaName(el) {
    return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
  }

  function inputRole(el) {
    const type = el.type;
    switch (type) {
      case 'hidden': return '';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'search': return el.hasAttribute('list') && el.list ? 'combobox' : 'searchbox';
      case 'text': case 'email': case 'tel': case 'url': return el.hasAttribute('list') && el.list ? 'combobox' : 'textbox';
      default: return 'textbox';
    }
  }

  // An element without these attributes has its tag's role and is interactive by its tag alone.
  const MARKED_SELECTOR = '[role],[aria-hidden],[contenteditable],[tabindex]';

  /** marked: el may carry MARKED_SELECTOR attributes (false lets the common case skip reading them). */
  function implicitRole(el, tag = el.localName, marked = true) {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'article': return 'article';
      case 'aside': return 'complementary';
      case 'blockquote': return 'blockquote';
      case 'button': return 'button';
      case 'caption': return 'caption';
      case 'datalist': return 'listbox';
      case 'dd': return 'definition';
      case 'details': return 'group';
      case 'dialog': return 'dialog';
      case 'dt': case 'dfn': return 'term';
      case 'fieldset': case 'optgroup': return 'group';
      case 'figure': return 'figure';
      case 'footer': return el.closest(LANDMARK_SCOPE) ? '' : 'contentinfo';
      case 'header': return el.closest(LANDMARK_SCOPE) ? '' : 'banner';
      case 'form': return hasAriaName(el) ? 'form' : '';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'hr': return 'separator';
      case 'iframe': case 'frame': return 'iframe';
      case 'img':
        return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !el.hasAttribute('aria-label') ? '' : 'img';
      case 'input': return inputRole(el);
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      case 'section': return hasAriaName(el) ? 'region' : '';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'summary': return 'button';
      case 'table': return 'table';
      case 'td': {
        const table = el.closest('table');
        const role = table ? explicitRole(table) : '';
        return role === 'grid' || role === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'th': {
        const scope = el.getAttribute('scope');
        return scope === 'row' || scope === 'rowgroup' ? 'rowheader' : 'columnheader';
      }
      case 'textarea': return 'textbox';
      case 'tr': return 'row';
      default: return marked && isContentEditableHost(el) ? 'textbox' : '';
    }
  }

  /** The element's role as the snapshot shows it; '' for generic elements. */
  function roleOf(el, tag = el.localName, marked = true) {
    if (!marked) return implicitRole(el, tag, false);
    const explicit = explicitRole(el);
    if (explicit === 'generic') return '';
    if (explicit && explicit !== 'none' && explicit !== 'presentation') return explicit;
    const implicit = implicitRole(el);
    // role=none on a focusable element is an author error: the browser keeps the implicit role
    if (explicit) return isFocusable(el) ? implicit : '';
    return implicit;
  }

  function isInteractive(el, role, tag = el.localName, marked = true) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (role === 'gridcell') return marked && el.hasAttribute('tabindex');
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href');
      case 'button': case 'select': case 'textarea': case 'summary': return true;
      case 'input': return el.type !== 'hidden';
      default: break;
    }
    if (!marked) return false;
    if (isContentEditableHost(el)) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && tabindex.trim() !== '' && Number(tabindex) >= 0;
  }

  // -------------------------------------------------------------------------------------------
  // Accessible names (accname, simplified: docs/page-agent.md §1)

  function idRefs(el, ids) {
    const root = el.getRootNode();
    const out = [];
    for (const id of ids.trim().split(/\s+/)) {
      const found = id && root.getElementById ? root.getElementById(id) : null;
      if (found) out.push(found);
    }
    return out;
  }

  const nameVisited = new Set(); // reused: accName is never re-entered

  /** The collapsed, uncut accessible name. */
  function accName(el, role, includeHidden) {
    nameVisited.clear();
    const name = collapse(computeName(el, role, { visited: nameVisited, includeHidden, skip: null }, false));
    nameVisited.clear();
    return name;
  }

  function computeName(el, role, ctx, referenced) {
    if (ctx.visited.has(el)) return '';
    ctx.visited.add(el);
    if (!referenced) {
      const ids = el.getAttribute('aria-labelledby');
      if (ids) {
        const inner = { ...ctx, includeHidden: true };
        const text = idRefs(el, ids).map((r) => computeName(r, roleOf(r), inner, true)).join(' ');
        if (text.trim()) return text;
      }
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return label;
    const native = nativeName(el, ctx);
    if (native && native.trim()) return native;
    if (referenced || NAME_FROM_CONTENT.has(role) || (!role && isInteractive(el, role))) {
      const text = contentText(el, ctx);
      if (text.trim()) return text;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    if (el.localName === 'input' || el.localName === 'textarea') return el.getAttribute('placeholder') || '';
    return '';
  }

  function firstChildTag(el, tag) {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.localName === tag) return c;
    return null;
  }

  function nativeName(el, ctx) {
    const tag = el.localName;
    if (tag === 'input') {
      const type = el.type;
      if (type === 'button' || type === 'submit' || type === 'reset') {
        if (el.hasAttribute('value')) return el.value;
        if (type !== 'button') return type === 'submit' ? 'Submit' : 'Reset';
      }
      if (type === 'image') return el.getAttribute('alt') || el.getAttribute('value') || 'Submit';
    }
    if (LABELABLE_TAGS.has(tag) && el.labels && el.labels.length) {
      const parts = [];
      for (const label of el.labels) parts.push(contentText(label, { ...ctx, skip: el }));
      const text = parts.join(' ');
      if (text.trim()) return text;
    }
    switch (tag) {
      case 'img': case 'area': return el.getAttribute('alt') || '';
      case 'fieldset': { const legend = firstChildTag(el, 'legend'); return legend ? contentText(legend, ctx) : ''; }
      case 'table': { const caption = firstChildTag(el, 'caption'); return caption ? contentText(caption, ctx) : ''; }
      case 'figure': {
        const caption = el.querySelector(':scope > figcaption');
        return caption ? contentText(caption, ctx) : '';
      }
      case 'svg': { const title = firstChildTag(el, 'title'); return title ? title.textContent : ''; }
      case 'iframe': case 'frame': return el.getAttribute('title') || '';
      case 'option': return el.label || '';
      default: return '';
    }
  }

  function contentText(el, ctx) {
    const parts = [];
    appendContent(el, parts, ctx);
    return parts.join('');
  }

  function appendContent(parent, parts, ctx) {
    forEachChild(parent, false, (child) => {
      const type = child.nodeType;
      if (type === Node.TEXT_NODE) {
        parts.push(child.data);
        return;
      }
      if (type !== Node.ELEMENT_NODE || child === ctx.skip) return;
      const tag = child.localName;
      if (SKIPPED_TAGS.has(tag)) return;
      if (!ctx.includeHidden && (child.getAttribute('aria-hidden') === 'true' || !isRendered(child))) return;
      const block = !INLINE_TAGS.has(tag);
      if (block) parts.push(' ');
      parts.push(embeddedText(child, ctx));
      if (block) parts.push(' ');
    });
  }

  /** What a descendant contributes to its ancestor's name: a control its value, others their name. */
  function embeddedText(el, ctx) {
    if (ctx.visited.has(el)) return '';
    const role = roleOf(el);
    if (el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-label')) return computeName(el, role, ctx, false);
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea') {
      if (tag === 'input' && ['button', 'submit', 'reset', 'image'].includes(el.type)) return nativeName(el, ctx);
      return role === 'checkbox' || role === 'radio' ? '' : el.value;
    }
    if (tag === 'select') return selectedLabels(el);
    if (tag === 'img' || tag === 'area') return el.getAttribute('alt') || el.getAttribute('title') || '';
    if (RANGE_ROLES.has(role) && el.hasAttribute('aria-valuenow')) return rangeValue(el);
    ctx.visited.add(el);
    const text = contentText(el, ctx);
    return text.trim() ? text : el.getAttribute('title') || '';
  }

  function selectedLabels(select) {
    const labels = [];
    for (const option of select.selectedOptions) labels.push(collapse(option.label || option.text));
    return labels.join(', ');
  }

  function rangeValue(el) {
    return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
  }

  // -------------------------------------------------------------------------------------------
  // Values and states

  function valueOf(el, role) {
    const tag = el.localName;
    if (tag === 'input') {
      if (el.type === 'password') return el.value ? '********' : '';
      return VALUE_ROLES.has(role) ? el.value : '';
    }
    if (tag === 'textarea') return el.value;
    if (tag === 'select') return selectedLabels(el);
    if (tag === 'progress' || tag === 'meter') return el.hasAttribute('value') ? String(el.value) : '';
    if (RANGE_ROLES.has(role)) return rangeValue(el);
    if (role === 'textbox' || role === 'searchbox') return el.textContent;
    return '';
  }

  function checkedState(el, role) {
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) return 'mixed';
      return el.checked ? 'checked' : 'unchecked';
    }
    if (!CHECKABLE_ROLES.has(role)) return '';
    const aria = (el.getAttribute('aria-checked') || '').toLowerCase();
    if (aria === 'mixed') return 'mixed';
    return aria === 'true' ? 'checked' : 'unchecked';
  }

  /** Natively disabled (a disabled fieldset included), or aria-disabled on it or an ancestor. */
  function isDisabled(el) {
    if (FORM_CONTROL_TAGS.has(el.localName) && el.matches(':disabled')) return true;
    for (let n = el; n;) {
      if (n.closest('[aria-disabled="true"]')) return true;
      const root = n.getRootNode();
      n = root && root.host ? root.host : null; // out of a shadow tree, and on up
    }
    return false;
  }

  function isReadOnly(el) {
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      return el.readOnly || el.getAttribute('aria-readonly') === 'true';
    }
    if (el.isContentEditable) return false;
    return el.getAttribute('aria-readonly') === 'true';
  }

  function statesOf(el, role, active) {
    const states = [];
    if (el === active && el !== document.body) states.push('focused');
    const checked = checkedState(el, role);
    if (checked) states.push(checked);
    if (isDisabled(el)) states.push('disabled');
    const expanded = el.getAttribute('aria-expanded');
    if (expanded === 'true') states.push('expanded');
    else if (expanded === 'false') states.push('collapsed');
    else if (el.localName === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
      states.push(el.parentElement.open ? 'expanded' : 'collapsed');
    }
    if (el.getAttribute('aria-selected') === 'true' || (el.localName === 'option' && el.selected)) states.push('selected');
    if (el.required || el.getAttribute('aria-required') === 'true') states.push('required');
    const invalid = el.getAttribute('aria-invalid');
    if ((invalid && invalid !== 'false') || (FORM_CONTROL_TAGS.has(el.localName) && safeMatches(el, ':user-invalid'))) {
      states.push('invalid');
    }
    if ((VALUE_ROLES.has(role) || role === 'checkbox') && isReadOnly(el) && !isDisabled(el)) states.push('readonly');
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true') states.push('pressed');
    else if (pressed === 'mixed') states.push('mixed');
    if (role === 'heading') states.push(`level=${headingLevel(el)}`);
    return states;
  }

  function safeMatches(el, selector) {
    try {
      return el.matches(selector);
    } catch {
      return false;
    }
  }

  function headingLevel(el) {
    const aria = Number(el.getAttribute('aria-level'));
    if (Number.isInteger(aria) && aria > 0) return aria;
    const match = /^h([1-6])$/.exec(el.localName);
    return match ? Number(match[1]) : 2;
  }

  // -------------------------------------------------------------------------------------------
  // snapshot

  let parentToken = null;

  function snapshot(arg) {
    // locate: full, plus what tells near-duplicates apart (hint, context) for the description locator
    const locate = !!arg && arg.mode === 'locate';
    const full = locate || (!!arg && arg.mode === 'full');
    // mute > 0: text is not gathered (it is already in a name or value, or does not show)
    const state = { full, locate, rows: [], active: deepActiveElement(), owner: null, text: [], mute: 0 };
    if (locate) state.contexts = new Map(); // ancestor -> its context text (null: too long), once per snapshot
    const root = document.documentElement;
    if (root) walkChildren(root, 0, state);
    if (full) flushText(state);
    return { url: location.href, title: document.title, docId: DOC_ID, parentToken, nodes: state.rows };
  }

  /** shown: whether parent is known to render visibly (saves a style read for its text). */
  function walkChildren(parent, depth, state, tag = parent.localName, shown = undefined) {
    if (!state.full) {
      forEachChild(parent, true, (child) => {
        walkElement(child, depth, state);
      }, tag);
      return;
    }
    let textVisible;
    forEachChild(parent, false, (node) => {
      const type = node.nodeType;
      if (type === Node.ELEMENT_NODE) {
        walkElement(node, depth, state);
      } else if (type === Node.TEXT_NODE && !state.mute) {
        const data = node.data;
        if (!/\S/.test(data)) {
          if (data) state.text.push(' ');
          return;
        }
        if (textVisible === undefined) textVisible = textShows(parent, shown);
        if (textVisible) state.text.push(data);
      }
    });
  }

  /**
   * Whether the text children of el show (full mode only). Text directly inside a
   * content-visibility:hidden element is not detected (its child elements are).
   */
  function textShows(el, shown) {
    if (!(shown === undefined ? isRendered(el) : shown)) return false;
    return !(el.localName === 'details' && !el.open); // a closed details shows only its summary
  }

  function walkElement(el, depth, state) {
    const tag = el.localName;
    if (SKIPPED_TAGS.has(tag)) return;
    const marked = el.matches(MARKED_SELECTOR);
    if (marked && el.getAttribute('aria-hidden') === 'true') return;
    if (tag === 'input' && el.type === 'hidden') return;
    const role = roleOf(el, tag, marked);
    const include = state.full
      ? !GENERIC_ROLES.has(role) || isInteractive(el, role, tag, marked)
      : isInteractive(el, role, tag, marked) || role === 'heading' || role === 'iframe';
    let visibility = VISIBLE;
    let shown; // known to render visibly: its text shows
    if (include) {
      visibility = visibilityOf(el);
      if (visibility === PRUNED) return;
      if (visibility === VISIBLE) shown = true;
    } else if (state.full) {
      const rendering = renderState(el);
      if (rendering === PRUNED) return; // a generic container that does not render at all: skip its subtree
      // visibility:hidden or display:contents: decide per text parent
      shown = rendering === VISIBLE ? true : undefined;
    }
    const isFrame = tag === 'iframe' || tag === 'frame';
    // a textarea's children are its default value, an iframe's are fallback content
    const leaf = isFrame || tag === 'textarea';
    if (!include || visibility !== VISIBLE) {
      if (leaf) return;
      // a label's text is its control's name
      const mute = state.full && (visibility === ZERO_SIZE || (tag === 'label' && el.control && isVisible(el.control)));
      if (mute) state.mute += 1;
      walkContent(el, depth, state, visibility === VISIBLE ? shown : undefined);
      if (mute) state.mute -= 1;
      return;
    }
    if (state.full) flushText(state);
    const name = accName(el, role, false);
    const row = {
      ref: refFor(el),
      role: role || 'generic',
      name: cut(name, NAME_MAX),
      value: cut(collapse(valueOf(el, role)), VALUE_MAX),
      states: statesOf(el, role, state.active),
      depth: state.full ? depth : 0,
    };
    if (state.locate && isInteractive(el, role, tag, marked)) addLocateHints(row, el, tag, name, state);
    state.rows.push(row);
    if (isFrame) {
      row.frameToken = `${DOC_ID}:${row.ref}`;
      postFrameToken(el, row.frameToken);
      return;
    }
    if (leaf) return;
    if (!state.full) {
      walkChildren(el, depth, state, tag);
      return;
    }
    const outer = state.owner;
    state.owner = { name: name.toLowerCase(), depth: depth + 1 };
    const mute = role === 'textbox' || role === 'searchbox'; // the value shows the text
    if (mute) state.mute += 1;
    walkContent(el, depth + 1, state, true);
    if (mute) state.mute -= 1;
    flushText(state);
    state.owner = outer;
  }

  // Locate mode (docs/nl-tools.md): per interactive row, the words a person may use for the element
  // that are not its name (placeholder, title, alt, input type and name), and the text of the
  // smallest group around it (a product card, a table row), so that "Add to cart for the Onesie"
  // finds the right one of three "Add to cart" buttons.
  const HINT_MAX = 120;
  const CONTEXT_MAX = 200;
  const CONTEXT_SCAN = 1000; // raw characters read to decide whether a group's text is short
  const CONTEXT_LEVELS = 4;
  // Input types the role already says (or that say nothing a person would use).
  const UNHINTED_INPUT_TYPES = new Set(['text', 'submit', 'button', 'checkbox', 'radio', 'search', 'reset', 'image']);

  function addLocateHints(row, el, tag, name, state) {
    const own = name.toLowerCase();
    const words = [];
    const add = (text) => {
      const value = collapse(text || '');
      if (value && !own.includes(value.toLowerCase()) && !words.includes(value)) words.push(value);
    };
    add(el.getAttribute('placeholder'));
    add(el.getAttribute('title'));
    add(el.getAttribute('alt'));
    if (tag === 'input' && !UNHINTED_INPUT_TYPES.has(el.type)) add(el.type);
    if (FORM_CONTROL_TAGS.has(tag)) add(el.getAttribute('name'));
    const hint = cut(words.join(' | '), HINT_MAX);
    if (hint) row.hint = hint;
    const ownText = LABELABLE_TAGS.has(tag) ? '' : renderedText(el, CONTEXT_MAX);
    const context = contextOf(el, ownText, state.contexts);
    if (context) row.context = context;
  }

  /** The visible text of the nearest ancestor that says more than the element itself, if it is short. */
  function contextOf(el, ownText, cache) {
    let node = el;
    for (let level = 0; level < CONTEXT_LEVELS; level += 1) {
      node = flatParent(node);
      if (!node || node === document.body || node === document.documentElement) return '';
      let text = cache.get(node);
      if (text === undefined) {
        text = renderedText(node, CONTEXT_SCAN);
        if (text.length > CONTEXT_MAX) text = null; // a whole section, not this element's own group
        cache.set(node, text);
      }
      if (text === null) return '';
      if (text && text !== ownText) return text;
    }
    return '';
  }

  function walkContent(el, depth, state, shown) {
    const block = state.full && !INLINE_TAGS.has(el.localName);
    if (block) state.text.push(' ');
    if (state.full && el.localName === 'br') state.text.push(' ');
    walkChildren(el, depth, state, el.localName, shown);
    if (block) state.text.push(' ');
  }

  /** Full mode: the text gathered since the last row becomes a text row, unless its row's name says it. */
  function flushText(state) {
    if (!state.text.length) return;
    const text = collapse(state.text.join(''));
    state.text = [];
    if (!text) return;
    const owner = state.owner;
    if (owner && owner.name.includes(text.toLowerCase())) return;
    state.rows.push({
      ref: '', role: 'text', name: cut(text, TEXT_ROW_MAX), value: '', states: [], depth: owner ? owner.depth : 0,
    });
  }

  // -------------------------------------------------------------------------------------------
  // Frames: each iframe's document learns the token of its <iframe> element in the parent.

  function postFrameToken(iframe, token) {
    try {
      const win = iframe.contentWindow;
      if (win) win.postMessage({ __tabmcp: 'frame', token }, '*');
    } catch {
      // a detached or sandboxed frame: it stays unmatched
    }
  }

  addEventListener('message', (event) => {
    const data = event.data;
    if (!data || typeof data !== 'object' || data.__tabmcp !== 'frame') return;
    if (IS_TOP || event.source !== window.parent) return;
    if (typeof data.token === 'string' && data.token.length <= 64) parentToken = data.token;
    event.stopImmediatePropagation();
  }, true);

  async function frameOffset(arg) {
    try {
      // the CDP driver, in the same world as this agent, hands over the <iframe> element itself
      const given = arg && typeof Element !== 'undefined' && arg.element instanceof Element ? arg.element : null;
      if (!given && (!arg || typeof arg.ref !== 'string')) throw new AgentError('BAD_MESSAGE', 'frameOffset needs {ref}');
      const el = given || resolveTarget({ ref: arg.ref, doc: arg.doc });
      if (el.localName !== 'iframe' && el.localName !== 'frame') {
        throw new AgentError('BAD_MESSAGE', `${describe(el)} is not an iframe`);
      }
      let box = contentBox(el);
      const point = arg.point;
      if (point && typeof point.x === 'number' && typeof point.y === 'number') {
        // bring that point of the frame's viewport into this frame's viewport
        const viewport = viewportSize();
        const x = box.x + point.x;
        const y = box.y + point.y;
        if (x < 0 || y < 0 || x >= viewport.width || y >= viewport.height) {
          window.scrollBy({ left: x - viewport.width / 2, top: y - viewport.height / 2, behavior: 'instant' });
          box = contentBox(el);
          // the browser routes input to an out-of-process frame by what was last painted
          await framesPainted();
        }
      }
      return { ok: true, x: box.x, y: box.y };
    } catch (e) {
      return failure(e);
    }
  }

  function contentBox(iframe) {
    const rect = iframe.getBoundingClientRect();
    const style = getComputedStyle(iframe);
    return {
      x: rect.left + iframe.clientLeft + parseFloat(style.paddingLeft || '0'),
      y: rect.top + iframe.clientTop + parseFloat(style.paddingTop || '0'),
    };
  }

  function viewportSize() {
    const root = document.documentElement;
    return {
      width: (root && root.clientWidth) || window.innerWidth,
      height: (root && root.clientHeight) || window.innerHeight,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Targets

  function describeTag(el) {
    let text = `<${el.localName}`;
    if (el.id) text += ` id="${cut(el.id, 30)}"`;
    const cls = typeof el.className === 'string' ? collapse(el.className) : '';
    if (cls) text += ` class="${cut(cls, 40)}"`;
    return `${text}> ${refFor(el)}`;
  }

  /** `e5 button "Save"` for messages; elements without a role by their tag. */
  function describe(el) {
    const role = roleOf(el);
    if (!role) return describeTag(el);
    const name = cut(accName(el, role, true), DESCRIBE_NAME_MAX);
    return `${refFor(el)} ${role}${name ? ` ${JSON.stringify(name)}` : ''}`;
  }

  function candidate(el) {
    const role = roleOf(el);
    return { ref: refFor(el), role: role || 'generic', name: cut(accName(el, role, true), NAME_MAX) };
  }

  function targetText(target) {
    // as the model writes a target (tools/targets.py): css=…, role=…[name=…]
    if (typeof target.css === 'string') return `css=${target.css}`;
    return `role=${target.role}${typeof target.name === 'string' ? `[name=${target.name}]` : ''}`;
  }

  function checkTarget(target) {
    const ok = target && typeof target === 'object'
      && (typeof target.ref === 'string' || typeof target.css === 'string' || typeof target.role === 'string');
    if (!ok) throw new AgentError('BAD_MESSAGE', 'A target is {ref}, {css} or {role, name?}');
  }

  function resolveRef(target) {
    const { ref } = target;
    if (typeof target.doc === 'string' && target.doc && target.doc !== DOC_ID) {
      throw new AgentError('STALE_REF',
        `Ref ${ref} is from a page that is gone (the frame navigated or reloaded): take a new snapshot and use its refs`);
    }
    const el = elementForRef(ref);
    if (!el) throw new AgentError('STALE_REF', `Ref ${ref} is unknown here: take a new snapshot and use its refs`);
    if (!el.isConnected) {
      throw new AgentError('STALE_REF', `Ref ${ref} was removed from the page: take a new snapshot and use its refs`);
    }
    return el;
  }

  function queryAll(css) {
    let matches;
    try {
      matches = [...document.querySelectorAll(css)];
    } catch (e) {
      throw new AgentError('ELEMENT_NOT_FOUND', `Invalid css selector ${JSON.stringify(css)}: ${e.message}`);
    }
    if (document.documentElement) {
      for (const root of collectShadowRoots(document, [])) matches.push(...root.querySelectorAll(css));
    }
    return matches;
  }

  /** Elements with the role (every element, visible or not), filtered by name when one is given. */
  function queryRole(role, name) {
    const wanted = role.toLowerCase();
    const found = [];
    const visit = (parent) => {
      forEachChild(parent, true, (el) => {
        if (SKIPPED_TAGS.has(el.localName)) return;
        if ((roleOf(el) || 'generic') === wanted && !(el.localName === 'input' && el.type === 'hidden')) found.push(el);
        if (el.localName !== 'iframe') visit(el);
      });
    };
    if (document.documentElement) visit(document.documentElement);
    if (typeof name !== 'string') return found;
    const needle = collapse(name).toLowerCase();
    const names = found.map((el) => accName(el, wanted, true).toLowerCase());
    const exact = found.filter((el, i) => names[i] === needle);
    return exact.length ? exact : found.filter((el, i) => names[i].includes(needle));
  }

  function matchesFor(target) {
    if (typeof target.ref === 'string') return [resolveRef(target)];
    if (typeof target.css === 'string') return queryAll(target.css);
    return queryRole(target.role, target.name);
  }

  /**
   * One element or an AgentError. A role target prefers the matches that show: a hidden duplicate
   * (a closed dialog's "Close") is not what the model saw in its snapshot.
   */
  function resolveTarget(target) {
    checkTarget(target);
    if (typeof target.ref === 'string') return resolveRef(target);
    let matches = matchesFor(target);
    if (typeof target.role === 'string' && matches.length > 1) {
      const shown = matches.filter(isVisible);
      if (shown.length) matches = shown;
    }
    if (!matches.length) throw new AgentError('ELEMENT_NOT_FOUND', `Nothing matches ${targetText(target)}`);
    if (matches.length > 1) {
      const candidates = matches.slice(0, CANDIDATES_MAX).map(candidate);
      const listed = candidates.map((c) => `${c.ref} ${c.role}${c.name ? ` ${JSON.stringify(cut(c.name, DESCRIBE_NAME_MAX))}` : ''}`);
      throw new AgentError('ELEMENT_AMBIGUOUS',
        `${targetText(target)} matches ${matches.length} elements: ${listed.join(', ')}${matches.length > CANDIDATES_MAX ? ', …' : ''}. Use one of these refs as target`,
        candidates);
    }
    return matches[0];
  }

  function find(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'find needs {target}');
      checkTarget(arg.target);
      const limit = Number.isInteger(arg.limit) && arg.limit > 0 ? arg.limit : FIND_LIMIT;
      const matches = matchesFor(arg.target);
      return {
        ok: true,
        matches: matches.slice(0, limit).map((el) => ({ ...candidate(el), visible: isVisible(el) })),
        total: matches.length,
      };
    } catch (e) {
      return failure(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Actionability (docs/page-agent.md §3)

  function inViewport(rect) {
    const viewport = viewportSize();
    return rect.top >= 0 && rect.left >= 0 && rect.bottom <= viewport.height && rect.right <= viewport.width;
  }

  function scrollIntoViewIfNeeded(el) {
    let rect = el.getBoundingClientRect();
    if (!inViewport(rect)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      rect = el.getBoundingClientRect();
    }
    return rect;
  }

  /** 'pending' (about to start: it has not moved yet, but will), 'running' or ''. */
  function animationOn(el) {
    let found = '';
    for (const animation of document.getAnimations()) {
      if (animation.playState !== 'running') continue;
      const target = animation.effect && animation.effect.target;
      if (!target || !composedContains(target, el)) continue;
      if (animation.pending) return 'pending';
      found = 'running';
    }
    return found;
  }

  function isLabelOf(label, el) {
    return label.localName === 'label' && label.control === el;
  }

  /**
   * One pass of the checks: {ok: true, x, y, rect, hit} or {ok: false, reason, permanent}.
   * need: {enabled, editable, pointer}.
   */
  async function checkActionable(el, need) {
    if (!el.isConnected) return { ok: false, reason: 'it was removed from the page (detached)', permanent: true };
    if (!isRendered(el) || (el instanceof HTMLInputElement && el.type === 'hidden')) {
      return { ok: false, reason: hiddenReason(el) };
    }
    let rect = el.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return { ok: false, reason: 'it is not visible (zero size)' };
    const enabledOf = need.enabledOf || el;
    if (need.enabled && isDisabled(enabledOf)) return { ok: false, reason: 'it is disabled' };
    if (need.editable && isReadOnly(el)) return { ok: false, reason: 'it is read-only' };
    const before = rect;
    rect = scrollIntoViewIfNeeded(el);
    const scrolled = rect.x !== before.x || rect.y !== before.y;
    // a hidden tab runs no frames: its animations neither start nor advance, nothing to wait for
    const animation = document.visibilityState === 'hidden' ? '' : animationOn(el);
    if (animation === 'pending') return { ok: false, reason: 'it is not stable (an animation is starting)' };
    // Animations only advance with frames: without one (hidden tab) there is nothing to compare.
    if (animation && await nextFrame()) {
      if (!el.isConnected) return { ok: false, reason: 'it was removed from the page (detached)', permanent: true };
      const after = el.getBoundingClientRect();
      const moved = after.x !== rect.x || after.y !== rect.y || after.width !== rect.width || after.height !== rect.height;
      rect = after;
      if (moved) return { ok: false, reason: 'it is not stable (it is moving)' };
    }
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    let hit = el;
    if (need.pointer) {
      const found = deepElementFromPoint(x, y);
      if (!found) return { ok: false, reason: 'its centre is outside the viewport' };
      if (found !== el && !composedContains(el, found) && !isLabelOf(found, el)) {
        return { ok: false, reason: `${describeTag(found)} covers it` };
      }
      hit = found;
    }
    return { ok: true, x, y, rect, hit, scrolled };
  }

  async function waitActionable(el, need, timeoutMs, verb) {
    const started = performance.now();
    let last;
    for (;;) {
      last = await checkActionable(el, need);
      if (last.ok) return last;
      if (last.permanent || performance.now() - started + RETRY_MS > timeoutMs) break;
      await sleep(RETRY_MS);
    }
    const waited = last.permanent ? '' : ` (waited ${Math.round(performance.now() - started)} ms)`;
    throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${verb} ${describe(el)}: ${last.reason}${waited}`);
  }

  function timeoutOf(arg) {
    const ms = arg && arg.timeoutMs;
    return typeof ms === 'number' && ms >= 0 ? ms : DEFAULT_TIMEOUT_MS;
  }

  // -------------------------------------------------------------------------------------------
  // Synthetic input

  let lastHovered = null; // WeakRef of the element the last pointer action ended on

  function mouseInit(x, y, extra) {
    return {
      bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y,
      screenX: x + window.screenX, screenY: y + window.screenY, button: 0, buttons: 0, ...extra,
    };
  }

  function pointerInit(x, y, extra) {
    return { ...mouseInit(x, y, extra), pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1 };
  }

  const firePointer = (type, el, x, y, extra) => el.dispatchEvent(new PointerEvent(type, pointerInit(x, y, extra)));
  const fireMouse = (type, el, x, y, extra) => el.dispatchEvent(new MouseEvent(type, mouseInit(x, y, extra)));

  /** pointerover, pointerenter, mouseover, mouseenter, pointermove, mousemove (and out/leave first). */
  function moveMouse(target, x, y) {
    const previous = lastHovered && lastHovered.deref();
    if (previous && previous !== target && previous.isConnected) {
      firePointer('pointerout', previous, x, y, { relatedTarget: target });
      firePointer('pointerleave', previous, x, y, { relatedTarget: target, bubbles: false, cancelable: false });
      fireMouse('mouseout', previous, x, y, { relatedTarget: target });
      fireMouse('mouseleave', previous, x, y, { relatedTarget: target, bubbles: false, cancelable: false });
    }
    const from = previous && previous !== target ? previous : null;
    firePointer('pointerover', target, x, y, { relatedTarget: from });
    firePointer('pointerenter', target, x, y, { relatedTarget: from, bubbles: false, cancelable: false });
    fireMouse('mouseover', target, x, y, { relatedTarget: from });
    fireMouse('mouseenter', target, x, y, { relatedTarget: from, bubbles: false, cancelable: false });
    firePointer('pointermove', target, x, y);
    fireMouse('mousemove', target, x, y);
    lastHovered = new WeakRef(target);
  }

  function focusableAncestor(el) {
    for (let n = el; n; n = flatParent(n)) if (isFocusable(n)) return n;
    return null;
  }

  // A mousedown moves focus to the clicked element's focusable ancestor, or away to the body.
  function focusOnPointerDown(target) {
    const focusable = focusableAncestor(target);
    const active = deepActiveElement();
    if (focusable) {
      if (focusable !== active) focusable.focus({ preventScroll: true });
    } else if (active && active !== document.body && typeof active.blur === 'function') {
      active.blur();
    }
  }

  /** The full click sequence at (x, y) on target; clicks = 2 adds the second click and dblclick. */
  function pointerClick(target, x, y, clicks) {
    moveMouse(target, x, y);
    for (let detail = 1; detail <= clicks; detail++) {
      const down = firePointer('pointerdown', target, x, y, { buttons: 1, pressure: 0.5 });
      // a cancelled pointerdown suppresses the compatibility mouse events, not the click
      let mousedown = true;
      if (down) mousedown = fireMouse('mousedown', target, x, y, { buttons: 1, detail });
      if (mousedown && detail === 1) focusOnPointerDown(target);
      firePointer('pointerup', target, x, y);
      if (down) fireMouse('mouseup', target, x, y, { detail });
      if (!target.isConnected) return;
      fireMouse('click', target, x, y, { detail });
    }
    if (clicks === 2 && target.isConnected) fireMouse('dblclick', target, x, y, { detail: 2 });
  }

  // -- text editing

  function isTextControl(el) {
    return (el instanceof HTMLInputElement && !UNFILLABLE_INPUT_TYPES.has(el.type)) || el instanceof HTMLTextAreaElement;
  }

  function isEditable(el) {
    return isTextControl(el) || (el instanceof HTMLElement && el.isContentEditable);
  }

  // The prototype's setter, not el.value = …: frameworks (React) wrap the instance property and
  // would otherwise miss the change.
  function setNativeValue(el, value) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype
      : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
  }

  function fireInput(el, inputType, data) {
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType, data }));
  }

  function fireBeforeInput(el, inputType, data) {
    return el.dispatchEvent(new InputEvent('beforeinput', {
      bubbles: true, cancelable: true, composed: true, inputType, data,
    }));
  }

  function fireChange(el) {
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  // email and number inputs have no selection API: "select all" is remembered here instead.
  const selectedAll = new WeakSet();

  function selectionOf(el) {
    try {
      if (el.selectionStart !== null) return { start: el.selectionStart, end: el.selectionEnd };
    } catch {
      // no selection API for this input type
    }
    const length = el.value.length;
    return selectedAll.has(el) ? { start: 0, end: length } : { start: length, end: length };
  }

  function setCaret(el, position) {
    selectedAll.delete(el);
    try {
      el.setSelectionRange(position, position);
    } catch {
      // no selection API for this input type
    }
  }

  /** Edits a text control like a keystroke: beforeinput, value via the native setter, input. */
  function editControl(el, inputType, data, edit) {
    const value = el.value;
    const { start, end } = selectionOf(el);
    const result = edit(value, start, end);
    if (!result) return false;
    if (!fireBeforeInput(el, inputType, data)) return false;
    setNativeValue(el, result[0]);
    setCaret(el, result[1]);
    fireInput(el, inputType, data);
    return true;
  }

  const insertEdit = (text) => (value, start, end) => [value.slice(0, start) + text + value.slice(end), start + text.length];
  const backspaceEdit = (value, start, end) => {
    if (start !== end) return [value.slice(0, start) + value.slice(end), start];
    return start > 0 ? [value.slice(0, start - 1) + value.slice(start), start - 1] : null;
  };
  const deleteEdit = (value, start, end) => {
    if (start !== end) return [value.slice(0, start) + value.slice(end), start];
    return start < value.length ? [value.slice(0, start) + value.slice(start + 1), start] : null;
  };

  function insertText(el, text) {
    if (isTextControl(el)) return editControl(el, 'insertText', text, insertEdit(text));
    if (el.isContentEditable) return execEdit(el, 'insertText', text);
    return false;
  }

  /** contenteditable editing through the browser's own editing commands. */
  function execEdit(el, command, value) {
    if (deepActiveElement() !== el && !el.contains(deepActiveElement())) el.focus();
    if (document.execCommand(command, false, value)) return true;
    // execCommand refused (no selection): fall back to a plain text edit at the end
    if (command === 'insertText') el.append(value);
    else if (command === 'delete' && el.lastChild && el.lastChild.nodeType === Node.TEXT_NODE) {
      el.lastChild.data = el.lastChild.data.slice(0, -1);
    } else return false;
    fireInput(el, command === 'insertText' ? 'insertText' : 'deleteContentBackward', command === 'insertText' ? value : null);
    return true;
  }

  function selectAllIn(el) {
    if (isTextControl(el)) {
      selectedAll.add(el);
      if (typeof el.select === 'function') el.select();
      return;
    }
    const selection = getSelection();
    if (selection) selection.selectAllChildren(el.isContentEditable ? el : document.body || document.documentElement);
  }

  function caretToEnd(el) {
    if (isTextControl(el)) {
      setCaret(el, el.value.length);
      return;
    }
    const selection = getSelection();
    if (selection && el.isContentEditable) {
      selection.selectAllChildren(el);
      selection.collapseToEnd();
    }
  }

  function focusElement(el) {
    if (deepActiveElement() !== el && typeof el.focus === 'function') el.focus({ preventScroll: true });
  }

  // -- keys

  const KEY_ALIASES = {
    enter: 'Enter', return: 'Enter', tab: 'Tab', escape: 'Escape', esc: 'Escape', backspace: 'Backspace',
    delete: 'Delete', del: 'Delete', space: ' ', arrowleft: 'ArrowLeft', arrowright: 'ArrowRight',
    arrowup: 'ArrowUp', arrowdown: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight', up: 'ArrowUp',
    down: 'ArrowDown', home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown', insert: 'Insert',
  };
  const MODIFIER_ALIASES = {
    control: 'Control', ctrl: 'Control', controlormeta: 'Control', shift: 'Shift', alt: 'Alt', option: 'Alt',
    meta: 'Meta', cmd: 'Meta', command: 'Meta', super: 'Meta',
  };
  const MODIFIER_FLAGS = { Control: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey' };
  const NAMED_KEY_CODES = {
    Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, ' ': 32, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39,
    ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34, Insert: 45, Control: 17, Shift: 16, Alt: 18, Meta: 91,
  };
  const PUNCTUATION_CODES = {
    ',': ['Comma', 188], '.': ['Period', 190], '/': ['Slash', 191], ';': ['Semicolon', 186], "'": ['Quote', 222],
    '[': ['BracketLeft', 219], ']': ['BracketRight', 221], '\\': ['Backslash', 220], '-': ['Minus', 189],
    '=': ['Equal', 187], '`': ['Backquote', 192],
  };

  /** "Control+Shift+a" -> {key: "A", modifiers: ["Control", "Shift"]}; "+" and "Control++" work too. */
  function parseKey(text) {
    let parts;
    if (text === '+') parts = ['+'];
    else if (text.endsWith('++')) parts = [...text.slice(0, -2).split('+'), '+'];
    else parts = text.split('+');
    let key = parts.pop();
    if (!key) throw new AgentError('BAD_MESSAGE', `Unknown key ${JSON.stringify(text)}`);
    const modifiers = [];
    for (const part of parts) {
      const modifier = MODIFIER_ALIASES[part.toLowerCase()];
      if (!modifier) throw new AgentError('BAD_MESSAGE', `Unknown modifier ${JSON.stringify(part)} in key ${JSON.stringify(text)}`);
      if (!modifiers.includes(modifier)) modifiers.push(modifier);
    }
    if ([...key].length > 1) {
      const lower = key.toLowerCase();
      if (KEY_ALIASES[lower]) key = KEY_ALIASES[lower];
      else if (MODIFIER_ALIASES[lower]) key = MODIFIER_ALIASES[lower];
      else if (/^f([1-9]|1[0-2])$/.test(lower)) key = key.toUpperCase();
      else throw new AgentError('BAD_MESSAGE', `Unknown key ${JSON.stringify(key)}`);
    }
    // a letter's key follows Shift: "Shift+a" is "A", "Control+A" is "a" (as a keyboard sends them)
    if (modifiers.includes('Shift') && /^[a-z]$/.test(key)) key = key.toUpperCase();
    else if (modifiers.length && !modifiers.includes('Shift') && /^[A-Z]$/.test(key)) key = key.toLowerCase();
    return { key, modifiers };
  }

  function keyCodes(key) {
    if (NAMED_KEY_CODES[key] !== undefined) {
      const code = { ' ': 'Space', Control: 'ControlLeft', Shift: 'ShiftLeft', Alt: 'AltLeft', Meta: 'MetaLeft' }[key] || key;
      return { code, keyCode: NAMED_KEY_CODES[key] };
    }
    if (/^F\d+$/.test(key)) return { code: key, keyCode: 111 + Number(key.slice(1)) };
    if (/^[a-z]$/i.test(key)) return { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0) };
    if (/^[0-9]$/.test(key)) return { code: `Digit${key}`, keyCode: key.charCodeAt(0) };
    if (PUNCTUATION_CODES[key]) return { code: PUNCTUATION_CODES[key][0], keyCode: PUNCTUATION_CODES[key][1] };
    return { code: '', keyCode: 0 };
  }

  function fireKey(type, el, key, flags) {
    const { code, keyCode } = keyCodes(key);
    const charCode = type === 'keypress' ? (key === 'Enter' ? 13 : key.charCodeAt(0)) : 0;
    return el.dispatchEvent(new KeyboardEvent(type, {
      key, code, keyCode: type === 'keypress' ? charCode : keyCode, which: type === 'keypress' ? charCode : keyCode,
      charCode, bubbles: true, cancelable: true, composed: true, view: window, ...flags,
    }));
  }

  const isPrintable = (key) => [...key].length === 1;

  /** keydown/keypress/keyup for one key with held modifiers, then its default action. */
  function pressKey(el, key, modifiers) {
    const flags = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
    for (const modifier of modifiers) {
      flags[MODIFIER_FLAGS[modifier]] = true;
      fireKey('keydown', el, modifier, { ...flags });
    }
    const shortcut = flags.ctrlKey || flags.metaKey || flags.altKey;
    let proceed = fireKey('keydown', el, key, { ...flags });
    if (proceed && !shortcut && (isPrintable(key) || key === 'Enter')) proceed = fireKey('keypress', el, key, { ...flags });
    const afterKeyup = proceed ? keyDefault(el, key, flags, shortcut) : null;
    fireKey('keyup', el, key, { ...flags });
    if (afterKeyup) afterKeyup();
    for (const modifier of [...modifiers].reverse()) {
      flags[MODIFIER_FLAGS[modifier]] = false;
      fireKey('keyup', el, modifier, { ...flags });
    }
  }

  function isButtonLike(el) {
    return el instanceof HTMLButtonElement || el.localName === 'summary'
      || (el instanceof HTMLInputElement && ['button', 'submit', 'reset', 'image', 'checkbox', 'radio'].includes(el.type))
      || ['button', 'checkbox', 'radio', 'switch', 'menuitem', 'tab', 'option'].includes(explicitRole(el));
  }

  /** The browser's default action for a key on el; may return work to do after keyup (Space). */
  function keyDefault(el, key, flags, shortcut) {
    const editable = isEditable(el) && !isReadOnly(el) && !isDisabled(el);
    if (key === 'Tab') {
      moveFocus(el, flags.shiftKey);
      return null;
    }
    if ((key === 'a' || key === 'A') && (flags.ctrlKey || flags.metaKey)) {
      selectAllIn(el);
      return null;
    }
    if (shortcut) return null;
    if (key === 'Enter') {
      if (el instanceof HTMLInputElement && isTextControl(el)) implicitSubmission(el);
      else if (el instanceof HTMLTextAreaElement && editable) editControl(el, 'insertLineBreak', null, insertEdit('\n'));
      else if (el.isContentEditable && editable) execEdit(el, 'insertParagraph');
      else if ((el instanceof HTMLAnchorElement && el.hasAttribute('href')) || (isButtonLike(el) && !isCheckLike(el))) el.click();
      return null;
    }
    if (key === ' ' && isButtonLike(el) && !editable) return () => el.click();
    if (!editable) return null;
    if (key === 'Backspace') {
      if (isTextControl(el)) editControl(el, 'deleteContentBackward', null, backspaceEdit);
      else execEdit(el, 'delete');
    } else if (key === 'Delete') {
      if (isTextControl(el)) editControl(el, 'deleteContentForward', null, deleteEdit);
      else execEdit(el, 'forwardDelete');
    } else if (isTextControl(el) && ['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(key)) {
      const { start, end } = selectionOf(el);
      const length = el.value.length;
      const position = { ArrowLeft: start === end ? Math.max(0, start - 1) : start,
        ArrowRight: start === end ? Math.min(length, end + 1) : end, Home: 0, End: length }[key];
      setCaret(el, position);
    } else if (isPrintable(key)) {
      insertText(el, key);
    }
    return null;
  }

  function isCheckLike(el) {
    return el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
  }

  function isSubmitButton(el) {
    return (el instanceof HTMLButtonElement && el.type === 'submit')
      || (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
  }

  /** Enter in a form's text field: click the default button, or submit a one-field form. */
  function implicitSubmission(field) {
    const form = field.form;
    if (!form) return;
    const elements = [...form.elements];
    const button = elements.find(isSubmitButton);
    if (button) {
      if (!button.disabled) button.click();
      return;
    }
    const blockers = elements.filter((e) => e instanceof HTMLInputElement && IMPLICIT_SUBMISSION_BLOCKERS.has(e.type));
    if (blockers.length <= 1) submitForm(form, null);
  }

  /** Sequential focus navigation: tabindex > 0 in order, then the rest in tree order. */
  function moveFocus(from, backwards) {
    const order = [];
    const visit = (parent) => {
      forEachChild(parent, true, (el) => {
        if (SKIPPED_TAGS.has(el.localName)) return;
        if (el.tabIndex >= 0 && isFocusable(el) && isRendered(el)) order.push(el);
        if (el.localName !== 'iframe') visit(el);
      });
    };
    if (document.body) visit(document.body);
    if (!order.length) return;
    const positive = order.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
    const sequence = [...positive, ...order.filter((el) => el.tabIndex === 0)];
    const index = sequence.indexOf(from);
    let next;
    if (index < 0) next = backwards ? sequence[sequence.length - 1] : sequence[0];
    else next = sequence[(index + (backwards ? -1 : 1) + sequence.length) % sequence.length];
    next.focus();
    if (isTextControl(next) && typeof next.select === 'function') next.select();
  }

  // requestSubmit runs validation and submit handlers as a user's submit would; the submitter
  // adds its name/value to the form data.
  function submitForm(form, submitter) {
    if (typeof form.requestSubmit !== 'function') form.submit();
    else if (submitter) form.requestSubmit(submitter);
    else form.requestSubmit();
  }

  // -------------------------------------------------------------------------------------------
  // Dialog policy and the action's bookkeeping (dialogs seen, navigation started)

  const liveActions = new Set();

  function setDialogPolicy(mode, promptText, ms) {
    const detail = JSON.stringify({ mode, promptText: typeof promptText === 'string' ? promptText : null, ms });
    window.dispatchEvent(new CustomEvent(POLICY_EVENT, { detail }));
  }

  function beginAction(arg) {
    const record = { dialogs: [], navigation: null };
    const onNavigate = (event) => {
      if (record.navigation) return;
      const destination = event.destination;
      record.navigation = { url: destination.url, sameDocument: destination.sameDocument };
    };
    const nav = globalThis.navigation;
    if (nav) nav.addEventListener('navigate', onNavigate);
    liveActions.add(record);
    setDialogPolicy(arg.dialog === 'accept' ? 'accept' : 'dismiss', arg.promptText);
    record.end = () => {
      if (nav) nav.removeEventListener('navigate', onNavigate);
      liveActions.delete(record);
      if (!liveActions.size) setDialogPolicy('dismiss', null);
    };
    return record;
  }

  // A navigation may be started by a handler a moment later: one setTimeout(0), no fixed grace.
  async function settleAction(record) {
    if (!record.navigation) await sleep(0);
    const navigation = record.navigation;
    const nav = globalThis.navigation;
    // a same-origin router may have intercepted a cross-document navigation
    if (navigation && !navigation.sameDocument && nav && nav.transition && nav.currentEntry
      && nav.currentEntry.url === navigation.url) navigation.sameDocument = true;
  }

  // -------------------------------------------------------------------------------------------
  // act

  function needString(arg, field) {
    if (typeof arg[field] !== 'string') throw new AgentError('BAD_MESSAGE', `${arg.action} needs a string ${field}`);
    return arg[field];
  }

  async function actClick(arg, clicks) {
    const el = resolveTarget(arg.target);
    const point = await waitActionable(el, { enabled: true, pointer: true }, timeoutOf(arg), clicks === 2 ? 'double-click' : 'click');
    pointerClick(point.hit, point.x, point.y, clicks);
    return {};
  }

  async function actHover(arg) {
    const el = resolveTarget(arg.target);
    const point = await waitActionable(el, { pointer: true }, timeoutOf(arg), 'hover');
    moveMouse(point.hit, point.x, point.y);
    return {};
  }

  async function editableTarget(arg, verb) {
    const el = resolveTarget(arg.target);
    if (!isEditable(el)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${verb} ${describe(el)}: it is not a text field`);
    }
    await waitActionable(el, { enabled: true, editable: true }, timeoutOf(arg), verb);
    return el;
  }

  /** A password field: the server keeps the text out of its audit log (never the value itself). */
  const sensitiveTarget = (el) => (el instanceof HTMLInputElement && el.type === 'password' ? { sensitive: true } : {});

  async function actFill(arg, text) {
    const el = await editableTarget(arg, text ? 'fill' : 'clear');
    fillElement(el, text);
    return sensitiveTarget(el);
  }

  function fillElement(el, text) {
    focusElement(el);
    if (isTextControl(el)) {
      if (!fireBeforeInput(el, 'insertReplacementText', text)) return;
      setNativeValue(el, text);
      if (el instanceof HTMLInputElement && !TEXT_INPUT_TYPES.has(el.type) && el.value !== text) {
        throw new AgentError('ELEMENT_NOT_INTERACTABLE',
          `Cannot fill ${describe(el)} with ${JSON.stringify(text)}: an input of type ${el.type} did not accept it (value is now ${JSON.stringify(el.value)})`);
      }
      fireInput(el, 'insertReplacementText', text);
      fireChange(el);
      return;
    }
    selectAllIn(el);
    if (text) execEdit(el, 'insertText', text);
    else if (!document.execCommand('delete')) {
      el.textContent = '';
      fireInput(el, 'deleteContentBackward', null);
    }
  }

  async function actType(arg) {
    const text = needString(arg, 'text');
    const el = await editableTarget(arg, 'type into');
    focusElement(el);
    caretToEnd(el);
    const before = isTextControl(el) ? el.value : null;
    for (const ch of text) {
      if (ch === '\n' && el instanceof HTMLInputElement) continue;
      const key = ch === '\n' ? 'Enter' : ch;
      let proceed = fireKey('keydown', el, key, {});
      if (proceed) proceed = fireKey('keypress', el, key, {});
      if (proceed) {
        if (ch === '\n' && el instanceof HTMLTextAreaElement) editControl(el, 'insertLineBreak', null, insertEdit('\n'));
        else if (ch === '\n') execEdit(el, 'insertParagraph');
        else insertText(el, ch);
      }
      fireKey('keyup', el, key, {});
    }
    if (before !== null && el.value !== before) fireChange(el);
    return sensitiveTarget(el);
  }

  async function actSelect(arg) {
    let wanted;
    if (Array.isArray(arg.values)) wanted = arg.values;
    else if (arg.value !== undefined && arg.value !== null) wanted = [arg.value];
    if (!wanted || !wanted.length || !wanted.every((v) => typeof v === 'string')) {
      throw new AgentError('BAD_MESSAGE', 'select needs a string value or a list of string values');
    }
    const el = resolveTarget(arg.target);
    if (!(el instanceof HTMLSelectElement)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot select in ${describe(el)}: it is not a <select> (click its options instead)`);
    }
    await waitActionable(el, { enabled: true }, timeoutOf(arg), 'select in');
    const options = [...el.options];
    const chosen = wanted.map((value) => {
      const needle = collapse(value).toLowerCase();
      const option = options.find((o) => o.value === value)
        || options.find((o) => collapse(o.label || o.text).toLowerCase() === needle);
      if (!option) {
        const listed = options.map((o) => `${JSON.stringify(collapse(o.label || o.text))} (value ${JSON.stringify(o.value)})`);
        throw new AgentError('ELEMENT_NOT_FOUND',
          `No option ${JSON.stringify(value)} in ${describe(el)}; its options: ${listed.join(', ') || 'none'}`);
      }
      if (option.disabled) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Option ${JSON.stringify(value)} is disabled`);
      return option;
    });
    if (chosen.length > 1 && !el.multiple) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${describe(el)} takes one option, ${chosen.length} were given`);
    }
    focusElement(el);
    if (el.multiple) for (const option of options) option.selected = chosen.includes(option);
    else chosen[0].selected = true;
    fireInput(el, 'insertReplacementText', null);
    fireChange(el);
    return { selected: chosen.map((o) => o.value) };
  }

  function checkedNow(el, role) {
    return checkedState(el, role) === 'checked';
  }

  async function actCheck(arg, wanted) {
    const el = resolveTarget(arg.target);
    const role = roleOf(el);
    const native = isCheckLike(el);
    if (!native && !CHECKABLE_ROLES.has(role)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${arg.action} ${describe(el)}: it is not a checkbox, radio or switch`);
    }
    if (checkedNow(el, role) === wanted) return {};
    if (!wanted && (role === 'radio' || role === 'menuitemradio')) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot uncheck ${describe(el)}: a radio is unchecked by checking another one`);
    }
    // a visually hidden native checkbox is clicked through its label, as a user would
    let target = el;
    if (native && !isVisible(el) && el.labels) target = [...el.labels].find(isVisible) || el;
    const point = await waitActionable(target, { enabled: true, enabledOf: el, pointer: true }, timeoutOf(arg), arg.action);
    pointerClick(point.hit, point.x, point.y, 1);
    if (checkedNow(el, role) !== wanted) await sleep(0); // a framework may update on the next task
    if (checkedNow(el, role) !== wanted) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Clicking ${describe(el)} did not ${arg.action} it`);
    }
    return {};
  }

  async function actPress(arg) {
    const { key, modifiers } = parseKey(needString(arg, 'key'));
    let el;
    if (arg.target) {
      el = resolveTarget(arg.target);
      await waitActionable(el, {}, timeoutOf(arg), 'press a key on');
      focusElement(el);
    }
    el = deepActiveElement() || document.body || document.documentElement;
    pressKey(el, key, modifiers);
    return {};
  }

  /** The nearest ancestor (or el) that scrolls vertically/horizontally, else the page. */
  function scrollerFor(el, vertical) {
    for (let n = el; n && n !== document.body && n !== document.documentElement; n = flatParent(n)) {
      const overflow = getComputedStyle(n)[vertical ? 'overflowY' : 'overflowX'];
      const room = vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth;
      if (room && (overflow === 'auto' || overflow === 'scroll')) return n;
    }
    return null;
  }

  async function actScroll(arg) {
    const el = arg.target ? resolveTarget(arg.target) : null;
    const direction = arg.direction;
    if (direction === undefined || direction === null) {
      if (!el) throw new AgentError('BAD_MESSAGE', 'scroll needs a target or a direction');
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return { scroll: pagePosition() };
    }
    if (!['up', 'down', 'left', 'right'].includes(direction)) {
      throw new AgentError('BAD_MESSAGE', 'direction is up, down, left or right');
    }
    const vertical = direction === 'up' || direction === 'down';
    const scroller = el ? scrollerFor(el, vertical) : null;
    const viewport = viewportSize();
    const page = vertical ? viewport.height : viewport.width;
    const amount = typeof arg.amount === 'number' && arg.amount > 0 ? arg.amount
      : scroller ? (vertical ? scroller.clientHeight : scroller.clientWidth) : page;
    const sign = direction === 'up' || direction === 'left' ? -1 : 1;
    const delta = { left: vertical ? 0 : sign * amount, top: vertical ? sign * amount : 0, behavior: 'instant' };
    if (scroller) {
      scroller.scrollBy(delta);
      return { scroll: { x: scroller.scrollLeft, y: scroller.scrollTop } };
    }
    window.scrollBy(delta);
    return { scroll: pagePosition() };
  }

  function pagePosition() {
    return { x: Math.round(window.scrollX), y: Math.round(window.scrollY) };
  }

  function formOf(el) {
    const form = el instanceof HTMLFormElement ? el : el.closest('form') || el.form;
    if (!form) throw new AgentError('ELEMENT_NOT_FOUND', `${describe(el)} is not a form and is not inside one`);
    return form;
  }

  async function actSubmit(arg) {
    const el = resolveTarget(arg.target);
    const form = formOf(el);
    const submitter = isSubmitButton(el) && el.form === form && !el.disabled ? el : null;
    submitForm(form, submitter);
    return {};
  }

  const ACT_HANDLERS = {
    click: (arg) => actClick(arg, 1),
    dblclick: (arg) => actClick(arg, 2),
    hover: actHover,
    fill: (arg) => actFill(arg, needString(arg, 'text')),
    clear: (arg) => actFill(arg, ''),
    type: actType,
    select: actSelect,
    check: (arg) => actCheck(arg, true),
    uncheck: (arg) => actCheck(arg, false),
    press: actPress,
    scroll: actScroll,
    submit: actSubmit,
  };
  const TARGETED = new Set(['click', 'dblclick', 'hover', 'fill', 'clear', 'type', 'select', 'check', 'uncheck', 'submit']);

  /** One action: {ok: true, navigation?, dialogs, ...} or {ok: false, code, message, candidates?}. */
  async function act(arg) {
    try {
      if (!arg || typeof arg !== 'object' || !Object.hasOwn(ACT_HANDLERS, arg.action)) {
        throw new AgentError('BAD_MESSAGE', `Unknown action ${JSON.stringify(arg && arg.action)}`);
      }
      if (TARGETED.has(arg.action)) checkTarget(arg.target);
      const record = beginAction(arg);
      try {
        const extra = await ACT_HANDLERS[arg.action](arg);
        await settleAction(record);
        const result = { ok: true, ...extra, dialogs: record.dialogs };
        if (record.navigation) result.navigation = record.navigation;
        return result;
      } finally {
        record.end();
        flushConsole(); // what the action logged reaches the worker before its answer does
      }
    } catch (e) {
      return failure(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // point, rect

  const POINT_CHECKS = {
    click: { enabled: true, pointer: true },
    dblclick: { enabled: true, pointer: true },
    check: { enabled: true, pointer: true },
    uncheck: { enabled: true, pointer: true },
    hover: { pointer: true },
    fill: { enabled: true, editable: true, pointer: true },
    type: { enabled: true, editable: true, pointer: true },
    clear: { enabled: true, editable: true, pointer: true },
    select: { enabled: true, pointer: true },
  };

  /** Where trusted input should land: the centre of the element once it is actionable. */
  async function point(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'point needs {target}');
      const el = resolveTarget(arg.target);
      const action = typeof arg.action === 'string' && POINT_CHECKS[arg.action] ? arg.action : 'click';
      const found = await waitActionable(el, POINT_CHECKS[action], timeoutOf(arg), action);
      // trusted input is routed by the browser from what was last painted: let the scroll show
      if (found.scrolled) await framesPainted();
      // dialogs opened by the trusted input that follows answer by this policy for a while
      if (arg.dialog === 'accept' || arg.dialog === 'dismiss') setDialogPolicy(arg.dialog, arg.promptText, POINT_POLICY_MS);
      const { rect } = found;
      return { ok: true, x: found.x, y: found.y, rect: plainRect(rect), ...sensitiveTarget(el) };
    } catch (e) {
      return failure(e);
    }
  }

  function plainRect(rect) {
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  }

  function rect(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'rect needs {target}');
      const el = resolveTarget(arg.target);
      if (!isVisible(el)) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot measure ${describe(el)}: ${hiddenReason(el)}`);
      return { ok: true, rect: plainRect(scrollIntoViewIfNeeded(el)), dpr: window.devicePixelRatio || 1 };
    } catch (e) {
      return failure(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // probe (docs/page-agent.md §4)

  const STATES = new Set(['visible', 'hidden', 'attached', 'detached', 'enabled', 'disabled', 'checked', 'unchecked', 'focused']);

  function probe(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'probe needs a condition');
      if (typeof arg.text === 'string') {
        const found = visibleTextIncludes(arg.text);
        return { ok: true, met: found, detail: `it ${found ? 'is' : 'is not'} on the page` }; // the caller's message names the text
      }
      if (typeof arg.textGone === 'string') {
        const found = visibleTextIncludes(arg.textGone);
        return { ok: true, met: !found, detail: `it ${found ? 'is still' : 'is not'} on the page` };
      }
      if (arg.target !== undefined) return probeTarget(arg.target, arg.state);
      throw new AgentError('BAD_MESSAGE', 'A condition is {text}, {textGone} or {target, state}');
    } catch (e) {
      return failure(e);
    }
  }

  function probeTarget(target, state) {
    if (!STATES.has(state)) throw new AgentError('BAD_MESSAGE', `state is one of ${[...STATES].join(', ')}`);
    checkTarget(target);
    let matches;
    try {
      matches = matchesFor(target);
    } catch (e) {
      // a ref whose element is gone is detached (and hidden); for other states it never comes back
      if (e instanceof AgentError && e.code === 'STALE_REF' && (state === 'detached' || state === 'hidden')) {
        return { ok: true, met: true, detail: `${target.ref} is gone`, count: 0 };
      }
      throw e;
    }
    const what = typeof target.ref === 'string' ? target.ref : targetText(target);
    const count = matches.length;
    const result = (met, detail) => ({ ok: true, met, detail, count });
    switch (state) {
      case 'attached': return result(count > 0, count ? `${what} is attached` : `nothing matches ${what}`);
      case 'detached': return result(count === 0, count ? `${what} is still attached` : `${what} is detached`);
      case 'visible': {
        const shown = matches.find(isVisible);
        return result(!!shown, shown ? `${describe(shown)} is visible` : count ? `${what} is not visible` : `nothing matches ${what}`);
      }
      case 'hidden': {
        const shown = matches.find(isVisible);
        return result(!shown, shown ? `${describe(shown)} is still visible` : `${what} is hidden`);
      }
      default: break;
    }
    if (!count) return result(false, `nothing matches ${what}`);
    if (count > 1) {
      const candidates = matches.slice(0, CANDIDATES_MAX).map(candidate);
      throw new AgentError('ELEMENT_AMBIGUOUS', `${what} matches ${count} elements; use a ref as target`, candidates);
    }
    const el = matches[0];
    let met;
    if (state === 'enabled' || state === 'disabled') met = isDisabled(el) === (state === 'disabled');
    else if (state === 'focused') met = deepActiveElement() === el;
    else {
      const checked = checkedState(el, roleOf(el));
      if (!checked) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${describe(el)} cannot be checked or unchecked`);
      met = checked === state;
    }
    return result(met, `${describe(el)} is ${met ? '' : 'not '}${state}`);
  }

  const ROOT_SCAN_MS = 1000;
  let lastRootScan = -Infinity;

  /** Case-insensitive, whitespace-collapsed search of the rendered text, shadow trees included. */
  function visibleTextIncludes(text) {
    const needle = collapse(text).toLowerCase();
    if (!needle) return true;
    const body = document.body;
    if (body) {
      // textContent is cheap and a superset of the visible text: rule out most misses with it
      if (collapse(body.textContent).toLowerCase().includes(needle)
        && collapse(body.innerText).toLowerCase().includes(needle)) return true;
    }
    // page_hooks.js reports new shadow roots; a walk finds the rest (declarative ones, or all of
    // them when the hooks were not there), at most once a second.
    if (document.documentElement && performance.now() - lastRootScan > ROOT_SCAN_MS) {
      lastRootScan = performance.now();
      collectShadowRoots(document, []);
    }
    for (const root of connectedRoots()) {
      const parts = [];
      for (const child of root.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) parts.push(child.data);
        else if (child.nodeType === Node.ELEMENT_NODE && !SKIPPED_TAGS.has(child.localName)) parts.push(child.innerText || '');
      }
      if (collapse(parts.join(' ')).toLowerCase().includes(needle)) return true;
    }
    return false;
  }

  // -------------------------------------------------------------------------------------------
  // capture (the DOM as HTML for introspection)

  /**
   * Accumulates the HTML string within a character budget. Room for the closing tags of every
   * open element is reserved up front, so a truncated result is still well-formed and never
   * longer than the limit.
   */
  class HtmlWriter {
    constructor(limit) {
      this.limit = limit;
      this.parts = [];
      this.length = 0;
      this.openTags = [];
      this.reserved = 0;
      this.truncated = false;
    }

    fits(extra) {
      if (!this.truncated && this.length + this.reserved + extra <= this.limit) return true;
      this.truncated = true;
      return false;
    }

    append(text) {
      this.parts.push(text);
      this.length += text.length;
    }

    write(text) {
      if (!this.fits(text.length)) return false;
      this.append(text);
      return true;
    }

    open(tag, attributes) {
      const start = `<${tag}${attributes}>`;
      const closeLength = tag.length + 3;
      if (!this.fits(start.length + closeLength)) return false;
      this.append(start);
      this.openTags.push(tag);
      this.reserved += closeLength;
      return true;
    }

    close() {
      const tag = this.openTags.pop();
      this.reserved -= tag.length + 3;
      this.append(`</${tag}>`);
    }

    finish() {
      while (this.openTags.length) this.close();
      return this.parts.join('');
    }
  }

  const CAPTURE_SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template']);

  /**
   * `request`: `{maxChars, ifChanged}`. When `ifChanged` is the page's current version, nothing is
   * serialised (docs/protocol.md, PageCapture).
   */
  function capture(request) {
    const options = typeof request === 'object' && request !== null ? request : {};
    const version = pageVersion();
    if (typeof options.ifChanged === 'string' && options.ifChanged === version) return { unchanged: true, version };
    const limit = Number.isInteger(options.maxChars) && options.maxChars > 0 ? options.maxChars : DEFAULT_MAX_CHARS;
    const out = new HtmlWriter(limit);
    if (document.documentElement) writeNode(document.documentElement, out);
    const html = out.finish();
    return { url: location.href, title: document.title, html, truncated: out.truncated, version, webmcp: webmcpTools };
  }

  // -------------------------------------------------------------------------------------------
  // Live updates (docs/page-agent.md §10). The top frame tells the service worker, without being
  // polled, when the page's tools may have changed. A MutationObserver marks the page dirty; after
  // a quiet period (LIVE_QUIET_MS, LIVE_MAX_MS at most) the tool-relevant structure is
  // fingerprinted, and only a different fingerprint is a change: typing, checking, focus and edits
  // of plain text never are. `pageVersion()` is "<docId>:<seq>"; `onToolRelevantChange(reason)` is
  // called by anything else that may have changed the tools (the WebMCP section: 'webmcp').

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
    live.timer = setTimeout(onLiveTimer, Math.max(0, Math.min(LIVE_QUIET_MS, live.since + LIVE_MAX_MS - now)));
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
  // hears titles from tabs.onUpdated, headless Chromium's targets do not report them.
  let lastTitle = null;

  function noteTitle() {
    if (typeof globalThis[HOST_BINDING] !== 'function') return;
    const title = document.title;
    if (title === lastTitle) return;
    lastTitle = title;
    post({ type: 'title', title: title.slice(0, 500) });
  }

  function startLiveUpdates() {
    live.observer = new MutationObserver((records) => {
      noteTitle();
      if (live.fingerprint === null) return; // no baseline yet: nothing can have changed for anyone
      if (live.dirty && document.readyState === 'loading') return; // already marked; nothing to re-arm yet
      if (isLiveRelevant(records)) markLive('mutation');
    });
    live.observer.observe(document, LIVE_OPTIONS);
    for (const root of openRoots()) live.observer.observe(root, LIVE_OPTIONS);
    // SPA route changes: the Navigation API sees pushState/replaceState from the page's own world
    // too; popstate and hashchange cover browsers without it.
    const nav = globalThis.navigation;
    if (nav && typeof nav.addEventListener === 'function') nav.addEventListener('currententrychange', onHistoryChange);
    addEventListener('popstate', onHistoryChange, true);
    addEventListener('hashchange', onHistoryChange, true);
    document.addEventListener('DOMContentLoaded', () => {
      if (live.dirty) scheduleLive();
    }, true);
  }

  // -------------------------------------------------------------------------------------------
  // WebMCP: the tools the page declared through document.modelContext /
  // navigator.modelContext (docs/page-agent.md "WebMCP"). page_hooks.js keeps the registry in the
  // main world (a polyfill, or wrappers around the browser's own API) and sends the list after
  // every change; `webmcpTools` is the latest list with the caps of docs/protocol.md
  // (PageCapture), `webmcpCall({name, args, timeoutMs})` runs the page's own execute() there.

  const WEBMCP_TOOLS_EVENT = 'tabmcp:webmcp-tools';
  const WEBMCP_SYNC_EVENT = 'tabmcp:webmcp-sync';
  const WEBMCP_CALL_EVENT = 'tabmcp:webmcp-call';
  const WEBMCP_CANCEL_EVENT = 'tabmcp:webmcp-cancel';
  const WEBMCP_RESULT_EVENT = 'tabmcp:webmcp-result';
  const WEBMCP_MAX_TOOLS = 64;
  const WEBMCP_NAME_MAX = 128;
  const WEBMCP_DESCRIPTION_MAX = 2000;
  const WEBMCP_TITLE_MAX = 200;
  const WEBMCP_SCHEMA_MAX = 20000; // characters of the input schema's JSON
  const WEBMCP_RESULT_MAX = 20000; // the hooks cap the result's JSON; a little slack for the marker
  const WEBMCP_MESSAGE_MAX = 2000;
  const WEBMCP_TIMEOUT_MS = 30000;
  const WEBMCP_ANNOTATIONS = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint',
    'untrustedContentHint', 'consequentialHint', 'debugging']);

  let webmcpTools = []; // replaced, never changed in place: the capture hands it out as it is
  let webmcpKey = '[]'; // its JSON, to tell a new list from a repeat
  let webmcpHooks = false; // page_hooks.js answered: WebMCP calls can reach the page
  let webmcpCallSeq = 0;
  const webmcpPending = new Map(); // callId → settle(answer)

  /** One tool of the hooks' list as the capture carries it, or null when it breaks a cap. */
  function webmcpTool(raw) {
    if (!raw || typeof raw !== 'object') return null;
    const { name, title, description, inputSchema, annotations } = raw;
    if (typeof name !== 'string' || !name || name.length > WEBMCP_NAME_MAX) return null;
    if (typeof description !== 'string' || description.length > WEBMCP_DESCRIPTION_MAX) return null;
    const tool = { name, description };
    if (typeof title === 'string' && title) tool.title = title.slice(0, WEBMCP_TITLE_MAX);
    if (inputSchema !== undefined && inputSchema !== null) {
      if (typeof inputSchema !== 'object' || Array.isArray(inputSchema)) return null;
      const json = JSON.stringify(inputSchema);
      if (json.length > WEBMCP_SCHEMA_MAX) return null;
      tool.inputSchema = inputSchema;
    }
    if (annotations && typeof annotations === 'object') {
      const hints = {};
      let any = false;
      for (const key of WEBMCP_ANNOTATIONS) {
        if (typeof annotations[key] !== 'boolean') continue;
        hints[key] = annotations[key];
        any = true;
      }
      if (any) tool.annotations = hints;
    }
    return tool;
  }

  // The hooks answer the first sync (sent once the agent is initialised, at the end) synchronously.
  addEventListener(WEBMCP_TOOLS_EVENT, (event) => {
    const detail = parseDetail(event);
    if (!detail || !Array.isArray(detail.tools)) return;
    webmcpHooks = true;
    const list = [];
    const names = new Set();
    for (const raw of detail.tools) {
      if (list.length >= WEBMCP_MAX_TOOLS) break;
      const tool = webmcpTool(raw);
      if (!tool || names.has(tool.name)) continue;
      names.add(tool.name);
      list.push(tool);
    }
    const key = JSON.stringify(list);
    if (key === webmcpKey) return;
    webmcpTools = list;
    webmcpKey = key;
    onToolRelevantChange('webmcp');
  }, true);

  addEventListener(WEBMCP_RESULT_EVENT, (event) => {
    const answer = parseDetail(event);
    if (!answer || typeof answer.callId !== 'string') return;
    const settle = webmcpPending.get(answer.callId);
    if (settle) settle(answer);
  }, true);

  function webmcpSync() {
    window.dispatchEvent(new CustomEvent(WEBMCP_SYNC_EVENT, { detail: '{}' }));
  }

  /** The hooks' answer as the agent's: {ok: true, result, truncated?} or {ok: false, code, message}. */
  function webmcpOutcome(answer, name) {
    if (answer.ok !== true) {
      const code = answer.code === 'TOOL_NOT_FOUND' ? 'TOOL_NOT_FOUND' : 'SCRIPT_ERROR';
      const message = typeof answer.message === 'string' && answer.message ? answer.message : `WebMCP tool "${name}" failed`;
      return { ok: false, code, message: cut(message, WEBMCP_MESSAGE_MAX) };
    }
    let result = null;
    let truncated = answer.truncated === true;
    if (typeof answer.json === 'string') {
      if (answer.json.length > WEBMCP_RESULT_MAX + 200) {
        result = `${answer.json.slice(0, WEBMCP_RESULT_MAX)} … [truncated]`;
        truncated = true;
      } else {
        try {
          result = JSON.parse(answer.json);
        } catch {
          result = null;
        }
      }
    }
    const outcome = { ok: true, result };
    if (truncated) outcome.truncated = true;
    if (answer.notJson === true) outcome.notJson = true;
    return outcome;
  }

  /**
   * `{name, args, timeoutMs}` → `{ok: true, result, dialogs, navigation?}` or `{ok: false, code:
   * TOOL_NOT_FOUND | SCRIPT_ERROR | TIMEOUT | BAD_MESSAGE, message}`. Like an action, it reports the
   * dialogs the tool opened and a navigation it started, so the worker waits for that page.
   */
  async function webmcpCall(arg) {
    const request = arg && typeof arg === 'object' ? arg : {};
    const { name } = request;
    if (typeof name !== 'string' || !name) return { ok: false, code: 'BAD_MESSAGE', message: 'webmcpCall needs a tool name' };
    const args = request.args === undefined || request.args === null ? {} : request.args;
    if (typeof args !== 'object' || Array.isArray(args)) {
      return { ok: false, code: 'BAD_MESSAGE', message: `The arguments of WebMCP tool "${name}" must be an object` };
    }
    const timeoutMs = Number.isFinite(request.timeoutMs) && request.timeoutMs > 0 ? request.timeoutMs : WEBMCP_TIMEOUT_MS;
    if (!webmcpHooks) webmcpSync();
    if (!webmcpHooks) {
      return { ok: false, code: 'TOOL_NOT_FOUND', message: `WebMCP tool "${name}" cannot be reached: tabmcp's page hooks are not running in this page (reload it)` };
    }
    webmcpCallSeq += 1;
    const callId = `${DOC_ID}:${webmcpCallSeq}`;
    const record = beginAction({});
    try {
      const answer = await new Promise((resolve) => {
        const timer = setTimeout(() => {
          webmcpPending.delete(callId);
          window.dispatchEvent(new CustomEvent(WEBMCP_CANCEL_EVENT, { detail: JSON.stringify({ callId }) }));
          resolve({ ok: false, code: 'TIMEOUT', message: `WebMCP tool "${name}" did not finish within ${timeoutMs} ms (its execute() is still pending; it was asked to abort)` });
        }, timeoutMs);
        webmcpPending.set(callId, (value) => {
          clearTimeout(timer);
          webmcpPending.delete(callId);
          resolve(webmcpOutcome(value, name));
        });
        window.dispatchEvent(new CustomEvent(WEBMCP_CALL_EVENT, { detail: JSON.stringify({ callId, name, args }) }));
      });
      if (!answer.ok) return answer;
      await settleAction(record);
      const out = { ...answer, dialogs: record.dialogs };
      if (record.navigation) out.navigation = record.navigation;
      return out;
    } finally {
      record.end();
      flushConsole(); // what the tool logged reaches the worker before its answer does
    }
  }

  function writeNode(node, out) {
    if (out.truncated) return;
    const type = node.nodeType;
    if (type === 3) { // Node.TEXT_NODE
      out.write(escapeText(node.data));
    } else if (type === 1) { // Node.ELEMENT_NODE
      writeElement(node, out);
    }
    // Comments, processing instructions and the doctype are left out.
  }

  function writeElement(el, out) {
    const tag = el.localName;
    if (CAPTURE_SKIPPED_TAGS.has(tag)) return;
    const attributes = serializeAttributes(el);
    if (VOID_TAGS.has(tag)) {
      out.write(`<${tag}${attributes}>`);
      return;
    }
    if (!out.open(tag, attributes)) return;
    if (tag === 'textarea') {
      out.write(escapeText(el.value)); // the current value, not the initial text
    } else if (!CONTENTLESS_TAGS.has(tag)) {
      writeChildren(el, out);
    }
    out.close();
  }

  // An open shadow root's content is written inside its host, before the light-DOM children.
  // Sibling pointers, not NodeList iterators: this loop runs once per node of the page.
  function writeChildren(el, out) {
    const root = el.shadowRoot;
    if (root) {
      for (let child = root.firstChild; child; child = child.nextSibling) writeNode(child, out);
    }
    for (let child = el.firstChild; child; child = child.nextSibling) writeNode(child, out);
  }

  function serializeAttributes(el) {
    const state = formStateAttributes(el);
    let text = '';
    const attributes = el.attributes;
    for (let i = 0, n = attributes.length; i < n; i += 1) { // indexed: no iterator per element
      const { name, value } = attributes[i];
      if (OWN_ATTRIBUTES.has(name) || state.has(name) || !SAFE_ATTRIBUTE_NAME.test(name)) continue;
      text += ` ${name}="${escapeAttribute(value)}"`;
    }
    for (const [name, value] of state) {
      if (value !== null) text += ` ${name}="${escapeAttribute(value)}"`;
    }
    if (isCaptureInteractive(el)) {
      text += ` data-tabmcp-ref="${refFor(el)}"`;
      if (isHiddenForCapture(el)) text += ' data-tabmcp-hidden="1"';
    }
    return text;
  }

  // Only these tags, or an element with one of these attributes, can match CAPTURE_INTERACTIVE_SELECTOR:
  // most elements are ruled out without running the selector (a 5k-element capture calls this 5k times).
  const CAPTURE_INTERACTIVE_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'form', 'label', 'summary']);

  function isCaptureInteractive(el) {
    if (!CAPTURE_INTERACTIVE_TAGS.has(el.localName) && !el.hasAttribute('role') && !el.hasAttribute('tabindex')
      && !el.hasAttribute('contenteditable')) return false;
    return el.matches(CAPTURE_INTERACTIVE_SELECTOR);
  }

  const NO_FORM_STATE = new Map();

  /** The live form state as attributes: name -> value, or null to drop the page's attribute. */
  function formStateAttributes(el) {
    const tag = el.localName;
    if (tag !== 'input' && tag !== 'option') return NO_FORM_STATE;
    const state = new Map();
    if (el instanceof HTMLInputElement) {
      if (el.type === 'checkbox' || el.type === 'radio') state.set('checked', el.checked ? '' : null);
      // a typed password never leaves the page: the server learns only that one is filled in
      if (el.type === 'password') state.set('value', el.value ? '********' : null);
      else state.set('value', el.value);
    } else if (el instanceof HTMLOptionElement) {
      state.set('selected', el.selected ? '' : null);
    }
    return state;
  }

  const CAPTURE_VISIBILITY = { checkVisibilityCSS: true };

  /** data-tabmcp-hidden; the live fingerprint reads it too, so both agree on what is rendered. */
  function isHiddenForCapture(el) {
    return (el.localName === 'input' && el.type === 'hidden') || !el.checkVisibility(CAPTURE_VISIBILITY);
  }

  const TEXT_SPECIALS = /[&<>]/;
  const ATTRIBUTE_SPECIALS = /[&<>"]/;

  function escapeText(text) {
    if (!TEXT_SPECIALS.test(text)) return text; // most text needs nothing: one scan instead of three
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function escapeAttribute(value) {
    if (!ATTRIBUTE_SPECIALS.test(value)) return value;
    return escapeText(value).replace(/"/g, '&quot;');
  }

  // -------------------------------------------------------------------------------------------
  // summary, watchChanges, extract (docs/page-agent.md §11): what a page tool's plan did, in words

  const SUMMARY_TEXT_MAX = 1500;
  const CHANGED_MAX = 1500;
  const RESULTS_MAX = 10;
  const RESULT_TEXT_MAX = 200;
  const RESULT_SCORE_ITEMS = 50;
  const EXTRACT_TEXT_MAX = 300;
  const EXTRACT_LIMIT = 20;
  const EXTRACT_LIMIT_MAX = 100;
  const WATCH_MAX_MS = 10 * 60 * 1000; // a watch nobody reads (the plan failed) stops by itself
  const WATCH_MAX_NODES = 2000;
  const SETTLE_QUIET_MS = 150;
  const SETTLE_MAX_MS = 1500;
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
  const RESULT_LIST_SELECTOR = '[role=feed], [role=list], [role=grid], [role=table], table, ul, ol';
  // Lists that are navigation or controls, not content.
  const RESULT_EXCLUDED = 'nav, header, footer, aside, menu, select, datalist, [role=navigation], [role=banner], '
    + '[role=contentinfo], [role=complementary], [role=menu], [role=menubar], [role=tablist], [role=listbox], '
    + '[role=radiogroup], [role=tree], [role=toolbar]';
  // Siblings of these tags are text or structure, not a run of results.
  const RUN_EXCLUDED_TAGS = new Set([
    'li', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'p', 'span', 'br', 'hr', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'label', 'input', 'button', 'select', 'textarea', 'dt', 'dd', 'script', 'style',
    'template', 'link', 'meta', 'img', 'svg', 'source', 'col', 'colgroup', 'b', 'i', 'em', 'strong', 'small',
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
            length += child.data.length;
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
  const watches = new Map(); // id -> {observer, nodes: Set<Node>, lastChange, timer}

  function watchChanges() {
    lastWatch += 1;
    const id = lastWatch;
    const watch = { observer: null, nodes: new Set(), lastChange: 0, timer: 0 };
    watch.observer = new MutationObserver((records) => recordChanges(watch, records));
    watch.observer.observe(document, WATCH_OPTIONS);
    for (const root of connectedRoots()) watch.observer.observe(root, WATCH_OPTIONS); // its text is read through closed ones too
    watch.timer = setTimeout(() => stopWatch(id), WATCH_MAX_MS);
    watches.set(id, watch);
    return { ok: true, token: `${DOC_ID}:${id}`, docId: DOC_ID };
  }

  function stopWatch(id) {
    const watch = watches.get(id);
    if (!watch) return;
    watch.observer.disconnect();
    clearTimeout(watch.timer);
    watches.delete(id);
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
    const note = (node) => {
      if (node && watch.nodes.size < WATCH_MAX_NODES) watch.nodes.add(node);
    };
    for (const record of records) {
      const { target } = record;
      if (record.type === 'attributes') {
        // a field's validation class or a body-wide state class says nothing about the page's content
        if (target === document.documentElement || target === document.body || FORM_CONTROL_TAGS.has(target.localName)) continue;
        note(target);
        continue;
      }
      watch.lastChange = performance.now();
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

  /** Waits until the page stopped changing for SETTLE_QUIET_MS (SETTLE_MAX_MS at most). */
  async function settleWatch(watch) {
    const started = performance.now();
    for (;;) {
      recordChanges(watch, watch.observer.takeRecords());
      const now = performance.now();
      const quietFor = now - Math.max(started, watch.lastChange);
      if (quietFor >= SETTLE_QUIET_MS || now - started >= SETTLE_MAX_MS) return;
      await sleep(Math.min(SETTLE_QUIET_MS - quietFor, SETTLE_MAX_MS - (now - started)) + 1);
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

  // ---- the main result list

  /** Items of one candidate list, or null when el is not one. */
  function listItems(el) {
    const tag = el.localName;
    const role = explicitRole(el);
    const children = [...el.children];
    if (role === 'feed') {
      const articles = children.filter((c) => explicitRole(c) === 'article' || c.localName === 'article');
      return articles.length ? articles : children;
    }
    if (role === 'list') {
      const items = children.filter((c) => explicitRole(c) === 'listitem');
      return items.length ? items : children;
    }
    if (role === 'grid' || role === 'table') {
      return [...el.querySelectorAll('[role=row]')].filter((row) => !row.querySelector('[role=columnheader]'));
    }
    if (tag === 'table') {
      const rows = el.tBodies.length ? [...el.tBodies].flatMap((body) => [...body.rows]) : [...el.rows];
      return rows.filter((row) => [...row.cells].some((cell) => cell.localName === 'td'));
    }
    if (tag === 'ul' || tag === 'ol') return children.filter((c) => c.localName === 'li');
    return null;
  }

  // Items holding fields to type into are a layout of forms (a search card beside a "new item"
  // card), not results; result rows may hold checkboxes and buttons.
  const RESULT_ITEM_FIELDS = 'textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden])';

  function scoreItems(items) {
    let count = 0;
    let score = 0;
    for (const item of items) {
      if (count >= RESULT_SCORE_ITEMS) break;
      if (!isRendered(item)) continue;
      if (item.querySelector(RESULT_ITEM_FIELDS)) return 0;
      count += 1;
      score += Math.min(collapse(item.textContent.slice(0, 4 * RESULT_TEXT_MAX)).length, RESULT_TEXT_MAX);
    }
    return count >= 2 ? score : 0;
  }

  /** Runs of 2+ siblings with the same tag and classes (cards, result rows built of divs). */
  function siblingRuns(scope) {
    const runs = [];
    const visit = (parent) => {
      let run = [];
      let shape = '';
      const flush = () => {
        if (run.length >= 2) runs.push(run);
        run = [];
      };
      for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
        const tag = child.localName;
        const classes = typeof child.className === 'string' ? child.className.trim().split(/\s+/).sort().join('.') : '';
        const childShape = RUN_EXCLUDED_TAGS.has(tag) || (!classes && tag !== 'article') ? '' : `${tag}.${classes}`;
        if (!childShape || childShape !== shape) flush();
        shape = childShape;
        if (childShape) run.push(child);
        visit(child);
      }
      flush();
    };
    visit(scope);
    return runs;
  }

  /** The page's main result list, generically: up to RESULTS_MAX item texts, or [] when there is none. */
  function resultList() {
    const scope = mainRoot();
    if (!scope) return [];
    let best = null;
    let bestScore = 0;
    const consider = (items, container) => {
      if (container && container.closest(RESULT_EXCLUDED)) return;
      const score = scoreItems(items);
      if (score > bestScore) {
        best = items;
        bestScore = score;
      }
    };
    for (const el of scope.querySelectorAll(RESULT_LIST_SELECTOR)) {
      const items = listItems(el);
      if (items && items.length >= 2) consider(items, el);
    }
    for (const run of siblingRuns(scope)) consider(run, run[0].parentElement);
    if (!best) return [];
    const texts = [];
    for (const item of best) {
      if (texts.length >= RESULTS_MAX) break;
      if (!isRendered(item)) continue;
      const text = item.localName === 'tr'
        ? [...item.cells].map((cell) => renderedText(cell, RESULT_TEXT_MAX)).filter(Boolean).join(' | ')
        : renderedText(item, RESULT_TEXT_MAX);
      if (text) texts.push(cut(text, RESULT_TEXT_MAX));
    }
    return texts.length >= 2 ? texts : [];
  }

  // ---- summary

  /**
   * Without an argument: `{url, title, text}` (the page's main text). With
   * `{token, results}` (the token of watchChanges before the plan): the PageSummary of
   * docs/protocol.md, once the page has settled: `navigated`, `changed`, `text`, `results`.
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
    if (changed) out.changed = changed;
    out.text = root ? renderedText(root, SUMMARY_TEXT_MAX) : '';
    if (request.results) {
      const results = resultList();
      if (results.length) out.results = results;
    }
    return out;
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

  // -------------------------------------------------------------------------------------------
  // The port to the service worker: crash detection (top frame: the port drops when the renderer
  // dies), console entries and dialogs (every frame).

  let port = null;
  let portRetries = 0;

  function openPort() {
    if (port) return port;
    if (typeof chrome === 'undefined' || !chrome.runtime || typeof chrome.runtime.connect !== 'function') return null;
    try {
      port = chrome.runtime.connect({ name: PORT_NAME });
      port.onDisconnect.addListener(onPortDisconnect);
    } catch {
      port = null; // The extension was reloaded or removed: this agent is orphaned.
    }
    return port;
  }

  // The port also drops when the service worker restarts or the page enters the back/forward
  // cache; the top frame reconnects so the new worker still hears about a crash. Subframes
  // reconnect when they next have something to send. chrome.runtime.id is gone once the extension
  // itself was reloaded, and then there is nobody to reconnect to.
  function onPortDisconnect() {
    port = null;
    if (IS_TOP && chrome.runtime && chrome.runtime.id && portRetries < PORT_RETRIES) {
      portRetries += 1;
      setTimeout(openPort, 1000);
    }
  }

  // Under the CDP driver there is no extension: the driver exposes this binding instead of the
  // port (drivers/cdp/), and the agent sends the same messages through it as JSON.
  const HOST_BINDING = '__tabmcpHostPost';

  function post(message) {
    const host = globalThis[HOST_BINDING];
    if (typeof host === 'function') {
      try {
        host(JSON.stringify(message));
      } catch {
        // the driver went away
      }
      return;
    }
    if (typeof chrome === 'undefined' || !(chrome.runtime && chrome.runtime.id)) return;
    const target = openPort();
    if (!target) return;
    try {
      target.postMessage(message);
    } catch {
      port = null;
    }
  }

  addEventListener('pageshow', (event) => {
    if (event.persisted && IS_TOP && !port) openPort();
  });

  let consoleQueue = [];
  let flushTimer = 0;

  function takeConsoleQueue() {
    clearTimeout(flushTimer);
    flushTimer = 0;
    const entries = consoleQueue;
    consoleQueue = [];
    return entries;
  }

  function flushConsole() {
    clearTimeout(flushTimer);
    flushTimer = 0;
    if (!consoleQueue.length) return 0;
    const entries = consoleQueue;
    consoleQueue = [];
    post({ type: 'console', entries });
    return entries.length;
  }

  // What a page logs while it loads is sent by the time it has loaded, and nothing is lost when
  // it is left within the batching delay.
  for (const type of ['DOMContentLoaded', 'load', 'pagehide']) addEventListener(type, flushConsole, true);

  function parseDetail(event) {
    try {
      const value = JSON.parse(event.detail);
      return value && typeof value === 'object' ? value : null;
    } catch {
      return null;
    }
  }

  addEventListener(CONSOLE_EVENT, (event) => {
    const entry = parseDetail(event);
    if (!entry || !CONSOLE_LEVELS.has(entry.level)) return;
    consoleQueue.push({
      level: entry.level,
      text: String(entry.text || '').slice(0, CONSOLE_TEXT_MAX),
      time: typeof entry.time === 'number' ? entry.time : Date.now(),
      source: typeof entry.source === 'string' ? entry.source.slice(0, 500) : '',
    });
    if (consoleQueue.length > CONSOLE_QUEUE_MAX) consoleQueue.splice(0, consoleQueue.length - CONSOLE_QUEUE_MAX);
    if (!flushTimer) flushTimer = setTimeout(flushConsole, CONSOLE_FLUSH_MS);
  }, true);

  addEventListener(DIALOG_EVENT, (event) => {
    const raw = parseDetail(event);
    if (!raw || !['alert', 'confirm', 'prompt'].includes(raw.type)) return;
    const answer = typeof raw.answer === 'boolean' || typeof raw.answer === 'string' ? raw.answer : null;
    const dialog = { type: raw.type, message: String(raw.message || '').slice(0, CONSOLE_TEXT_MAX), answer };
    for (const record of liveActions) record.dialogs.push(dialog);
    post({ type: 'dialog', dialog });
  }, true);

  // page_hooks.js announces every attachShadow; closed roots on built-in elements are remembered.
  addEventListener(SHADOW_EVENT, (event) => {
    const host = event.composedPath()[0] || event.target;
    if (!(host instanceof Element)) return;
    const detail = parseDetail(event);
    if (detail && detail.mode === 'closed') closedHosts.add(host);
    const root = shadowRootOf(host);
    if (root) noteRoot(root);
  }, true);

  globalThis.__tabmcpAgent = Object.freeze({
    version: VERSION,
    docId: DOC_ID,
    snapshot,
    find,
    act,
    point,
    rect,
    probe,
    frameOffset,
    capture,
    summary,
    watchChanges,
    unwatch,
    extract,
    webmcpCall,
    // sends the queued console entries now: {ok, sent} (for a reader that must not wait 100 ms)
    flushConsole: () => ({ ok: true, sent: flushConsole() }),
    // hands the queued entries to the caller instead of the port: a console read is then complete
    // without racing the port's messages
    takeConsole: () => ({ ok: true, entries: takeConsoleQueue() }),
    // whether this document holds the focus itself (not through an iframe): a key press without a
    // target goes to the deepest such frame
    holdsFocus: () => {
      const active = document.activeElement;
      const focused = document.hasFocus() && Boolean(active) && active !== document.body
        && active.localName !== 'iframe' && active.localName !== 'frame';
      return { ok: true, focused };
    },
  });
  if (IS_TOP) {
    openPort();
    startLiveUpdates();
  }
  webmcpSync(); // hooks that ran first (or served an earlier agent) send what the page declared so far
})();
