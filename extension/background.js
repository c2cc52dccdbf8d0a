// tabmcp service worker.
//
// Connects to the tabmcp server's WebSocket as a client (or, where local ports are blocked, through
// the native messaging host: docs/native-messaging.md), reports tab events, and answers the
// server's requests by driving tabs and the page agent (agent.js). The wire protocol is
// docs/protocol.md; every frame sent here must match it exactly, because the server validates
// each one.
'use strict';

importScripts('policy.js'); // tabmcpPolicy: the navigation policy's browser rules (docs/security.md)
importScripts('link_config.js'); // tabmcpLinkConfig: server address, transport, pairing token

const NATIVE_HOST = 'com.tabmcp.bridge'; // written by `tabmcp install-native-host`
const MAX_CHUNKED_BYTES = 64 * 1024 * 1024; // a server frame the native host had to cut in pieces

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 5000;
const PING_INTERVAL_MS = 20000;
// The largest frame the server accepts until its first pong says (ws_max_frame_bytes' default).
const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
const RECONNECT_ALARM = 'tabmcp-reconnect';
// Close codes the server refuses or ends a link with (docs/protocol.md, "Pairing and refusals").
const CLOSE_GOING_AWAY = 1001; // the server shut down (a cut-off or a crash says otherwise)
const CLOSE_REPLACED = 4000; // a newer socket of this same browser took the link over
const CLOSE_NOT_PAIRED = 4001; // the pairing token is missing or wrong
const CLOSE_ORIGIN = 4003; // this extension's id is not allowed
const CLOSE_BUSY = 4009; // another browser is linked
// After such a refusal, retry this rarely, or at once when the options change.
const SLOW_RETRY_MS = 30000;
const DIALOG_FLUSH_MS = 1000; // the round trip that lets a page's dialog reports arrive
const POPUP_SETTLE_MS = 2000; // an action's popups: how long their first navigation may take to load or be blocked
const POPUP_WATCH_MS = 10000; // how long a popup's first navigation is watched for the action that opened it
const FOLLOW_ON_MS = 2000; // a navigation the page started as it loaded: how long its outcome may take
// How the link ends when the user presses Disconnect in the popup (the server logs the reason).
const USER_DISCONNECT_REASON = 'disconnected by the user (the extension popup)';
const TRAFFIC_WRITE_MS = 250; // message counts reach the popup at most this often
const TAB_GROUP_NONE = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE

const OPEN_TAB_TIMEOUT_MS = 15000;
const LOADING_WAIT_MS = 10000;
const NAVIGATION_GRACE_MS = 400;
const NAVIGATION_TIMEOUT_MS = 15000;
// The agent saw a navigation begin (Navigation API); the browser reports its start within this.
const NAVIGATION_START_MS = 2000;
const NETWORK_IDLE_MS = 500;
const POLL_MS = 100;
const TOKEN_RETRY_MS = 50;
const MAX_CANDIDATES = 10;
const MAX_TIMEOUT_MS = 120000;
const MAX_WAIT_TIME_MS = 30000;
const DEFAULT_ACT_TIMEOUT_MS = 5000;
const DEFAULT_WAIT_TIMEOUT_MS = 5000;
const DEFAULT_EVALUATE_TIMEOUT_MS = 10000;
const MAX_EVALUATE_CHARS = 4000000;
const DEBUGGER_IDLE_MS = 10000;
const CDP_VERSION = '1.3';
const CAPTURE_RETRY_MS = 600;
const MAX_CAPTURE_SIDE = 16384; // Chromium's largest texture; taller pages are cut
const CONSOLE_CAPACITY = 1000;
const CONSOLE_TEXT_MAX = 2000;
const ABORT_SETTLE_MS = 150;
const CRASH_CHECK_DELAY_MS = 300;
const DEFAULT_MAX_CHARS = 1000000;

const AGENT_PORT_NAME = 'tabmcp-agent';
const AGENT_FILE = 'agent.js';
const HOOKS_FILE = 'page_hooks.js';
const STEP_TIMEOUT_MS = 5000; // how long a page-tool step waits for its element to be actionable
const MAX_EXTRACT_ITEMS = 100; // an extract step's largest limit (protocol.py MAX_EXTRACT_ITEMS)

const log = (...args) => console.debug('[tabmcp]', ...args);

/** An error that becomes an `error` frame with this code. */
class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Server address, pairing token and browser identity

/** Where to connect, through what, and the pairing token to present (link_config.js). */
async function resolveLinkSettings() {
  let stored = {};
  try {
    stored = await chrome.storage.local.get(tabmcpLinkConfig.STORED_KEYS);
  } catch (e) {
    log('storage.local unavailable', e);
  }
  return tabmcpLinkConfig.resolve(stored);
}

/**
 * This browser session's id (kept in chrome.storage.session, which lives as long as the browser).
 * The server lets a new socket with the linked id replace the old one (this worker restarted) and
 * refuses one with another id (a second browser), so two browsers never steal the link.
 */
let instanceIdCache = null;
async function instanceId() {
  if (instanceIdCache) return instanceIdCache;
  try {
    const { instanceId: stored } = await chrome.storage.session.get('instanceId');
    if (typeof stored === 'string' && stored) {
      instanceIdCache = stored;
      return stored;
    }
  } catch (e) {
    log('storage.session unavailable', e);
  }
  instanceIdCache = crypto.randomUUID();
  chrome.storage.session.set({ instanceId: instanceIdCache }).catch((e) => log('storage.session', e));
  return instanceIdCache;
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

/**
 * The live link: {transport, helloSent, confirmed, pingTimer, note (what to show while not linked),
 * ready (resolves once hello went out)}.
 */
let link = null;
let connectInFlight = false;
let reconnectTimer = null;
let backoffMs = BACKOFF_START_MS;
// Set while the server refuses this browser (not paired, origin, another browser linked): the
// reason, shown as linkStatus, and no retry before `retryPausedUntil` unless the settings change.
let refusal = null;
let retryPausedUntil = 0;
// New settings arrived while a connect was reading the old ones: reconnect once it is done.
let reconnectPending = false;
// The user pressed Disconnect (kept in chrome.storage.session, so a restarted worker stays put):
// no link and no retries until Connect. null: not read from storage yet.
let userDisconnected = null;
// The last socket closed without ever opening: nothing listens at the server address.
let serverMissing = false;
let serverUrl = '';

async function connect() {
  if (link || connectInFlight) return;
  if (Date.now() < retryPausedUntil) return; // refused: the slow retry or new settings come first
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  connectInFlight = true;
  try {
    if (await isUserDisconnected()) {
      showLinkStatus();
      return;
    }
    const settings = await resolveLinkSettings();
    if (userDisconnected) return; // Disconnect was pressed while the settings were read
    serverUrl = settings.transport === 'native' ? `the native host ${NATIVE_HOST}` : settings.url;
    openLink(settings);
    showLinkStatus();
  } catch (e) {
    log('connect failed', e);
    scheduleReconnect();
  } finally {
    connectInFlight = false;
  }
  if (reconnectPending) reconnectNow('settings changed while connecting');
}

async function isUserDisconnected() {
  if (userDisconnected === null) {
    let stored = false;
    try {
      stored = (await chrome.storage.session.get('userDisconnected')).userDisconnected === true;
    } catch (e) {
      log('storage.session unavailable', e);
    }
    if (userDisconnected === null) userDisconnected = stored; // the popup may have decided meanwhile
  }
  return userDisconnected;
}

function openLink({ url, token, transport }) {
  let markReady;
  const ready = new Promise((resolve) => { markReady = resolve; });
  const current = {
    transport: null, token, helloSent: false, confirmed: false, pingTimer: null, note: null, ready, markReady,
    maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  };
  link = current;
  resetTraffic();
  const on = {
    open: () => onSocketOpen(current).catch((e) => log('open handler failed', e)),
    message: (raw) => onSocketMessage(current, raw).catch((e) => log('message handler failed', e)),
    status: (text) => {
      current.note = text;
      if (link === current) showLinkStatus();
    },
    close: (event) => onSocketClose(current, event),
  };
  try {
    current.transport = transport === 'native' ? nativeTransport(on) : webSocketTransport(url, on);
  } catch (e) {
    link = null; // a bad address (or no native messaging): connect() schedules the retry
    throw e;
  }
  log('connecting', transport === 'native' ? `through the native host ${NATIVE_HOST}` : `to ${url}`);
}

// ---------------------------------------------------------------------------------------------
// Transports: how frames reach the server. Both have one shape, so the protocol handling is one:
// {isOpen(), send(frame, text: the frame as JSON), close(code, reason)}, calling on.open(),
// on.message(JSON text or frame), on.status(text) and on.close({code, reason, native}).

function webSocketTransport(url, on) {
  const ws = new WebSocket(url);
  ws.onopen = () => on.open();
  ws.onmessage = (event) => on.message(event.data);
  ws.onclose = (event) => on.close({ code: event.code, reason: event.reason });
  ws.onerror = () => {}; // A close event always follows; that is where we reconnect.
  return {
    isOpen: () => ws.readyState === WebSocket.OPEN,
    send: (frame, text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
  };
}

/**
 * Chrome starts `tabmcp native-host`, which relays to the server's local socket. Besides the
 * server's frames it sends `nativeStatus` (open: linked to the server, so say hello; serverNotFound:
 * no server yet, it keeps trying; closed: the server's close code and reason, just before it exits)
 * and `nativeChunk` pieces of a server frame over Chrome's 1 MiB host-to-extension limit.
 */
function nativeTransport(on) {
  let open = false;
  let done = false;
  let serverClose = null;
  const chunks = chunkJoiner();
  const port = chrome.runtime.connectNative(NATIVE_HOST);
  port.onMessage.addListener((msg) => {
    if (msg && msg.type === 'nativeStatus') {
      if (msg.state === 'open' && !open) {
        open = true;
        on.open();
      } else if (msg.state === 'serverNotFound') {
        on.status(`server not found: ${msg.message || 'no tabmcp server is running'}`);
      } else if (msg.state === 'closed') {
        serverClose = { code: msg.code, reason: msg.reason || '' };
      }
      return;
    }
    if (msg && msg.type === 'nativeChunk') {
      const text = chunks.add(msg);
      if (text !== null) on.message(text);
      return;
    }
    on.message(msg);
  });
  port.onDisconnect.addListener(() => {
    const why = chrome.runtime.lastError ? chrome.runtime.lastError.message : 'the native host exited';
    if (done) return;
    done = true;
    open = false;
    on.close(serverClose || { code: 1006, reason: why, native: true });
  });
  return {
    isOpen: () => open && !done,
    send: (frame, text) => {
      try {
        port.postMessage(frame.rawData === undefined ? frame : JSON.parse(text));
      } catch (e) {
        log('dropped (native port gone)', frame.type, e); // its onDisconnect is on the way
      }
    },
    close: () => {
      if (done) return;
      done = true; // disconnect() fires no onDisconnect on this side
      open = false;
      port.disconnect();
    },
  };
}

/** Joins `nativeChunk` pieces (base64 of the frame's UTF-8 bytes, in order) back into the frame's text. */
function chunkJoiner() {
  let parts = [];
  let size = 0;
  return {
    add(msg) {
      if (msg.part === 0) {
        parts = [];
        size = 0;
      }
      if (msg.part !== parts.length || typeof msg.data !== 'string') {
        log('dropped a chunk out of order', msg.part, parts.length);
        parts = [];
        return null;
      }
      let bytes;
      try {
        bytes = Uint8Array.from(atob(msg.data), (c) => c.charCodeAt(0));
      } catch {
        log('dropped a chunk that is not base64');
        parts = [];
        return null;
      }
      size += bytes.length;
      if (size > MAX_CHUNKED_BYTES) {
        log('dropped a chunked frame over', MAX_CHUNKED_BYTES, 'bytes');
        parts = [];
        return null;
      }
      parts.push(bytes);
      if (parts.length < msg.parts) return null;
      const whole = new Uint8Array(size);
      let at = 0;
      for (const part of parts) {
        whole.set(part, at);
        at += part.length;
      }
      parts = [];
      return new TextDecoder('utf-8').decode(whole);
    },
  };
}

async function onSocketOpen(current) {
  if (link !== current) return;
  current.opened = true;
  serverMissing = false;
  const [browser, instance, userSettings] = await Promise.all([browserInfo, instanceId(), readUserSettings()]);
  if (link !== current || !isOpen(current)) {
    // dropped while the hello was being put together (new settings, a close): no hello, and no
    // ping timer left running for a socket nobody will clear it for
    current.markReady();
    return;
  }
  const hello = { type: 'hello', extension: { version: chrome.runtime.getManifest().version }, browser, instance };
  if (current.token) hello.token = current.token;
  sendOn(current, hello);
  sendSettings(current, userSettings);
  // The server answers nothing to a good hello and closes the socket on a bad one; a ping sent
  // right behind it is answered only once the hello was accepted, so its pong confirms the link.
  sendOn(current, { type: 'ping' });
  current.helloSent = true;
  current.markReady();
  current.pingTimer = setInterval(() => sendOn(current, { type: 'ping' }), PING_INTERVAL_MS);
}

/** The first pong after hello: the server accepted this browser (and says how large a frame may be). */
function onPong(current, pong) {
  if (Number.isInteger(pong.maxFrameBytes) && pong.maxFrameBytes > 0) current.maxFrameBytes = pong.maxFrameBytes;
  if (current.confirmed || link !== current) return;
  current.confirmed = true;
  linkedSince = Date.now();
  backoffMs = BACKOFF_START_MS;
  refusal = null;
  retryPausedUntil = 0;
  showLinkStatus();
  log('linked');
}

function onSocketClose(current, event) {
  clearInterval(current.pingTimer);
  current.markReady(); // Unblocks queued message handlers; their answers are dropped.
  if (link !== current) return;
  link = null;
  // The server's policy holds until it says it is gone: a cut-off or a worker restart relinks
  // to rules already in force (docs/security.md, "what is enforced when").
  if (event.code === CLOSE_GOING_AWAY) tabmcpPolicy.clear();
  linkedSince = 0;
  setControlled([]); // the server's focus went with the link
  log('socket closed', event.code, event.reason);
  if (event.native && /not found|forbidden/i.test(event.reason)) {
    // the host is not installed for this browser, or not for this extension: retrying cannot help
    refusal = { state: 'native host not installed', detail: `run \`tabmcp install-native-host\` (${event.reason})` };
    pauseRetries();
    showLinkStatus();
    return;
  }
  switch (event.code) {
    case CLOSE_NOT_PAIRED: // retrying with the same token cannot help: wait for new settings
      refusal = { state: 'not paired', detail: event.reason || 'the pairing token is missing or wrong' };
      pauseRetries();
      break;
    case CLOSE_ORIGIN:
    case CLOSE_BUSY: // another browser holds the link; try again now and then, it may let go
    case CLOSE_REPLACED: // a newer socket of this browser holds the link
      refusal = { state: 'refused', detail: event.reason || `closed with code ${event.code}` };
      pauseRetries();
      break;
    default:
      refusal = null;
      serverMissing = !current.opened; // never opened: no server there (else it went away: reconnecting)
      scheduleReconnect();
  }
  showLinkStatus();
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

/** After a refusal: one slow retry (the 30 s alarm also wakes a sleeping worker for it). */
function pauseRetries() {
  clearTimeout(reconnectTimer);
  retryPausedUntil = Date.now() + SLOW_RETRY_MS;
  reconnectTimer = setTimeout(() => {
    reconnectTimer = null;
    retryPausedUntil = 0; // the timer's clock is not Date.now(): it may fire a little "early"
    connect();
  }, SLOW_RETRY_MS);
}

/** New server address or token (options page): drop the current socket and connect at once. */
function reconnectNow(why) {
  if (connectInFlight) {
    reconnectPending = true;
    return;
  }
  reconnectPending = false;
  log('reconnecting:', why);
  refusal = null;
  serverMissing = false;
  retryPausedUntil = 0;
  backoffMs = BACKOFF_START_MS;
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  dropLink(why);
  connect();
}

/** Closes the current socket ourselves (normal closure, saying why); its close event is ignored. */
function dropLink(why) {
  const old = link;
  if (!old) return;
  link = null;
  tabmcpPolicy.clear(); // its close event is ignored (link !== old): the rules go with it here
  clearInterval(old.pingTimer);
  old.markReady();
  linkedSince = 0;
  setControlled([]);
  try {
    old.transport.close(1000, why);
  } catch (e) {
    log('close failed', e);
  }
}

/** The popup's Disconnect: close the link and stay unlinked (no retries) until Connect. */
async function disconnectByUser() {
  userDisconnected = true;
  reconnectPending = false;
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  refusal = null;
  serverMissing = false;
  retryPausedUntil = 0;
  dropLink(USER_DISCONNECT_REASON);
  showLinkStatus();
  await chrome.storage.session.set({ userDisconnected: true });
}

/** The popup's Connect: link again now (also cuts short a refusal's slow retry). */
async function connectByUser() {
  userDisconnected = false;
  await chrome.storage.session.remove('userDisconnected');
  reconnectNow('asked by the popup');
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && ('pairingToken' in changes || 'serverUrl' in changes || 'transport' in changes)) {
    reconnectNow('settings changed');
  } else if (area === 'local' && 'followTabSwitches' in changes) {
    const current = link; // told now, or right after its hello if that is still being put together
    if (current) current.ready.then(readUserSettings).then((settings) => sendSettings(current, settings));
  }
});

// The options page asks for a reconnect when it saved settings that did not change; the popup's
// buttons disconnect and connect (answered once done, so the popup can report a failure).
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  const type = message && message.type;
  if (type === 'tabmcp-reconnect') reconnectNow('asked by the options page');
  const action = { 'tabmcp-disconnect': disconnectByUser, 'tabmcp-connect': connectByUser }[type];
  if (!action) return false;
  action().then(() => sendResponse({ ok: true }), (e) => sendResponse({ ok: false, error: String(e) }));
  return true;
});

// ---------------------------------------------------------------------------------------------
// What the user sees of the link: the popup and options page read chrome.storage.session
// (linkStatus, linkInfo, traffic, controlled); the toolbar badge shows the state at a glance.

// One look per state (docs/extension.md): text, background colour.
const BADGES = {
  connected: { text: 'ON', color: '#1a7f37' },
  connecting: { text: '…', color: '#6e7781' },
  'server not found': { text: '!', color: '#cf222e' },
  'not paired': { text: 'KEY', color: '#bf8700' },
  refused: { text: 'NO', color: '#8250df' },
  'native host not installed': { text: 'NH', color: '#bf8700' },
  disconnected: { text: 'OFF', color: '#57606a' },
};

let linkedSince = 0; // when the current link was confirmed (ms since the epoch)
const traffic = { in: 0, out: 0 }; // frames received and sent over the current socket
let trafficTimer = null;
let controlled = []; // [{tabId, group, title, url}]: the tabs the server's clients control now
let controlledSeq = 0;
let shownState = 'connecting';
let sentSettings = null; // the last settings frame sent (read by the tests)

function linkState() {
  if (userDisconnected) {
    return { state: 'disconnected', detail: 'Disconnected here: tabmcp cannot use this browser until you press Connect.' };
  }
  if (link && link.confirmed) return { state: 'connected', detail: '' };
  if (refusal) return refusal;
  if (link && link.note) {
    // the native host is up but finds no server (its own words follow "server not found: ")
    return { state: 'server not found', detail: link.note.replace(/^server not found:\s*/, '') };
  }
  if (serverMissing) {
    return { state: 'server not found', detail: `Nothing answers at ${serverUrl}: is tabmcp running? Retrying.` };
  }
  return { state: 'connecting', detail: serverUrl ? `Connecting to ${serverUrl}…` : '' };
}

/** linkStatus (one string, for the options page) and linkInfo in chrome.storage.session, and the badge. */
function showLinkStatus() {
  const { state, detail } = linkState();
  const withDetail = ['not paired', 'refused', 'native host not installed', 'server not found'].includes(state);
  const linkStatus = detail && withDetail ? `${state}: ${detail}` : state;
  const linkInfo = { state, detail, serverUrl, since: state === 'connected' ? linkedSince : 0 };
  chrome.storage.session.set({ linkStatus, linkInfo }).catch((e) => log('storage.session', e));
  shownState = state;
  const badge = BADGES[state] || BADGES.connecting;
  Promise.all([
    chrome.action.setBadgeText({ text: badge.text }),
    chrome.action.setBadgeBackgroundColor({ color: badge.color }),
  ]).catch((e) => log('badge', e));
  showTitle();
}

/** The toolbar button's tooltip: the state, and the tab under control. */
function showTitle() {
  let title = `tabmcp: ${shownState}`;
  if (shownState === 'connected' && controlled.length) {
    title += ` (controls ${controlled.map((c) => `"${c.title || c.url}"`).join(', ')})`;
  }
  chrome.action.setTitle({ title }).catch((e) => log('title', e));
}

function resetTraffic() {
  traffic.in = 0;
  traffic.out = 0;
  writeTraffic();
}

function countTraffic(direction) {
  traffic[direction] += 1;
  if (!trafficTimer) trafficTimer = setTimeout(writeTraffic, TRAFFIC_WRITE_MS);
}

function writeTraffic() {
  clearTimeout(trafficTimer);
  trafficTimer = null;
  chrome.storage.session.set({ traffic: { ...traffic } }).catch((e) => log('storage.session', e));
}

function setControlled(entries) {
  controlled = entries;
  chrome.storage.session.set({ controlled }).catch((e) => log('storage.session', e));
  showTitle();
}

/**
 * The server's `controlled` notice: which tabs its clients control now. Each is shown in the popup
 * with its title and URL, and one that is in no tab group joins its client's group (a tab the user
 * opened and the server focused); a tab in a group of the user's own stays where the user put it.
 */
async function onControlled(current, msg) {
  const valid = Array.isArray(msg.tabs) && msg.tabs.every((t) => t !== null && typeof t === 'object'
    && Number.isInteger(t.tabId) && (t.group === undefined || typeof t.group === 'string'));
  if (!valid) {
    sendOn(current, errorFrame(undefined, 'BAD_MESSAGE', '"controlled" needs tabs: [{tabId: integer, group: string}]'));
    return;
  }
  const seq = ++controlledSeq;
  const entries = [];
  for (const { tabId, group } of msg.tabs) {
    let tab;
    try {
      tab = await chrome.tabs.get(tabId);
    } catch {
      continue; // closed meanwhile: its tabClosed tells the server
    }
    entries.push({ tabId, group: group || '', title: tab.title || '', url: tab.url || tab.pendingUrl || '' });
    if (group && (tab.groupId === undefined || tab.groupId === TAB_GROUP_NONE)) await addToGroup(tab, group);
  }
  if (seq === controlledSeq && link === current) setControlled(entries); // a newer notice wins
}

/** A controlled tab's new title or URL, for the popup. */
function updateControlled(tab) {
  const index = controlled.findIndex((c) => c.tabId === tab.id);
  if (index < 0) return;
  const entry = { ...controlled[index], title: tab.title || '', url: tab.url || tab.pendingUrl || '' };
  if (entry.title === controlled[index].title && entry.url === controlled[index].url) return;
  setControlled(controlled.map((c, i) => (i === index ? entry : c)));
}

/** The options the server acts on (chrome.storage.local), as the settings frame carries them. */
async function readUserSettings() {
  try {
    const { followTabSwitches } = await chrome.storage.local.get('followTabSwitches');
    return { followTabSwitches: followTabSwitches === true };
  } catch (e) {
    log('storage.local unavailable', e);
    return { followTabSwitches: false };
  }
}

function sendSettings(current, settings) {
  const frame = { type: 'settings', followTabSwitches: settings.followTabSwitches };
  if (sendOn(current, frame)) sentSettings = frame;
}

function isOpen(current) {
  return Boolean(current) && Boolean(current.transport) && current.transport.isOpen();
}

function sendOn(current, frame) {
  if (pageEvents.length && frame.type !== 'pageEvents' && current === link) flushPageEvents(); // the browser's order
  if (!isOpen(current)) {
    log('dropped (socket not open)', frame.type);
    return false;
  }
  // rawData: an answer's data already as JSON text (the page agent's answers), put in as it is
  let text = frame.rawData === undefined ? JSON.stringify(frame)
    : `{"type":${JSON.stringify(frame.type)},"id":${JSON.stringify(frame.id)},"data":${frame.rawData}}`;
  const limit = current.maxFrameBytes;
  const size = text.length * 3 > limit ? new TextEncoder().encode(text).length : 0; // ≤ 3 bytes a UTF-16 unit
  if (size > limit) {
    // The server ends the whole link on a frame over its limit: only this answer fails instead.
    log('too large to send', frame.type, size);
    if (typeof frame.id !== 'string') return false;
    const what = frame.type === 'error' ? `a ${frame.code} error` : 'the answer';
    frame = errorFrame(frame.id, 'FRAME_TOO_LARGE', `${what} is ${size.toLocaleString('en')} bytes, over the browser `
      + `link's ${limit.toLocaleString('en')}-byte frame limit (ws_max_frame_bytes); ask for less: `
      + 'a shorter text, a smaller part of the page');
    text = JSON.stringify(frame);
  }
  current.transport.send(frame, text);
  if (link === current) countTraffic('out');
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
  ['activeTab', handleActiveTab],
  ['closeTab', handleCloseTab],
  ['capture', handleCapture],
  ['callTool', handleCallTool],
  ['snapshot', handleSnapshot],
  ['act', handleAct],
  ['navigate', handleNavigate],
  ['waitFor', handleWaitFor],
  ['screenshot', handleScreenshot],
  ['console', handleConsole],
  ['evaluate', handleEvaluate],
  ['createTab', handleCreateTab],
  ['tabUrl', handleTabUrl],
  ['frames', handleFrames],
  ['callAgent', handleCallAgent],
  ['cdp', handleCdp],
  ['captureViewport', handleCaptureViewport],
  ['goto', handleGoto],
  ['go', handleGo],
]);

async function onSocketMessage(current, raw) {
  if (link === current) countTraffic('in');
  await current.ready; // `hello` must be the first frame we send.
  await tabmcpPolicy.ready; // nothing is done for the server before the kept rules are known
  const answer = (frame) => sendOn(current, frame);

  let msg = raw; // the native port hands over parsed frames; a WebSocket, text
  if (typeof raw === 'string') {
    try {
      msg = JSON.parse(raw);
    } catch {
      answer(errorFrame(undefined, 'BAD_MESSAGE', 'Frame is not valid JSON'));
      return;
    }
  }
  const isObject = msg !== null && typeof msg === 'object' && !Array.isArray(msg);
  const id = isObject && typeof msg.id === 'string' ? msg.id : undefined;
  if (!isObject || typeof msg.type !== 'string') {
    answer(errorFrame(id, 'BAD_MESSAGE', 'Frame is not a JSON object with a string "type"'));
    return;
  }
  if (msg.type === 'pong') {
    onPong(current, msg);
    return;
  }
  if (msg.type === 'error') {
    log('server reported an error', msg.code, msg.message);
    return;
  }
  if (msg.type === 'controlled') { // a notice: no id, no answer
    await onControlled(current, msg);
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
    if (e instanceof ProtocolError) return { ...errorFrame(id, e.code, e.message), ...(e.frameGone ? { frameGone: true } : {}) };
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
    ...openerOf(tab),
  };
}

/** The tab whose page opened this one: webNavigation's source, else Chrome's openerTabId (which can
 * name the window's active tab instead of the page that called window.open). */
function openerOf(tab) {
  const opener = popupOpeners.has(tab.id) ? popupOpeners.get(tab.id) : tab.openerTabId;
  return Number.isInteger(opener) ? { openerTabId: opener } : {};
}

// A client's tabs sit in one tab group named after it, so the user sees whose work each tab is.
const GROUP_COLORS = ['blue', 'red', 'yellow', 'green', 'pink', 'purple', 'cyan', 'orange'];

function groupColor(title) {
  let hash = 0;
  for (const ch of title) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return GROUP_COLORS[hash % GROUP_COLORS.length];
}

// One grouping at a time: two tabs a client opens at once must not each create its own group.
let grouping = Promise.resolve();

function addToGroup(tab, title) {
  grouping = grouping.then(() => groupTab(tab, title)); // groupTab never rejects
  return grouping;
}

async function groupTab(tab, title) {
  if (!chrome.tabGroups) return; // a browser without tab groups: the tab works, ungrouped
  try {
    // tabGroups.query reads `title` as a pattern (* and ?): compare the titles here instead
    const groups = await chrome.tabGroups.query({ windowId: tab.windowId });
    const existing = groups.find((group) => group.title === title);
    if (existing) {
      await chrome.tabs.group({ groupId: existing.id, tabIds: [tab.id] });
      return;
    }
    const groupId = await chrome.tabs.group({ tabIds: [tab.id], createProperties: { windowId: tab.windowId } });
    await chrome.tabGroups.update(groupId, { title, color: groupColor(title) });
  } catch (e) {
    log('could not group tab', tab.id, e); // best effort: grouping is a display aid, not a boundary
  }
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
 * Follows the navigation state of one frame of one tab (the main frame unless frameId is given).
 *   started: a navigation began since the last reset()
 *   sameDocument: the last one stayed in the document (fragment, pushState, same-document history)
 *   domContentLoaded: the new document's DOMContentLoaded fired
 *   outcome: null while loading, or {kind: 'complete' | 'error' | 'removed', error?}
 * The tab id may be set later (openTab learns it from tabs.create); events that arrive before
 * then are buffered and replayed.
 */
class NavigationWatcher {
  constructor(tabId = null, frameId = 0) {
    this.tabId = tabId;
    this.frameId = frameId;
    this.buffered = [];
    this.waiters = new Set();
    this.navigationCount = 0;
    this.reset();
    watchers.add(this);
  }

  reset() {
    this.started = false;
    this.startedCount = this.navigationCount;
    this.sameDocument = false;
    this.domContentLoaded = false;
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
    // tabs.* events (no frameId) are about the main frame; 'removed' is about every frame.
    const frameId = detail && detail.frameId !== undefined ? detail.frameId : 0;
    if (kind !== 'removed' && frameId !== this.frameId) return;
    this.apply(kind, detail);
    for (const waiter of [...this.waiters]) waiter();
  }

  apply(kind, detail) {
    switch (kind) {
      case 'navigate': // webNavigation.onBeforeNavigate: a new cross-document navigation
        this.navigationCount += 1;
        this.started = true;
        this.sameDocument = false;
        this.domContentLoaded = false;
        this.outcome = null;
        break;
      case 'loading': // tabs.onUpdated status=loading (may come after an error was recorded)
        this.started = true;
        if (this.outcome && this.outcome.kind === 'complete' && !this.sameDocument) this.outcome = null;
        break;
      case 'domContentLoaded':
        this.domContentLoaded = true;
        break;
      case 'sameDocument': // onHistoryStateUpdated / onReferenceFragmentUpdated: done at once
        if (this.crossDocumentPending()) break; // the old document's late news
        this.started = true;
        this.sameDocument = true;
        this.outcome = { kind: 'complete' };
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
  // latter cases no "complete" follows, so finish once the tab (frame) is no longer loading.
  settleAfterAbort() {
    const count = this.navigationCount;
    setTimeout(async () => {
      if (this.outcome || count !== this.navigationCount) return;
      try {
        const tab = await chrome.tabs.get(this.tabId);
        if (!this.outcome && count === this.navigationCount && (this.frameId !== 0 || tab.status !== 'loading')) {
          this.receive(this.tabId, 'complete', { frameId: this.frameId });
        }
      } catch {
        this.receive(this.tabId, 'removed');
      }
    }, ABORT_SETTLE_MS);
  }

  crossDocumentPending() {
    return this.navigationCount > this.startedCount && this.outcome === null;
  }

  /** Whether the navigation that started reached waitUntil (or ended: error, tab closed). */
  reached(waitUntil) {
    if (!this.started) return false;
    if (this.outcome !== null) return true;
    return waitUntil === 'domcontentloaded' && this.domContentLoaded;
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
      const timer = setTimeout(() => finish(false), Math.max(0, ms));
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

// Popups a tab's page opened, each with a watcher on its first navigation: the action that opened
// them answers once each has loaded or been blocked (briefly), so a popup the navigation policy
// stopped is reported with that action, its navigationBlocked event sent before the answer.
const popupWatchers = new Map(); // opener tabId -> [{time, watcher}]
const popupOpeners = new Map(); // popup tabId -> the tab whose page opened it

chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => {
  popupOpeners.set(details.tabId, details.sourceTabId);
  pageEvent({ type: 'popupOpened', tabId: details.tabId, openerId: details.sourceTabId });
  const watcher = new NavigationWatcher(details.tabId);
  const opened = { time: Date.now(), watcher };
  popupWatchers.set(details.sourceTabId, [...(popupWatchers.get(details.sourceTabId) || []), opened]);
  setTimeout(() => {
    watcher.dispose();
    const left = (popupWatchers.get(details.sourceTabId) || []).filter((p) => p !== opened);
    if (left.length) popupWatchers.set(details.sourceTabId, left);
    else popupWatchers.delete(details.sourceTabId);
  }, POPUP_WATCH_MS);
});

/** Until each popup the tab's page opened since `since` has a document or was blocked (bounded). */
async function popupsSettled(tabId, since) {
  const opened = (popupWatchers.get(tabId) || []).filter((p) => p.time >= since);
  const settled = ({ watcher }) => watcher.navigationCount > 0 && (watcher.outcome !== null || watcher.domContentLoaded);
  await Promise.all(opened.map((p) => p.watcher.waitUntil(() => settled(p), POPUP_SETTLE_MS)));
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

/**
 * After a load: a navigation the page started as soon as it loaded (a meta refresh, `location =`
 * on load) that the navigation policy blocked. Its NAVIGATION_BLOCKED error, for the request that
 * loaded the page, as for a blocked redirect; null when there is none.
 */
async function blockedFollowOn(watcher, loadedAt) {
  if (watcher.navigationCount === loadedAt) return null; // the page stayed
  if (!watcher.outcome) await watcher.waitForOutcome(FOLLOW_ON_MS);
  const { outcome } = watcher;
  return outcome && outcome.kind === 'error' ? tabmcpPolicy.blockedError(outcome) : null;
}

function navigationError(outcome, fallbackUrl) {
  const url = outcome.url || fallbackUrl;
  const blocked = tabmcpPolicy.blockedError(outcome); // NAVIGATION_BLOCKED, saying which rule
  if (blocked) return blocked;
  return new ProtocolError('NAVIGATION_FAILED', `Could not load ${url}: ${outcome.error}`);
}

/**
 * Waits until the navigation the watcher follows reaches waitUntil ('load', 'domcontentloaded',
 * 'networkidle'), within timeoutMs. A navigation that has not started yet must start in that
 * time too. Throws NAVIGATION_FAILED (net::ERR_…), NO_TAB (the tab closed) or TIMEOUT.
 */
async function awaitNavigation(watcher, waitUntil, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  const reached = await watcher.waitUntil(() => watcher.reached(waitUntil), timeoutMs);
  const { outcome } = watcher;
  if (outcome && outcome.kind === 'error') throw navigationError(outcome, what);
  if (outcome && outcome.kind === 'removed') throw new ProtocolError('NO_TAB', `The tab closed while ${what} loaded`);
  if (!reached) {
    const state = watcher.started ? 'started but did not reach' : 'did not start, or did not reach';
    throw new ProtocolError('TIMEOUT', `The navigation to ${what} ${state} "${waitUntil}" within ${timeoutMs} ms`);
  }
  if (waitUntil === 'networkidle' && !watcher.sameDocument && !(await waitForNetworkIdle(watcher.tabId, deadline))) {
    const busy = inflightCount(watcher.tabId);
    throw new ProtocolError('TIMEOUT',
      `${what} loaded, but the network was not idle for ${NETWORK_IDLE_MS} ms within ${timeoutMs} ms (${busy} requests in flight)`);
  }
}

// ---------------------------------------------------------------------------------------------
// Requests in flight per tab (for waitUntil: 'networkidle'), from chrome.webRequest.

const network = new Map(); // tabId -> {requests: Map<requestId, {started: ms, type}>, lastChange: ms}

function networkOf(tabId) {
  let entry = network.get(tabId);
  if (!entry) {
    entry = { requests: new Map(), lastChange: 0 };
    network.set(tabId, entry);
  }
  return entry;
}

function requestStarted(details) {
  if (details.tabId < 0 || details.type === 'websocket') return; // long-lived: never "done"
  pageEvent({ type: 'requestStarted', tabId: details.tabId, requestId: details.requestId, kind: details.type });
  const entry = networkOf(details.tabId);
  entry.requests.set(details.requestId, { started: Date.now(), type: details.type });
  entry.lastChange = Date.now();
}

function requestEnded(details) {
  if (details.tabId < 0 || details.type === 'websocket') return;
  pageEvent({ type: 'requestEnded', tabId: details.tabId, requestId: details.requestId });
  const entry = network.get(details.tabId);
  if (entry && entry.requests.delete(details.requestId)) entry.lastChange = Date.now();
}

function inflightCount(tabId) {
  const entry = network.get(tabId);
  return entry ? entry.requests.size : 0;
}

/** True once the tab had no request in flight for NETWORK_IDLE_MS; false at the deadline. */
async function waitForNetworkIdle(tabId, deadline) {
  for (;;) {
    const entry = network.get(tabId);
    const quietFor = entry ? Date.now() - entry.lastChange : Infinity;
    if (inflightCount(tabId) === 0 && quietFor >= NETWORK_IDLE_MS) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const wait = inflightCount(tabId) === 0 ? NETWORK_IDLE_MS - quietFor : POLL_MS;
    await sleep(Math.max(10, Math.min(wait, POLL_MS, left)));
  }
}

/**
 * Waits (at most ms) until no fetch/XHR of the tab that started at or after `since` is in flight:
 * what a plan's steps asked the server for has come back. Requests that were already running (a
 * long poll, a stream) do not count, nor do a new page's images, scripts and beacons. True when
 * quiet, false at the deadline.
 */
async function waitForRequestsSince(tabId, since, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const entry = network.get(tabId);
    let busy = false;
    if (entry) {
      for (const { started, type } of entry.requests.values()) if (type === 'xmlhttprequest' && started >= since) busy = true;
    }
    if (!busy) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(POLL_MS / 2, left));
  }
}

// ---------------------------------------------------------------------------------------------
// Page agent

// Runs in the page's isolated world. Must be self-contained: it is serialised by executeScript.
function agentEntry(method, arg) {
  const agent = globalThis.__tabmcpAgent;
  if (!agent) return { __missing: true };
  const describe = (e) => String((e && e.stack) || e);
  // One JSON string crosses from the page to the worker far faster than the same data as
  // structured-cloned objects (a 17k-row snapshot: ~20 ms instead of ~350 ms).
  const pack = (value) => ({ __json: JSON.stringify(value === undefined ? null : value) });
  try {
    return Promise.resolve(agent[method](arg)).then(pack, (e) => ({ __error: describe(e) }));
  } catch (e) {
    return { __error: describe(e) };
  }
}

/** An agentEntry answer as sent: the packed JSON unpacked, markers (__missing, __error) as they are. */
function unpack(result) {
  if (result && typeof result.__json === 'string') return JSON.parse(result.__json);
  return result;
}

/**
 * chrome.scripting.executeScript with its failures as protocol errors. `target` is the API's
 * ({tabId, frameIds?, allFrames?}). A frame that is gone throws NOT_SCRIPTABLE with `frameGone`
 * set, which callers holding a ref turn into STALE_REF.
 */
async function executeIn(target, details) {
  try {
    return await chrome.scripting.executeScript({ target, ...details });
  } catch (e) {
    const message = (e && e.message) || String(e);
    if (/No tab with id/i.test(message)) throw new ProtocolError('NO_TAB', `No tab with id ${target.tabId}`);
    // "Cannot access contents of ...", "Cannot access a chrome:// URL", "Frame ... is showing
    // error page", "Frame ... not ready" ...: the page cannot be scripted right now.
    const error = new ProtocolError('NOT_SCRIPTABLE', message);
    error.frameGone = /No frame with id|was removed/i.test(message);
    throw error;
  }
}

async function executeInTab(tabId, details) {
  return executeIn({ tabId }, details);
}

/**
 * Injects the agent where the manifest's content scripts never ran (pages open before the
 * extension loaded): the hooks first, in the main world, so dialogs there no longer block the tab.
 * Console history before this moment is lost for such pages.
 */
async function injectAgent(target) {
  try {
    await executeIn(target, { files: [HOOKS_FILE], world: 'MAIN' });
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    log('could not inject the page hooks', e.message);
  }
  await executeIn(target, { files: [AGENT_FILE] });
}

async function callAgentOnce(tabId, method, arg) {
  const results = await executeInTab(tabId, { func: agentEntry, args: [method, arg === undefined ? null : arg] });
  return results && results[0] ? unpack(results[0].result) : undefined;
}

/** Calls globalThis.__tabmcpAgent[method](arg) in the tab's main frame, injecting the agent if needed. */
async function callAgent(tabId, method, arg) {
  let value = await callAgentOnce(tabId, method, arg);
  if (value && value.__missing) {
    await injectAgent({ tabId });
    value = await callAgentOnce(tabId, method, arg);
  }
  if (value === undefined || value === null || value.__missing) {
    throw new ProtocolError('NOT_SCRIPTABLE', `The page agent did not answer ${method} (did the page navigate away?)`);
  }
  if (value.__error) throw new ProtocolError('INTERNAL', `Page agent ${method} failed: ${value.__error}`);
  return value;
}

/**
 * Runs agent[method](arg) in several frames (frameIds, or every frame when null), injecting the
 * agent where it is missing (pages opened before the extension loaded). Returns Map frameId →
 * answer; a frame that could not answer (navigating, error page) is left out.
 */
async function callAgentInFrames(tabId, frameIds, method, arg) {
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  const args = [method, arg === undefined ? null : arg];
  const answers = new Map();
  const missing = [];
  for (const r of await executeIn(target, { func: agentEntry, args })) {
    const value = unpack(r.result);
    if (value && value.__missing) missing.push(r.frameId);
    else if (value !== undefined && value !== null) answers.set(r.frameId, value);
  }
  if (missing.length) {
    try {
      await injectAgent({ tabId, frameIds: missing });
      for (const r of await executeIn({ tabId, frameIds: missing }, { func: agentEntry, args })) {
        const value = unpack(r.result);
        if (value && !value.__missing) answers.set(r.frameId, value);
      }
    } catch (e) {
      if (e.code === 'NO_TAB') throw e;
      log('could not inject the agent into frames', missing, e.message); // they went away meanwhile
    }
  }
  return answers;
}

/**
 * agent[method](arg) in one frame; the agent's {ok: false, code, message} answer is thrown as a
 * protocol error. `staleRef` names the ref the call is about: a frame that is gone is then
 * STALE_REF rather than NOT_SCRIPTABLE.
 */
async function callAgentInFrame(tabId, frameId, method, arg, staleRef) {
  let answers;
  try {
    answers = await callAgentInFrames(tabId, [frameId], method, arg);
  } catch (e) {
    if (e.frameGone && staleRef) throw staleRefError(staleRef, 'its frame is gone');
    throw e;
  }
  return agentOk(answers.get(frameId), method);
}

function agentOk(value, method) {
  if (value === undefined || value === null) {
    throw new ProtocolError('NOT_SCRIPTABLE', `The page agent did not answer ${method} (did the page navigate away?)`);
  }
  if (value.__error) throw new ProtocolError('INTERNAL', `Page agent ${method} failed: ${value.__error}`);
  if (value.ok === false) {
    const error = new ProtocolError(value.code || 'INTERNAL', value.message || `${method} failed`);
    if (Array.isArray(value.candidates)) error.candidates = value.candidates;
    throw error;
  }
  return value;
}

function staleRefError(ref, why) {
  return new ProtocolError('STALE_REF', `Ref ${ref} is stale (${why}): take a new snapshot and use its refs`);
}

// ---------------------------------------------------------------------------------------------
// Frames (docs/page-agent.md §2)
//
// Per tab, subframes are numbered in order of first sight (f1, f2…, keyed by frameId, which
// Chrome keeps for a frame across its navigations); the main frame has no prefix. Each frame's
// docId and parentToken from the last snapshot are kept: a ref `f2e3` becomes {frame 2, ref e3,
// doc: frame 2's docId then}, and the agent answers STALE_REF when its document changed since.

const tabFrames = new Map(); // tabId -> {next, byFrameId: Map<frameId, FrameInfo>, byOrdinal: Map<ordinal, frameId>}

function framesOf(tabId) {
  let frames = tabFrames.get(tabId);
  if (!frames) {
    frames = { next: 1, byFrameId: new Map(), byOrdinal: new Map() };
    tabFrames.set(tabId, frames);
  }
  return frames;
}

/** The frame's record ({ordinal, docId, parentToken}), numbering it on first sight. */
function frameInfo(tabId, frameId) {
  const frames = framesOf(tabId);
  let info = frames.byFrameId.get(frameId);
  if (!info) {
    const ordinal = frameId === 0 ? 0 : frames.next++;
    info = { ordinal, docId: undefined, parentToken: undefined };
    frames.byFrameId.set(frameId, info);
    frames.byOrdinal.set(ordinal, frameId);
  }
  return info;
}

function forgetFrame(tabId, frameId) {
  const frames = tabFrames.get(tabId);
  const info = frames && frames.byFrameId.get(frameId);
  if (!info) return;
  frames.byFrameId.delete(frameId);
  frames.byOrdinal.delete(info.ordinal);
}

function prefixRef(ordinal, ref) {
  return ref && ordinal ? `f${ordinal}${ref}` : ref || '';
}

const REF_PATTERN = /^(?:f([1-9]\d*))?(e[1-9]\d*)$/;

/** `f2e3` → {frameId, local: 'e3', doc}; throws STALE_REF when frame 2 is not known (any more). */
function parseRef(tabId, ref) {
  const match = REF_PATTERN.exec(ref);
  if (!match) {
    throw new ProtocolError('ELEMENT_NOT_FOUND', `"${ref}" is not a snapshot ref (refs look like e5, or f1e3 inside a frame)`);
  }
  const ordinal = match[1] ? Number(match[1]) : 0;
  const frames = framesOf(tabId);
  const frameId = ordinal === 0 ? 0 : frames.byOrdinal.get(ordinal);
  if (frameId === undefined) throw staleRefError(ref, `this tab has no frame f${ordinal} now`);
  const info = frames.byFrameId.get(frameId);
  return { frameId, local: match[2], doc: info && info.docId };
}

function splitToken(token) {
  const at = typeof token === 'string' ? token.lastIndexOf(':') : -1;
  return at > 0 ? { docId: token.slice(0, at), ref: token.slice(at + 1) } : null;
}

async function snapshotTab(tabId, mode) {
  let answers = snapshotAnswers(await callAgentInFrames(tabId, null, 'snapshot', { mode }));
  const main = answers.get(0);
  if (!main) throw new ProtocolError('NOT_SCRIPTABLE', 'The page agent did not answer snapshot in the main frame');
  // A child learns its token from a message its parent posts during the parent's snapshot, so
  // on a first snapshot it may not have it yet: ask those children once more.
  // Only when some visible iframe is still waiting for its child: a hidden iframe gets no token and
  // its frame never matches, and a page full of hidden ad frames must not pay the wait every time.
  const listed = tokensIn(answers);
  const claimed = new Set([...answers.values()].map((a) => a.parentToken));
  const waiting = [...listed].some((token) => !claimed.has(token));
  const unmatched = [...answers].filter(([id, a]) => id !== 0 && !listed.has(a.parentToken)).map(([id]) => id);
  if (waiting && unmatched.length) {
    await sleep(TOKEN_RETRY_MS);
    try {
      const again = snapshotAnswers(await callAgentInFrames(tabId, unmatched, 'snapshot', { mode }));
      answers = new Map([...answers, ...again]);
    } catch (e) {
      if (e.code === 'NO_TAB') throw e; // else: a frame went away meanwhile; it stays out
    }
  }
  const childByToken = new Map();
  for (const [frameId, answer] of answers) {
    if (frameId !== 0 && answer.parentToken && !childByToken.has(answer.parentToken)) {
      childByToken.set(answer.parentToken, frameId);
    }
  }
  const nodes = [];
  const included = new Set();
  const splice = (frameId, baseDepth) => {
    const answer = answers.get(frameId);
    const info = frameInfo(tabId, frameId); // numbered in document order
    info.docId = answer.docId;
    info.parentToken = answer.parentToken;
    included.add(frameId);
    for (const node of answer.nodes) {
      const row = {
        ref: prefixRef(info.ordinal, node.ref),
        role: String(node.role || ''),
        name: String(node.name || ''),
        value: String(node.value || ''),
        states: Array.isArray(node.states) ? node.states.map(String) : [],
        depth: (Number.isInteger(node.depth) && node.depth >= 0 ? node.depth : 0) + baseDepth,
      };
      if (node.hint) row.hint = String(node.hint); // locate mode only (docs/nl-tools.md)
      if (node.context) row.context = String(node.context);
      nodes.push(row);
      const child = node.frameToken ? childByToken.get(node.frameToken) : undefined;
      if (child !== undefined && !included.has(child)) splice(child, row.depth + 1);
    }
  };
  splice(0, 0);
  // Frames left out (hidden iframes) still get a number and a docId, for css/role targets.
  const all = [...answers.keys()].sort((a, b) => a - b);
  for (const frameId of all) {
    if (included.has(frameId)) continue;
    const info = frameInfo(tabId, frameId);
    info.docId = answers.get(frameId).docId;
    info.parentToken = answers.get(frameId).parentToken;
  }
  await pruneFrames(tabId);
  return {
    url: String(main.url || ''), title: String(main.title || ''), docId: String(main.docId || ''), nodes,
    frames: included.size,
  };
}

/** Keeps the answers that look like snapshots (a frame mid-navigation may answer garbage). */
function snapshotAnswers(answers) {
  const kept = new Map();
  for (const [frameId, answer] of answers) {
    if (answer && !answer.__error && answer.ok !== false && Array.isArray(answer.nodes)) kept.set(frameId, answer);
    else log('snapshot: frame', frameId, 'answered', answer && (answer.__error || answer.message));
  }
  return kept;
}

function tokensIn(answers) {
  const tokens = new Set();
  for (const answer of answers.values()) {
    for (const node of answer.nodes) if (node.frameToken) tokens.add(node.frameToken);
  }
  return tokens;
}

/** Drops the records of frames the tab no longer has, so their refs are STALE_REF. */
async function pruneFrames(tabId) {
  let live;
  try {
    live = await chrome.webNavigation.getAllFrames({ tabId });
  } catch {
    return;
  }
  if (!live) return;
  const ids = new Set(live.map((f) => f.frameId));
  for (const frameId of [...framesOf(tabId).byFrameId.keys()]) {
    if (!ids.has(frameId)) forgetFrame(tabId, frameId);
  }
}

/**
 * Where a target is: {frameId, target (for that frame's agent), label}. A ref names its frame;
 * a css or role target is looked up with `find` in every frame and must match exactly once.
 */
async function resolveTarget(tabId, target) {
  if (target.ref !== undefined) {
    const { frameId, local, doc } = parseRef(tabId, target.ref);
    const agentTarget = doc ? { ref: local, doc } : { ref: local };
    return { frameId, target: agentTarget, label: target.ref };
  }
  const label = describeTarget(target);
  const answers = await callAgentInFrames(tabId, null, 'find', { target, limit: MAX_CANDIDATES + 1 });
  const matches = [];
  let failure = null;
  for (const frameId of [...answers.keys()].sort((a, b) => a - b)) {
    const answer = answers.get(frameId);
    if (!answer || answer.__error || answer.ok === false || !Array.isArray(answer.matches)) {
      failure = failure || answer;
      continue;
    }
    const { ordinal } = frameInfo(tabId, frameId);
    for (const m of answer.matches) matches.push({ frameId, local: m.ref, ref: prefixRef(ordinal, m.ref), role: m.role, name: m.name });
  }
  if (matches.length === 1) return { frameId: matches[0].frameId, target: { ref: matches[0].local }, label };
  if (matches.length > 1) {
    const candidates = matches.slice(0, MAX_CANDIDATES).map(({ ref, role, name }) => ({ ref, role, name }));
    const listed = candidates.map((c) => `${c.ref} ${c.role} "${c.name}"`).join(', ');
    const more = matches.length > MAX_CANDIDATES ? ' …' : '';
    const error = new ProtocolError('ELEMENT_AMBIGUOUS', `${label} matches ${matches.length > MAX_CANDIDATES ? 'more than ' + MAX_CANDIDATES : matches.length} elements: ${listed}${more}`);
    error.candidates = candidates;
    throw error;
  }
  if (failure && failure.ok === false) agentOk(failure, 'find'); // e.g. an invalid selector: say so
  if (failure && failure.__error) agentOk(failure, 'find');
  throw new ProtocolError('ELEMENT_NOT_FOUND', `No element matches ${label}`);
}

/** The frame holding focus (for press without a target): the deepest one whose active element is not an iframe. */
async function focusedFrame(tabId) {
  let results;
  try {
    results = await executeIn({ tabId, allFrames: true }, {
      func: () => {
        const active = document.activeElement;
        return document.hasFocus() && Boolean(active) && active !== document.body
          && active.localName !== 'iframe' && active.localName !== 'frame';
      },
    });
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    return 0;
  }
  const focused = results.filter((r) => r.result === true).map((r) => r.frameId);
  return focused.length ? Math.max(...focused) : 0;
}

/**
 * A point of frame `frameId`'s viewport, in the tab's (main frame's) viewport, CSS px: each
 * ancestor's agent adds where the iframe element's content box starts (`frameOffset`), and
 * scrolls so the point is in its own view. The iframe element is known from the child's
 * parentToken (docId:ref of that element in the parent); without a snapshot yet, the parent is
 * snapshotted so it hands its children their tokens.
 */
async function pointInTabViewport(tabId, frameId, point) {
  let { x, y } = point;
  let current = frameId;
  for (let depth = 0; current !== 0; depth += 1) {
    if (depth > 20) throw new ProtocolError('INTERNAL', 'Frames nested too deep');
    let details;
    try {
      details = await chrome.webNavigation.getFrame({ tabId, frameId: current });
    } catch {
      details = null;
    }
    if (!details) throw new ProtocolError('STALE_REF', 'The element\'s frame is gone: take a new snapshot');
    const parent = details.parentFrameId;
    const token = await parentTokenOf(tabId, current, parent);
    if (!token) throw new ProtocolError('ELEMENT_NOT_INTERACTABLE', 'The element\'s frame is not visible in its parent page');
    const offset = await callAgentInFrame(tabId, parent, 'frameOffset', { ref: token.ref, doc: token.docId, point: { x, y } });
    x += offset.x;
    y += offset.y;
    current = parent;
  }
  return { x, y };
}

async function parentTokenOf(tabId, frameId, parentFrameId) {
  const known = splitToken(frameInfo(tabId, frameId).parentToken);
  const parentDoc = frameInfo(tabId, parentFrameId).docId;
  if (known && (!parentDoc || known.docId === parentDoc)) return known;
  // Let the parent hand out tokens, then read the child's.
  const parent = agentOk((await callAgentInFrames(tabId, [parentFrameId], 'snapshot', { mode: 'interactive' })).get(parentFrameId), 'snapshot');
  frameInfo(tabId, parentFrameId).docId = parent.docId;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await sleep(TOKEN_RETRY_MS);
    const child = (await callAgentInFrames(tabId, [frameId], 'snapshot', { mode: 'interactive' })).get(frameId);
    const token = child && splitToken(child.parentToken);
    if (token && token.docId === parent.docId) {
      Object.assign(frameInfo(tabId, frameId), { docId: child.docId, parentToken: child.parentToken });
      return token;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// chrome.debugger (CDP): trusted input, full-page screenshots, evaluate.
//
// A tab's session is attached on first use and detached after DEBUGGER_IDLE_MS without use
// (Chrome shows a "being debugged" bar while attached). onDetach (tab closed, DevTools took
// over, the user cancelled the bar) forgets it; the next use attaches again.

const debuggees = new Map(); // tabId -> {ready: Promise, busy: int, idleTimer}

async function withDebugger(tabId, use) {
  for (let attempt = 0; ; attempt += 1) {
    const session = debuggerSession(tabId);
    session.busy += 1;
    clearTimeout(session.idleTimer);
    try {
      await session.ready;
      return await use((method, params) => cdp(tabId, method, params));
    } catch (e) {
      if (e.detached && attempt === 0) continue; // detached under us: attach again, once
      throw e;
    } finally {
      session.busy -= 1;
      if (debuggees.get(tabId) === session && session.busy === 0) {
        session.idleTimer = setTimeout(() => detachDebugger(tabId, session), DEBUGGER_IDLE_MS);
      }
    }
  }
}

function debuggerSession(tabId) {
  let session = debuggees.get(tabId);
  if (!session) {
    session = { ready: null, busy: 0, idleTimer: null };
    session.ready = attachDebugger(tabId).catch((e) => {
      if (debuggees.get(tabId) === session) debuggees.delete(tabId);
      throw e;
    });
    debuggees.set(tabId, session);
  }
  return session;
}

async function attachDebugger(tabId) {
  try {
    await chrome.debugger.attach({ tabId }, CDP_VERSION);
    log('debugger attached', tabId);
  } catch (e) {
    const message = (e && e.message) || String(e);
    if (/already attached/i.test(message) && /tabmcp|this extension/i.test(message)) return; // ours, from before a restart
    throw debuggerError(tabId, message);
  }
}

async function detachDebugger(tabId, session) {
  if (debuggees.get(tabId) !== session || session.busy > 0) return;
  debuggees.delete(tabId);
  try {
    await chrome.debugger.detach({ tabId });
    log('debugger detached (idle)', tabId);
  } catch {
    // Already detached (the tab closed, or the user cancelled).
  }
}

function onDebuggerDetach(source, reason) {
  if (source.tabId === undefined) return;
  const session = debuggees.get(source.tabId);
  if (session) clearTimeout(session.idleTimer);
  debuggees.delete(source.tabId);
  log('debugger detached', source.tabId, reason);
}

async function cdp(tabId, method, params = {}) {
  try {
    return await chrome.debugger.sendCommand({ tabId }, method, params);
  } catch (e) {
    throw debuggerError(tabId, (e && e.message) || String(e), method);
  }
}

function debuggerError(tabId, message, method) {
  if (/No tab with (given )?id/i.test(message)) return new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
  if (/not attached|Detached while handling/i.test(message)) {
    debuggees.delete(tabId);
    const error = new ProtocolError('INTERNAL', `The debugger was detached from tab ${tabId} (DevTools opened, or the tab navigated to a browser page)`);
    error.detached = true;
    return error;
  }
  if (/already attached/i.test(message)) {
    return new ProtocolError('NOT_SCRIPTABLE', `Another debugger (DevTools?) is attached to tab ${tabId}: ${message}`);
  }
  if (/Cannot access|Cannot attach|chrome:\/\/|chrome-extension:|webstore/i.test(message)) {
    return new ProtocolError('NOT_SCRIPTABLE', `This page cannot be debugged: ${message}`);
  }
  return new ProtocolError('INTERNAL', method ? `${method} failed: ${message}` : message);
}

// ---------------------------------------------------------------------------------------------
// Trusted input: real (isTrusted) events through CDP Input.*, at the point the agent returns.

const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const MODIFIER_KEYS = {
  Alt: { code: 'AltLeft', keyCode: 18 },
  Control: { code: 'ControlLeft', keyCode: 17 },
  Meta: { code: 'MetaLeft', keyCode: 91 },
  Shift: { code: 'ShiftLeft', keyCode: 16 },
};
const MODIFIER_ALIASES = { Ctrl: 'Control', Cmd: 'Meta', Command: 'Meta', Option: 'Alt' };
const NAMED_KEYS = {
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { code: 'Tab', keyCode: 9 },
  Escape: { code: 'Escape', keyCode: 27 },
  Backspace: { code: 'Backspace', keyCode: 8 },
  Delete: { code: 'Delete', keyCode: 46 },
  Insert: { code: 'Insert', keyCode: 45 },
  ArrowLeft: { code: 'ArrowLeft', keyCode: 37 },
  ArrowUp: { code: 'ArrowUp', keyCode: 38 },
  ArrowRight: { code: 'ArrowRight', keyCode: 39 },
  ArrowDown: { code: 'ArrowDown', keyCode: 40 },
  Home: { code: 'Home', keyCode: 36 },
  End: { code: 'End', keyCode: 35 },
  PageUp: { code: 'PageUp', keyCode: 33 },
  PageDown: { code: 'PageDown', keyCode: 34 },
  ' ': { code: 'Space', keyCode: 32, text: ' ' },
};
for (let n = 1; n <= 12; n += 1) NAMED_KEYS[`F${n}`] = { code: `F${n}`, keyCode: 111 + n };
const KEY_ALIASES = { Space: ' ', Esc: 'Escape', Return: 'Enter', Del: 'Delete', Up: 'ArrowUp', Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight' };

/** "Control+Shift+A" → {key, code, keyCode, text?, modifiers: [names], bits}; BAD_MESSAGE for an unknown key. */
function parseKeyCombo(combo) {
  const parts = combo === '+' ? ['+'] : combo.split('+').map((p) => p.trim());
  if (combo.endsWith('++')) parts.splice(parts.length - 2, 2, '+');
  const name = parts.pop();
  const modifiers = parts.map((m) => MODIFIER_ALIASES[m] || m);
  for (const m of modifiers) {
    if (!(m in MODIFIER_BITS)) throw new ProtocolError('BAD_MESSAGE', `Unknown modifier "${m}" in key "${combo}" (Control, Shift, Alt, Meta)`);
  }
  const bits = modifiers.reduce((sum, m) => sum | MODIFIER_BITS[m], 0);
  const keyName = KEY_ALIASES[name] || name;
  if (NAMED_KEYS[keyName]) return { key: keyName, ...NAMED_KEYS[keyName], modifiers, bits };
  if ([...keyName].length !== 1) throw new ProtocolError('BAD_MESSAGE', `Unknown key "${name}" in "${combo}"`);
  const shifted = modifiers.includes('Shift');
  const char = /[a-z]/i.test(keyName) ? (shifted ? keyName.toUpperCase() : keyName.toLowerCase()) : keyName;
  const upper = char.toUpperCase();
  const code = /[A-Z]/.test(upper) ? `Key${upper}` : /\d/.test(char) ? `Digit${char}` : '';
  const keyCode = /[A-Z0-9]/.test(upper) ? upper.charCodeAt(0) : 0;
  return { key: char, code, keyCode, text: char, modifiers, bits };
}

async function cdpPressKey(send, combo) {
  const key = parseKeyCombo(combo);
  let bits = 0;
  for (const m of key.modifiers) {
    bits |= MODIFIER_BITS[m];
    await send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: m, code: MODIFIER_KEYS[m].code, windowsVirtualKeyCode: MODIFIER_KEYS[m].keyCode, modifiers: bits });
  }
  // Text is typed only without Control/Alt/Meta (those are shortcuts).
  const text = key.text && !(bits & (MODIFIER_BITS.Control | MODIFIER_BITS.Alt | MODIFIER_BITS.Meta)) ? key.text : undefined;
  const commands = (bits & (MODIFIER_BITS.Control | MODIFIER_BITS.Meta)) && key.key.toLowerCase() === 'a' ? ['selectAll'] : undefined;
  const down = { type: text ? 'keyDown' : 'rawKeyDown', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers: bits };
  if (text) Object.assign(down, { text, unmodifiedText: text });
  if (commands) down.commands = commands;
  await send('Input.dispatchKeyEvent', down);
  await send('Input.dispatchKeyEvent', { type: 'keyUp', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers: bits });
  for (const m of [...key.modifiers].reverse()) {
    bits &= ~MODIFIER_BITS[m];
    await send('Input.dispatchKeyEvent', { type: 'keyUp', key: m, code: MODIFIER_KEYS[m].code, windowsVirtualKeyCode: MODIFIER_KEYS[m].keyCode, modifiers: bits });
  }
}

async function cdpMouse(send, x, y, clicks) {
  await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0 });
  for (let count = 1; count <= clicks; count += 1) {
    await send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: count });
    await send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: count });
  }
}

/**
 * The target's actionable centre in the tab's viewport (CSS px), after the agent's checks for
 * `action` (editable for fill, …); the agent also takes the action's dialog policy, which then
 * answers dialogs the trusted input opens.
 */
async function pointInTab(tabId, resolved, action, checks) {
  const arg = { target: resolved.target, action: checks, timeoutMs: action.timeoutMs !== undefined ? action.timeoutMs : DEFAULT_ACT_TIMEOUT_MS };
  if (action.dialog) arg.dialog = action.dialog;
  if (action.promptText !== undefined) arg.promptText = action.promptText;
  const point = await callAgentInFrame(tabId, resolved.frameId, 'point', arg, resolved.label);
  const inTab = await pointInTabViewport(tabId, resolved.frameId, { x: point.x, y: point.y });
  return { ...inTab, sensitive: point.sensitive === true };
}

async function probeIn(tabId, resolved, state) {
  const answer = await callAgentInFrame(tabId, resolved.frameId, 'probe', { target: resolved.target, state }, resolved.label);
  return answer.met === true;
}

// Actions with a trusted form; select, scroll and submit have no input-event semantics to fake
// and always run through the agent.
const TRUSTED_ACTIONS = new Set(['click', 'dblclick', 'hover', 'fill', 'type', 'clear', 'press', 'check', 'uncheck']);
// Trusted actions that may navigate (no agent watches the Navigation API for them).
const TRUSTED_NAVIGATING = new Set(['click', 'dblclick', 'press', 'check', 'uncheck']);

/** Performs an action with real input events. Answers like the agent's act (without navigation). */
async function trustedAct(tabId, resolved, action) {
  const name = action.action;
  const since = Date.now();
  const pointOf = (checks = name) => pointInTab(tabId, resolved, action, checks);
  let sensitive = false; // filled a password field: the server keeps the text out of its audit log
  if (name === 'check' || name === 'uncheck') {
    const want = name === 'check';
    if ((await probeIn(tabId, resolved, 'checked')) !== want) {
      const { x, y } = await pointOf();
      await withDebugger(tabId, (send) => cdpMouse(send, x, y, 1));
      if ((await probeIn(tabId, resolved, 'checked')) !== want) {
        throw new ProtocolError('ELEMENT_NOT_INTERACTABLE', `${resolved.label} is still ${want ? 'unchecked' : 'checked'} after the click`);
      }
    }
  } else if (name === 'press') {
    if (resolved.target && !(await probeIn(tabId, resolved, 'focused'))) {
      const { x, y } = await pointOf('click'); // focus it the way a user would
      await withDebugger(tabId, (send) => cdpMouse(send, x, y, 1));
    }
    await withDebugger(tabId, (send) => cdpPressKey(send, action.key));
  } else {
    const { x, y, sensitive: password } = await pointOf();
    sensitive = password;
    await withDebugger(tabId, async (send) => {
      if (name === 'hover') {
        await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0 });
        return;
      }
      await cdpMouse(send, x, y, name === 'dblclick' ? 2 : 1);
      if (name === 'fill' || name === 'clear') {
        await cdpPressKey(send, 'Control+A');
        if (name === 'fill' && action.text) await send('Input.insertText', { text: action.text });
        else await cdpPressKey(send, 'Delete');
      } else if (name === 'type') {
        await cdpPressKey(send, 'End');
        if (action.text) await send('Input.insertText', { text: action.text });
      }
    });
  }
  // The agent reports dialogs over its port while the page handles the input; one round trip to
  // the frame lets those messages arrive before they are read.
  await executeIn({ tabId, frameIds: [resolved.frameId] }, { func: () => 0 }).catch(() => {});
  return { ok: true, dialogs: dialogsSince(tabId, since), sensitive };
}

// ---------------------------------------------------------------------------------------------
// Console ring buffer (docs/page-agent.md §5): fed by every frame's agent over its port, kept
// per tab across navigations, CONSOLE_CAPACITY entries with increasing sequence numbers.

const CONSOLE_LEVELS = new Set(['debug', 'log', 'info', 'warning', 'error', 'dialog']);
const consoleBuffers = new Map(); // tabId -> {entries: [], nextSeq}
const recentDialogs = new Map(); // tabId -> [{time, dialog}] for trusted actions' answers

function addConsoleEntry(tabId, entry) {
  if (!entry || typeof entry !== 'object') return;
  let buffer = consoleBuffers.get(tabId);
  if (!buffer) {
    buffer = { entries: [], nextSeq: 1 };
    consoleBuffers.set(tabId, buffer);
  }
  const level = entry.level === 'warn' ? 'warning' : CONSOLE_LEVELS.has(entry.level) ? entry.level : 'log';
  const text = String(entry.text === undefined ? '' : entry.text);
  buffer.entries.push({
    seq: buffer.nextSeq++,
    level,
    text: text.length > CONSOLE_TEXT_MAX ? `${text.slice(0, CONSOLE_TEXT_MAX - 1)}…` : text,
    time: Number.isFinite(entry.time) ? entry.time : Date.now(),
    source: typeof entry.source === 'string' ? entry.source.slice(0, 500) : '',
  });
  if (buffer.entries.length > CONSOLE_CAPACITY) buffer.entries.splice(0, buffer.entries.length - CONSOLE_CAPACITY);
}

function noteDialog(tabId, dialog) {
  if (!dialog || typeof dialog !== 'object') return;
  const list = recentDialogs.get(tabId) || [];
  list.push({ time: Date.now(), dialog: { type: String(dialog.type || ''), message: String(dialog.message || ''), answer: dialog.answer === undefined ? null : dialog.answer } });
  recentDialogs.set(tabId, list.slice(-20));
}

function dialogsSince(tabId, since) {
  return (recentDialogs.get(tabId) || []).filter((d) => d.time >= since).map((d) => d.dialog);
}

/**
 * The dialogs a tab's page showed since `since` (its load script's, for openTab and navigate), as
 * an action reports them: one bounded round trip to the page first, so the agent's reports of them
 * have arrived (a busy page answers with what has).
 */
async function dialogsShown(tabId, since) {
  const roundTrip = executeIn({ tabId, frameIds: [0] }, { func: () => 0 }).catch(() => {});
  await Promise.race([roundTrip, sleep(DIALOG_FLUSH_MS)]);
  return dialogsSince(tabId, since);
}

const TOOLS_CHANGED_REASONS = new Set(['mutation', 'history', 'webmcp']);

function onAgentMessage(tabId, message, frameId) {
  if (!message || typeof message !== 'object') return;
  pageEvent({ type: 'agentMessage', tabId, frameId: frameId || 0, message });
  if (message.type === 'console' && Array.isArray(message.entries)) {
    for (const entry of message.entries) addConsoleEntry(tabId, entry);
  } else if (message.type === 'dialog') {
    noteDialog(tabId, message.dialog);
  } else if (message.type === 'toolsChanged' && frameId === 0) {
    // Only the top frame's tools are page tools; the server re-introspects and decides.
    const reason = TOOLS_CHANGED_REASONS.has(message.reason) ? message.reason : 'mutation';
    const version = typeof message.version === 'string' ? message.version.slice(0, 64) : '';
    sendEvent({ type: 'toolsChanged', tabId, reason, version });
  }
}

// ---------------------------------------------------------------------------------------------
// Screenshots

function dataUrlPayload(dataUrl) {
  const comma = dataUrl.indexOf(',');
  return comma >= 0 ? dataUrl.slice(comma + 1) : dataUrl;
}

function base64Bytes(b64, maxBytes) {
  const chars = maxBytes ? Math.min(b64.length, Math.ceil(maxBytes / 3) * 4) : b64.length;
  const binary = atob(b64.slice(0, chars - (chars % 4)));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** {width, height} read from the PNG header or the JPEG frame header. */
function imageSize(b64, mimeType) {
  if (mimeType === 'image/png') {
    const b = base64Bytes(b64, 24);
    if (b.length >= 24 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
      const u32 = (i) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
      return { width: u32(16), height: u32(20) };
    }
  } else {
    for (const limit of [65536, 0]) {
      const b = base64Bytes(b64, limit);
      let i = 2;
      while (i + 9 < b.length) {
        if (b[i] !== 0xff) { i += 1; continue; }
        const marker = b[i + 1];
        const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
        if (isFrame) return { width: (b[i + 7] << 8) | b[i + 8], height: (b[i + 5] << 8) | b[i + 6] };
        if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) { i += marker === 0xff ? 1 : 2; continue; }
        i += 2 + ((b[i + 2] << 8) | b[i + 3]);
      }
    }
  }
  throw new ProtocolError('INTERNAL', 'The browser returned an image whose size could not be read');
}

function imageResult(data, format) {
  const mimeType = format === 'jpeg' ? 'image/jpeg' : 'image/png';
  return { data, mimeType, ...imageSize(data, mimeType) };
}

/** The visible part of the tab (base64): chrome.tabs.captureVisibleTab when the tab is its window's active one, else CDP. */
async function viewportImage(tab, format, quality) {
  if (!tab.active) return cdpImage(tab.id, format, quality, null);
  const options = { format };
  if (quality !== undefined) options.quality = quality;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      return dataUrlPayload(await chrome.tabs.captureVisibleTab(tab.windowId, options));
    } catch (e) {
      const message = (e && e.message) || String(e);
      if (/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND|quota/i.test(message)) {
        if (attempt === 0) {
          await sleep(CAPTURE_RETRY_MS); // ~2 calls/s allowed
          continue;
        }
        break; // still limited: CDP has no such quota
      }
      if (/Cannot access|permission|chrome:\/\//i.test(message)) throw new ProtocolError('NOT_SCRIPTABLE', `Cannot capture this page: ${message}`);
      if (/No window|No tab/i.test(message)) throw new ProtocolError('NO_TAB', `The tab's window is gone: ${message}`);
      log('captureVisibleTab failed, using CDP', message);
      break;
    }
  }
  return cdpImage(tab.id, format, quality, null);
}

async function captureViewport(tab, format, quality) {
  return imageResult(await viewportImage(tab, format, quality), format);
}

/** CDP Page.captureScreenshot (base64); clip in page (document) CSS px, or null for the viewport. */
async function cdpImage(tabId, format, quality, clip) {
  return withDebugger(tabId, async (send) => {
    const params = { format };
    if (quality !== undefined) params.quality = quality;
    if (clip) Object.assign(params, { clip: { ...clip, scale: 1 }, captureBeyondViewport: true });
    const { data } = await send('Page.captureScreenshot', params);
    return data;
  });
}

async function captureWithCdp(tabId, format, quality, clip) {
  return imageResult(await cdpImage(tabId, format, quality, clip), format);
}

async function captureFullPage(tabId, format, quality) {
  const metrics = await withDebugger(tabId, (send) => send('Page.getLayoutMetrics'));
  const size = metrics.cssContentSize || metrics.contentSize;
  const width = Math.max(1, Math.ceil(size.width));
  const height = Math.max(1, Math.min(Math.ceil(size.height), MAX_CAPTURE_SIDE));
  return captureWithCdp(tabId, format, quality, { x: 0, y: 0, width, height });
}

async function captureElement(tab, target, format, quality) {
  const resolved = await resolveTarget(tab.id, target);
  const { rect, dpr } = await callAgentInFrame(tab.id, resolved.frameId, 'rect', { target: resolved.target }, resolved.label);
  const centre = { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
  const inTab = await pointInTabViewport(tab.id, resolved.frameId, centre);
  const box = { x: rect.x + inTab.x - centre.x, y: rect.y + inTab.y - centre.y, width: rect.width, height: rect.height };
  if (!(box.width > 0 && box.height > 0)) throw new ProtocolError('ELEMENT_NOT_INTERACTABLE', `${resolved.label} has no size on screen`);
  const [{ result: view }] = await executeInTab(tab.id, { func: () => ({ width: innerWidth, height: innerHeight, x: scrollX, y: scrollY }) });
  const image = await captureViewport(tab, format, quality);
  // The captured pixels per CSS px; the image can be smaller than innerWidth × innerHeight when
  // the viewport is emulated (DevTools device mode, automation), so its size is what counts.
  const scale = dpr > 0 ? dpr : image.width / view.width;
  const visibleWidth = Math.min(view.width, image.width / scale);
  const visibleHeight = Math.min(view.height, image.height / scale);
  const fits = box.x >= -0.5 && box.y >= -0.5 && box.x + box.width <= visibleWidth + 0.5 && box.y + box.height <= visibleHeight + 0.5;
  if (!fits) {
    // Larger than the viewport (or not quite in it): CDP renders the region wherever it is.
    const clip = {
      x: Math.max(0, box.x + view.x),
      y: Math.max(0, box.y + view.y),
      width: Math.max(1, box.width),
      height: Math.max(1, Math.min(box.height, MAX_CAPTURE_SIDE)),
    };
    return captureWithCdp(tab.id, format, quality, clip);
  }
  const x = Math.min(image.width - 1, Math.max(0, Math.floor(box.x * scale)));
  const y = Math.min(image.height - 1, Math.max(0, Math.floor(box.y * scale)));
  const clip = {
    x,
    y,
    width: Math.max(1, Math.min(image.width, Math.ceil((box.x + box.width) * scale)) - x),
    height: Math.max(1, Math.min(image.height, Math.ceil((box.y + box.height) * scale)) - y),
  };
  return { ...image, clip };
}

// ---------------------------------------------------------------------------------------------
// Page primitives: what the server's page session (src/tabmcp/drivers/session/) asks of a tab, one
// browser call each (docs/protocol.md "Page primitives"). The session does the orchestration.

async function handleCreateTab(msg) {
  if (typeof msg.url !== 'string') throw badField(msg, 'url', 'a string');
  if (msg.focus !== undefined && typeof msg.focus !== 'boolean') throw badField(msg, 'focus', 'a boolean');
  if (msg.group != null && typeof msg.group !== 'string') throw badField(msg, 'group', 'a string');
  // tabs.create resolves relative URLs against the extension's own origin; refuse them instead.
  try {
    new URL(msg.url);
  } catch {
    throw new ProtocolError('INVALID_URL', `Not an absolute URL: ${msg.url}`);
  }
  const focus = msg.focus !== false;
  const tab = await createTab(msg.url, focus);
  if (msg.group) await addToGroup(tab, msg.group);
  if (focus) await focusWindow(tab.windowId);
  return { type: 'result', data: { tab: tabInfo(tab) } };
}

async function handleTabUrl(msg) {
  return { type: 'result', data: { tab: tabInfo(await getTab(requireTabId(msg))) } };
}

/** The tab's frames now, the main frame first: {frameId, parentFrameId (null for the main frame), url}. */
async function handleFrames(msg) {
  const tabId = requireTabId(msg);
  let frames = null;
  try {
    frames = await chrome.webNavigation.getAllFrames({ tabId });
  } catch {
    // an unknown tab: said below
  }
  if (!frames) {
    await getTab(tabId);
    frames = [];
  }
  const listed = frames
    .filter((f) => f.documentLifecycle !== 'prerender')
    .map((f) => ({ frameId: f.frameId, parentFrameId: f.parentFrameId >= 0 ? f.parentFrameId : null, url: f.url || '' }));
  listed.sort((a, b) => (a.frameId === 0 ? -1 : b.frameId === 0 ? 1 : 0));
  return { type: 'result', data: { frames: listed } };
}

/**
 * agent[method](arg) in the given frames (every frame when frameIds is absent), the agent injected
 * where it is missing. Each answer is the agent's own JSON text, put in the frame as it is: parsing
 * it here to serialise it again would double the cost of a large snapshot.
 */
async function handleCallAgent(msg) {
  const tabId = requireTabId(msg);
  const method = optional(msg, 'method', isText, 'a page agent method name as');
  if (method === undefined) throw badField(msg, 'method', 'a page agent method name as');
  const frameIds = optional(msg, 'frameIds', (v) => Array.isArray(v) && v.every(Number.isInteger), 'a list of frame ids as');
  const args = [method, msg.arg === undefined ? null : msg.arg];
  const answers = new Map(); // frameId → JSON text
  const take = (results) => {
    const missing = [];
    for (const r of results) {
      const value = r.result;
      if (value && typeof value.__json === 'string') answers.set(r.frameId, value.__json);
      else if (value && value.__missing) missing.push(r.frameId);
      else if (value !== undefined && value !== null) answers.set(r.frameId, JSON.stringify(value));
    }
    return missing;
  };
  const missing = take(await executeIn(frameIds ? { tabId, frameIds } : { tabId, allFrames: true }, { func: agentEntry, args }));
  if (missing.length) {
    try {
      await injectAgent({ tabId, frameIds: missing });
      take(await executeIn({ tabId, frameIds: missing }, { func: agentEntry, args }));
    } catch (e) {
      if (e.code === 'NO_TAB') throw e;
      log('could not inject the agent into frames', missing, e.message); // they went away meanwhile
    }
  }
  const parts = [];
  for (const [frameId, json] of answers) parts.push(`"${frameId}":${json}`);
  return { type: 'result', rawData: `{"answers":{${parts.join(',')}}}` };
}

/** One DevTools protocol command on the tab's page, through the debugger session (attached on use). */
async function handleCdp(msg) {
  const tabId = requireTabId(msg);
  const method = optional(msg, 'method', isText, 'a DevTools protocol method as');
  if (method === undefined) throw badField(msg, 'method', 'a DevTools protocol method as');
  const params = optional(msg, 'params', (v) => typeof v === 'object' && !Array.isArray(v), 'an object as') || {};
  const result = await withDebugger(tabId, (send) => send(method, params));
  return { type: 'result', data: { result: result || {} } };
}

async function handleCaptureViewport(msg) {
  const tab = await getTab(requireTabId(msg));
  const format = optional(msg, 'format', oneOf(['png', 'jpeg']), 'png or jpeg as') || 'png';
  const quality = format === 'jpeg' ? optional(msg, 'quality', intBetween(0, 100), 'an integer 0…100 as') : undefined;
  return { type: 'result', data: { image: await viewportImage(tab, format, quality) } };
}

async function handleGoto(msg) {
  const tabId = requireTabId(msg);
  const url = optional(msg, 'url', isText, 'a URL string as');
  if (url === undefined) throw badField(msg, 'url', 'a URL string as');
  checkNavigableUrl(url);
  try {
    await chrome.tabs.update(tabId, { url });
  } catch (e) {
    const message = (e && e.message) || String(e);
    if (/No tab with id/i.test(message)) throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
    throw new ProtocolError('INVALID_URL', `Cannot open ${url}: ${message}`);
  }
  return { type: 'result', data: {} };
}

async function handleGo(msg) {
  const tabId = requireTabId(msg);
  const where = optional(msg, 'where', oneOf(['back', 'forward', 'reload']), 'back, forward or reload as');
  if (where === undefined) throw badField(msg, 'where', 'back, forward or reload as');
  try {
    if (where === 'reload') await chrome.tabs.reload(tabId);
    else await goInHistory(tabId, where);
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    const message = (e && e.message) || String(e);
    if (/No tab with id/i.test(message)) throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
    throw new ProtocolError('NAVIGATION_FAILED', `Cannot go ${where}: ${message}`);
  }
  return { type: 'result', data: {} };
}

// ---------------------------------------------------------------------------------------------
// Page events: what the browser saw of the tabs' pages, forwarded for the server's page session.
// Batched, one frame per burst, and always sent before any later frame (sendOn flushes them), so
// the server sees them in the browser's order, ahead of the answers that followed them.

const pageEvents = [];
let pageEventsTimer = null;

function pageEvent(event) {
  if (!link || !link.helloSent) return; // dropped, not queued, while unlinked
  pageEvents.push(event);
  if (pageEventsTimer === null) pageEventsTimer = setTimeout(flushPageEvents, 0);
}

function flushPageEvents() {
  clearTimeout(pageEventsTimer);
  pageEventsTimer = null;
  if (pageEvents.length) sendEvent({ type: 'pageEvents', events: pageEvents.splice(0) });
}

/** A webNavigation event of a tab's frame (a prerendered page is not the tab's yet: left out). */
function frameNavigation(details, kind) {
  if (details.tabId < 0 || details.documentLifecycle === 'prerender') return;
  const event = { type: 'frameNavigation', tabId: details.tabId, frameId: details.frameId, kind, url: details.url || '' };
  if (details.error) event.error = details.error;
  pageEvent(event);
}

/** A subframe's agent went away: the frame navigated, or was removed (then webNavigation has no such frame). */
async function checkFrameRemoved(tabId, frameId) {
  let frame;
  try {
    frame = await chrome.webNavigation.getFrame({ tabId, frameId });
  } catch {
    frame = null;
  }
  if (!frame) pageEvent({ type: 'frameNavigation', tabId, frameId, kind: 'removed', url: '' });
}

// ---------------------------------------------------------------------------------------------
// Field checks for the page-agent requests

const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'];
const ACTIONS = ['click', 'dblclick', 'hover', 'fill', 'type', 'clear', 'select', 'check', 'uncheck', 'press', 'scroll', 'submit'];
const TARGETED = new Set(['click', 'dblclick', 'hover', 'fill', 'type', 'clear', 'select', 'check', 'uncheck', 'submit']);
const ELEMENT_STATES = ['visible', 'hidden', 'attached', 'detached', 'enabled', 'disabled', 'checked', 'unchecked', 'focused'];
// Met when every frame says so (the element/text must be gone everywhere), not just one.
const EVERY_FRAME_STATES = new Set(['hidden', 'detached']);

function optional(msg, field, check, expected) {
  const value = msg[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw badField(msg, field, expected);
  return value;
}

const isString = (v) => typeof v === 'string';
const isText = (v) => typeof v === 'string' && v.length > 0;
const oneOf = (values) => (v) => values.includes(v);
const intBetween = (lo, hi) => (v) => Number.isInteger(v) && v >= lo && v <= hi;

function checkTarget(msg, field) {
  const target = msg[field];
  if (target === undefined || target === null) return undefined;
  const fail = () => badField(msg, field, 'a target: exactly one of {ref}, {css}, {role, name?} as non-empty strings,');
  if (typeof target !== 'object' || Array.isArray(target)) throw fail();
  const ways = ['ref', 'css', 'role'].filter((w) => target[w] !== undefined && target[w] !== null);
  if (ways.length !== 1 || !isText(target[ways[0]])) throw fail();
  if (target.name !== undefined && target.name !== null && (ways[0] !== 'role' || !isString(target.name))) throw fail();
  const clean = { [ways[0]]: target[ways[0]] };
  if (ways[0] === 'role' && isString(target.name)) clean.name = target.name;
  return clean;
}

function checkTimeout(msg, fallback) {
  const value = optional(msg, 'timeoutMs', intBetween(0, MAX_TIMEOUT_MS), `an integer 0…${MAX_TIMEOUT_MS}`);
  return value === undefined ? fallback : value;
}

function checkAction(msg) {
  const action = {
    action: optional(msg, 'action', oneOf(ACTIONS), `one of ${ACTIONS.join(', ')} as`),
    target: checkTarget(msg, 'target'),
    text: optional(msg, 'text', isString, 'a string'),
    value: optional(msg, 'value', isString, 'a string'),
    values: optional(msg, 'values', (v) => Array.isArray(v) && v.every(isString), 'a list of strings as'),
    key: optional(msg, 'key', isText, 'a key name like "Enter" or "Control+A" as'),
    direction: optional(msg, 'direction', oneOf(['up', 'down', 'left', 'right']), 'up, down, left or right as'),
    amount: optional(msg, 'amount', (v) => Number.isInteger(v) && v > 0, 'a positive integer'),
    trusted: optional(msg, 'trusted', (v) => typeof v === 'boolean', 'a boolean'),
    dialog: optional(msg, 'dialog', oneOf(['accept', 'dismiss']), 'accept or dismiss as'),
    promptText: optional(msg, 'promptText', isString, 'a string'),
    timeoutMs: optional(msg, 'timeoutMs', intBetween(0, MAX_TIMEOUT_MS), `an integer 0…${MAX_TIMEOUT_MS}`),
  };
  const name = action.action;
  if (name === undefined) throw badField(msg, 'action', `one of ${ACTIONS.join(', ')} as`);
  if (TARGETED.has(name) && !action.target) throw badField(msg, 'target', `(for ${name}) a`);
  if ((name === 'fill' || name === 'type') && action.text === undefined) throw badField(msg, 'text', `(for ${name}) a string`);
  if (name === 'select' && action.value === undefined && !(action.values && action.values.length)) throw badField(msg, 'value', '(for select) a string or "values" as');
  if (name === 'press' && action.key === undefined) throw badField(msg, 'key', '(for press) a key name as');
  if (name === 'scroll' && !action.target && action.direction === undefined) throw badField(msg, 'direction', '(for scroll without a target) a');
  if (name === 'press' && action.trusted) parseKeyCombo(action.key); // CDP needs to know the key
  for (const key of Object.keys(action)) if (action[key] === undefined) delete action[key];
  return action;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

// ---------------------------------------------------------------------------------------------
// Request handlers. Each returns the answer frame without its id (runHandler adds it).

async function handleConnect(msg) {
  await tabmcpPolicy.apply(msg.policy); // in force before the server can ask for anything else
  const [browser, tabs] = await Promise.all([browserInfo, chrome.tabs.query({})]);
  return { type: 'connected', browser, tabs: tabs.map(tabInfo) };
}

async function handleOpenTab(msg) {
  if (typeof msg.url !== 'string') throw badField(msg, 'url', 'a string');
  if (msg.focus !== undefined && typeof msg.focus !== 'boolean') throw badField(msg, 'focus', 'a boolean');
  if (msg.group != null && typeof msg.group !== 'string') throw badField(msg, 'group', 'a string');
  const timeoutMs = checkTimeout(msg, OPEN_TAB_TIMEOUT_MS);
  const { url } = msg;
  const focus = msg.focus !== false; // protocol.py defaults focus to true
  // tabs.create resolves relative URLs against the extension's own origin; refuse them instead.
  try {
    new URL(url);
  } catch {
    throw new ProtocolError('INVALID_URL', `Not an absolute URL: ${url}`);
  }

  const watcher = new NavigationWatcher(); // listening before the tab exists
  const since = Date.now();
  try {
    const tab = await createTab(url, focus);
    watcher.setTab(tab.id);
    if (msg.group) await addToGroup(tab, msg.group);
    if (focus) await focusWindow(tab.windowId);
    await watcher.waitForOutcome(timeoutMs); // on timeout: answer with the loading tab
    const { outcome } = watcher;
    if (outcome && outcome.kind === 'error') {
      await chrome.tabs.remove(tab.id).catch(() => {});
      throw navigationError(outcome, url);
    }
    if (outcome && outcome.kind === 'removed') {
      throw new ProtocolError('NAVIGATION_FAILED', `The tab for ${url} was closed while it loaded`);
    }
    const loadedAt = watcher.navigationCount;
    const dialogs = await dialogsShown(tab.id, since);
    const followedBy = outcome && outcome.kind === 'complete' ? await blockedFollowOn(watcher, loadedAt) : null;
    if (followedBy) {
      await chrome.tabs.remove(tab.id).catch(() => {});
      throw followedBy;
    }
    return { type: 'result', data: { tab: tabInfo(await getTab(tab.id)), dialogs } };
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

/** The tab the user is looking at: the active tab of the window focused last (null: no window). */
async function handleActiveTab() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  const fallback = tab ? null : (await chrome.tabs.query({ active: true }))[0];
  const found = tab || fallback;
  return { type: 'result', data: { tab: found ? tabInfo(found) : null } };
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
  const ifChanged = optional(msg, 'ifChanged', isString, 'a string');
  await waitWhileLoading(tabId, LOADING_WAIT_MS);
  const capture = await callAgent(tabId, 'capture', { maxChars: msg.maxChars || DEFAULT_MAX_CHARS, ifChanged });
  if (capture.unchanged) return { type: 'result', data: { capture: { unchanged: true, version: capture.version } } };
  const { url, title, html, truncated, version, webmcp } = capture;
  return { type: 'result', data: { capture: { url, title, html, truncated, version: version || '', webmcp: webmcp || [] } } };
}

async function handleCallTool(msg) {
  const tabId = requireTabId(msg);
  const { steps } = msg;
  const validSteps = Array.isArray(steps)
    && steps.every((s) => s !== null && typeof s === 'object' && typeof s.action === 'string');
  if (!validSteps) throw badField(msg, 'steps', 'an array of {action, ...}');
  log('callTool', msg.toolName, steps.length, 'steps');

  await waitWhileLoading(tabId, LOADING_WAIT_MS);
  const run = {
    watcher: new NavigationWatcher(tabId), // reset before each step
    // what the steps gather for the answer: extract steps fill `extracted`, a webmcp step `webmcp`
    extracted: null,
    webmcp: undefined,
    hasExtract: steps.some((s) => s.action === 'extract'),
    // Where the plan starts, for the summary: the time (requests started from now on are the
    // plan's), the URL, and the document (the agent records what changes in it from now on).
    startedAt: Date.now(),
    startUrl: '',
    watchToken: null,
  };
  try {
    run.startUrl = tabInfo(await getTab(tabId)).url;
    run.watchToken = await startWatch(tabId);
    const outcomes = [];
    for (const [index, step] of steps.entries()) {
      run.watcher.reset();
      const outcome = await runStep(tabId, step, index, run);
      outcomes.push({ action: step.action, ok: true });
      await settleAfterStep(run.watcher, step, index, index === steps.length - 1, outcome);
    }
    const page = await pageSummary(tabId, run);
    const result = { steps: outcomes, page };
    if (run.extracted) result.extracted = run.extracted;
    if (run.webmcp !== undefined) result.webmcp = run.webmcp;
    return { type: 'toolResult', result };
  } catch (e) {
    if (run.watchToken) await unwatch(tabId, run.watchToken);
    throw e;
  } finally {
    run.watcher.dispose();
  }
}

const SUMMARY_NETWORK_MS = 2000; // how long the summary waits for the requests a plan started
const UNWATCH_MS = 1000; // how long a failed plan waits for its watch to be stopped

/** The agent's watchChanges token for the top document, or null when the page cannot be scripted. */
async function startWatch(tabId) {
  try {
    const answer = await callAgent(tabId, 'watchChanges');
    return typeof answer.token === 'string' ? answer.token : null;
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    log('watchChanges failed', e.message); // about:blank, an error page: the summary does without
    return null;
  }
}

/**
 * Ends the watch of a plan that failed (no summary will read it), so it does not record the
 * page's changes until the agent's own limit. Best effort: a page that went away took the watch
 * with it, and a page that does not answer within UNWATCH_MS is left to that limit.
 */
async function unwatch(tabId, token) {
  const stopped = callAgentOnce(tabId, 'unwatch', { token }).catch((e) => log('unwatch failed', e.message));
  await Promise.race([stopped, sleep(UNWATCH_MS)]);
}

/**
 * The PageSummary of docs/protocol.md after a plan ran: read once the requests the plan started
 * have come back (SUMMARY_NETWORK_MS at most) and the agent saw the page settle, so that results
 * a search fetches are in it. A page that cannot be scripted still gets its URL and title.
 */
async function pageSummary(tabId, run) {
  await waitForRequestsSince(tabId, run.startedAt, SUMMARY_NETWORK_MS);
  let page;
  try {
    page = await callAgent(tabId, 'summary', { token: run.watchToken, results: !run.hasExtract });
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    log('summary failed', e.message); // a page that cannot be scripted (an error page, a PDF)
    const tab = tabInfo(await getTab(tabId));
    return { url: tab.url, title: tab.title, navigated: tab.url !== run.startUrl, text: '' };
  }
  const url = typeof page.url === 'string' ? page.url : '';
  // Without a token (the start page could not be scripted) a different URL is the best guess.
  const navigated = run.watchToken ? page.navigated === true : url !== run.startUrl;
  const summary = { url, title: typeof page.title === 'string' ? page.title : '', navigated };
  if (typeof page.changed === 'string' && page.changed) summary.changed = page.changed;
  summary.text = typeof page.text === 'string' ? page.text : '';
  if (Array.isArray(page.results) && page.results.length) summary.results = page.results;
  return summary;
}

// Actions that may start a navigation, which the agent schedules on a timer after returning.
const NAVIGATING_ACTIONS = new Set(['click', 'submit', 'press']);

/**
 * Lets a navigation started by a step finish before the next step (which must run in the new
 * document, not race the old one's unload) or before the summary is read. An agent that watches
 * the Navigation API says whether the step navigated (`navigation`, with `dialogs` always
 * present); only then is a start waited for. An older agent says nothing, and the browser
 * reports the start only after the step has returned, so after the last step, and after a step
 * that may navigate, a short grace period is given for it to show up.
 */
async function settleAfterStep(watcher, step, index, isLast, outcome) {
  const reports = outcome && (Object.prototype.hasOwnProperty.call(outcome, 'navigation') || Array.isArray(outcome.dialogs));
  if (reports) {
    const { navigation } = outcome;
    if (navigation && !navigation.sameDocument) await watcher.waitForStart(NAVIGATION_START_MS);
  } else if (isLast || NAVIGATING_ACTIONS.has(step.action)) {
    await watcher.waitForStart(NAVIGATION_GRACE_MS);
  }
  if (watcher.started && !watcher.sameDocument) await watcher.waitForOutcome(NAVIGATION_TIMEOUT_MS);
  const navigated = watcher.outcome;
  if (navigated && navigated.kind === 'error') {
    const error = navigationError(navigated, 'the page');
    throw new ProtocolError(error.code, `step ${index + 1} (${step.action}): ${error.message}`);
  }
}

/**
 * A page-tool plan step as an agent action: the same actionability checks, pointer sequence and
 * navigation report as `interact`, so no fixed grace period is needed after a step.
 */
function actionForStep(step) {
  const action = { target: step.target, timeoutMs: checkTimeout(step, STEP_TIMEOUT_MS) };
  switch (step.action) {
    case 'fill':
      return { ...action, action: 'fill', text: step.value };
    case 'check':
      return { ...action, action: step.value === false ? 'uncheck' : 'check' };
    case 'uncheck':
      return { ...action, action: 'uncheck' };
    case 'select':
      return { ...action, action: 'select', value: step.value };
    case 'press':
      return { ...action, action: 'press', key: step.key, target: step.target || undefined };
    default: // click, submit
      return { ...action, action: step.action };
  }
}

/**
 * The plan steps that are not element actions. Each answers like an action that reports
 * (dialogs, no navigation left to wait for), so no grace period follows it.
 */
const PAGE_STEPS = new Map([
  ['wait_for', runWaitStep],
  ['extract', runExtractStep],
  ['navigate', runNavigateStep],
]);

/**
 * Runs one step; `run.watcher` follows the navigations since the step began. A failing step
 * throws its error with the message prefixed `step N (action):`.
 */
async function runStep(tabId, step, index, run) {
  const prefix = `step ${index + 1} (${step.action}):`;
  // field checks name the step's action where a request's would name its type
  const fields = { ...step, type: step.action };
  let outcome;
  try {
    if (step.action === 'webmcp') {
      outcome = await runWebmcpStep(tabId, fields, run);
    } else if (PAGE_STEPS.has(step.action)) {
      await PAGE_STEPS.get(step.action)(tabId, fields, run);
      outcome = { ok: true, dialogs: [] };
    } else {
      outcome = await runActStep(tabId, fields, run);
    }
  } catch (e) {
    if (e instanceof ProtocolError) throw new ProtocolError(e.code, `${prefix} ${e.message}`);
    throw e;
  }
  if (outcome && outcome.ok === false) throw new ProtocolError(outcome.code || 'INTERNAL', `${prefix} ${outcome.message}`);
  return outcome;
}

/**
 * An element action step. A submit or click that navigates at once can replace the document
 * before the agent's answer gets out (a fast local server): with a cross-document navigation
 * under way that is the step's success, as for `act` (handleAct), and settleAfterStep waits for it.
 */
async function runActStep(tabId, step, run) {
  try {
    return await callAgent(tabId, 'act', actionForStep(step));
  } catch (e) {
    if (e.code !== 'NOT_SCRIPTABLE') throw e;
    const { watcher } = run;
    if (!watcher.started) await watcher.waitForStart(NAVIGATION_GRACE_MS);
    if (!watcher.started || watcher.sameDocument) throw e;
    return { ok: true, dialogs: [], navigation: { url: '', sameDocument: false } };
  }
}

const WEBMCP_TIMEOUT_MS = 30000; // a webmcp step's default (docs/protocol.md, Step)

/**
 * A `webmcp` step: the page's own execute() of the WebMCP tool `step.name`, run by the top
 * frame's agent through page_hooks.js in the main world; its JSON-cloned result goes to
 * run.webmcp. chrome.scripting waits for the agent's promise without a limit of its own, so only
 * the step's timeoutMs (the agent's timer, which answers TIMEOUT) ends a long execute(). A tool
 * that navigates its page away before it answers leaves no agent to answer: that counts as done
 * with result null (as the spec's executeTool() resolves null), and the navigation is then waited
 * for like an action's.
 */
async function runWebmcpStep(tabId, step, run) {
  const timeoutMs = checkTimeout(step, WEBMCP_TIMEOUT_MS);
  let answer;
  try {
    // the agent checks name and args (BAD_MESSAGE), as for a direct call
    answer = await callAgent(tabId, 'webmcpCall', { name: step.name, args: step.args, timeoutMs });
  } catch (e) {
    const { watcher } = run;
    if (!(e.code === 'NOT_SCRIPTABLE' && watcher.started && !watcher.sameDocument)) throw e;
    run.webmcp = null;
    return { ok: true, dialogs: [], navigation: { url: '', sameDocument: false } };
  }
  if (!answer.ok) throw new ProtocolError(answer.code || 'INTERNAL', answer.message || `WebMCP tool ${step.name} failed`);
  run.webmcp = answer.result === undefined ? null : answer.result;
  return { ok: true, dialogs: Array.isArray(answer.dialogs) ? answer.dialogs : [], navigation: answer.navigation || null };
}

const WAIT_STEP_CONDITIONS = ['text', 'textGone', 'state'];

/**
 * `condition`: {text} | {textGone} | {state} of `target`; polled like the waitFor request.
 * `failWhen` ({css}, top document): where the site shows its error; once visible, PAGE_ERROR.
 */
async function runWaitStep(tabId, step) {
  const { condition } = step;
  const expected = 'an object with exactly one of text, textGone, state as';
  if (!condition || typeof condition !== 'object' || Array.isArray(condition)) throw badField(step, 'condition', expected);
  const keys = Object.keys(condition).filter((k) => condition[k] !== undefined && condition[k] !== null);
  if (keys.length !== 1 || !WAIT_STEP_CONDITIONS.includes(keys[0])) throw badField(step, 'condition', expected);
  const timeoutMs = checkTimeout(step, DEFAULT_WAIT_TIMEOUT_MS);
  let probe;
  if (keys[0] === 'state') {
    const target = checkTarget(step, 'target');
    if (!target) throw badField(step, 'target', '(for a state condition) a');
    if (!ELEMENT_STATES.includes(condition.state)) throw badField(step, 'condition.state', `one of ${ELEMENT_STATES.join(', ')} as`);
    probe = { target, state: condition.state };
  } else {
    if (!isText(condition[keys[0]])) throw badField(step, `condition.${keys[0]}`, 'a non-empty string as');
    probe = { [keys[0]]: condition[keys[0]] };
  }
  const failWhen = checkTarget(step, 'failWhen');
  if (failWhen && failWhen.css === undefined) throw badField(step, 'failWhen', 'a {css} target as');
  await getTab(tabId);
  await pollCondition(tabId, probe, timeoutMs, failWhen && failWhen.css);
}

/** The visible text of the first visible match of `css` in the top document, or '' (none, or unreadable now). */
async function pageErrorShown(tabId, css) {
  let answer;
  try {
    answer = await callAgent(tabId, 'extract', { css, limit: 1 });
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    return ''; // between documents: the next round reads again
  }
  if (answer.ok === false && answer.code === 'BAD_MESSAGE') agentOk(answer, 'extract'); // a bad selector
  const text = answer.ok && Array.isArray(answer.items) ? answer.items[0] : '';
  return typeof text === 'string' ? text.trim() : '';
}

/** `target.css`, `fields?`, `limit?`, `label`: the matches' text goes to run.extracted[label]. */
async function runExtractStep(tabId, step, run) {
  const target = checkTarget(step, 'target');
  if (!target || target.css === undefined) throw badField(step, 'target', 'a {css} target (every match is read) as');
  const isFieldMap = (v) => typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isText);
  const fields = optional(step, 'fields', isFieldMap, 'an object of {key: CSS selector} as');
  const limit = optional(step, 'limit', intBetween(1, MAX_EXTRACT_ITEMS), `an integer 1…${MAX_EXTRACT_ITEMS} as`);
  const label = optional(step, 'label', isText, 'a non-empty string as') || 'items';
  const answer = agentOk(await callAgent(tabId, 'extract', { css: target.css, fields, limit }), 'extract');
  if (!run.extracted) run.extracted = {};
  run.extracted[label] = Array.isArray(answer.items) ? answer.items : [];
}

/** `value`: a URL, absolute or relative to the tab's; loaded like the navigate request's. */
async function runNavigateStep(tabId, step) {
  if (!isText(step.value)) throw badField(step, 'value', 'a URL string as');
  const base = tabInfo(await getTab(tabId)).url;
  let url;
  try {
    url = new URL(step.value, base).href;
  } catch {
    throw new ProtocolError('INVALID_URL', `Not a URL (absolute, or relative to ${base}): ${step.value}`);
  }
  checkNavigableUrl(url);
  await navigateTab(tabId, { url }, 'load', checkTimeout(step, NAVIGATION_TIMEOUT_MS));
}

// ---------------------------------------------------------------------------------------------
// Page-agent requests (docs/page-agent.md §7)

async function handleSnapshot(msg) {
  const tabId = requireTabId(msg);
  const mode = optional(msg, 'mode', oneOf(['interactive', 'full', 'locate']), 'interactive, full or locate as') || 'interactive';
  await waitWhileLoading(tabId, LOADING_WAIT_MS);
  return { type: 'result', data: { snapshot: await snapshotTab(tabId, mode) } };
}

async function handleAct(msg) {
  const tabId = requireTabId(msg);
  const action = checkAction(msg);
  const waitUntil = optional(msg, 'waitUntil', oneOf(WAIT_UNTIL), `one of ${WAIT_UNTIL.join(', ')} as`) || 'load';
  await getTab(tabId);
  const resolved = action.target ? await resolveTarget(tabId, action.target)
    : { frameId: action.action === 'press' ? await focusedFrame(tabId) : 0, target: undefined, label: 'the page' };
  // Listening before the action, so a navigation it starts cannot be missed.
  const top = new NavigationWatcher(tabId);
  const inFrame = resolved.frameId !== 0 ? new NavigationWatcher(tabId, resolved.frameId) : null;
  const since = Date.now();
  try {
    let answer;
    try {
      if (action.trusted && TRUSTED_ACTIONS.has(action.action)) {
        answer = await trustedAct(tabId, resolved, action);
      } else {
        const agentAction = { ...action, target: resolved.target };
        delete agentAction.trusted;
        if (!agentAction.target) delete agentAction.target;
        answer = await callAgentInFrame(tabId, resolved.frameId, 'act', agentAction, action.target && action.target.ref);
      }
    } catch (e) {
      // The action itself navigated the frame before the agent could answer: that is success.
      if (!(e.code === 'NOT_SCRIPTABLE' && (top.started || (inFrame && inFrame.started)))) throw e;
      answer = { ok: true, dialogs: [] };
    }
    const navigated = await settleAction(answer, top, inFrame, waitUntil, action);
    await popupsSettled(tabId, since);
    const tab = await getTab(tabId);
    const dialogs = Array.isArray(answer.dialogs) ? answer.dialogs : [];
    const sensitive = answer.sensitive === true; // the target is a password field (docs/security.md, Audit log)
    const done = { navigated, url: tabInfo(tab).url, title: tab.title || '', dialogs, sensitive };
    if (answer.scroll && typeof answer.scroll === 'object') done.scroll = answer.scroll; // scroll: where it is now
    return { type: 'result', data: { action: done } };
  } finally {
    top.dispose();
    if (inFrame) inFrame.dispose();
  }
}

/**
 * After an action: when the agent reports a navigation (or the browser shows one starting), wait
 * for it to reach waitUntil. A same-document navigation is done already; an action that did not
 * navigate returns at once. Trusted actions have no agent watching the Navigation API, so for
 * the ones that may navigate the browser gets a short grace period to report a start.
 */
async function settleAction(answer, top, inFrame, waitUntil, action) {
  const reported = answer.navigation && typeof answer.navigation === 'object' ? answer.navigation : null;
  if (reported && reported.sameDocument) return true;
  if (!reported && action.trusted && TRUSTED_NAVIGATING.has(action.action)) {
    await Promise.race([top.waitForStart(NAVIGATION_GRACE_MS), inFrame ? inFrame.waitForStart(NAVIGATION_GRACE_MS) : new Promise(() => {})]);
  }
  if (!reported && !top.started && !(inFrame && inFrame.started)) return false;
  // A navigation of the action's own frame (an iframe) or of the whole tab.
  let watcher = top;
  if (inFrame && !top.started) {
    if (!inFrame.started) await Promise.race([top.waitForStart(NAVIGATION_START_MS), inFrame.waitForStart(NAVIGATION_START_MS)]);
    if (!top.started) watcher = inFrame;
  } else if (!top.started) {
    await top.waitForStart(NAVIGATION_START_MS);
  }
  if (!watcher.started) return false; // announced, then cancelled (navigate event prevented)
  const what = reported && reported.url ? reported.url : 'the next page';
  await awaitNavigation(watcher, waitUntil, NAVIGATION_TIMEOUT_MS, what);
  return true;
}

async function handleNavigate(msg) {
  const tabId = requireTabId(msg);
  const url = optional(msg, 'url', isText, 'a URL string as');
  const go = optional(msg, 'go', oneOf(['back', 'forward', 'reload']), 'back, forward or reload as');
  if ((url === undefined) === (go === undefined)) throw new ProtocolError('BAD_MESSAGE', '"navigate" needs exactly one of "url", "go"');
  const waitUntil = optional(msg, 'waitUntil', oneOf(WAIT_UNTIL), `one of ${WAIT_UNTIL.join(', ')} as`) || 'load';
  const timeoutMs = checkTimeout(msg, NAVIGATION_TIMEOUT_MS);
  if (url !== undefined) checkNavigableUrl(url);
  return { type: 'result', data: { page: await navigateTab(tabId, { url, go }, waitUntil, timeoutMs) } };
}

/**
 * Loads `url` (checked by the caller) or moves in history (`go`) and waits for waitUntil: the
 * navigate request and the navigate plan step. Answers the tab's {url, title} afterwards.
 */
async function navigateTab(tabId, { url, go }, waitUntil, timeoutMs) {
  await getTab(tabId);
  const watcher = new NavigationWatcher(tabId);
  const since = Date.now();
  try {
    try {
      if (url !== undefined) await chrome.tabs.update(tabId, { url });
      else if (go === 'reload') await chrome.tabs.reload(tabId);
      else await goInHistory(tabId, go);
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      const message = (e && e.message) || String(e);
      if (/No tab with id/i.test(message)) throw new ProtocolError('NO_TAB', `No tab with id ${tabId}`);
      throw new ProtocolError(url !== undefined ? 'INVALID_URL' : 'NAVIGATION_FAILED', `Cannot ${url !== undefined ? `open ${url}` : `go ${go}`}: ${message}`);
    }
    await awaitNavigation(watcher, waitUntil, timeoutMs, url || (go === 'reload' ? 'the reloaded page' : `the ${go === 'back' ? 'previous' : 'next'} page`));
    const loadedAt = watcher.navigationCount;
    const dialogs = await dialogsShown(tabId, since);
    const followedBy = await blockedFollowOn(watcher, loadedAt);
    if (followedBy) throw followedBy;
    const tab = await getTab(tabId);
    return { url: tabInfo(tab).url, title: tab.title || '', dialogs };
  } finally {
    watcher.dispose();
  }
}

/**
 * Back or forward exactly one history entry, through CDP's navigation history. Not
 * chrome.tabs.goBack/goForward: they act like the back button, which skips entries the user
 * never interacted with (Chrome's history manipulation intervention), so on a page only ever
 * driven by tabmcp they report "no history" or jump several entries.
 */
async function goInHistory(tabId, go) {
  await withDebugger(tabId, async (send) => {
    const { currentIndex, entries } = await send('Page.getNavigationHistory');
    const entry = entries[currentIndex + (go === 'back' ? -1 : 1)];
    if (!entry) {
      throw new ProtocolError('NAVIGATION_FAILED', `Cannot go ${go}: there is no ${go === 'back' ? 'previous' : 'next'} page in this tab's history`);
    }
    await send('Page.navigateToHistoryEntry', { entryId: entry.id });
  });
}

/** Only web pages: chrome.tabs.update would also run javascript: URLs and open extension pages. */
function checkNavigableUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProtocolError('INVALID_URL', `Not an absolute URL: ${url}`);
  }
  if (!['http:', 'https:', 'about:'].includes(parsed.protocol) && !tabmcpPolicy.optsIn(url)) {
    throw new ProtocolError('INVALID_URL', `Cannot navigate to a ${parsed.protocol} URL: ${url}`);
  }
}

async function handleWaitFor(msg) {
  const tabId = requireTabId(msg);
  const condition = {
    text: optional(msg, 'text', isText, 'a non-empty string as'),
    textGone: optional(msg, 'textGone', isText, 'a non-empty string as'),
    target: checkTarget(msg, 'target'),
    timeMs: optional(msg, 'timeMs', intBetween(0, MAX_WAIT_TIME_MS), `an integer 0…${MAX_WAIT_TIME_MS}`),
  };
  const given = Object.keys(condition).filter((k) => condition[k] !== undefined);
  if (given.length !== 1) throw new ProtocolError('BAD_MESSAGE', '"waitFor" needs exactly one of "text", "textGone", "target", "timeMs"');
  const state = optional(msg, 'state', oneOf(ELEMENT_STATES), `one of ${ELEMENT_STATES.join(', ')} as`);
  if (state !== undefined && !condition.target) throw new ProtocolError('BAD_MESSAGE', '"state" goes with "target"');
  const timeoutMs = checkTimeout(msg, DEFAULT_WAIT_TIMEOUT_MS);
  await getTab(tabId);
  const started = Date.now();
  const elapsed = () => Date.now() - started;

  if (condition.timeMs !== undefined) {
    await sleep(condition.timeMs);
    await getTab(tabId);
    return { type: 'result', data: { wait: { met: true, elapsedMs: elapsed() } } };
  }
  const probe = condition.target ? { target: condition.target, state: state || 'visible' } : { [given[0]]: condition[given[0]] };
  const elapsedMs = await pollCondition(tabId, probe, timeoutMs);
  return { type: 'result', data: { wait: { met: true, elapsedMs } } };
}

/**
 * Polls `probe` ({text} | {textGone} | {target, state}) in the tab's frames every POLL_MS until
 * it is met (resolves the ms it took) or timeoutMs passed (TIMEOUT saying what was last seen).
 * The waitFor request and the wait_for plan step; `failCss` (a step's failWhen) is read first in
 * each round, and its text, once shown, is the step's PAGE_ERROR.
 */
async function pollCondition(tabId, probe, timeoutMs, failCss) {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const describe = probe.target ? `${describeTarget(probe.target)} to be ${probe.state}`
    : probe.text !== undefined ? `text ${quoted(probe.text)}` : `text ${quoted(probe.textGone)} to go`;
  for (;;) {
    const shown = failCss ? await pageErrorShown(tabId, failCss) : '';
    if (shown) throw new ProtocolError('PAGE_ERROR', shown);
    const { met, detail } = await probeTab(tabId, probe);
    if (met) return elapsed();
    const left = timeoutMs - elapsed();
    if (left <= 0) throw new ProtocolError('TIMEOUT', `Waited ${timeoutMs} ms for ${describe}${detail ? `: ${detail}` : ''}`);
    await sleep(Math.min(POLL_MS, left));
  }
}

function describeTarget(target) {
  if (target.ref !== undefined) return target.ref;
  // as the model writes a target (tools/targets.py)
  if (target.css !== undefined) return `css=${cut(target.css)}`;
  return `role=${cut(target.role)}${target.name !== undefined ? `[name=${cut(target.name)}]` : ''}`;
}

/** The caller's text inside a message: enough to recognise it, and its length when cut, as the
 * server quotes it (src/tabmcp/echo.py, which also escapes what is left). */
function quoted(text, limit = 80) {
  const s = String(text);
  if (s.length <= limit) return JSON.stringify(s);
  return `${JSON.stringify(`${s.slice(0, limit)}…`)} (${s.length.toLocaleString('en-US')} characters)`;
}

function cut(text, limit = 80) {
  const s = String(text);
  return s.length <= limit ? s : `${s.slice(0, limit)}… (${s.length.toLocaleString('en-US')} characters)`;
}

/**
 * One round of `probe`: in the ref's frame, or in every frame (met in any frame, or for
 * textGone/hidden/detached in all of them). A page between documents is "not met yet"; the
 * next round injects the agent into the new document if needed.
 */
async function probeTab(tabId, probe) {
  const gone = probe.textGone !== undefined || EVERY_FRAME_STATES.has(probe.state);
  let frameIds = null;
  let arg = probe;
  if (probe.target && probe.target.ref !== undefined) {
    let parsed;
    try {
      parsed = parseRef(tabId, probe.target.ref);
    } catch (e) {
      if (e.code === 'STALE_REF' && gone) return { met: true };
      throw e;
    }
    frameIds = [parsed.frameId];
    arg = { ...probe, target: parsed.doc ? { ref: parsed.local, doc: parsed.doc } : { ref: parsed.local } };
  }
  let answers;
  try {
    answers = await callAgentInFrames(tabId, frameIds, 'probe', arg);
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    if (e.frameGone && frameIds) {
      if (gone) return { met: true };
      throw staleRefError(probe.target.ref, 'its frame is gone');
    }
    return { met: false, detail: `the page cannot be read right now (${e.message})` };
  }
  if (answers.size === 0) return { met: false, detail: 'no frame answered (the page is loading)' };
  let anyMet = false;
  let allMet = true;
  let detail = '';
  for (const answer of answers.values()) {
    let met;
    if (answer.ok === false) {
      if (answer.code === 'STALE_REF' && gone) met = true;
      else if (answer.code === 'STALE_REF' || answer.code === 'ELEMENT_AMBIGUOUS' || answer.code === 'BAD_MESSAGE') agentOk(answer, 'probe');
      else met = false;
      if (!met) detail = answer.message || detail;
    } else if (answer.__error) {
      agentOk(answer, 'probe');
    } else {
      met = answer.met === true;
      if (!met && answer.detail) detail = String(answer.detail);
    }
    anyMet = anyMet || met;
    allMet = allMet && met;
  }
  return { met: gone ? allMet : anyMet, detail };
}

async function handleScreenshot(msg) {
  const tabId = requireTabId(msg);
  const kind = optional(msg, 'kind', oneOf(['viewport', 'full', 'element']), 'viewport, full or element as') || 'viewport';
  const format = optional(msg, 'format', oneOf(['png', 'jpeg']), 'png or jpeg as') || 'png';
  const quality = optional(msg, 'quality', intBetween(0, 100), 'an integer 0…100');
  const target = checkTarget(msg, 'target');
  if ((kind === 'element') !== Boolean(target)) throw new ProtocolError('BAD_MESSAGE', '"screenshot" needs a "target" for kind "element", and only then');
  if (quality !== undefined && format !== 'jpeg') throw new ProtocolError('BAD_MESSAGE', '"quality" is for format "jpeg" only');
  const tab = await getTab(tabId);
  let image;
  if (kind === 'viewport') image = await captureViewport(tab, format, quality);
  else if (kind === 'full') image = await captureFullPage(tabId, format, quality);
  else image = await captureElement(tab, target, format, quality);
  return { type: 'result', data: { image } };
}

async function handleConsole(msg) {
  const tabId = requireTabId(msg);
  const afterSeq = optional(msg, 'afterSeq', (v) => Number.isInteger(v) && v >= 0, 'a non-negative integer') || 0;
  const levels = optional(msg, 'levels', (v) => Array.isArray(v) && v.every((l) => CONSOLE_LEVELS.has(l)),
    `a list of ${[...CONSOLE_LEVELS].join(', ')} as`);
  await getTab(tabId);
  // What the agents logged in the last batching interval (100 ms) is not in the buffer yet.
  try {
    const answers = await callAgentInFrames(tabId, null, 'takeConsole');
    for (const answer of answers.values()) {
      for (const entry of Array.isArray(answer.entries) ? answer.entries : []) addConsoleEntry(tabId, entry);
    }
  } catch (e) {
    if (e.code === 'NO_TAB') throw e;
    log('console read without the latest batch', e.message); // a page that cannot be scripted
  }
  const buffer = consoleBuffers.get(tabId) || { entries: [], nextSeq: 1 };
  const wanted = levels ? new Set(levels) : null;
  const entries = buffer.entries.filter((e) => e.seq > afterSeq && (!wanted || wanted.has(e.level)));
  const oldestKept = buffer.entries.length ? buffer.entries[0].seq : buffer.nextSeq;
  // Entries after afterSeq that the ring buffer no longer holds.
  const dropped = Math.max(0, oldestKept - Math.max(afterSeq + 1, 1));
  return { type: 'result', data: { console: { entries, lastSeq: buffer.nextSeq - 1, dropped } } };
}

async function handleEvaluate(msg) {
  const tabId = requireTabId(msg);
  const expression = optional(msg, 'expression', isText, 'a non-empty string as');
  if (expression === undefined) throw badField(msg, 'expression', 'a non-empty string as');
  const timeoutMs = checkTimeout(msg, DEFAULT_EVALUATE_TIMEOUT_MS) || DEFAULT_EVALUATE_TIMEOUT_MS;
  await getTab(tabId);
  const evaluation = withDebugger(tabId, (send) => send('Runtime.evaluate', {
    expression,
    awaitPromise: true,
    returnByValue: true,
    userGesture: true,
    timeout: timeoutMs, // stops a synchronous endless loop; the race below covers a promise that never settles
  }));
  evaluation.catch(() => {}); // after a timeout nobody awaits it
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ProtocolError('TIMEOUT', `The expression did not finish within ${timeoutMs} ms`)), timeoutMs + 50);
  });
  let answer;
  const started = Date.now();
  try {
    answer = await Promise.race([evaluation, timedOut]);
  } catch (e) {
    // Runtime.evaluate's own timeout ends a synchronous endless loop with a bare "Internal error".
    if (e.code === 'INTERNAL' && Date.now() - started >= timeoutMs) {
      throw new ProtocolError('TIMEOUT', `The expression did not finish within ${timeoutMs} ms (stopped)`);
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const { result, exceptionDetails } = answer;
  if (exceptionDetails) {
    const exception = exceptionDetails.exception || {};
    const text = exception.description || exceptionDetails.text || 'the expression threw';
    if (/Execution was terminated/i.test(text)) throw new ProtocolError('TIMEOUT', `The expression did not finish within ${timeoutMs} ms`);
    throw new ProtocolError('SCRIPT_ERROR', text.length > 2000 ? `${text.slice(0, 1999)}…` : text);
  }
  const value = { type: result.subtype || result.type };
  if (result.unserializableValue !== undefined) value.json = result.unserializableValue; // NaN, Infinity, -0, 1n
  else if (result.type !== 'undefined' && 'value' in result) value.json = result.value;
  if (value.json !== undefined && JSON.stringify(value.json).length > MAX_EVALUATE_CHARS) {
    throw new ProtocolError('SCRIPT_ERROR', `The result is larger than ${MAX_EVALUATE_CHARS} characters of JSON: return less`);
  }
  return { type: 'result', data: { value } };
}

// ---------------------------------------------------------------------------------------------
// Agent ports and crash detection
//
// Every frame's agent holds a port open: it carries console and dialog batches. When the top
// frame's port drops, the document went away: navigation, tab closed, or the renderer crashed.
// Only the crash leaves the tab "unloaded" without being discarded (and a crash fires no tabs
// event of its own).

function onAgentConnect(port) {
  if (port.name !== AGENT_PORT_NAME) return;
  const sender = port.sender || {};
  const tabId = sender.tab ? sender.tab.id : undefined;
  if (tabId === undefined) return;
  port.onMessage.addListener((message) => onAgentMessage(tabId, message, sender.frameId));
  if (sender.frameId !== undefined && sender.frameId !== 0) {
    const { frameId } = sender;
    port.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      checkFrameRemoved(tabId, frameId).catch((e) => log('frame check failed', e));
    });
    return;
  }
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
  if (change.status === 'loading') {
    notifyWatchers(tabId, 'loading');
    pageEvent({ type: 'frameNavigation', tabId, frameId: 0, kind: 'loading', url: change.url || tab.url || tab.pendingUrl || '' });
  }
  if (change.status === 'complete') notifyWatchers(tabId, 'complete');
  if (change.url !== undefined || change.title !== undefined || change.status !== undefined) {
    sendEvent({ type: 'tabUpdated', tab: tabInfo(tab) });
    updateControlled(tab);
  }
});

chrome.tabs.onRemoved.addListener((tabId) => {
  notifyWatchers(tabId, 'removed');
  pageEvent({ type: 'frameNavigation', tabId, frameId: 0, kind: 'removed', url: '' });
  for (const perTab of [tabFrames, network, consoleBuffers, recentDialogs, popupOpeners]) perTab.delete(tabId);
  const session = debuggees.get(tabId);
  if (session) clearTimeout(session.idleTimer);
  debuggees.delete(tabId);
  sendEvent({ type: 'tabClosed', tabId });
  if (controlled.some((c) => c.tabId === tabId)) setControlled(controlled.filter((c) => c.tabId !== tabId));
});

chrome.tabs.onActivated.addListener(({ tabId }) => {
  sendEvent({ type: 'tabFocused', tabId });
});

// webNavigation events carry frameId; each watcher keeps the ones of its own frame.
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  notifyWatchers(details.tabId, 'navigate', { frameId: details.frameId });
  frameNavigation(details, 'start');
});

chrome.webNavigation.onCommitted.addListener((details) => frameNavigation(details, 'commit'));

chrome.webNavigation.onDOMContentLoaded.addListener((details) => {
  notifyWatchers(details.tabId, 'domContentLoaded', { frameId: details.frameId });
  frameNavigation(details, 'dom_content_loaded');
});

chrome.webNavigation.onCompleted.addListener((details) => {
  notifyWatchers(details.tabId, 'complete', { frameId: details.frameId });
  frameNavigation(details, 'load');
});

chrome.webNavigation.onHistoryStateUpdated.addListener((details) => {
  notifyWatchers(details.tabId, 'sameDocument', { frameId: details.frameId });
  frameNavigation(details, 'same_document');
});

chrome.webNavigation.onReferenceFragmentUpdated.addListener((details) => {
  notifyWatchers(details.tabId, 'sameDocument', { frameId: details.frameId });
  frameNavigation(details, 'same_document');
});

chrome.webNavigation.onErrorOccurred.addListener((details) => {
  const kind = details.error === 'net::ERR_ABORTED' ? 'aborted' : 'error';
  notifyWatchers(details.tabId, kind, { frameId: details.frameId, error: details.error, url: details.url });
  frameNavigation(details, kind);
});

chrome.webRequest.onBeforeRequest.addListener(requestStarted, { urls: ['<all_urls>'] });
chrome.webRequest.onCompleted.addListener(requestEnded, { urls: ['<all_urls>'] });
chrome.webRequest.onErrorOccurred.addListener(requestEnded, { urls: ['<all_urls>'] });

chrome.debugger.onDetach.addListener(onDebuggerDetach);

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

// A (re)started worker has no socket yet: what the popup showed of the last one is gone with it.
chrome.storage.session.set({ controlled: [], traffic: { ...traffic } }).catch((e) => log('storage.session', e));
showLinkStatus();
connect();
