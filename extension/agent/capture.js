// tabmcp page agent: capture, a compact HTML document of what introspectors read (docs/introspectors.md,
// "The capture"): controls, forms, headings, landmarks, the shape of tables and lists, and the
// ancestors of all of those. Its size grows with the page's controls, not with its text.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    CAPTURE_INTERACTIVE_SELECTOR, refFor, pageVersion, currentWebmcpTools, accName, withLabelIndex, roleOf, cut,
    SHADOW_HOST_TAGS, INLINE_TAGS, widgetOf, shownByEditor, foldToggleOf, collapsedControls,
  } = shared;

  const DEFAULT_MAX_CHARS = 1000000;
  // Caps (docs/introspectors.md, "The capture").
  const NAME_MAX = 200; // data-tabmcp-name
  const NAMING_TEXT_MAX = 200; // the text inside one naming element (a label, a button, a heading…)
  const ITEM_TEXT_MAX = 200; // the text of one sampled row or list item, outside its naming elements
  const OWN_TEXT_MAX = 80; // the text directly inside any other emitted element
  const ATTRIBUTE_MAX = 1000; // one attribute value
  const SAMPLE_ITEMS = 3; // rows of a table, items of a list, kept with their text

  // What each tag is to the capture, one Map lookup per element (flags below); tags not listed (custom
  // elements…) are classified on first sight and remembered.
  const SKIPPED = 1; // not walked: script, style…
  const STRUCTURE = 2; // emitted wherever it is (with its ancestors), besides the interactive elements
  const CONTENT = 4; // kept inside a naming element or a sampled row
  const NAMING = 8; // its whole text is kept (capped): it is what names it
  const LIST = 16; // its items are counted and the first SAMPLE_ITEMS kept in full
  const VOID = 32; // never has content: written as an empty element
  const CONTENTLESS = 64; // its content is not for the capture: written as an empty element
  const CONTROL = 128; // always matches CAPTURE_INTERACTIVE_SELECTOR (by its tag alone)
  const SHADOW_HOST = 256; // may hold an open shadow root (custom elements too)
  const INLINE = 512; // only wraps text: inside a naming element it does not separate words
  const RENAMED = 1024; // not an XML name: written as RENAMED_TAG
  const RENAMED_TAG = 'tabmcp-element';

  const TAG_GROUPS = [
    [SKIPPED, ['script', 'style', 'noscript', 'template', 'head']],
    [STRUCTURE, [
      'html', 'body', 'form', 'fieldset', 'legend', 'label', 'select', 'option', 'optgroup', 'datalist', 'h1', 'h2',
      'h3', 'h4', 'h5', 'h6', 'header', 'footer', 'nav', 'main', 'aside', 'section', 'article', 'search', 'dialog',
      'details', 'summary', 'table', 'caption', 'th', 'ul', 'ol', 'menu', 'iframe', 'frame',
    ]],
    // inside a naming element or a sampled row, besides the above: the cells and items that give the
    // text its shape, images (their alt); others only wrap text, which is kept
    [CONTENT, ['tr', 'td', 'th', 'li', 'dt', 'dd', 'img']],
    [NAMING, [
      'a', 'button', 'label', 'legend', 'option', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'caption', 'th', 'summary',
      'figcaption', 'textarea',
    ]],
    [LIST, ['table', 'ul', 'ol', 'menu']],
    [VOID, [
      'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
    ]],
    [CONTENTLESS, ['svg', 'math', 'canvas', 'video', 'audio', 'picture', 'object']],
    // `a` only with an href: checked apart
    [CONTROL, ['button', 'input', 'select', 'textarea', 'form', 'label', 'summary']],
    [SHADOW_HOST, [...SHADOW_HOST_TAGS]],
    [INLINE, [...INLINE_TAGS]],
  ];
  const tagFlags = new Map();
  for (const [flag, tags] of TAG_GROUPS) for (const tag of tags) tagFlags.set(tag, (tagFlags.get(tag) || 0) | flag);

  // XML 1.0 names (ASCII and the usual letters beyond): what lxml's XML parser reads back.
  const XML_NAME = /^[A-Za-z_\u00C0-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD][\w.:\-\u00B7\u00C0-\u02FF\u0300-\u037D\u037F-\u1FFF\u200C\u200D\u203F\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]*$/;
  // xmlns and xml: attributes mean namespaces to an XML parser, nothing to an HTML page
  const XML_RESERVED = /^xml(ns)?(:|$)/i;

  function flagsOf(tag) {
    let flags = tagFlags.get(tag);
    if (flags === undefined) {
      flags = XML_NAME.test(tag) && !XML_RESERVED.test(tag) ? 0 : RENAMED;
      if (tag.includes('-')) flags |= SHADOW_HOST;
      tagFlags.set(tag, flags);
    }
    return flags;
  }

  // Attributes the capture adds; a page's own copies are dropped so they cannot spoof refs or names.
  const OWN_ATTRIBUTES = [
    'data-tabmcp-ref', 'data-tabmcp-hidden', 'data-tabmcp-name', 'data-tabmcp-items', 'data-tabmcp-capture', 'style',
    'data-tabmcp-widget', 'data-tabmcp-field', 'data-tabmcp-multiple', 'data-tabmcp-list', 'data-tabmcp-served',
    'data-tabmcp-folded',
  ];
  // Per attribute name: whether it is written (a page's own, and an XML name).
  const attributeNames = new Map(OWN_ATTRIBUTES.map((name) => [name, false]));

  function writesAttribute(name) {
    let ok = attributeNames.get(name);
    if (ok === undefined) {
      ok = XML_NAME.test(name) && !XML_RESERVED.test(name);
      attributeNames.set(name, ok);
    }
    return ok;
  }

  const NAMING_ROLES = new Set([
    'button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'heading', 'checkbox',
    'radio', 'switch', 'treeitem', 'columnheader', 'rowheader',
  ]);
  // Lists and tables: their items are counted (data-tabmcp-items) and the first SAMPLE_ITEMS kept in full.
  const LIST_ROLES = new Set(['list', 'grid', 'treegrid', 'table', 'listbox', 'feed', 'tree', 'menu', 'menubar', 'tablist']);
  const ITEM_ROLES = new Set([
    'listitem', 'row', 'option', 'treeitem', 'article', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
  ]);
  const ITEMS_PAD = 32; // room for ` data-tabmcp-items='…'`, written when the list closes

  /**
   * Accumulates the document within a character budget. Room for the closing tags of every open
   * element is reserved up front, so a truncated result is still well-formed and never longer than
   * the limit.
   */
  class Writer {
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

    write(text) {
      if (!this.fits(text.length)) return false;
      this.parts.push(text);
      this.length += text.length;
      return true;
    }

    /** pad: room kept for attributes added to this start tag when it closes (amend). */
    open(tag, attributes, pad) {
      const start = `<${tag}${attributes}>`;
      const closeLength = tag.length + 3 + pad;
      if (!this.fits(start.length + closeLength)) return -1;
      this.parts.push(start);
      this.length += start.length;
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
      const end = `</${tag}>`;
      this.parts.push(end);
      this.length += end.length;
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
      // per depth: the element, its tag as written, whether it gets a ref, the room its start tag
      // keeps for data-tabmcp-items, and the writer's index of its start tag (-1 while pending)
      this.stack = [];
      this.tags = [];
      this.interactive = [];
      this.pads = [];
      this.starts = [];
      this.written = 0; // stack[0 … written-1] have their start tag written
      // per depth, for an element named in its start tag: the name as written, and the writer's index
      // of the first part after the start tag (the name is dropped on leaving when the text is the same)
      this.names = [];
      this.firstParts = [];
      this.list = null; // the innermost list or table being walked: {items}
      this.itemDepth = 0; // > 0 inside a row or list item: data-* keys are kept there
    }

    /** Writes the start tags of the pending ancestors and el's own (el is stack[depth]). False once out of room. */
    emit(depth) {
      const { out, stack, starts } = this;
      for (let d = this.written; d <= depth; d += 1) {
        const index = out.open(this.tags[d], serializeAttributes(stack[d], this.interactive[d], d === 0, true), this.pads[d]);
        if (index < 0) return false;
        starts[d] = index;
        this.names[d] = writtenName;
        this.firstParts[d] = index + 1;
        this.written = d + 1;
      }
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
      const flags = flagsOf(tag);
      if (flags & SKIPPED) return;
      const interactive = (flags & CONTROL) !== 0 || isCaptureInteractive(el, tag);
      const role = interactive ? firstRole(el) : '';
      let keep = interactive || (flags & STRUCTURE) !== 0 || (budget !== null && (flags & CONTENT) !== 0)
        || (listMarks !== null && listMarks.has(el)); // a list mark on a plain element (a row clicked as a whole)
      // a data-* key inside a row or list item (how a site names its rows): kept, without its text
      const keyed = !keep && this.itemDepth > 0 && hasDataAttribute(el);
      const isList = (flags & LIST) !== 0 || (role !== '' && LIST_ROLES.has(role));
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
      if ((flags & NAMING) !== 0 || (role !== '' && NAMING_ROLES.has(role))) inner = { left: NAMING_TEXT_MAX };
      // a block left out inside a naming element or a row still separates the words around it
      else if (!keep && !keyed && inner !== null && (flags & INLINE) === 0) this.text(' ', inner);
      if ((flags & VOID) !== 0) { // never an ancestor: written whole, or not at all
        if ((keep || keyed) && (depth === 0 || this.emit(depth - 1))) {
          this.out.write(`<${tag}${serializeAttributes(el, interactive, false, false)}/>`);
        }
        return;
      }
      this.stack[depth] = el;
      this.tags[depth] = (flags & RENAMED) === 0 ? tag : RENAMED_TAG;
      this.interactive[depth] = interactive;
      this.pads[depth] = isList ? ITEMS_PAD : 0;
      this.starts[depth] = -1;
      if ((keep || keyed) && !this.emit(depth)) return;
      const outerList = this.list;
      if (isList) this.list = { items: 0 };
      if (isItem) this.itemDepth += 1;
      if (tag === 'textarea') {
        this.text(el.value, inner); // the current value, not the initial text
      } else if ((flags & CONTENTLESS) === 0) {
        const own = inner === null && keep ? { left: OWN_TEXT_MAX } : inner;
        const root = (flags & SHADOW_HOST) !== 0 ? el.shadowRoot : null;
        if (root) this.children(root, depth + 1, inner, own);
        this.children(el, depth + 1, inner, own);
      }
      if (isItem) this.itemDepth -= 1;
      if (isList) {
        if (this.written > depth && this.starts[depth] >= 0) {
          this.out.amend(this.starts[depth], ` data-tabmcp-items='${this.list.items}'`);
        }
        this.list = outerList;
      }
      if (this.written > depth) { // leave
        if (this.names[depth] !== null) this.dropNameLikeText(depth);
        this.out.close();
        this.written = depth;
      }
    }

    /**
     * The element at depth is named by the text written inside it (a link's, a button's): its name is
     * left out, the server reads that text instead (docs/introspectors.md, "The capture"). The parts
     * inside are text, or tags (which start with `<`: text is escaped); a long content is not compared.
     */
    dropNameLikeText(depth) {
      const { parts } = this.out;
      const name = this.names[depth];
      const first = this.firstParts[depth];
      if (parts.length - first > NAME_PARTS_COMPARED) return;
      let text = '';
      for (let i = first; i < parts.length; i += 1) if (parts[i].charCodeAt(0) !== 60) text += parts[i]; // '<'
      if (text !== name && (text.length <= name.length || text.replace(/ {2,}/g, ' ').trim() !== name)) return;
      const start = parts[this.starts[depth]];
      const attribute = ` data-tabmcp-name='${name}'`;
      const at = start.lastIndexOf(attribute);
      parts[this.starts[depth]] = start.slice(0, at) + start.slice(at + attribute.length);
      this.out.length -= attribute.length;
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

  // Parts inside a named element compared with its name (a naming element's content is short).
  const NAME_PARTS_COMPARED = 24;

  // Parsed by the server as XML (twice as fast as HTML): the declaration says so.
  const XML_DECLARATION = "<?xml version='1.0'?>";

  /**
   * `request`: `{maxChars, ifChanged}`. When `ifChanged` is the page's current version, nothing is
   * written (docs/protocol.md, PageCapture).
   */
  function capture(request) {
    const options = typeof request === 'object' && request !== null ? request : {};
    const version = pageVersion();
    if (typeof options.ifChanged === 'string' && options.ifChanged === version) return { unchanged: true, version };
    const limit = Number.isInteger(options.maxChars) && options.maxChars > 0 ? options.maxChars : DEFAULT_MAX_CHARS;
    const out = new Writer(limit);
    const root = document.documentElement;
    listMarks = shared.listMarks();
    try {
      if (root && out.write(XML_DECLARATION)) withLabelIndex(() => new CompactWalk(out).element(root, 0, null));
    } finally {
      listMarks = null;
      collapsed = null;
    }
    const html = out.finish();
    const webmcp = currentWebmcpTools();
    return { url: location.href, title: document.title, html, truncated: out.truncated, version, webmcp };
  }

  // The main list's pager links, "Load more", sortable headers and page-size control (lists.js),
  // written as data-tabmcp-list while a capture runs.
  let listMarks = null;
  // The page's collapsed controls and the parts they control (dom.js), read at a capture's first hidden field.
  let collapsed = null;

  // The name serializeAttributes last wrote, escaped as text (the walk compares it with the text inside), or null.
  let writtenName = null;

  /**
   * The start tag's attributes, single-quoted: the document crosses to the server as a JSON string,
   * where each double quote would be escaped (twice over CDP).
   */
  function serializeAttributes(el, interactive, isRoot, hasContent) {
    writtenName = null;
    let text = '';
    if (el.hasAttributes()) {
      const tag = el.localName;
      // the live form state replaces the page's attributes for it (written below)
      const input = tag === 'input' && el instanceof HTMLInputElement;
      const checkable = input && (el.type === 'checkbox' || el.type === 'radio');
      const option = tag === 'option' && el instanceof HTMLOptionElement;
      // getAttributeNames + getAttribute: no Attr objects (iterating el.attributes costs 1.5x more)
      const names = el.getAttributeNames();
      for (let i = 0, n = names.length; i < n; i += 1) {
        const name = names[i];
        if (!writesAttribute(name)) continue;
        if (input ? name === 'value' || (checkable && name === 'checked') : option && name === 'selected') continue;
        const value = el.getAttribute(name);
        text += ` ${name}='${escapeAttribute(value.length > ATTRIBUTE_MAX ? value.slice(0, ATTRIBUTE_MAX) : value)}'`;
      }
    }
    const tag = el.localName;
    if (tag === 'input' && el instanceof HTMLInputElement) text += inputState(el);
    else if (tag === 'option' && el instanceof HTMLOptionElement && el.selected) text += " selected=''";
    // names are the agent's; one left out is the element's text
    if (isRoot) text += " data-tabmcp-capture='compact-text'";
    const mark = listMarks !== null ? listMarks.get(el) : undefined;
    if (mark !== undefined) text += ` data-tabmcp-list='${escapeAttribute(mark)}'`;
    if (interactive) {
      text += ` data-tabmcp-ref='${refFor(el)}'`;
      if (servedFilled(el, tag)) text += " data-tabmcp-served='1'";
      // a field filled as a widget (widgets.js): a <select> a visible combobox stands in for, and a code
      // editor's hidden key taker, are named and shown as the fields they are
      const widget = widgetOf(el);
      if (widget) {
        text += ` data-tabmcp-widget='${widget.kind}'`;
        if (widget.field) text += ` data-tabmcp-field='${escapeAttribute(widget.field)}'`;
        if (widget.multiple) text += " data-tabmcp-multiple='1'";
      }
      const hidden = isHiddenForCapture(el) && !(widget && (widget.standsIn || shownByEditor(el)));
      // a field in a folded section is filled as a person fills it, the section unfolded first
      // (actions.js): it is named as a shown one
      if (hidden && collapsed === null) collapsed = collapsedControls(); // read once a capture
      const folded = hidden && foldToggleOf(el, collapsed) !== null;
      if (hidden) text += folded ? " data-tabmcp-hidden='1' data-tabmcp-folded='1'" : " data-tabmcp-hidden='1'";
      if ((!hidden || folded) && tag !== 'label') { // a label is named by its text, which the server reads
        let name = cut(accName(el, roleOf(el), false), NAME_MAX);
        // a library may move the <select>'s label to the combobox it put in its place; an editor's key
        // taker is named by the textarea it stands for
        if (!name && widget && widget.namedBy) name = cut(accName(widget.namedBy, roleOf(widget.namedBy), false), NAME_MAX);
        // a widget's root without a name of its own: the field typed into inside it (select2 3 labels that one)
        const inner = !name && widget && widget.standsIn ? widget.namedBy.querySelector('input:not([type="hidden"])') : null;
        if (inner) name = cut(accName(inner, roleOf(inner), false), NAME_MAX);
        // written even when empty if the element has content: the walk leaves it out if it is that content
        if (name || hasContent) {
          text += ` data-tabmcp-name='${escapeAttribute(name)}'`;
          if (hasContent && !ATTRIBUTE_ONLY.test(name)) writtenName = escapeText(name);
        }
      }
    }
    return text;
  }

  // Whether the page served a required field (or a radio) filled in: read from its default value, once
  // per element, so what the user types later never changes it (some pages copy the typed value into
  // the value attribute, which is the default value). The form's tool leaves such a field optional.
  const servedFields = new WeakMap();

  function servedFilled(el, tag) {
    const field = el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
    const radio = field && el.type === 'radio';
    if (!field || (!radio && !el.hasAttribute('required'))) {
      return false;
    }
    let filled = servedFields.get(el);
    if (filled === undefined) {
      filled = defaultFilled(el, tag);
      servedFields.set(el, filled);
    }
    return filled;
  }

  function defaultFilled(el, tag) {
    if (tag === 'textarea') return el.defaultValue.trim() !== '';
    if (tag === 'select') {
      const options = [...el.options];
      const chosen = options.filter((o) => o.defaultSelected);
      // without a selected attribute a single select shows its first option
      if (!chosen.length && !el.multiple) chosen.push(options.find((o) => !o.disabled));
      return chosen.some((o) => o && o.value.trim() !== '');
    }
    if (el.type === 'checkbox' || el.type === 'radio') return el.defaultChecked;
    return el.type !== 'file' && el.defaultValue.trim() !== '';
  }

  /** An input's live state as attributes: `checked`, and `value` (a typed password never leaves the
   * page: the server learns only that one is filled in). */
  function inputState(el) {
    const type = el.type;
    let text = (type === 'checkbox' || type === 'radio') && el.checked ? " checked=''" : '';
    const value = el.value;
    if (type === 'password') {
      if (value) text += " value='********'";
    } else {
      text += ` value='${escapeAttribute(value.length > ATTRIBUTE_MAX ? value.slice(0, ATTRIBUTE_MAX) : value)}'`;
    }
    return text;
  }

  function isCaptureInteractive(el, tag) {
    // the controls by tag are flagged CONTROL; else only an a[href], or an element with one of
    // these attributes, can match CAPTURE_INTERACTIVE_SELECTOR: most elements are ruled out
    // without running the selector
    if (tag === 'a') return el.hasAttribute('href') || el.matches(CAPTURE_INTERACTIVE_SELECTOR);
    if (!el.hasAttributes() || (!el.hasAttribute('role') && !el.hasAttribute('tabindex')
      && !el.hasAttribute('contenteditable') && !el.hasAttribute('aria-expanded'))) return false;
    return el.matches(CAPTURE_INTERACTIVE_SELECTOR);
  }

  const CAPTURE_VISIBILITY = { checkVisibilityCSS: true };

  /** data-tabmcp-hidden; the live fingerprint reads it too, so both agree on what is rendered. */
  function isHiddenForCapture(el) {
    return (el.localName === 'input' && el.type === 'hidden') || !el.checkVisibility(CAPTURE_VISIBILITY);
  }

  // What XML cannot hold: control characters, unpaired surrogates, U+FFFE/U+FFFF. Dropped.
  const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const TEXT_SPECIALS = /[&<>\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
  // What an attribute escapes and text does not: a name holding one is never compared with text.
  const ATTRIBUTE_ONLY = /['\t\n\r]/;
  const ATTRIBUTE_SPECIALS = /[&<>'\x00-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;

  function escapeText(text) {
    if (!TEXT_SPECIALS.test(text)) return text; // most text needs nothing: one scan instead of several
    return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function escapeAttribute(value) {
    if (!ATTRIBUTE_SPECIALS.test(value)) return value;
    // tabs and line breaks as references: an XML parser would read them back as spaces
    return escapeText(value).replace(/'/g, '&#39;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;')
      .replace(/\r/g, '&#13;');
  }

  Object.assign(shared, {
    capture, isHiddenForCapture,
  });
})();
