// tabmcp page agent: what the page says about the call just made (docs/page-agent.md §11,
// "Status"): its status banners (a success message, an alert, a toast, a live region) and the
// validation errors of its form fields, each under the field's name: the site's error next to a
// field, aria-invalid with the text it points to, and the browser's own message for a field its
// constraint validation stopped.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const { collapse, cut, isVisible } = shared;

  const BANNER_MAX = 300;
  const BANNERS_MAX = 5;
  const ERRORS_MAX = 20;
  const BANNER_SELECTOR = '[role=status], [role=alert], [aria-live=polite], [aria-live=assertive], .alert, .messages, '
    + '.messagelist, .flash, .flashes, .flash-message, .toast, .notification, .errornote, .callout';
  // Where sites write a field's error: Django's errorlist, Bootstrap's invalid-feedback, "…error…" classes.
  const ERROR_SELECTOR = '.errorlist, .invalid-feedback, .field-error, .field-errors, .form-error, .error-message, '
    + '.errormessage, .error, .errors, .has-error .help-block, .has-error .help-inline, .text-danger, [class*=error i]';
  const FIELD_SELECTOR = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]), select, textarea';
  const FIELD_SEARCH_DEPTH = 4;
  // A class token that names a message: a word of it (split at - and _) is one of these.
  const BANNER_CLASS = /(^|[\s_-])(alert|messages?|msg|flash|flashes|notice|notification|toast|errornote|callout)($|[\s_-])/i;
  const NOT_MESSAGES = 'a[href], button, [role=button], [role=link], nav, [role=navigation], label';

  const textOf = (el) => collapse(el.innerText || el.textContent || '');
  const CONTROL_WORDS = 'button, [role=button], [aria-hidden=true]';

  /** A banner's words without its close button's "×" (the text of buttons and hidden parts left out). */
  function bannerText(el) {
    if (!el.querySelector(CONTROL_WORDS)) return textOf(el);
    const copy = el.cloneNode(true);
    for (const control of copy.querySelectorAll(CONTROL_WORDS)) control.remove();
    return collapse(copy.textContent || '');
  }

  // The browser's validation stopped a submit: it fires `invalid` at each field it refused.
  const invalidSeen = [];
  window.addEventListener('invalid', (event) => {
    invalidSeen.push({ el: event.target, at: performance.now() });
    if (invalidSeen.length > 100) invalidSeen.shift();
  }, true);

  /** The field an error text belongs to: the one named control near it (in the same row of the form). */
  function fieldNear(el) {
    const form = el.closest('form');
    for (let node = el.parentElement, depth = 0; node && depth < FIELD_SEARCH_DEPTH; node = node.parentElement, depth += 1) {
      const fields = [...node.querySelectorAll(FIELD_SELECTOR)].filter((f) => f.name && isVisible(f));
      const names = new Set(fields.map((f) => f.name));
      if (names.size === 1) return fields[0];
      if (names.size > 1 || node === form) return null;
    }
    return null;
  }

  /** The error an invalid field points to: its aria-errormessage, or what it is described by that is an error. */
  function describedError(field) {
    const parts = [];
    const read = (ids, any) => {
      for (const id of (ids || '').split(/\s+/).filter(Boolean)) {
        const el = document.getElementById(id);
        if (el && isVisible(el) && textOf(el) && (any || el.matches(`${ERROR_SELECTOR}, [role=alert]`))) parts.push(el);
      }
    };
    read(field.getAttribute('aria-errormessage'), true);
    if (!parts.length) read(field.getAttribute('aria-describedby'), false);
    return parts;
  }

  /** An error text of the field's form that no field claimed, the nearest to it in document order. */
  function nearestError(field, candidates) {
    const form = field.form || field.closest('form');
    if (!form) return null;
    const order = [...form.querySelectorAll('*')];
    const at = order.indexOf(field);
    let best = null;
    for (const el of candidates) {
      const index = order.indexOf(el);
      if (index >= 0 && (best === null || Math.abs(index - at) < Math.abs(best.index - at))) best = { el, index };
    }
    return best && best.el;
  }

  /**
   * `{banners: [text], errors: [{field, message}]}`: field is the control's name. `since`: the
   * time the call began (performance.now()); the browser's refusals before it are old news.
   */
  function pageStatus(since = Infinity) {
    const errors = new Map(); // field name -> message
    const used = new Set(); // error elements already tied to a field
    const add = (field, message) => {
      const text = cut(collapse(message), BANNER_MAX);
      if (field && field.name && text && !errors.has(field.name) && errors.size < ERRORS_MAX) errors.set(field.name, text);
    };
    for (const { el, at } of invalidSeen) {
      if (at >= since && el.isConnected && el.validationMessage && !el.validity.valid) add(el, el.validationMessage);
    }
    const invalid = [...document.querySelectorAll('[aria-invalid=true]')].filter((f) => f.name && isVisible(f));
    for (const field of invalid) {
      const said = describedError(field);
      for (const el of said) used.add(el);
      if (said.length) add(field, said.map(textOf).join(' '));
    }
    const unclaimed = [];
    for (const el of document.querySelectorAll(ERROR_SELECTOR)) {
      if (used.has(el) || el.matches(FIELD_SELECTOR) || el.querySelector(FIELD_SELECTOR) || used.has(el.parentElement)) continue;
      if (el.matches(NOT_MESSAGES) || el.closest(NOT_MESSAGES)) continue; // a red link or button says nothing went wrong
      const text = textOf(el);
      if (!text || !isVisible(el)) continue;
      const field = fieldNear(el);
      if (field) {
        used.add(el);
        add(field, text);
      } else if (el.closest('form')) {
        unclaimed.push(el);
      }
    }
    // an invalid field whose error is not tied to it by markup: the form's nearest unclaimed error
    for (const field of invalid) {
      if (errors.has(field.name)) continue;
      const el = nearestError(field, unclaimed.filter((u) => !used.has(u)));
      if (el) {
        used.add(el);
        add(field, textOf(el));
      }
    }
    const banners = [];
    const kept = [];
    const candidates = new Set(document.querySelectorAll(`${BANNER_SELECTOR}, ${ERROR_SELECTOR}`));
    // a message class of the site's own ("ok-message", "flash-notice"), on one element: a class
    // found on several is the page's content (every message of a mailbox), not its banner
    const repeated = new Map();
    for (const el of document.querySelectorAll('[class]')) {
      if (typeof el.className !== 'string' || !BANNER_CLASS.test(el.className)) continue;
      candidates.add(el);
      repeated.set(el.className, (repeated.get(el.className) || 0) + 1);
    }
    for (const el of [...candidates].sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))) {
      if (kept.some((k) => k.contains(el)) || used.has(el) || [...used].some((u) => el.contains(u) || u.contains(el))) continue;
      if ((repeated.get(el.className) || 0) > 2 && !el.matches(BANNER_SELECTOR)) continue;
      if (el.matches(ERROR_SELECTOR) && !el.matches(BANNER_SELECTOR) && !BANNER_CLASS.test(String(el.className))
        && !el.closest('form')) continue;
      if (el.querySelector(FIELD_SELECTOR) || el.matches(NOT_MESSAGES) || !isVisible(el)) continue;
      const text = bannerText(el);
      // a live region around content is not a banner, nor a lone count or mark
      if (text.length < 3 || !/\p{L}/u.test(text) || text.length > 4 * BANNER_MAX) continue;
      kept.push(el);
      const line = cut(text, BANNER_MAX);
      if (!banners.includes(line)) banners.push(line);
      if (banners.length >= BANNERS_MAX) break;
    }
    return { banners, errors: [...errors].map(([field, message]) => ({ field, message })) };
  }

  Object.assign(shared, { pageStatus });
})();
