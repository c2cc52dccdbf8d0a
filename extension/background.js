// tabmcp service worker.
//
// Connects to the tabmcp server's WebSocket as a client (or, where local ports are blocked, through
// the native messaging host: docs/native-messaging.md), reports tab events, answers the server's
// page primitives (one browser call each: tabs, frames, the page agent in frames, debugger commands,
// captures, navigations) and forwards what the browser sees of the pages (navigations, requests,
// the agents' messages); the page agent is agent/*.js. The page session itself (waits, refs, plans…) runs in the server. The wire
// protocol is docs/protocol.md; every frame sent here must match it exactly, because the server
// validates each one.
'use strict';

importScripts('policy.js'); // tabmcpPolicy: the navigation policy's browser rules (docs/security.md)
importScripts('link_config.js'); // tabmcpLinkConfig: server address, transport, pairing token
importScripts('agent_entry.js'); // tabmcpAgentEntry: how a page agent is called (either host)
importScripts('page_host.js'); // the page primitives the server's page session asks for, and the page events

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
// How the link ends when the user presses Disconnect in the popup (the server logs the reason).
const USER_DISCONNECT_REASON = 'disconnected by the user (the extension popup)';
const TRAFFIC_WRITE_MS = 250; // message counts reach the popup at most this often
const TAB_GROUP_NONE = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE

const DEBUGGER_IDLE_MS = 10000;
const CDP_VERSION = '1.3';
const CAPTURE_RETRY_MS = 600;
const CRASH_CHECK_DELAY_MS = 300;

const AGENT_PORT_NAME = 'tabmcp-agent';
// The page agent's files in load order: the manifest's isolated-world content script is the one list.
const AGENT_FILES = chrome.runtime.getManifest().content_scripts.find((script) => script.world !== 'MAIN').js;
const HOOKS_FILE = 'page_hooks.js';

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
  ['focusTab', handleFocusTab],
  ['activeTab', handleActiveTab],
  ['closeTab', handleCloseTab],
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
// Popups: the tab whose page opened each (for TabInfo.openerTabId and the popupOpened event)

const popupOpeners = new Map(); // popup tabId -> the tab whose page opened it

chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => {
  popupOpeners.set(details.tabId, details.sourceTabId);
  pageEvent({ type: 'popupOpened', tabId: details.tabId, openerId: details.sourceTabId });
});

// Requests of the tabs' pages (websockets left out: long-lived, never "done"), for the page session.
function requestStarted(details) {
  if (details.tabId < 0 || details.type === 'websocket') return;
  pageEvent({ type: 'requestStarted', tabId: details.tabId, requestId: details.requestId, kind: details.type });
}

function requestEnded(details) {
  if (details.tabId < 0 || details.type === 'websocket') return;
  pageEvent({ type: 'requestEnded', tabId: details.tabId, requestId: details.requestId });
}

// ---------------------------------------------------------------------------------------------
// Request handlers. Each returns the answer frame without its id (runHandler adds it).

async function handleConnect(msg) {
  await tabmcpPolicy.apply(msg.policy); // in force before the server can ask for anything else
  const [browser, tabs] = await Promise.all([browserInfo, chrome.tabs.query({})]);
  return { type: 'connected', browser, tabs: tabs.map(tabInfo) };
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
/**
 * What this primitive will not load whoever asks: a URL that is not absolute (tabs.update would
 * resolve it against the extension's own pages) or one that runs script. Which pages a model may
 * open is the server's page session's check (the navigation policy's opt-ins included).
 */
function refuseScriptUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProtocolError('INVALID_URL', `Not an absolute URL: ${url}`);
  }
  if (parsed.protocol === 'javascript:' || parsed.protocol === 'data:') {
    throw new ProtocolError('INVALID_URL', `Cannot navigate to a ${parsed.protocol} URL: ${url}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Agent ports and crash detection
//
// Every frame's agent holds a port open: it carries console and dialog batches. When the top
// frame's port drops, the document went away: navigation, tab closed, or the renderer crashed.
// Only the crash leaves the tab "unloaded" without being discarded (and a crash fires no tabs
// event of its own).

/** What a frame's agent posted (console entries, a dialog, toolsChanged): the server's page session decides. */
function onAgentMessage(tabId, message, frameId) {
  if (!message || typeof message !== 'object') return;
  pageEvent({ type: 'agentMessage', tabId, frameId: frameId || 0, message });
}

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
    pageEvent({ type: 'frameNavigation', tabId, frameId: 0, kind: 'loading', url: change.url || tab.url || tab.pendingUrl || '' });
  }
  if (change.url !== undefined || change.title !== undefined || change.status !== undefined) {
    sendEvent({ type: 'tabUpdated', tab: tabInfo(tab) });
    updateControlled(tab);
  }
});

chrome.tabs.onRemoved.addListener((tabId) => {
  pageEvent({ type: 'frameNavigation', tabId, frameId: 0, kind: 'removed', url: '' });
  popupOpeners.delete(tabId);
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
chrome.webNavigation.onBeforeNavigate.addListener((details) => frameNavigation(details, 'start'));
chrome.webNavigation.onCommitted.addListener((details) => frameNavigation(details, 'commit'));
chrome.webNavigation.onDOMContentLoaded.addListener((details) => frameNavigation(details, 'dom_content_loaded'));
chrome.webNavigation.onCompleted.addListener((details) => frameNavigation(details, 'load'));
chrome.webNavigation.onHistoryStateUpdated.addListener((details) => frameNavigation(details, 'same_document'));
chrome.webNavigation.onReferenceFragmentUpdated.addListener((details) => frameNavigation(details, 'same_document'));
chrome.webNavigation.onErrorOccurred.addListener((details) => {
  frameNavigation(details, details.error === 'net::ERR_ABORTED' ? 'aborted' : 'error');
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

