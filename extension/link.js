// tabmcp service worker: the link to the server. The browser's identity, connecting (through
// transports.js), the hello and pings, reconnects with backoff, the server's refusals and their slow
// retry, the popup's Connect and Disconnect, and sending frames on the link.
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

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

chrome.runtime.onSuspend.addListener(() => {
  if (link && link.helloSent) sendOn(link, { type: 'disconnected' });
});

// The alarm wakes a sleeping worker so it can reconnect; connect() is a no-op while linked.
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === RECONNECT_ALARM) connect();
});
chrome.alarms.create(RECONNECT_ALARM, { periodInMinutes: 0.5 }).catch((e) => log('alarm', e));
