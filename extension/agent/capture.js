// tabmcp page agent: capture, the DOM serialised as HTML for introspection.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    CAPTURE_INTERACTIVE_SELECTOR, refFor, pageVersion, currentWebmcpTools,
  } = shared;

  const DEFAULT_MAX_CHARS = 1000000;
  // Content for capture: written as an empty element.
  const CONTENTLESS_TAGS = new Set(['svg']);
  const VOID_TAGS = new Set([
    'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
    'track', 'wbr',
  ]);
  // Attributes the capture adds; a page's own copies are dropped so they cannot spoof refs.
  const OWN_ATTRIBUTES = new Set(['data-tabmcp-ref', 'data-tabmcp-hidden']);
  const SAFE_ATTRIBUTE_NAME = /^[^\s"'<>\/=]+$/;

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
    const webmcp = currentWebmcpTools();
    return { url: location.href, title: document.title, html, truncated: out.truncated, version, webmcp };
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

  Object.assign(shared, {
    capture, isHiddenForCapture,
  });
})();
