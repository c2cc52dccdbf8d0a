// tabmcp service worker: what the user sees of the link. The popup and options page read
// chrome.storage.session (linkStatus, linkInfo, traffic, controlled); the toolbar badge shows the
// state at a glance.
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

const TRAFFIC_WRITE_MS = 250; // message counts reach the popup at most this often
const TAB_GROUP_NONE = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE

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
