// tabmcp service worker.
//
// Connects to the tabmcp server's WebSocket as a client, reports tab events, and answers the
// server's requests by driving tabs and the page agent (agent.js). The wire protocol is
// docs/protocol.md; every frame sent here must match it exactly, because the server validates
// each one.
'use strict';

const DEFAULT_SERVER_URL = 'ws://127.0.0.1:8765';
// Written by the Python launcher into its copy of the extension; absent in the repo.
const CONFIG_FILE = 'tabmcp-config.json';

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 5000;
const PING_INTERVAL_MS = 20000;
const RECONNECT_ALARM = 'tabmcp-reconnect';
// The server closes the older socket with this reason when another extension links up.
const REPLACED_REASON = 'replaced by a newer connection';

const OPEN_TAB_TIMEOUT_MS = 15000;
const LOADING_WAIT_MS = 10000;
const NAVIGATION_GRACE_MS = 400;
const NAVIGATION_TIMEOUT_MS = 15000;
const ABORT_SETTLE_MS = 150;
const CRASH_CHECK_DELAY_MS = 300;
const DEFAULT_MAX_CHARS = 1000000;

const AGENT_PORT_NAME = 'tabmcp-agent';
const AGENT_FILE = 'agent.js';

const log = (...args) => console.debug('[tabmcp]', ...args);

/** An error that becomes an `error` frame with this code. */
class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Server URL and browser identity

async function resolveServerUrl() {
  try {
    const { serverUrl } = await chrome.storage.local.get('serverUrl');
    if (typeof serverUrl === 'string' && serverUrl) return serverUrl;
  } catch (e) {
    log('storage.local unavailable', e);
  }
  const fromFile = await readConfigFileUrl();
  return fromFile || DEFAULT_SERVER_URL;
}

// The config file never changes while the extension runs, so read it once per worker lifetime.
let configFileUrl;
async function readConfigFileUrl() {
  if (configFileUrl === undefined) {
    configFileUrl = null;
    try {
      const response = await fetch(chrome.runtime.getURL(CONFIG_FILE));
      if (response.ok) {
        const config = await response.json();
        if (typeof config.serverUrl === 'string' && config.serverUrl) configFileUrl = config.serverUrl;
      }
    } catch {
      // No config file: the normal case for the unpacked repo copy.
    }
  }
  return configFileUrl;
}

const browserInfo = detectBrowser();

async function detectBrowser() {
  const ua = navigator.userAgent || '';
  const uaVersion = (ua.match(/(?:HeadlessChrome|Chrome|Chromium)\/([\d.]+)/) || [])[1] || '';
  const uaData = navigator.userAgentData;
  if (!uaData) return { name: /Chromium\//.test(ua) ? 'Chromium' : 'Chrome', version: uaVersion };

  const brands = uaData.brands.map((b) => b.brand);
  const brand = brands.includes('Google Chrome') ? 'Google Chrome'
    : brands.includes('Microsoft Edge') ? 'Microsoft Edge' : 'Chromium';
  const name = { 'Google Chrome': 'Chrome', 'Microsoft Edge': 'Edge', Chromium: 'Chromium' }[brand];
  let version = uaVersion;
  try {
    // The user agent string is reduced to MAJOR.0.0.0; the full version needs high-entropy hints.
    const { fullVersionList } = await uaData.getHighEntropyValues(['fullVersionList']);
    const entry = fullVersionList.find((b) => b.brand === brand)
      || fullVersionList.find((b) => b.brand === 'Chromium');
    if (entry) version = entry.version;
  } catch (e) {
    log('no full version list', e);
  }
  return { name, version };
}

// ---------------------------------------------------------------------------------------------
// Connection

/** The live link: {ws, helloSent, pingTimer, ready (resolves once hello went out)}. */
let link = null;
let connectInFlight = false;
let reconnectTimer = null;
let backoffMs = BACKOFF_START_MS;

async function connect() {
  if (link || connectInFlight) return;
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  connectInFlight = true;
  try {
    if (await isStandingDown()) return;
    const url = await resolveServerUrl();
    openSocket(url);
  } catch (e) {
    log('connect failed', e);
    scheduleReconnect();
  } finally {
    connectInFlight = false;
  }
}

function openSocket(url) {
  const ws = new WebSocket(url);
  let markReady;
  const ready = new Promise((resolve) => { markReady = resolve; });
  const current = { ws, helloSent: false, pingTimer: null, ready, markReady };
  link = current;
  ws.onopen = () => onSocketOpen(current).catch((e) => log('open handler failed', e));
  ws.onmessage = (event) => onSocketMessage(current, event.data).catch((e) => log('message handler failed', e));
  ws.onclose = (event) => onSocketClose(current, event);
  ws.onerror = () => {}; // A close event always follows; that is where we reconnect.
  log('connecting to', url);
}

async function onSocketOpen(current) {
  if (link !== current) return;
  backoffMs = BACKOFF_START_MS;
  const browser = await browserInfo;
  sendOn(current, { type: 'hello', extension: { version: chrome.runtime.getManifest().version }, browser });
  current.helloSent = true;
  current.markReady();
  current.pingTimer = setInterval(() => sendOn(current, { type: 'ping' }), PING_INTERVAL_MS);
  log('linked');
}

function onSocketClose(current, event) {
  clearInterval(current.pingTimer);
  current.markReady(); // Unblocks queued message handlers; their answers are dropped.
  if (link !== current) return;
  link = null;
  log('socket closed', event.code, event.reason);
  if (event.reason === REPLACED_REASON) {
    standDown();
  } else {
    scheduleReconnect();
  }
}

function scheduleReconnect() {
  if (reconnectTimer) return;
  const delay = backoffMs;
  backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
  reconnectTimer = setTimeout(() => {
    reconnectTimer = null;
    connect();
  }, delay);
}

// Another browser's extension took the link over. Reconnecting would take it back, and the two
// would keep stealing it from each other, so this browser stays quiet for the rest of its session.
function standDown() {
  log('replaced by another extension; not reconnecting in this browser session');
  chrome.storage.session.set({ standingDown: true }).catch((e) => log('storage.session', e));
}

async function isStandingDown() {
  try {
    const { standingDown } = await chrome.storage.session.get('standingDown');
    return standingDown === true;
  } catch {
    return false;
  }
}

function isOpen(current) {
  return Boolean(current) && current.ws.readyState === WebSocket.OPEN;
}

function sendOn(current, frame) {
  if (!isOpen(current)) {
    log('dropped (socket not open)', frame.type);
    return false;
  }
  current.ws.send(JSON.stringify(frame));
  return true;
}

/** Sends an unsolicited event; events are dropped, not queued, while unlinked. */
function sendEvent(frame) {
  if (link && link.helloSent) sendOn(link, frame);
}

// ---------------------------------------------------------------------------------------------
// Incoming frames

const REQUEST_HANDLERS = new Map([
  ['connect', handleConnect],
  ['openTab', handleOpenTab],
  ['focusTab', handleFocusTab],
  ['closeTab', handleCloseTab],
  ['capture', handleCapture],
  ['callTool', handleCallTool],
]);

async function onSocketMessage(current, raw) {
  await current.ready; // `hello` must be the first frame we send.
  const answer = (frame) => sendOn(current, frame);

  let msg;
  try {
    msg = JSON.parse(raw);
  } catch {
    answer(errorFrame(undefined, 'BAD_MESSAGE', 'Frame is not valid JSON'));
    return;
  }
  const isObject = msg !== null && typeof msg === 'object' && !Array.isArray(msg);
  const id = isObject && typeof msg.id === 'string' ? msg.id : undefined;
  if (!isObject || typeof msg.type !== 'string') {
    answer(errorFrame(id, 'BAD_MESSAGE', 'Frame is not a JSON object with a string "type"'));
    return;
  }
  if (msg.type === 'pong') return;
  if (msg.type === 'error') {
    log('server reported an error', msg.code, msg.message);
    return;
  }
  const handler = REQUEST_HANDLERS.get(msg.type);
  if (!handler) {
    answer(errorFrame(id, 'UNKNOWN_TYPE', `Unknown message type "${msg.type}"`));
    return;
  }
  if (id === undefined) {
    answer(errorFrame(undefined, 'BAD_MESSAGE', `"${msg.type}" request has no string "id"`));
    return;
  }
  answer(await runHandler(handler, msg, id));
}

/** Runs a request handler and always produces an answer frame carrying the request's id. */
async function runHandler(handler, msg, id) {
  try {
    const { type, ...fields } = await handler(msg);
    return { type, id, ...fields };
  } catch (e) {
    if (e instanceof ProtocolError) return errorFrame(id, e.code, e.message);
    log('handler crashed', msg.type, e);
    return errorFrame(id, 'INTERNAL', `${msg.type} failed: ${e && e.message ? e.message : String(e)}`);
  }
}

function errorFrame(id, code, message) {
  const frame = { type: 'error' };
  if (id !== undefined) frame.id = id;
  frame.code = code;
  frame.message = message;
  return frame;
}

// Field checks: the server validates what it sends, but a bad frame must still get an answer.
function badField(msg, field, expected) {
  return new ProtocolError('BAD_MESSAGE', `"${msg.type}" needs ${expected} "${field}"`);
}

function requireTabId(msg) {
  if (!Number.isInteger(msg.tabId)) throw badField(msg, 'tabId', 'an integer');
  return msg.tabId;
}

// ---------------------------------------------------------------------------------------------
// Tabs

function tabInfo(tab) {
  const status = ['loading', 'complete', 'unloaded'].includes(tab.status) ? tab.status : 'loading';
  return {
    id: tab.id,
    windowId: tab.windowId,
    title: tab.title || '',
    url: tab.url || tab.pendingUrl || '',
    status,
    active: Boolean(tab.active),
  };
}

async function getTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
  }
}

async function focusWindow(windowId) {
  try {
    await chrome.windows.update(windowId, { focused: true });
  } catch (e) {
    log('could not focus window', windowId, e); // Best effort: the tab is active either way.
  }
}

// ---------------------------------------------------------------------------------------------
// Navigation watching
//
// One set of top-level listeners feeds every active NavigationWatcher, so a watcher is already
// listening before the action that may navigate (creating a tab, running a step) happens.

const watchers = new Set();

function notifyWatchers(tabId, kind, detail) {
  for (const watcher of watchers) watcher.receive(tabId, kind, detail);
}

/**
 * Follows the main-frame navigation state of one tab.
 *   started: a navigation began since the last reset()
 *   outcome: null while loading, or {kind: 'complete' | 'error' | 'removed', error?}
 * The tab id may be set later (openTab learns it from tabs.create); events that arrive before
 * then are buffered and replayed.
 */
class NavigationWatcher {
  constructor(tabId = null) {
    this.tabId = tabId;
    this.buffered = [];
    this.waiters = new Set();
    this.navigationCount = 0;
    this.reset();
    watchers.add(this);
  }

  reset() {
    this.started = false;
    this.outcome = null;
  }

  setTab(tabId) {
    this.tabId = tabId;
    const buffered = this.buffered;
    this.buffered = [];
    for (const [id, kind, detail] of buffered) this.receive(id, kind, detail);
  }

  receive(tabId, kind, detail) {
    if (this.tabId === null) {
      this.buffered.push([tabId, kind, detail]);
      return;
    }
    if (tabId !== this.tabId) return;
    this.apply(kind, detail);
    for (const waiter of [...this.waiters]) waiter();
  }

  apply(kind, detail) {
    switch (kind) {
      case 'navigate': // webNavigation.onBeforeNavigate: a new main-frame navigation
        this.navigationCount += 1;
        this.started = true;
        this.outcome = null;
        break;
      case 'loading': // tabs.onUpdated status=loading (may come after an error was recorded)
        this.started = true;
        if (this.outcome && this.outcome.kind === 'complete') this.outcome = null;
        break;
      case 'complete':
        // A failed navigation still completes (with the error page): keep the error.
        if (!this.outcome) this.outcome = { kind: 'complete' };
        break;
      case 'error':
        this.outcome = { kind: 'error', error: detail.error, url: detail.url };
        break;
      case 'aborted':
        this.settleAfterAbort();
        break;
      case 'removed':
        this.outcome = { kind: 'removed' };
        break;
      default:
        break;
    }
  }

  // net::ERR_ABORTED means the navigation was replaced or turned into a download / 204. In the
  // latter cases no "complete" follows, so finish once the tab is no longer loading.
  settleAfterAbort() {
    const count = this.navigationCount;
    setTimeout(async () => {
      if (this.outcome || count !== this.navigationCount) return;
      try {
        const tab = await chrome.tabs.get(this.tabId);
        if (!this.outcome && count === this.navigationCount && tab.status !== 'loading') {
          this.receive(this.tabId, 'complete');
        }
      } catch {
        this.receive(this.tabId, 'removed');
      }
    }, ABORT_SETTLE_MS);
  }

  /** Resolves true once predicate() holds, false after ms. */
  waitUntil(predicate, ms) {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(value);
      };
      const check = () => { if (predicate()) finish(true); };
      const timer = setTimeout(() => finish(false), ms);
      this.waiters.add(check);
    });
  }

  waitForStart(ms) {
    return this.waitUntil(() => this.started, ms);
  }

  waitForOutcome(ms) {
    return this.waitUntil(() => this.outcome !== null, ms);
  }

  dispose() {
    watchers.delete(this);
    this.waiters.clear();
  }
}

/** Waits (at most ms) for a tab that is loading to finish. Throws NO_TAB for an unknown tab. */
async function waitWhileLoading(tabId, ms) {
  const watcher = new NavigationWatcher(tabId);
  try {
    const tab = await getTab(tabId);
    if (tab.status === 'loading') await watcher.waitForOutcome(ms);
  } finally {
    watcher.dispose();
  }
}

function navigationError(outcome, fallbackUrl) {
  const url = outcome.url || fallbackUrl;
  return new ProtocolError('NAVIGATION_FAILED', `Could not load ${url}: ${outcome.error}`);
}

// ---------------------------------------------------------------------------------------------
// Page agent

// Runs in the page's isolated world. Must be self-contained: it is serialised by executeScript.
function agentEntry(method, arg) {
  const agent = globalThis.__tabmcpAgent;
  if (!agent) return { __missing: true };
  const describe = (e) => String((e && e.stack) || e);
  try {
    return Promise.resolve(agent[method](arg)).catch((e) => ({ __error: describe(e) }));
  } catch (e) {
    return { __error: describe(e) };
  }
}

async function executeInTab(tabId, details) {
  try {
    return await chrome.scripting.executeScript({ target: { tabId }, ...details });
  } catch (e) {
    const message = (e && e.message) || String(e);
    if (/No tab with id/i.test(message)) throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
    // "Cannot access contents of ...", "Cannot access a chrome:// URL", "Frame ... is showing
    // error page", "Frame ... not ready" ...: the page cannot be scripted right now.
    throw new ProtocolError('NOT_SCRIPTABLE', message);
  }
}

async function callAgentOnce(tabId, method, arg) {
  const results = await executeInTab(tabId, { func: agentEntry, args: [method, arg === undefined ? null : arg] });
  return results && results[0] ? results[0].result : undefined;
}

/** Calls globalThis.__tabmcpAgent[method](arg) in the tab's main frame, injecting the agent if needed. */
async function callAgent(tabId, method, arg) {
  let value = await callAgentOnce(tabId, method, arg);
  if (value && value.__missing) {
    await executeInTab(tabId, { files: [AGENT_FILE] });
    value = await callAgentOnce(tabId, method, arg);
  }
  if (value === undefined || value === null || value.__missing) {
    throw new ProtocolError('NOT_SCRIPTABLE', `The page agent did not answer ${method} (did the page navigate away?)`);
  }
  if (value.__error) throw new ProtocolError('INTERNAL', `Page agent ${method} failed: ${value.__error}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Request handlers. Each returns the answer frame without its id (runHandler adds it).

async function handleConnect() {
  const [browser, tabs] = await Promise.all([browserInfo, chrome.tabs.query({})]);
  return { type: 'connected', browser, tabs: tabs.map(tabInfo) };
}

async function handleOpenTab(msg) {
  if (typeof msg.url !== 'string') throw badField(msg, 'url', 'a string');
  if (msg.focus !== undefined && typeof msg.focus !== 'boolean') throw badField(msg, 'focus', 'a boolean');
  const { url } = msg;
  const focus = msg.focus !== false; // protocol.py defaults focus to true
  // tabs.create resolves relative URLs against the extension's own origin; refuse them instead.
  try {
    new URL(url);
  } catch {
    throw new ProtocolError('INVALID_URL', `Not an absolute URL: ${url}`);
  }

  const watcher = new NavigationWatcher(); // listening before the tab exists
  try {
    const tab = await createTab(url, focus);
    watcher.setTab(tab.id);
    if (focus) await focusWindow(tab.windowId);
    await watcher.waitForOutcome(OPEN_TAB_TIMEOUT_MS); // on timeout: answer with the loading tab
    const { outcome } = watcher;
    if (outcome && outcome.kind === 'error') {
      await chrome.tabs.remove(tab.id).catch(() => {});
      throw navigationError(outcome, url);
    }
    if (outcome && outcome.kind === 'removed') {
      throw new ProtocolError('NAVIGATION_FAILED', `The tab for ${url} was closed while it loaded`);
    }
    return { type: 'result', data: { tab: tabInfo(await getTab(tab.id)) } };
  } finally {
    watcher.dispose();
  }
}

async function createTab(url, active) {
  try {
    return await chrome.tabs.create({ url, active });
  } catch (e) {
    const message = (e && e.message) || String(e);
    if (/window/i.test(message)) {
      // No browser window to put the tab in (all closed): open a new window instead.
      try {
        const win = await chrome.windows.create({ url, focused: active });
        return win.tabs[0];
      } catch (e2) {
        throw new ProtocolError('INVALID_URL', `Cannot open ${url}: ${(e2 && e2.message) || e2}`);
      }
    }
    throw new ProtocolError('INVALID_URL', `Cannot open ${url}: ${message}`);
  }
}

async function handleFocusTab(msg) {
  const tabId = requireTabId(msg);
  const tab = await getTab(tabId);
  await chrome.tabs.update(tabId, { active: true });
  await focusWindow(tab.windowId);
  return { type: 'result', data: { tab: tabInfo(await getTab(tabId)) } };
}

async function handleCloseTab(msg) {
  const tabId = requireTabId(msg);
  await getTab(tabId);
  try {
    await chrome.tabs.remove(tabId);
  } catch {
    throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`); // closed in the meantime
  }
  return { type: 'result', data: { tabId } };
}

async function handleCapture(msg) {
  const tabId = requireTabId(msg);
  if (msg.maxChars !== undefined && !(Number.isInteger(msg.maxChars) && msg.maxChars > 0)) {
    throw badField(msg, 'maxChars', 'a positive integer');
  }
  await waitWhileLoading(tabId, LOADING_WAIT_MS);
  const capture = await callAgent(tabId, 'capture', msg.maxChars || DEFAULT_MAX_CHARS);
  return {
    type: 'result',
    data: { capture: { url: capture.url, title: capture.title, html: capture.html, truncated: capture.truncated } },
  };
}

async function handleCallTool(msg) {
  const tabId = requireTabId(msg);
  const { steps } = msg;
  const validSteps = Array.isArray(steps)
    && steps.every((s) => s !== null && typeof s === 'object' && typeof s.action === 'string');
  if (!validSteps) throw badField(msg, 'steps', 'an array of {action, ...}');
  log('callTool', msg.toolName, steps.length, 'steps');

  await waitWhileLoading(tabId, LOADING_WAIT_MS);
  const watcher = new NavigationWatcher(tabId);
  try {
    const outcomes = [];
    for (const [index, step] of steps.entries()) {
      watcher.reset();
      await runStep(tabId, step, index);
      outcomes.push({ action: step.action, ok: true });
      await settleAfterStep(watcher, step, index, index === steps.length - 1);
    }
    const page = await callAgent(tabId, 'summary');
    return {
      type: 'toolResult',
      result: { steps: outcomes, page: { url: page.url, title: page.title, text: page.text } },
    };
  } finally {
    watcher.dispose();
  }
}

// Actions that may start a navigation, which the agent schedules on a timer after returning.
const NAVIGATING_ACTIONS = new Set(['click', 'submit', 'press']);

/**
 * Lets a navigation started by a step finish before the next step (which must run in the new
 * document, not race the old one's unload) or before the summary is read. The browser reports
 * the start only after the step has returned, so after the last step, and after a step that may
 * navigate, we wait a short grace period for it to show up.
 */
async function settleAfterStep(watcher, step, index, isLast) {
  if (isLast || NAVIGATING_ACTIONS.has(step.action)) await watcher.waitForStart(NAVIGATION_GRACE_MS);
  if (watcher.started) await watcher.waitForOutcome(NAVIGATION_TIMEOUT_MS);
  const { outcome } = watcher;
  if (outcome && outcome.kind === 'error') {
    const error = navigationError(outcome, 'the page');
    throw new ProtocolError(error.code, `step ${index + 1} (${step.action}): ${error.message}`);
  }
}

async function runStep(tabId, step, index) {
  const prefix = `step ${index + 1} (${step.action}):`;
  let outcome;
  try {
    outcome = await callAgent(tabId, 'perform', step);
  } catch (e) {
    if (e instanceof ProtocolError) throw new ProtocolError(e.code, `${prefix} ${e.message}`);
    throw e;
  }
  if (!outcome.ok) throw new ProtocolError(outcome.code || 'INTERNAL', `${prefix} ${outcome.message}`);
}

// ---------------------------------------------------------------------------------------------
// Crash detection
//
// The agent holds a port open from its page. When the port drops, the document went away:
// navigation, tab closed, or the renderer crashed. Only the crash leaves the tab "unloaded"
// without being discarded (and a crash fires no tabs event of its own).

function onAgentConnect(port) {
  if (port.name !== AGENT_PORT_NAME) return;
  const sender = port.sender || {};
  const tabId = sender.tab ? sender.tab.id : undefined;
  if (tabId === undefined || (sender.frameId !== undefined && sender.frameId !== 0)) return;
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError; // Reading it keeps "Unchecked runtime.lastError" out of the log.
    setTimeout(() => checkForCrash(tabId).catch((e) => log('crash check failed', e)), CRASH_CHECK_DELAY_MS);
  });
}

async function checkForCrash(tabId) {
  let tab;
  try {
    tab = await chrome.tabs.get(tabId);
  } catch {
    return; // The tab was closed.
  }
  if (tab.status === 'unloaded' && !tab.discarded) {
    log('tab crashed', tabId);
    sendEvent({ type: 'tabCrashed', tabId });
  }
}

// ---------------------------------------------------------------------------------------------
// Browser events. Registered synchronously at top level so they also wake the worker.

chrome.tabs.onCreated.addListener((tab) => {
  sendEvent({ type: 'tabCreated', tab: tabInfo(tab) });
});

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.status === 'loading') notifyWatchers(tabId, 'loading');
  if (change.status === 'complete') notifyWatchers(tabId, 'complete');
  if (change.url !== undefined || change.title !== undefined || change.status !== undefined) {
    sendEvent({ type: 'tabUpdated', tab: tabInfo(tab) });
  }
});

chrome.tabs.onRemoved.addListener((tabId) => {
  notifyWatchers(tabId, 'removed');
  sendEvent({ type: 'tabClosed', tabId });
});

chrome.tabs.onActivated.addListener(({ tabId }) => {
  sendEvent({ type: 'tabFocused', tabId });
});

chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId === 0) notifyWatchers(details.tabId, 'navigate');
});

chrome.webNavigation.onErrorOccurred.addListener((details) => {
  if (details.frameId !== 0) return;
  const kind = details.error === 'net::ERR_ABORTED' ? 'aborted' : 'error';
  notifyWatchers(details.tabId, kind, { error: details.error, url: details.url });
});

chrome.runtime.onConnect.addListener(onAgentConnect);

chrome.runtime.onSuspend.addListener(() => {
  if (link && link.helloSent) sendOn(link, { type: 'disconnected' });
});

// The alarm wakes a sleeping worker so it can reconnect; connect() is a no-op while linked.
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === RECONNECT_ALARM) connect();
});
chrome.alarms.create(RECONNECT_ALARM, { periodInMinutes: 0.5 }).catch((e) => log('alarm', e));

self.addEventListener('unhandledrejection', (event) => {
  log('unhandled rejection', event.reason);
  event.preventDefault();
});

connect();
