// tabmcp options page: the transport (WebSocket or native messaging), server address and pairing
// token, kept in chrome.storage.local, and
// the link's status, which the service worker keeps in chrome.storage.session (`linkStatus`).
// "Follow my tab switches" (chrome.storage.local `followTabSwitches`) applies when ticked: the
// service worker tells the server at once (its `settings` frame), without reconnecting.
// Saving changed settings makes the service worker reconnect at once (it watches storage);
// saving unchanged ones asks it to, so "Save and reconnect" always does what it says.
'use strict';

const form = document.getElementById('settings');
const transportInput = document.getElementById('transport');
const serverInput = document.getElementById('serverUrl');
const tokenInput = document.getElementById('pairingToken');
const savedNote = document.getElementById('saved');
const statusText = document.getElementById('linkStatus');
const followBox = document.getElementById('followTabSwitches');
const followNote = document.getElementById('followSaved');

function showStatus(status) {
  const text = typeof status === 'string' && status ? status : 'connecting';
  statusText.textContent = text;
  statusText.dataset.state = text === 'connected' ? 'connected'
    : /^(not paired|refused|native host not installed|server not found)/.test(text) ? 'refused' : 'connecting';
}

async function saveFollow() {
  followNote.textContent = '';
  await chrome.storage.local.set({ followTabSwitches: followBox.checked });
  followNote.textContent = followBox.checked ? 'On: tabmcp follows your tab switches.' : 'Off.';
}

function note(text, isError = false) {
  savedNote.textContent = text;
  savedNote.classList.toggle('error', isError);
}

/** What applies when nothing is saved here: the launcher's choices, else the defaults (link_config.js). */
function fallbacks() {
  return tabmcpLinkConfig.resolve({});
}

/** The server address means nothing to native messaging: the host finds the server's socket. */
function reflectTransport() {
  serverInput.disabled = transportInput.value === 'native';
}

async function load() {
  const { serverUrl, pairingToken, transport } = await chrome.storage.local.get(tabmcpLinkConfig.STORED_KEYS);
  const fallback = await fallbacks();
  transportInput.value = transport === 'native' || transport === 'websocket' ? transport : fallback.transport;
  reflectTransport();
  serverInput.value = typeof serverUrl === 'string' && serverUrl ? serverUrl : fallback.url;
  tokenInput.value = typeof pairingToken === 'string' ? pairingToken : '';
  const { followTabSwitches } = await chrome.storage.local.get('followTabSwitches');
  followBox.checked = followTabSwitches === true;
  const { linkStatus } = await chrome.storage.session.get('linkStatus');
  showStatus(linkStatus);
}

async function save(event) {
  event.preventDefault();
  const fallback = await fallbacks();
  const serverUrl = serverInput.value.trim() || fallback.url;
  const pairingToken = tokenInput.value.trim();
  const transport = transportInput.value === 'native' ? 'native' : 'websocket';
  if (transport === 'websocket' && !/^wss?:\/\/[^\s/]+/.test(serverUrl)) {
    note('The server address must look like ws://127.0.0.1:8765', true);
    return;
  }
  const before = await chrome.storage.local.get(tabmcpLinkConfig.STORED_KEYS);
  // Only what differs from the fallback is stored, so a launched browser keeps following its launcher.
  const storedUrl = serverUrl === fallback.url ? '' : serverUrl;
  const storedTransport = transport === fallback.transport ? '' : transport;
  await store('serverUrl', storedUrl);
  await store('pairingToken', pairingToken); // empty: back to the launcher's token, if any
  await store('transport', storedTransport);
  const changed = (before.serverUrl || '') !== storedUrl || (before.pairingToken || '') !== pairingToken
    || (before.transport || '') !== storedTransport;
  if (!changed) {
    await chrome.runtime.sendMessage({ type: 'tabmcp-reconnect' }).catch(() => {});
  }
  const { linkStatus } = await chrome.storage.session.get('linkStatus');
  // after the popup's Disconnect the link stays down until its Connect: say so rather than "reconnecting"
  note(linkStatus === 'disconnected' ? 'Saved. Disconnected: press Connect in the tabmcp popup to link.'
    : 'Saved; reconnecting…');
}

async function store(key, value) {
  if (value) {
    await chrome.storage.local.set({ [key]: value });
  } else {
    await chrome.storage.local.remove(key);
  }
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && changes.linkStatus) showStatus(changes.linkStatus.newValue);
});

transportInput.addEventListener('change', reflectTransport);
followBox.addEventListener('change', () => {
  saveFollow().catch((e) => { followNote.textContent = `Could not save: ${e && e.message ? e.message : e}`; });
});

form.addEventListener('submit', (event) => {
  save(event).catch((e) => note(`Could not save: ${e && e.message ? e.message : e}`, true));
});

load().catch((e) => note(`Could not read the settings: ${e && e.message ? e.message : e}`, true));
