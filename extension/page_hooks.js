// tabmcp page hooks.
//
// Runs in every frame's MAIN world at document_start, before the page's own scripts (manifest
// content script with "world": "MAIN"). It does what only the page's own world can do:
// - console capture: wraps console.debug/log/info/warn/error and listens for uncaught errors and
//   unhandled rejections;
// - dialogs: replaces alert/confirm/prompt so they never block a tab the model drives.
// Everything goes to the page agent (agent.js, isolated world) as CustomEvents on window whose
// detail is a JSON string (objects do not cross worlds). The agent sets the dialog policy the same
// way. docs/page-agent.md §3 (Dialogs) and §5 (Console) are the contract.
(() => {
  'use strict';

  // Loaded twice (an extension reload re-injects it): keep the first copy's hooks.
  const INSTALLED = Symbol.for('tabmcp.pageHooks');
  if (window[INSTALLED]) return;
  Object.defineProperty(window, INSTALLED, { value: true });

  const CONSOLE_EVENT = 'tabmcp:console';
  const DIALOG_EVENT = 'tabmcp:dialog';
  const POLICY_EVENT = 'tabmcp:policy';
  const SHADOW_EVENT = 'tabmcp:shadow';
  const MAX_TEXT = 2000;
  const LEVELS = { debug: 'debug', log: 'log', info: 'info', warn: 'warning', error: 'error' };

  // The page may replace any of these later; keep the originals.
  const dispatch = EventTarget.prototype.dispatchEvent;
  const addListener = EventTarget.prototype.addEventListener;
  const EventCtor = CustomEvent;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const now = Date.now;
  const ErrorCtor = Error;
  const objectToString = Object.prototype.toString;
  const attachShadow = Element.prototype.attachShadow;

  function emit(type, payload, target = window) {
    try {
      dispatch.call(target, new EventCtor(type, { detail: stringify(payload), bubbles: target !== window, composed: true }));
    } catch {
      // A page that broke JSON or events must not break its own console calls.
    }
  }

  // -------------------------------------------------------------------------------------------
  // Formatting console arguments roughly as DevTools shows them, within a character budget.

  function preview(value, budget, depth) {
    if (typeof value === 'string') return value.slice(0, budget);
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean'
      || typeof value === 'bigint' || typeof value === 'symbol') return String(value);
    if (typeof value === 'function') return `ƒ ${value.name || 'anonymous'}()`;
    try {
      if (value instanceof ErrorCtor) return `${value.name}: ${value.message}`;
      if (typeof Node === 'function' && value instanceof Node) {
        if (value.nodeType !== 1) return value.nodeName;
        const id = value.id ? `#${value.id}` : '';
        return `<${value.localName}${id}>`;
      }
      if (depth >= 3) return Array.isArray(value) ? '[…]' : '{…}';
      let out = Array.isArray(value) ? '[' : '{';
      let first = true;
      for (const key of Object.keys(value)) {
        if (out.length >= budget) return `${out}…`;
        const item = preview(value[key], budget - out.length, depth + 1);
        const shown = typeof value[key] === 'string' && depth > 0 ? stringify(item) : item;
        out += `${first ? '' : ', '}${Array.isArray(value) ? '' : `${key}: `}${shown}`;
        first = false;
      }
      return out + (Array.isArray(value) ? ']' : '}');
    } catch {
      return objectToString.call(value);
    }
  }

  /** console.log('%s is %d', a, b) substitution, then the remaining arguments. */
  function formatArgs(args) {
    const rest = [...args];
    let text = '';
    if (typeof rest[0] === 'string' && rest[0].includes('%')) {
      const format = rest.shift();
      text = format.replace(/%[sdifoOc%]/g, (spec) => {
        if (spec === '%%') return '%';
        if (!rest.length) return spec;
        const arg = rest.shift();
        if (spec === '%c') return '';
        if (spec === '%d' || spec === '%i') return String(parseInt(arg, 10));
        if (spec === '%f') return String(parseFloat(arg));
        return preview(arg, MAX_TEXT, 0);
      });
    }
    for (const arg of rest) {
      if (text.length >= MAX_TEXT) break;
      text += (text ? ' ' : '') + preview(arg, MAX_TEXT - text.length, 0);
    }
    return text.slice(0, MAX_TEXT);
  }

  // "    at fn (http://x/app.js:3:9)" or "    at http://x/app.js:3:9" -> "http://x/app.js:3:9"
  function frameLocation(line) {
    const match = /\(?((?:[a-z-]+:\/\/|\/)[^\s()]*:\d+:\d+)\)?\s*$/i.exec(line || '');
    return match ? match[1] : '';
  }

  /**
   * The page's call site, `skip` frames up: lines[0] is "Error", [1] callerLocation itself, then
   * our own frames, then the page's.
   */
  function callerLocation(skip) {
    const lines = (new ErrorCtor().stack || '').split('\n');
    return frameLocation(lines[skip + 1]);
  }

  function errorLocation(error) {
    if (!error || typeof error.stack !== 'string') return '';
    const lines = error.stack.split('\n');
    for (const line of lines.slice(1)) {
      const location = frameLocation(line);
      if (location) return location;
    }
    return '';
  }

  function report(level, text, source) {
    emit(CONSOLE_EVENT, { level, text: String(text).slice(0, MAX_TEXT), time: now(), source: source || '' });
  }

  for (const [method, level] of Object.entries(LEVELS)) {
    const original = console[method];
    if (typeof original !== 'function') continue;
    const wrapper = {
      [method](...args) {
        try {
          report(level, formatArgs(args), callerLocation(2)); // [2] this wrapper
        } catch {
          // never let capture break the page's logging
        }
        return original.apply(this, args);
      },
    }[method];
    console[method] = wrapper;
  }

  addListener.call(window, 'error', (event) => {
    if (!(event instanceof ErrorEvent)) return; // a resource that failed to load, not a script error
    const source = event.filename ? `${event.filename}:${event.lineno}:${event.colno}` : errorLocation(event.error);
    report('error', event.message || preview(event.error, MAX_TEXT, 0), source);
  }, true);

  addListener.call(window, 'unhandledrejection', (event) => {
    const reason = event.reason;
    report('error', `Uncaught (in promise) ${preview(reason, MAX_TEXT, 0)}`, errorLocation(reason));
  }, true);

  // -------------------------------------------------------------------------------------------
  // Dialogs. The agent sets the policy around each action; otherwise dialogs are dismissed.

  const DISMISS = { mode: 'dismiss', promptText: null, until: 0 };
  let policy = DISMISS;

  addListener.call(window, POLICY_EVENT, (event) => {
    try {
      const next = parse(event.detail);
      const mode = next && next.mode === 'accept' ? 'accept' : 'dismiss';
      const promptText = next && typeof next.promptText === 'string' ? next.promptText : null;
      const until = next && typeof next.ms === 'number' ? now() + next.ms : 0;
      policy = { mode, promptText, until };
    } catch {
      policy = DISMISS;
    }
  }, true);

  function currentPolicy() {
    if (policy.until && now() > policy.until) policy = DISMISS;
    return policy;
  }

  function answerDialog(type, message, defaultValue) {
    const { mode, promptText } = currentPolicy();
    let answer = null;
    if (type === 'confirm') answer = mode === 'accept';
    if (type === 'prompt' && mode === 'accept') {
      answer = promptText !== null ? promptText : String(defaultValue === undefined ? '' : defaultValue);
    }
    const text = message === undefined ? '' : String(message);
    emit(DIALOG_EVENT, { type, message: text.slice(0, MAX_TEXT), answer });
    const shown = type === 'alert' ? '' : ` → ${answer === null ? 'null' : stringify(answer)}`;
    report('dialog', `${type}: ${text}${shown}`, callerLocation(3)); // answerDialog, alert/confirm/prompt
    return answer;
  }

  const dialogs = {
    alert(message) {
      answerDialog('alert', message);
    },
    confirm(message) {
      return answerDialog('confirm', message);
    },
    prompt(message, defaultValue) {
      return answerDialog('prompt', message, defaultValue);
    },
  };
  for (const name of ['alert', 'confirm', 'prompt']) {
    Object.defineProperty(window, name, { value: dialogs[name], writable: true, configurable: true });
  }

  // -------------------------------------------------------------------------------------------
  // Shadow roots: tell the agent about each new one, so it can find closed roots on built-in
  // elements (chrome.dom.openOrClosedShadowRoot needs to know where to look) and the roots a text
  // search must visit.

  if (typeof attachShadow === 'function') {
    Element.prototype.attachShadow = {
      attachShadow(init) {
        const root = attachShadow.call(this, init);
        emit(SHADOW_EVENT, { mode: init && init.mode === 'closed' ? 'closed' : 'open' }, this);
        return root;
      },
    }.attachShadow;
  }
})();
