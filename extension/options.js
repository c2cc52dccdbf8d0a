// tabmcp options page: the transport (WebSocket or native messaging), server address and pairing
// token, kept in chrome.storage.local, and
// the link's status, which the service worker keeps in chrome.storage.session (`linkStatus`).
// "Follow my tab switches" (chrome.storage.local `followTabSwitches`) applies when ticked: the
// service worker tells the server at once (its `settings` frame), without reconnecting.
// Saving changed settings makes the service worker reconnect at once (it watches storage);
// saving unchanged ones asks it to, so "Save and reconnect" always does what it says.
'use strict';

const DEFAULT_SERVER_URL = 'ws://127.0.0.1:8765';
// Written by the Python launcher into its copy of the extension; absent in the repo.
const CONFIG_FILE = 'tabmcp-config.json';

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

/** The launcher's tabmcp-config.json, or {} for a copy of the extension the user loaded. */
async function launcherConfig() {
  try {
    const response = await fetch(chrome.runtime.getURL(CONFIG_FILE));
    if (response.ok) {
      const config = await response.json();
      if (config && typeof config === 'object') return config;
    }
  } catch {
    // no config file: a copy of the extension the user loaded, not one tabmcp launched
  }
  return {};
}

/** The address used when none is saved here: the launcher's, else the default. */
async function fallbackServerUrl() {
  const config = await launcherConfig();
  return typeof config.serverUrl === 'string' && config.serverUrl ? config.serverUrl : DEFAULT_SERVER_URL;
}

/** The transport used when none is saved here: the launcher's, else WebSocket. */
async function fallbackTransport() {
  return (await launcherConfig()).transport === 'native' ? 'native' : 'websocket';
}

/** The server address means nothing to native messaging: the host finds the server's socket. */
function reflectTransport() {
  serverInput.disabled = transportInput.value === 'native';
}

async function load() {
  const { serverUrl, pairingToken, transport } = await chrome.storage.local.get(['serverUrl', 'pairingToken', 'transport']);
  transportInput.value = transport === 'native' || transport === 'websocket' ? transport : await fallbackTransport();
  reflectTransport();
  serverInput.value = typeof serverUrl === 'string' && serverUrl ? serverUrl : await fallbackServerUrl();
  tokenInput.value = typeof pairingToken === 'string' ? pairingToken : '';
  const { followTabSwitches } = await chrome.storage.local.get('followTabSwitches');
  followBox.checked = followTabSwitches === true;
  const { linkStatus } = await chrome.storage.session.get('linkStatus');
  showStatus(linkStatus);
}

async function save(event) {
  event.preventDefault();
  const fallback = await fallbackServerUrl();
  const serverUrl = serverInput.value.trim() || fallback;
  const pairingToken = tokenInput.value.trim();
  const transport = transportInput.value === 'native' ? 'native' : 'websocket';
  if (transport === 'websocket' && !/^wss?:\/\/[^\s/]+/.test(serverUrl)) {
    note('The server address must look like ws://127.0.0.1:8765', true);
    return;
  }
  const before = await chrome.storage.local.get(['serverUrl', 'pairingToken', 'transport']);
  // Only what differs from the fallback is stored, so a launched browser keeps following its launcher.
  const storedUrl = serverUrl === fallback ? '' : serverUrl;
  const storedTransport = transport === await fallbackTransport() ? '' : transport;
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
