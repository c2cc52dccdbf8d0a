// tabmcp page agent: the port to the service worker (or the CDP driver's binding): console entries,
// dialogs and crash detection; shadow roots that page_hooks.js announces.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    IS_TOP, DOC_ID, CONSOLE_EVENT, DIALOG_EVENT, SHADOW_EVENT, closedHosts, noteRoot, shadowRootOf, liveActions, agentTimer,
  } = shared;

  const PORT_NAME = 'tabmcp-agent';
  const PORT_RETRIES = 20;
  const CONSOLE_FLUSH_MS = 100;
  const CONSOLE_QUEUE_MAX = 1000;
  const CONSOLE_TEXT_MAX = 2000;
  const CONSOLE_LEVELS = new Set(['debug', 'log', 'info', 'warning', 'error', 'dialog']);

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
      agentTimer(openPort, 1000);
    }
  }

  // Under the CDP driver there is no extension: the driver exposes this binding instead of the
  // port (drivers/cdp/), and the agent sends the same messages through it as JSON.
  const HOST_BINDING = '__tabmcpHostPost';

  // Each message through the binding is numbered, and every answer says how many were posted
  // before it (agent_entry.js): the CDP driver may read answers on a faster connection than the
  // binding's, and waits for the reports an answer comes after before it returns that answer.
  let hostPosted = 0;

  function post(message) {
    const host = globalThis[HOST_BINDING];
    if (typeof host === 'function') {
      hostPosted += 1;
      try {
        host(JSON.stringify({ ...message, __doc: DOC_ID, __posted: hostPosted }));
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
    if (!flushTimer) flushTimer = agentTimer(flushConsole, CONSOLE_FLUSH_MS);
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

  Object.assign(shared, {
    openPort, HOST_BINDING, post, takeConsoleQueue, flushConsole, parseDetail, reportsPosted: () => hostPosted,
  });
})();
