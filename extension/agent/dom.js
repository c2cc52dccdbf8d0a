// tabmcp page agent: refs, the composed (flat) tree across shadow roots, and visibility.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  // Defined by a later file: called through `shared` (by then every file has run).
  const describeTag = (el) => shared.describeTag(el);
  const observeRoot = (root) => shared.observeRoot(root);

  const ZERO_SIZE_SCAN = 200;

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

  // ---- folded sections: a part of a form hidden until a person clicks its heading's toggle

  const FOLD_HEADS = 'summary, legend, h1, h2, h3, h4, h5, h6, [role=heading]';
  const FOLD_TOGGLES = 'a, button, [role=button], summary';
  const FOLD_DEPTH = 12; // ancestors looked at above a hidden field (a table's cell in a fieldset in the part)
  const FOLDED_FIELDS = 'input:not([type=hidden]), select, textarea';

  /** A link that stays on the page (`#…`, no href, javascript:): a toggle, not a way elsewhere. */
  function inPageLink(a) {
    const raw = (a.getAttribute('href') || '').trim();
    return raw === '' || raw.startsWith('#') || /^javascript:/i.test(raw);
  }

  /** The toggle of a heading or legend right above a folded part: the heading itself when it is one,
   * else the link or button in it. A submit button or a link elsewhere is no toggle. */
  function headToggle(head) {
    if (!head.matches(FOLD_HEADS) && !head.hasAttribute('aria-expanded')) return null;
    const toggle = head.matches(FOLD_TOGGLES) ? head : head.querySelector(FOLD_TOGGLES);
    if (!toggle || toggle.getAttribute('aria-expanded') === 'true' || !isVisible(toggle)) return null;
    if (toggle.localName === 'a' && !inPageLink(toggle)) return null;
    if (toggle instanceof HTMLButtonElement && toggle.type === 'submit' && toggle.form) return null;
    return toggle;
  }

  /** The page's controls that say they are collapsed (aria-expanded=false), with the parts they control. */
  function collapsedControls() {
    const found = [];
    for (const control of document.querySelectorAll('[aria-expanded=false][aria-controls]')) {
      const parts = control.getAttribute('aria-controls').split(/\s+/)
        .map((id) => (id ? document.getElementById(id) : null)).filter(Boolean);
      if (parts.length) found.push([control, parts]);
    }
    return found;
  }

  /**
   * The visible control that unfolds the section a hidden form field is in, or null: a closed
   * <details>'s summary; the toggle in the heading or legend right above the hidden part, in the
   * field's nearest shown ancestor (a fieldset whose legend's link folds it); a control that says
   * it is collapsed (aria-expanded=false) and controls a part holding the field. `collapsed`: the
   * page's collapsedControls(), when a caller asking for many fields read them once.
   */
  function foldToggleOf(el, collapsed = null) {
    if (!el.matches(FOLDED_FIELDS) || isRendered(el)) return null;
    const details = el.closest('details:not([open])');
    if (details) {
      const summary = details.querySelector(':scope > summary');
      return summary && isVisible(summary) ? summary : null;
    }
    // the hidden part: the field's outermost hidden ancestor below its nearest shown one
    let part = el;
    let shown = el.parentElement;
    let depth = 0;
    for (; shown && !isRendered(shown) && depth < FOLD_DEPTH; depth += 1) {
      part = shown;
      shown = shown.parentElement;
    }
    const head = shown && depth < FOLD_DEPTH && isRendered(shown) ? part.previousElementSibling : null;
    const toggle = head ? headToggle(head) : null;
    if (toggle) return toggle;
    for (const [control, parts] of collapsed || collapsedControls()) {
      if (parts.some((p) => p.contains(el)) && isVisible(control)) return control;
    }
    return null;
  }

  Object.assign(shared, {
    refFor, elementForRef, SHADOW_HOST_TAGS, closedHosts, noteRoot, connectedRoots, openRoots, shadowRootOf, forEachChild, flatParent,
    composedContains, deepActiveElement, deepElementFromPoint, collectShadowRoots, isRendered, isVisible, PRUNED,
    VISIBLE, ZERO_SIZE, CONTENTS, renderState, visibilityOf, hiddenReason, foldToggleOf, collapsedControls,
  });
})();
