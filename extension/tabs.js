// tabmcp service worker: tabs. What the server is told of a tab, the tab groups a client's tabs sit
// in, the tab requests (connect, focus, the active tab, close; history and the URLs a tab may load,
// for page_host.js) and the tab events.
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

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
