// tabmcp popup: the link's state, the tab the server controls, since when, the message counts, and
// Connect / Disconnect. Everything shown is what the service worker keeps in chrome.storage.session
// (linkInfo, controlled, traffic); the popup follows it live (storage.onChanged), and its buttons
// ask the worker to act (runtime messages), never touching the socket themselves.
'use strict';

const KEYS = ['linkInfo', 'controlled', 'traffic'];
const TICK_MS = 1000;

const root = document.getElementById('popup');
const statusText = document.getElementById('status');
const detailText = document.getElementById('detail');
const noTab = document.getElementById('noTab');
const tabList = document.getElementById('tabs');
const sinceText = document.getElementById('since');
const serverText = document.getElementById('server');
const inText = document.getElementById('messagesIn');
const outText = document.getElementById('messagesOut');
const connectButton = document.getElementById('connect');
const disconnectButton = document.getElementById('disconnect');
const errorText = document.getElementById('error');

const shown = { linkInfo: null, controlled: [], traffic: { in: 0, out: 0 } };

/** "42s", "5m 32s", "3h 05m": how long the link has been up. */
function formatDuration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

function renderStatus() {
  const info = shown.linkInfo || { state: 'connecting', detail: '', serverUrl: '', since: 0 };
  const state = info.state || 'connecting';
  statusText.textContent = state;
  statusText.dataset.state = state;
  root.dataset.state = state;
  detailText.textContent = info.detail || '';
  serverText.textContent = info.serverUrl || tabmcpLinkConfig.DEFAULT_SERVER_URL;
  connectButton.hidden = state === 'connected';
  disconnectButton.hidden = state === 'disconnected';
  renderSince();
  renderTabs();
}

function renderSince() {
  const info = shown.linkInfo;
  if (!info || info.state !== 'connected' || !info.since) {
    sinceText.textContent = '—';
    return;
  }
  const at = new Date(info.since).toLocaleTimeString();
  sinceText.textContent = `${at} (${formatDuration(Date.now() - info.since)} ago)`;
}

function renderTabs() {
  const connected = shown.linkInfo && shown.linkInfo.state === 'connected';
  const tabs = connected && Array.isArray(shown.controlled) ? shown.controlled : [];
  tabList.replaceChildren(...tabs.map((tab) => tabItem(tab, tabs.length > 1)));
  noTab.hidden = tabs.length > 0;
}

function tabItem(tab, several) {
  const item = document.createElement('li');
  item.className = 'tab';
  item.dataset.tabId = String(tab.tabId);
  const title = document.createElement('div');
  title.className = 'tab-title';
  title.textContent = tab.title || '(untitled)';
  title.title = tab.title || '';
  const url = document.createElement('div');
  url.className = 'tab-url';
  url.textContent = tab.url || '';
  url.title = tab.url || '';
  item.append(title, url);
  if (several && tab.group) { // several clients (HTTP workspaces): say whose each tab is
    const client = document.createElement('div');
    client.className = 'tab-client';
    client.textContent = `for ${tab.group}`;
    item.append(client);
  }
  return item;
}

function renderTraffic() {
  const traffic = shown.traffic || {};
  inText.textContent = String(Number.isInteger(traffic.in) ? traffic.in : 0);
  outText.textContent = String(Number.isInteger(traffic.out) ? traffic.out : 0);
}

async function ask(type) {
  errorText.textContent = '';
  try {
    const answer = await chrome.runtime.sendMessage({ type });
    if (!answer || !answer.ok) throw new Error((answer && answer.error) || 'no answer from the service worker');
  } catch (e) {
    errorText.textContent = `Could not ${type === 'tabmcp-connect' ? 'connect' : 'disconnect'}: ${e && e.message ? e.message : e}`;
  }
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'session') return;
  for (const key of KEYS) if (changes[key]) shown[key] = changes[key].newValue;
  if (changes.linkInfo || changes.controlled) renderStatus();
  if (changes.traffic) renderTraffic();
});

connectButton.addEventListener('click', () => ask('tabmcp-connect'));
disconnectButton.addEventListener('click', () => ask('tabmcp-disconnect'));
document.getElementById('openOptions').addEventListener('click', (event) => {
  event.preventDefault();
  chrome.runtime.openOptionsPage();
});

chrome.storage.session.get(KEYS).then((stored) => {
  for (const key of KEYS) if (stored[key] !== undefined) shown[key] = stored[key];
  renderStatus();
  renderTraffic();
}, (e) => { errorText.textContent = `Could not read the link's state: ${e && e.message ? e.message : e}`; });

setInterval(renderSince, TICK_MS);
