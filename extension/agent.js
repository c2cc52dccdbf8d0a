// tabmcp page agent.
//
// Injected by background.js into a tab's ISOLATED world with chrome.scripting. It serialises the
// page (capture), performs plan steps (perform) and reads a short page summary (summary).
// background.js calls it through globalThis.__tabmcpAgent; injecting the file twice is harmless.
(() => {
  'use strict';

  if (globalThis.__tabmcpAgent) return;

  const VERSION = '0.1.0';
  const DEFAULT_MAX_CHARS = 1000000;
  const SUMMARY_MAX_CHARS = 2000;
  const AMBIGUOUS_LISTED = 5;
  const PORT_NAME = 'tabmcp-agent';
  const PORT_RETRIES = 20;

  // Content never serialised at all.
  const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template']);
  // Written as an empty element: the tag and its attributes (aria-label, say) carry the meaning.
  const CONTENTLESS_TAGS = new Set(['svg']);
  const VOID_TAGS = new Set([
    'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
    'track', 'wbr',
  ]);
  const INTERACTIVE_SELECTOR = [
    'a[href]', 'button', 'input', 'select', 'textarea', 'form', 'label', 'summary', '[role]',
    '[tabindex]', '[contenteditable=""]', '[contenteditable="true"]', '[contenteditable="plaintext-only"]',
  ].join(',');
  // Attributes the capture adds; a page's own copies are dropped so they cannot spoof refs.
  const OWN_ATTRIBUTES = new Set(['data-tabmcp-ref', 'data-tabmcp-hidden']);
  const SAFE_ATTRIBUTE_NAME = /^[^\s"'<>\/=]+$/;
  const UNFILLABLE_INPUT_TYPES = new Set(['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image']);
  const CHECKABLE_ROLES = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  // Legacy keyCodes: some pages still read event.keyCode instead of event.key.
  const KEY_CODES = {
    Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, ' ': 32,
    ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34,
  };

  /** A step failure with a protocol error code. */
  class StepError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Refs: e1, e2, ... handed out on first sight and kept for the element while the document lives.

  const refByElement = new WeakMap();
  const elementByRef = new Map();
  let lastRef = 0;

  function refFor(el) {
    let ref = refByElement.get(el);
    if (!ref) {
      lastRef += 1;
      ref = `e${lastRef}`;
      refByElement.set(el, ref);
      elementByRef.set(ref, new WeakRef(el));
    }
    return ref;
  }

  function elementForRef(ref) {
    const weak = elementByRef.get(ref);
    const el = weak && weak.deref();
    return el && el.isConnected ? el : null;
  }

  // -------------------------------------------------------------------------------------------
  // capture

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

  function capture(maxChars) {
    const limit = Number.isInteger(maxChars) && maxChars > 0 ? maxChars : DEFAULT_MAX_CHARS;
    const out = new HtmlWriter(limit);
    if (document.documentElement) writeNode(document.documentElement, out);
    const html = out.finish();
    return { url: location.href, title: document.title, html, truncated: out.truncated };
  }

  function writeNode(node, out) {
    if (out.truncated) return;
    if (node.nodeType === Node.TEXT_NODE) {
      out.write(escapeText(node.data));
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      writeElement(node, out);
    }
    // Comments, processing instructions and the doctype are left out.
  }

  function writeElement(el, out) {
    const tag = el.localName;
    if (SKIPPED_TAGS.has(tag)) return;
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
  function writeChildren(el, out) {
    if (el.shadowRoot) {
      for (const child of el.shadowRoot.childNodes) writeNode(child, out);
    }
    for (const child of el.childNodes) writeNode(child, out);
  }

  function serializeAttributes(el) {
    const state = formStateAttributes(el);
    let text = '';
    for (const { name, value } of el.attributes) {
      if (OWN_ATTRIBUTES.has(name) || state.has(name) || !SAFE_ATTRIBUTE_NAME.test(name)) continue;
      text += ` ${name}="${escapeAttribute(value)}"`;
    }
    for (const [name, value] of state) {
      if (value !== null) text += ` ${name}="${escapeAttribute(value)}"`;
    }
    if (el.matches(INTERACTIVE_SELECTOR)) {
      text += ` data-tabmcp-ref="${refFor(el)}"`;
      if (isHidden(el)) text += ' data-tabmcp-hidden="1"';
    }
    return text;
  }

  /** The live form state as attributes: name -> value, or null to drop the page's attribute. */
  function formStateAttributes(el) {
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

  function isHidden(el) {
    if (el instanceof HTMLInputElement && el.type === 'hidden') return true;
    if (typeof el.checkVisibility === 'function') return !el.checkVisibility({ checkVisibilityCSS: true });
    return el.getClientRects().length === 0;
  }

  function escapeText(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function escapeAttribute(value) {
    return escapeText(value).replace(/"/g, '&quot;');
  }

  // -------------------------------------------------------------------------------------------
  // Targets

  function resolveTarget(target) {
    if (target && typeof target.ref === 'string') return resolveRef(target.ref);
    if (target && typeof target.css === 'string') return resolveCss(target.css);
    throw new StepError('BAD_MESSAGE', 'The step needs a target {ref} or {css}');
  }

  function resolveRef(ref) {
    const el = elementForRef(ref);
    if (!el) {
      throw new StepError('ELEMENT_NOT_FOUND',
        `Ref ${ref} is stale or unknown: take a new capture/snapshot and use its refs`);
    }
    return el;
  }

  function resolveCss(css) {
    let matches;
    try {
      matches = document.querySelectorAll(css);
    } catch (e) {
      throw new StepError('ELEMENT_NOT_FOUND', `Invalid css selector ${JSON.stringify(css)}: ${e.message}`);
    }
    if (matches.length === 0) throw new StepError('ELEMENT_NOT_FOUND', `No element matches css ${JSON.stringify(css)}`);
    if (matches.length > 1) {
      const listed = [...matches].slice(0, AMBIGUOUS_LISTED).map(describeElement).join(', ');
      throw new StepError('ELEMENT_AMBIGUOUS',
        `css ${JSON.stringify(css)} matches ${matches.length} elements (use a ref or a narrower selector): ${listed}`);
    }
    return matches[0];
  }

  /** `<tag ref=eN name="…" id="…" text="…">`, for error messages. */
  function describeElement(el) {
    let text = `<${el.localName} ref=${refFor(el)}`;
    for (const name of ['name', 'id', 'type']) {
      const value = el.getAttribute(name);
      if (value) text += ` ${name}=${JSON.stringify(value)}`;
    }
    const label = collapse(el.innerText || el.value || el.getAttribute('aria-label') || '').slice(0, 40);
    if (label) text += ` text=${JSON.stringify(label)}`;
    return `${text}>`;
  }

  function collapse(text) {
    return String(text).replace(/\s+/g, ' ').trim();
  }

  // -------------------------------------------------------------------------------------------
  // Actions. Each throws StepError on failure. Anything that may navigate the page runs on a
  // timer, so executeScript returns the step's result before the document unloads.

  function assertEnabled(el, action) {
    if (el.disabled === true || el.matches(':disabled')) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Cannot ${action} ${describeElement(el)}: it is disabled`);
    }
  }

  function bringIntoView(el) {
    el.scrollIntoView({ block: 'center' });
    if (typeof el.focus === 'function') el.focus({ preventScroll: true });
  }

  function fireInputAndChange(el) {
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  // The prototype's setter, not el.value = …: frameworks (React) wrap the instance property and
  // would otherwise miss the change.
  function setNativeValue(el, value) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
  }

  function fill(step) {
    const el = resolveTarget(step.target);
    if (typeof step.value !== 'string') throw new StepError('BAD_MESSAGE', 'fill needs a string value');
    const isTextControl = (el instanceof HTMLInputElement && !UNFILLABLE_INPUT_TYPES.has(el.type))
      || el instanceof HTMLTextAreaElement;
    if (!isTextControl && !el.isContentEditable) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Cannot fill ${describeElement(el)}: not a text field`);
    }
    assertEnabled(el, 'fill');
    if (isTextControl && el.readOnly) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Cannot fill ${describeElement(el)}: it is read-only`);
    }
    bringIntoView(el);
    if (isTextControl) {
      setNativeValue(el, step.value);
    } else {
      el.textContent = step.value;
    }
    fireInputAndChange(el);
  }

  function select(step) {
    const el = resolveTarget(step.target);
    if (!(el instanceof HTMLSelectElement)) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Cannot select in ${describeElement(el)}: not a <select>`);
    }
    assertEnabled(el, 'select in');
    const wanted = String(step.value);
    const options = [...el.options];
    const option = options.find((o) => o.value === wanted)
      || options.find((o) => collapse(o.label || o.text).toLowerCase() === collapse(wanted).toLowerCase());
    if (!option) {
      const available = options.map((o) => JSON.stringify(o.value)).join(', ');
      throw new StepError('ELEMENT_NOT_FOUND',
        `No option ${JSON.stringify(wanted)} in ${describeElement(el)}; available values: ${available}`);
    }
    if (option.disabled) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Option ${JSON.stringify(option.value)} is disabled`);
    }
    bringIntoView(el);
    option.selected = true;
    fireInputAndChange(el);
  }

  function check(step) {
    const el = resolveTarget(step.target);
    if (typeof step.value !== 'boolean') throw new StepError('BAD_MESSAGE', 'check needs a boolean value');
    const isNative = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
    if (!isNative && !CHECKABLE_ROLES.has(el.getAttribute('role'))) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE', `Cannot check ${describeElement(el)}: not a checkbox or radio`);
    }
    assertEnabled(el, step.value ? 'check' : 'uncheck');
    const isChecked = () => (isNative ? el.checked : el.getAttribute('aria-checked') === 'true');
    if (isChecked() === step.value) return;
    bringIntoView(el);
    el.click(); // a click fires input/change (and the page's own handlers) like a user's
    // A radio cannot be unchecked by clicking it, and a handler may cancel the click.
    if (isNative && el.checked !== step.value) {
      throw new StepError('ELEMENT_NOT_INTERACTABLE',
        `Clicking ${describeElement(el)} did not ${step.value ? 'check' : 'uncheck'} it`);
    }
  }

  function click(step) {
    const el = resolveTarget(step.target);
    assertEnabled(el, 'click');
    bringIntoView(el);
    setTimeout(() => clickElement(el), 0);
  }

  // SVG elements have no click() method.
  function clickElement(el) {
    if (typeof el.click === 'function') {
      el.click();
    } else {
      el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, composed: true }));
    }
  }

  function isSubmitButton(el) {
    return (el instanceof HTMLButtonElement && el.type === 'submit')
      || (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
  }

  // requestSubmit runs validation and submit handlers as a user's submit would; the submitter
  // adds its name/value to the form data.
  function submitForm(form, submitter) {
    if (typeof form.requestSubmit !== 'function') {
      form.submit();
    } else if (submitter) {
      form.requestSubmit(submitter);
    } else {
      form.requestSubmit();
    }
  }

  function submit(step) {
    const el = resolveTarget(step.target);
    const form = el instanceof HTMLFormElement ? el : el.closest('form') || el.form;
    if (!form) {
      throw new StepError('ELEMENT_NOT_FOUND', `${describeElement(el)} is not a form and is not inside one`);
    }
    const submitter = isSubmitButton(el) && el.form === form && !el.disabled ? el : null;
    setTimeout(() => submitForm(form, submitter), 0);
  }

  function press(step) {
    if (typeof step.key !== 'string' || !step.key) throw new StepError('BAD_MESSAGE', 'press needs a key');
    const el = step.target ? resolveTarget(step.target) : document.activeElement || document.body;
    if (step.target) bringIntoView(el);
    const init = { key: step.key, bubbles: true, cancelable: true, composed: true };
    if (KEY_CODES[step.key]) Object.assign(init, { keyCode: KEY_CODES[step.key], which: KEY_CODES[step.key] });
    const notCancelled = el.dispatchEvent(new KeyboardEvent('keydown', init));
    if (notCancelled) el.dispatchEvent(new KeyboardEvent('keypress', init));
    el.dispatchEvent(new KeyboardEvent('keyup', init));
    // Synthetic key events have no default action, so Enter's implicit submission is done here.
    if (step.key === 'Enter' && notCancelled && el instanceof HTMLInputElement && el.form) {
      const form = el.form;
      const defaultButton = [...form.elements].find(isSubmitButton);
      if (!defaultButton || !defaultButton.disabled) setTimeout(() => submitForm(form, defaultButton), 0);
    }
  }

  const ACTIONS = new Map([
    ['fill', fill], ['select', select], ['check', check], ['click', click], ['submit', submit], ['press', press],
  ]);

  /** Runs one plan step: {ok: true} or {ok: false, code, message}. */
  function perform(step) {
    try {
      const action = step && typeof step === 'object' ? ACTIONS.get(step.action) : undefined;
      if (!action) {
        throw new StepError('BAD_MESSAGE', `Unknown action ${JSON.stringify(step && step.action)}`);
      }
      action(step);
      return { ok: true };
    } catch (e) {
      if (e instanceof StepError) return { ok: false, code: e.code, message: e.message };
      return { ok: false, code: 'INTERNAL', message: String((e && e.message) || e) };
    }
  }

  // -------------------------------------------------------------------------------------------
  // summary

  function summary() {
    const root = document.querySelector('main') || document.querySelector('[role=main]')
      || document.body || document.documentElement;
    const text = root ? collapse(root.innerText || root.textContent || '').slice(0, SUMMARY_MAX_CHARS) : '';
    return { url: location.href, title: document.title, text };
  }

  // -------------------------------------------------------------------------------------------
  // Crash detection: background.js watches this port; it drops when the renderer dies.

  let port = null;
  let portRetries = 0;

  function openPort() {
    if (port) return;
    try {
      port = chrome.runtime.connect({ name: PORT_NAME });
      port.onDisconnect.addListener(onPortDisconnect);
    } catch {
      port = null; // The extension was reloaded or removed: this agent is orphaned.
    }
  }

  // The port also drops when the service worker restarts or the page enters the back/forward
  // cache; reconnect so the new worker still hears about a crash. chrome.runtime.id is gone
  // once the extension itself was reloaded, and then there is nobody to reconnect to.
  function onPortDisconnect() {
    port = null;
    if (chrome.runtime && chrome.runtime.id && portRetries < PORT_RETRIES) {
      portRetries += 1;
      setTimeout(openPort, 1000);
    }
  }

  addEventListener('pageshow', (event) => {
    if (event.persisted && !port) openPort();
  });

  globalThis.__tabmcpAgent = Object.freeze({ version: VERSION, capture, perform, summary });
  openPort();
})();
