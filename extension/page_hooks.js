// tabmcp page hooks.
//
// Runs in every frame's MAIN world at document_start, before the page's own scripts (manifest
// content script with "world": "MAIN"). It does what only the page's own world can do:
// - console capture: wraps console.debug/log/info/warn/error and listens for uncaught errors and
//   unhandled rejections;
// - dialogs: replaces alert/confirm/prompt so they never block a tab the model drives;
// - WebMCP: document.modelContext / navigator.modelContext (a polyfill, or wrappers around the
//   browser's own), so the agent learns the tools the page declares and can run them.
// Everything goes to the page agent (agent/*.js, isolated world) as CustomEvents on window whose
// detail is a JSON string (objects do not cross worlds). The agent sets the dialog policy the same
// way. docs/page-agent.md §3 (Dialogs), §5 (Console) and "WebMCP" are the contract.
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
  const EventTargetCtor = EventTarget;
  const EventBase = Event;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const queueMicro = queueMicrotask;
  const defineProperty = Object.defineProperty;
  const DOMExceptionCtor = DOMException;
  const TypeErrorCtor = TypeError;
  const AbortControllerCtor = AbortController;
  const AbortSignalCtor = AbortSignal;

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
  // The page's own work while the agent watches a page tool's call (docs/page-agent.md §11): the
  // requests the page starts (fetch and the reading of its body, XMLHttpRequest) and the short
  // timers it sets (a render in pieces, a debounced search), each counted until it ends. Work set
  // in the callback of a timer that was not counted (a clock the page ran before) is not counted.
  // The agent turns counting on and off (WORK_EVENT {watching}) and hears every change of the count
  // (PENDING_EVENT {pending}). Timers whose callback carries UNCOUNTED are the agent's own.

  const WORK_EVENT = 'tabmcp:work';
  const PENDING_EVENT = 'tabmcp:pending';
  const UNCOUNTED = Symbol.for('tabmcp.uncounted');
  const WORK_TIMER_MAX_MS = 1000; // longer timers are a schedule (a poll, a reminder), not the call's work
  const pageSetTimeout = setTimeout;
  const pageClearTimeout = clearTimeout;
  const pageClearInterval = clearInterval;
  const pageFetch = fetch;
  const xhrSend = XMLHttpRequest.prototype.send;
  const MessageChannelCtor = MessageChannel;
  const apply = Reflect.apply;
  const work = new Set(); // keys of the counted work still pending
  let watching = false;
  let inTimer = null; // inside a timer's callback: whether that timer was counted; null outside any
  let lastWork = 0;

  const counting = () => watching && inTimer !== false;

  function startWork(key = `w${++lastWork}`) {
    work.add(key);
    emit(PENDING_EVENT, { pending: work.size });
    return key;
  }

  function endWork(key) {
    if (work.delete(key)) emit(PENDING_EVENT, { pending: work.size });
  }

  addListener.call(window, WORK_EVENT, (event) => {
    try {
      watching = parse(event.detail).watching === true;
    } catch {
      watching = false;
    }
    if (!watching) work.clear();
  }, true);

  /**
   * The page's promise, counted until it settles and one task after: what the page does with the
   * value in its own continuations (read the body, render) comes first, and is counted in turn.
   * The page gets a promise of its own: a rejection it leaves unhandled is still reported so.
   */
  function countedPromise(promise) {
    if (!counting()) return promise;
    const key = startWork();
    const end = () => {
      const channel = new MessageChannelCtor();
      channel.port1.onmessage = () => endWork(key);
      channel.port2.postMessage(null);
    };
    return promiseThen.call(promise, (value) => { end(); return value; }, (error) => { end(); throw error; });
  }

  const wrapped = (name, value) => defineProperty(value, 'name', { value: name });

  window.setTimeout = wrapped('setTimeout', function (handler, delay, ...args) {
    if (typeof handler !== 'function' || handler[UNCOUNTED]) return apply(pageSetTimeout, this, [handler, delay, ...args]);
    const counts = counting() && !(Number(delay) > WORK_TIMER_MAX_MS);
    let key = '';
    const id = apply(pageSetTimeout, this, [function () {
      const outer = inTimer;
      inTimer = counts;
      try {
        return apply(handler, this, args);
      } finally {
        inTimer = outer;
        endWork(key);
      }
    }, delay]);
    if (counts) key = startWork(`t${id}`);
    return id;
  });
  window.clearTimeout = wrapped('clearTimeout', function (id) {
    endWork(`t${id}`);
    return apply(pageClearTimeout, this, [id]);
  });
  window.clearInterval = wrapped('clearInterval', function (id) { // clears a timeout as well
    endWork(`t${id}`);
    return apply(pageClearInterval, this, [id]);
  });
  window.fetch = wrapped('fetch', function (...args) {
    return countedPromise(apply(pageFetch, this, args));
  });
  for (const name of ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text']) { // a response's body
    const read = Response.prototype[name];
    if (typeof read === 'function') {
      Response.prototype[name] = wrapped(name, function (...args) { return countedPromise(apply(read, this, args)); });
    }
  }
  XMLHttpRequest.prototype.send = wrapped('send', function (...args) {
    if (!counting()) return apply(xhrSend, this, args);
    const key = startWork();
    addListener.call(this, 'loadend', () => endWork(key), { once: true });
    try {
      return apply(xhrSend, this, args);
    } catch (error) {
      endWork(key);
      throw error;
    }
  });

  // -------------------------------------------------------------------------------------------
  // Shadow roots: tell the agent about each new one, so it can find closed roots on built-in
  // elements (chrome.dom.openOrClosedShadowRoot needs to know where to look) and the roots a text
  // search must visit.

  // Under the CDP driver the agent shares this world and has no chrome.dom to open closed roots
  // with, so they are kept for it here (docs/scaling.md: a page can reach them too). The driver's
  // binding exists before this script runs; the extension never has it.
  const closedRoots = typeof window.__tabmcpHostPost === 'function' ? new WeakMap() : null;
  if (closedRoots) defineProperty(window, Symbol.for('tabmcp.closedShadowRoots'), { value: closedRoots });

  if (typeof attachShadow === 'function') {
    Element.prototype.attachShadow = {
      attachShadow(init) {
        const root = attachShadow.call(this, init);
        if (closedRoots && init && init.mode === 'closed') closedRoots.set(this, root);
        emit(SHADOW_EVENT, { mode: init && init.mode === 'closed' ? 'closed' : 'open' }, this);
        return root;
      },
    }.attachShadow;
  }

  // -------------------------------------------------------------------------------------------
  // WebMCP: tools the page declares for AI agents (docs/page-agent.md "WebMCP").
  //
  // Without native support this installs the polyfill: one ModelContext reachable as both
  // document.modelContext (the current spec) and navigator.modelContext (older pages), with
  // registerTool(tool, {signal}), unregisterTool(name), provideContext({tools}), clearContext(),
  // getTools(), executeTool(), and the toolchange / toolactivated / toolcancel events. When the
  // browser has its own (Chromium with --enable-features=WebMCP), that object is kept and its
  // methods are wrapped: the native registry does the work, ours mirrors it. Either way `tools`
  // below holds every imperative tool, the agent hears the list (plain data) after each change,
  // batched per microtask, and the agent's calls run the page's own execute().

  const WEBMCP_TOOLS_EVENT = 'tabmcp:webmcp-tools'; // → agent: {tools: [{name, title?, description, inputSchema?, annotations?}]}
  const WEBMCP_SYNC_EVENT = 'tabmcp:webmcp-sync'; // ← agent: send the list again (it loaded late)
  const WEBMCP_CALL_EVENT = 'tabmcp:webmcp-call'; // ← agent: {callId, name, args}
  const WEBMCP_CANCEL_EVENT = 'tabmcp:webmcp-cancel'; // ← agent: {callId} (it stopped waiting)
  const WEBMCP_RESULT_EVENT = 'tabmcp:webmcp-result'; // → agent: {callId, ok, json, truncated?} | {callId, ok: false, code, message}
  const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
  const RESULT_MAX = 20000; // characters of the result's JSON
  const ANNOTATION_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint',
    'untrustedContentHint', 'consequentialHint', 'debugging'];
  const CONTEXT_EVENTS = ['toolchange', 'toolactivated', 'toolcancel'];

  /** name → {name, title, description, schema (JSON text or ''), annotations, execute, owner, controller} */
  const tools = new Map();
  const runningCalls = new Map(); // callId → {controller, name}
  let modelContext = null; // the object pages see (ours, or the browser's)
  let nativeMethods = null; // the browser's own methods, when it has WebMCP

  function fail(message) {
    return new DOMExceptionCtor(`Failed to execute 'registerTool' on 'ModelContext': ${message}`, 'InvalidStateError');
  }

  function typeError(message) {
    return new TypeErrorCtor(`Failed to execute 'registerTool' on 'ModelContext': ${message}`);
  }

  function readAnnotations(value) {
    if (value === null || typeof value !== 'object') return undefined;
    const out = {};
    let any = false;
    for (const key of ANNOTATION_KEYS) {
      if (value[key] === undefined) continue;
      out[key] = !!value[key];
      any = true;
    }
    return any ? out : undefined;
  }

  /** The tool's fields, read once (getters run once) and checked as the spec does; throws otherwise. */
  function readTool(tool) {
    if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) throw typeError('the tool is not an object.');
    const { name, title, description, inputSchema, execute, annotations } = tool;
    if (name === undefined) throw typeError("required member 'name' is undefined.");
    if (description === undefined) throw typeError("required member 'description' is undefined.");
    if (typeof execute !== 'function') throw typeError("'execute' is not a function.");
    const toolName = String(name);
    if (!TOOL_NAME.test(toolName)) throw fail('Invalid tool name: 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".".');
    const text = String(description);
    if (!text) throw fail('Empty tool description.');
    let schema = '';
    if (inputSchema !== undefined && inputSchema !== null) {
      if (typeof inputSchema !== 'object') throw typeError("'inputSchema' is not an object.");
      schema = stringify(inputSchema); // a circular schema throws here, as in the spec
      if (typeof schema !== 'string') throw typeError("'inputSchema' cannot be serialised to JSON.");
    }
    return {
      name: toolName,
      title: title === undefined || title === null ? '' : String(title),
      description: text,
      schema,
      annotations: readAnnotations(annotations),
      execute,
      owner: tool,
      controller: null,
    };
  }

  function plainTool(entry) {
    const out = { name: entry.name, description: entry.description };
    if (entry.title) out.title = entry.title;
    if (entry.schema) out.inputSchema = parse(entry.schema);
    if (entry.annotations) out.annotations = { ...entry.annotations };
    return out;
  }

  let reportQueued = false;

  function reportTools() {
    reportQueued = false;
    try {
      emit(WEBMCP_TOOLS_EVENT, { tools: [...tools.values()].map(plainTool) });
    } catch {
      // nothing the page did to its own objects may break the page
    }
  }

  function fireContextEvent(type, toolName) {
    if (!modelContext) return;
    try {
      const event = new EventBase(type);
      if (toolName !== undefined) defineProperty(event, 'toolName', { value: toolName, enumerable: true });
      dispatch.call(modelContext, event);
    } catch {
      // a throwing listener is reported by the browser; it must not stop ours
    }
  }

  /** After each change the page made: one toolchange (the polyfill's; the browser fires its own), one report per microtask. */
  function changed() {
    if (!nativeMethods) queueMicro(() => fireContextEvent('toolchange'));
    if (!reportQueued) {
      reportQueued = true;
      queueMicro(reportTools);
    }
  }

  function forget(entry) {
    if (tools.get(entry.name) !== entry) return false;
    tools.delete(entry.name);
    if (entry.controller) {
      try {
        entry.controller.abort(); // the browser's registry drops it too
      } catch {
        // the page's own abort listeners threw
      }
    }
    if (nativeMethods && nativeMethods.unregisterTool) {
      try {
        nativeMethods.unregisterTool.call(modelContext, entry.name); // an older native API without signals
      } catch {
        // already gone
      }
    }
    return true;
  }

  /** The registration's return value: a promise (the spec's), with the older API's unregister(). */
  function withUnregister(result, entry) {
    const handle = result !== null && (typeof result === 'object' || typeof result === 'function') ? result : PromiseCtor.resolve(result);
    if (typeof handle.unregister !== 'function') {
      try {
        defineProperty(handle, 'unregister', {
          value: function unregister() {
            if (forget(entry)) changed();
          },
          configurable: true,
          writable: true,
        });
      } catch {
        // a frozen object from the browser
      }
    }
    return handle;
  }

  function registerTool(tool, options) {
    let entry;
    try {
      entry = readTool(tool);
      if (tools.has(entry.name)) throw fail(`Duplicate tool name "${entry.name}".`);
    } catch (e) {
      // The browser reports the page's mistake in its own way (a rejected promise); ours throws.
      if (nativeMethods) return nativeMethods.registerTool.call(modelContext, tool, options);
      throw e;
    }
    return addTool(entry, options);
  }

  /** Registers a checked entry (readTool, no duplicate) with the page's options ({signal}). */
  function addTool(entry, options) {
    const signal = options !== null && typeof options === 'object' ? options.signal : undefined;
    if (signal !== undefined && signal !== null && !(signal instanceof AbortSignalCtor)) {
      throw typeError("'signal' is not an AbortSignal.");
    }
    if (signal && signal.aborted) {
      if (nativeMethods) return nativeMethods.registerTool.call(modelContext, entry.owner, options);
      return PromiseCtor.reject(signal.reason);
    }
    let result;
    if (nativeMethods) {
      // Registered with a signal of ours, so unregisterTool/provideContext/clearContext work on
      // a browser that only has registerTool.
      entry.controller = new AbortControllerCtor();
      result = nativeMethods.registerTool.call(modelContext, entry.owner, { ...options, signal: entry.controller.signal });
      if (result && typeof result.then === 'function') {
        promiseThen.call(PromiseCtor.resolve(result), undefined, () => {
          if (forget(entry)) changed();
        });
      }
    }
    tools.set(entry.name, entry);
    if (signal) {
      addListener.call(signal, 'abort', () => {
        if (forget(entry)) changed();
      }, { once: true });
    }
    changed();
    return withUnregister(result, entry);
  }

  function unregisterTool(name) {
    const entry = tools.get(String(name));
    if (entry && forget(entry)) changed();
    else if (nativeMethods && nativeMethods.unregisterTool) return nativeMethods.unregisterTool.call(modelContext, name);
    return undefined;
  }

  function clearContext() {
    let any = false;
    for (const entry of [...tools.values()]) any = forget(entry) || any;
    if (nativeMethods && nativeMethods.clearContext) nativeMethods.clearContext.call(modelContext);
    if (any) changed();
  }

  /** The older API: the page's whole tool set at once, replacing what it registered before. */
  function provideContext(context) {
    const list = context !== null && typeof context === 'object' && context.tools !== undefined ? context.tools : [];
    if (list === null || typeof list !== 'object' || typeof list[Symbol.iterator] !== 'function') {
      throw new TypeErrorCtor("Failed to execute 'provideContext' on 'ModelContext': 'tools' is not a sequence.");
    }
    const entries = [];
    const names = new Set();
    for (const tool of list) { // all or nothing: check every tool before replacing the set
      const entry = readTool(tool);
      if (names.has(entry.name)) throw fail(`Duplicate tool name "${entry.name}".`);
      names.add(entry.name);
      entries.push(entry);
    }
    clearContext();
    for (const entry of entries) addTool(entry);
  }

  function registeredTool(entry) {
    const out = {
      name: entry.name, title: entry.title, description: entry.description, origin: location.origin, window,
    };
    if (entry.schema) out.inputSchema = parse(entry.schema);
    if (entry.annotations) out.annotations = { ...entry.annotations };
    return out;
  }

  /** Runs the page's own execute(input, client): a promise of its value (a throw rejects it). */
  function runTool(entry, input, signal) {
    const client = {
      signal,
      // There is no user to ask: the callback just runs.
      requestUserInteraction(callback) {
        return new PromiseCtor((resolve) => {
          if (typeof callback !== 'function') throw new TypeErrorCtor('requestUserInteraction needs a function');
          resolve(callback());
        });
      },
    };
    fireContextEvent('toolactivated', entry.name);
    return new PromiseCtor((resolve) => resolve(entry.execute.call(entry.owner, input, client)));
  }

  /** Polyfill of the spec's consumer side: getTools() and executeTool(tool, input) → JSON text. */
  function getTools() {
    const list = [...tools.values()].map(registeredTool);
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return PromiseCtor.resolve(list);
  }

  function executeTool(tool, inputObject) {
    const entry = tool && tools.get(String(tool.name));
    if (!entry) return PromiseCtor.reject(new DOMExceptionCtor(`No tool named ${tool && tool.name}`, 'UnknownError'));
    let input;
    try {
      input = parse(stringify(inputObject === undefined ? {} : inputObject));
    } catch (e) {
      return PromiseCtor.reject(e);
    }
    const controller = new AbortControllerCtor();
    return promiseThen.call(runTool(entry, input, controller.signal), (value) => {
      const json = stringify(value);
      if (typeof json !== 'string') throw new DOMExceptionCtor('The tool result is not JSON-serialisable', 'UnknownError');
      return json;
    });
  }

  // The page-facing methods: the polyfill's prototype has them all; a native context gets the
  // mutating ones (wrapNative), and keeps its own getTools/executeTool.
  const MUTATORS = { registerTool, unregisterTool, provideContext, clearContext };

  class ModelContext extends EventTargetCtor {
    constructor() {
      super();
      const handlers = {};
      for (const type of CONTEXT_EVENTS) {
        handlers[type] = null;
        addListener.call(this, type, (event) => {
          if (typeof handlers[type] === 'function') handlers[type].call(this, event);
        });
        defineProperty(this, `on${type}`, {
          get: () => handlers[type],
          set: (value) => {
            handlers[type] = typeof value === 'function' || (value && typeof value === 'object') ? value : null;
          },
          enumerable: true,
          configurable: true,
        });
      }
    }
  }

  for (const [name, value] of Object.entries({ ...MUTATORS, getTools, executeTool })) {
    defineProperty(ModelContext.prototype, name, { value, writable: true, configurable: true });
  }

  function nativeContext() {
    for (const holder of [document, navigator]) {
      try {
        const context = holder.modelContext;
        if (context && typeof context.registerTool === 'function') return context;
      } catch {
        // a getter that throws is not an API we can use
      }
    }
    return null;
  }

  function exposeAs(proto, context) {
    try {
      if ('modelContext' in proto) return;
      defineProperty(proto, 'modelContext', {
        get: { modelContext() { return context; } }.modelContext,
        enumerable: true,
        configurable: true,
      });
    } catch {
      // a frozen prototype
    }
  }

  function wrapNative(context) {
    const original = (name) => (typeof context[name] === 'function' ? context[name] : null);
    nativeMethods = {
      registerTool: original('registerTool'),
      unregisterTool: original('unregisterTool'),
      clearContext: original('clearContext'),
    };
    for (const [name, value] of Object.entries(MUTATORS)) {
      defineProperty(context, name, { value, writable: true, configurable: true });
    }
  }

  function installWebmcp() {
    const native = nativeContext();
    if (native) {
      modelContext = native;
      wrapNative(native);
    } else {
      modelContext = new ModelContext();
    }
    exposeAs(Document.prototype, modelContext);
    exposeAs(Navigator.prototype, modelContext);
  }

  // -- the agent's side

  function errorText(error) {
    const text = preview(error, MAX_TEXT, 0);
    return text || 'the tool failed without a message';
  }

  function resultAnswer(callId, value) {
    let json;
    let reason = '';
    try {
      json = stringify(value === undefined ? null : value);
      if (typeof json !== 'string') reason = `it is ${typeof value === 'function' ? 'a function' : `a ${typeof value}`}`;
    } catch (e) {
      reason = errorText(e);
    }
    if (reason) {
      const text = `[The tool ran, but its result is not JSON-serialisable (${reason}); as text: ${preview(value, 2000, 0)}]`;
      return { callId, ok: true, json: stringify(text), notJson: true };
    }
    if (json.length <= RESULT_MAX) return { callId, ok: true, json };
    const marker = ` … [truncated: the result was ${json.length} characters of JSON, only the first part is shown]`;
    const whole = typeof value === 'string' ? value : json;
    let keep = RESULT_MAX - marker.length - 2;
    let text = '';
    for (let i = 0; i < 5; i += 1) { // escaping can lengthen the cut text: shrink until it fits
      text = stringify(whole.slice(0, keep) + marker);
      if (text.length <= RESULT_MAX) break;
      keep -= text.length - RESULT_MAX + 16;
    }
    return { callId, ok: true, json: text, truncated: true };
  }

  /** The agent's request (a JSON object in the event's detail), or null. */
  function requestOf(event) {
    try {
      const request = parse(event.detail);
      return request !== null && typeof request === 'object' ? request : null;
    } catch {
      return null;
    }
  }

  addListener.call(window, WEBMCP_SYNC_EVENT, () => reportTools(), true);

  addListener.call(window, WEBMCP_CALL_EVENT, (event) => {
    const request = requestOf(event);
    if (!request || typeof request.callId !== 'string') return;
    const { callId } = request;
    const name = String(request.name);
    const entry = tools.get(name);
    if (!entry) {
      const known = [...tools.keys()].slice(0, 20).join(', ') || 'none';
      const message = `The page has no WebMCP tool "${name}" now (its tools: ${known})`;
      emit(WEBMCP_RESULT_EVENT, { callId, ok: false, code: 'TOOL_NOT_FOUND', message });
      return;
    }
    const input = request.args !== null && typeof request.args === 'object' ? request.args : {};
    const controller = new AbortControllerCtor();
    runningCalls.set(callId, { controller, name });
    promiseThen.call(runTool(entry, input, controller.signal), (value) => {
      runningCalls.delete(callId);
      emit(WEBMCP_RESULT_EVENT, resultAnswer(callId, value));
    }, (error) => {
      runningCalls.delete(callId);
      emit(WEBMCP_RESULT_EVENT, { callId, ok: false, code: 'SCRIPT_ERROR', message: errorText(error) });
    });
  }, true);

  addListener.call(window, WEBMCP_CANCEL_EVENT, (event) => {
    const request = requestOf(event);
    const running = request && runningCalls.get(request.callId);
    if (!running) return;
    runningCalls.delete(request.callId);
    try {
      running.controller.abort(new DOMExceptionCtor('The agent stopped waiting for the tool', 'AbortError'));
    } catch {
      // the page's abort listener threw
    }
    fireContextEvent('toolcancel', running.name);
  }, true);

  installWebmcp();
  reportTools(); // an agent that is already listening learns that the hooks are here
})();
