// tabmcp service worker: what the browser sees of the tabs' pages, forwarded to the server's page
// session as page events (page_host.js batches them): popups and their openers, the pages' requests,
// frame navigations, the agents' ports and the crashes their loss reveals, debugger detaches.
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

const CRASH_CHECK_DELAY_MS = 300;
const AGENT_PORT_NAME = 'tabmcp-agent';

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
