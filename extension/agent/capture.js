// tabmcp page agent: capture, a compact HTML document of what introspectors read (docs/introspectors.md,
// "The capture"): controls, forms, headings, landmarks, the shape of tables and lists, and the
// ancestors of all of those. Its size grows with the page's controls, not with its text.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    CAPTURE_INTERACTIVE_SELECTOR, refFor, pageVersion, currentWebmcpTools, accName, withLabelIndex, roleOf, cut,
    SHADOW_HOST_TAGS, INLINE_TAGS,
  } = shared;

  const DEFAULT_MAX_CHARS = 1000000;
  // Caps (docs/introspectors.md, "The capture").
  const NAME_MAX = 200; // data-tabmcp-name
  const NAMING_TEXT_MAX = 200; // the text inside one naming element (a label, a button, a heading…)
  const ITEM_TEXT_MAX = 200; // the text of one sampled row or list item, outside its naming elements
  const OWN_TEXT_MAX = 80; // the text directly inside any other emitted element
  const ATTRIBUTE_MAX = 1000; // one attribute value
  const SAMPLE_ITEMS = 3; // rows of a table, items of a list, kept with their text

  // Content for capture: written as an empty element.
  const CONTENTLESS_TAGS = new Set(['svg', 'math', 'canvas', 'video', 'audio', 'picture', 'object']);
  const VOID_TAGS = new Set([
    'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
    'track', 'wbr',
  ]);
  const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head']);
  // Attributes the capture adds; a page's own copies are dropped so they cannot spoof refs or names.
  const OWN_ATTRIBUTES = new Set([
    'data-tabmcp-ref', 'data-tabmcp-hidden', 'data-tabmcp-name', 'data-tabmcp-items', 'data-tabmcp-capture', 'data-tabmcp-list',
    'style',
  ]);
  const SAFE_ATTRIBUTE_NAME = /^[^\s"'<>\/=]+$/;

  // Emitted wherever they are (with their ancestors), besides the interactive elements.
  const STRUCTURE_TAGS = new Set([
    'html', 'body', 'form', 'fieldset', 'legend', 'label', 'select', 'option', 'optgroup', 'datalist', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'header', 'footer', 'nav', 'main', 'aside', 'section', 'article', 'search', 'dialog',
    'details', 'summary', 'table', 'caption', 'th', 'ul', 'ol', 'menu', 'iframe', 'frame',
  ]);
  // Inside a naming element or a sampled row, elements besides the above that are kept: the cells and
  // items that give the text its shape, images (their alt). Others only wrap text, which is kept.
  const CONTENT_TAGS = new Set(['tr', 'td', 'th', 'li', 'dt', 'dd', 'img']);
  // Their whole text is kept (capped): it is what names them.
  const NAMING_TAGS = new Set([
    'a', 'button', 'label', 'legend', 'option', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'caption', 'th', 'summary',
    'figcaption', 'textarea',
  ]);
  const NAMING_ROLES = new Set([
    'button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'heading', 'checkbox',
    'radio', 'switch', 'treeitem', 'columnheader', 'rowheader',
  ]);
  // Lists and tables: their items are counted (data-tabmcp-items) and the first SAMPLE_ITEMS kept in full.
  const LIST_TAGS = new Set(['table', 'ul', 'ol', 'menu']);
  const LIST_ROLES = new Set(['list', 'grid', 'treegrid', 'table', 'listbox', 'feed', 'tree', 'menu', 'menubar', 'tablist']);
  const ITEM_ROLES = new Set([
    'listitem', 'row', 'option', 'treeitem', 'article', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
  ]);
  const ITEMS_PAD = 32; // room for ` data-tabmcp-items="…"`, written when the list closes

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
      this.openPads = [];
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

    /** pad: room kept for attributes added to this start tag when it closes (amend). */
    open(tag, attributes, pad = 0) {
      const start = `<${tag}${attributes}>`;
      const closeLength = tag.length + 3 + pad;
      if (!this.fits(start.length + closeLength)) return -1;
      this.append(start);
      this.openTags.push(tag);
      this.openPads.push(pad);
      this.reserved += closeLength;
      return this.parts.length - 1;
    }

    /** Adds ` extra` (at most the pad given to open) to the start tag at index. */
    amend(index, extra) {
      const start = this.parts[index];
      this.parts[index] = `${start.slice(0, -1)}${extra}>`;
      this.length += extra.length;
    }

    close() {
      const tag = this.openTags.pop();
      this.reserved -= tag.length + 3 + this.openPads.pop();
      this.append(`</${tag}>`);
    }

    finish() {
      while (this.openTags.length) this.close();
      return this.parts.join('');
    }
  }

  /**
   * One walk of the document (sibling pointers, open shadow roots before their host's light
   * children). An element's start tag is written only once something in it is emitted: the
   * ancestors waiting for that are on a stack, written in order when the first one is needed.
   */
  class CompactWalk {
    constructor(out) {
      this.out = out;
      this.stack = []; // pending or written ancestors of the element being walked
      this.starts = []; // per depth: the writer's index of the start tag, -1 while pending
      this.interactive = []; // per depth: whether the element gets a ref
      this.written = 0; // stack[0 … written-1] have their start tag written
      this.list = null; // the innermost list or table being walked: {items, index}
      this.itemDepth = 0; // > 0 inside a row or list item: data-* keys are kept there
    }

    /** Writes the start tags of the pending ancestors, then el's own. False once out of room. */
    emit(el, depth, pad = 0) {
      const { out, stack, starts } = this;
      for (let d = this.written; d < depth; d += 1) {
        const index = out.open(stack[d].localName, serializeAttributes(stack[d], this.interactive[d]), padOf(stack[d]));
        if (index < 0) return false;
        starts[d] = index;
        this.written = d + 1;
      }
      if (this.written > depth) return true; // already written
      const index = out.open(el.localName, serializeAttributes(el, this.interactive[depth]), pad);
      if (index < 0) return false;
      starts[depth] = index;
      this.written = depth + 1;
      return true;
    }

    /**
     * Text, written into the nearest written ancestor: inside a naming element, the elements that
     * only wrap text (`<code>`, `<span>`) are left out and their text goes to the naming element.
     * budget: {left}.
     */
    text(data, budget) {
      if (budget.left <= 0 || !data) return;
      const text = data.replace(/\s+/g, ' ');
      if (text === ' ') {
        this.out.write(' ');
        return;
      }
      const piece = text.length > budget.left ? text.slice(0, budget.left) : text;
      budget.left -= piece.length;
      this.out.write(escapeText(piece));
    }

    element(el, depth, budget) {
      if (this.out.truncated) return;
      const tag = el.localName;
      if (SKIPPED_TAGS.has(tag)) return;
      this.stack[depth] = el;
      this.starts[depth] = -1;
      const interactive = isCaptureInteractive(el, tag);
      this.interactive[depth] = interactive;
      const role = interactive ? firstRole(el) : '';
      let keep = interactive || STRUCTURE_TAGS.has(tag) || (budget !== null && CONTENT_TAGS.has(tag));
      // a data-* key inside a row or list item (how a site names its rows): kept, without its text
      const keyed = !keep && this.itemDepth > 0 && hasDataAttribute(el);
      const isList = LIST_TAGS.has(tag) || (role !== '' && LIST_ROLES.has(role));
      const isItem = !isList && this.list !== null && (tag === 'tr' ? el.parentNode.localName !== 'thead'
        : tag === 'li' || (role !== '' && ITEM_ROLES.has(role)));
      let inner = budget;
      if (isItem) {
        this.list.items += 1;
        if (inner === null && this.list.items <= SAMPLE_ITEMS) {
          inner = { left: ITEM_TEXT_MAX };
          keep = true;
        }
      }
      if (NAMING_TAGS.has(tag) || (role !== '' && NAMING_ROLES.has(role))) inner = { left: NAMING_TEXT_MAX };
      // a block left out inside a naming element or a row still separates the words around it
      else if (!keep && !keyed && inner !== null && !INLINE_TAGS.has(tag)) this.text(' ', inner);
      if (VOID_TAGS.has(tag)) { // never an ancestor: written whole, or not at all
        if ((keep || keyed) && (depth === 0 || this.emit(this.stack[depth - 1], depth - 1, padOf(this.stack[depth - 1])))) {
          this.out.write(`<${tag}${serializeAttributes(el, interactive)}>`);
        }
        return;
      }
      if ((keep || keyed) && !this.emit(el, depth, isList ? ITEMS_PAD : 0)) return;
      const outerList = this.list;
      if (isList) this.list = { items: 0 };
      if (isItem) this.itemDepth += 1;
      if (tag === 'textarea') {
        this.text(el.value, inner); // the current value, not the initial text
      } else if (!CONTENTLESS_TAGS.has(tag)) {
        const own = inner === null && keep ? { left: OWN_TEXT_MAX } : inner;
        const root = SHADOW_HOST_TAGS.has(tag) || tag.includes('-') ? el.shadowRoot : null;
        if (root) this.children(root, depth + 1, inner, own);
        this.children(el, depth + 1, inner, own);
      }
      if (isItem) this.itemDepth -= 1;
      if (isList) {
        if (this.written > depth && this.starts[depth] >= 0) {
          this.out.amend(this.starts[depth], ` data-tabmcp-items="${this.list.items}"`);
        }
        this.list = outerList;
      }
      this.leave(depth);
    }

    children(parent, depth, budget, own) {
      if (own === null) { // no text wanted here: text nodes are not even visited
        for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
          this.element(child, depth, budget);
        }
        return;
      }
      for (let child = parent.firstChild; child; child = child.nextSibling) {
        const type = child.nodeType;
        if (type === 1) this.element(child, depth, budget); // Node.ELEMENT_NODE
        else if (type === 3) this.text(child.data, own); // Node.TEXT_NODE
      }
    }

    leave(depth) {
      if (this.written > depth) {
        this.out.close();
        this.written = depth;
      }
    }
  }

  function padOf(el) {
    const tag = el.localName;
    return LIST_TAGS.has(tag) || LIST_ROLES.has(firstRole(el)) ? ITEMS_PAD : 0;
  }

  function firstRole(el) {
    const attr = el.getAttribute('role');
    if (!attr) return '';
    const space = attr.indexOf(' ');
    return (space < 0 ? attr : attr.slice(0, space)).toLowerCase();
  }

  function hasDataAttribute(el) {
    if (!el.hasAttributes()) return false;
    const names = el.getAttributeNames();
    for (let i = 0, n = names.length; i < n; i += 1) if (names[i].startsWith('data-')) return true;
    return false;
  }

  /**
   * `request`: `{maxChars, ifChanged}`. When `ifChanged` is the page's current version, nothing is
   * written (docs/protocol.md, PageCapture).
   */
  function capture(request) {
    const options = typeof request === 'object' && request !== null ? request : {};
    const version = pageVersion();
    if (typeof options.ifChanged === 'string' && options.ifChanged === version) return { unchanged: true, version };
    const limit = Number.isInteger(options.maxChars) && options.maxChars > 0 ? options.maxChars : DEFAULT_MAX_CHARS;
    const out = new HtmlWriter(limit);
    const root = document.documentElement;
    listMarks = shared.listMarks();
    try {
      if (root) withLabelIndex(() => new CompactWalk(out).element(root, 0, null));
    } finally {
      listMarks = null;
    }
    const html = out.finish();
    const webmcp = currentWebmcpTools();
    return { url: location.href, title: document.title, html, truncated: out.truncated, version, webmcp };
  }

  // The main list's pager links, "Load more", sortable headers and page-size control (lists.js),
  // written as data-tabmcp-list while a capture runs.
  let listMarks = null;

  function serializeAttributes(el, interactive) {
    const state = formStateAttributes(el);
    let text = '';
    // getAttributeNames + getAttribute: no Attr objects (iterating el.attributes costs 1.5x more)
    const names = el.getAttributeNames();
    for (let i = 0, n = names.length; i < n; i += 1) {
      const name = names[i];
      if (OWN_ATTRIBUTES.has(name) || (state !== null && state.has(name)) || !SAFE_ATTRIBUTE_NAME.test(name)) continue;
      const value = el.getAttribute(name);
      text += ` ${name}="${escapeAttribute(value.length > ATTRIBUTE_MAX ? value.slice(0, ATTRIBUTE_MAX) : value)}"`;
    }
    if (state !== null) {
      for (const [name, value] of state) {
        if (value !== null) text += ` ${name}="${escapeAttribute(value)}"`;
      }
    }
    if (el === document.documentElement) text += ' data-tabmcp-capture="compact"'; // names are the agent's
    const mark = listMarks !== null ? listMarks.get(el) : undefined;
    if (mark !== undefined) text += ` data-tabmcp-list="${escapeAttribute(mark)}"`;
    if (interactive) {
      text += ` data-tabmcp-ref="${refFor(el)}"`;
      if (isHiddenForCapture(el)) {
        text += ' data-tabmcp-hidden="1"';
      } else {
        const name = cut(accName(el, roleOf(el), false), NAME_MAX);
        if (name) text += ` data-tabmcp-name="${escapeAttribute(name)}"`;
      }
    }
    return text;
  }

  // Only these tags, or an element with one of these attributes, can match CAPTURE_INTERACTIVE_SELECTOR:
  // most elements are ruled out without running the selector.
  const CAPTURE_INTERACTIVE_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'form', 'label', 'summary']);

  function isCaptureInteractive(el, tag) {
    if (!CAPTURE_INTERACTIVE_TAGS.has(tag) && (!el.hasAttributes() || (!el.hasAttribute('role')
      && !el.hasAttribute('tabindex') && !el.hasAttribute('contenteditable')))) return false;
    return el.matches(CAPTURE_INTERACTIVE_SELECTOR);
  }

  /** The live form state as attributes: name -> value, or null to drop the page's attribute. */
  function formStateAttributes(el) {
    const tag = el.localName;
    if (tag !== 'input' && tag !== 'option') return null;
    const state = new Map();
    if (el instanceof HTMLInputElement) {
      if (el.type === 'checkbox' || el.type === 'radio') state.set('checked', el.checked ? '' : null);
      // a typed password never leaves the page: the server learns only that one is filled in
      if (el.type === 'password') state.set('value', el.value ? '********' : null);
      else state.set('value', el.value.length > ATTRIBUTE_MAX ? el.value.slice(0, ATTRIBUTE_MAX) : el.value);
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

  Object.assign(shared, {
    capture, isHiddenForCapture,
  });
})();
