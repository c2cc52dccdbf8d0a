// tabmcp service worker: the page host. What the server's page session (src/tabmcp/drivers/session/)
// asks of a tab, one browser call each (the page agent in frames, debugger commands, captures,
// navigations), and the browser's page events forwarded to it. background.js loads it
// (importScripts) before the worker's other files: it declares functions and its own state only,
// and reads background.js's constants and the other files' functions when it is called.
'use strict';

// ---------------------------------------------------------------------------------------------
// Page agent

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
  await executeIn(target, { files: AGENT_FILES });
}

// ---------------------------------------------------------------------------------------------
// chrome.debugger (CDP): the server's `cdp` requests (trusted input, screenshots beyond the
// viewport, evaluate), history steps, captures of a tab that is not its window's active one.
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
// Screenshots

function dataUrlPayload(dataUrl) {
  const comma = dataUrl.indexOf(',');
  return comma >= 0 ? dataUrl.slice(comma + 1) : dataUrl;
}

/** The visible part of the tab (base64): chrome.tabs.captureVisibleTab when the tab is its window's active one, else CDP. */
async function viewportImage(tab, format, quality) {
  if (!tab.active) return cdpImage(tab.id, format, quality);
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
  return cdpImage(tab.id, format, quality);
}

/** CDP Page.captureScreenshot of the viewport (base64). */
async function cdpImage(tabId, format, quality) {
  return withDebugger(tabId, async (send) => {
    const params = { format };
    if (quality !== undefined) params.quality = quality;
    const { data } = await send('Page.captureScreenshot', params);
    return data;
  });
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
  let pageMs = 0; // the longest time a frame's agent took (tabmcp's trace splits page time from transfer)
  const take = (results) => {
    const missing = [];
    for (const r of results) {
      const value = r.result;
      if (value && typeof value.__json === 'string') {
        answers.set(r.frameId, value.__json);
        if (typeof value.__ms === 'number') pageMs = Math.max(pageMs, value.__ms);
      }
      else if (value && value.__missing) missing.push(r.frameId);
      else if (value !== undefined && value !== null) answers.set(r.frameId, JSON.stringify(value));
    }
    return missing;
  };
  const missing = take(await executeIn(frameIds ? { tabId, frameIds } : { tabId, allFrames: true }, { func: tabmcpAgentEntry, args }));
  if (missing.length) {
    try {
      await injectAgent({ tabId, frameIds: missing });
      take(await executeIn({ tabId, frameIds: missing }, { func: tabmcpAgentEntry, args }));
    } catch (e) {
      if (e.code === 'NO_TAB') throw e;
      log('could not inject the agent into frames', missing, e.message); // they went away meanwhile
    }
  }
  const parts = [];
  for (const [frameId, json] of answers) parts.push(`"${frameId}":${json}`);
  // the tab as the call left it: the server's next question is often its URL and title; an action
  // in the page answers those itself (or navigated, and the server waits for the navigation's end)
  const tab = method === 'act' ? null : await chrome.tabs.get(tabId).catch(() => null);
  const tabPart = tab ? `,"tab":${JSON.stringify(tabInfo(tab))}` : '';
  return { type: 'result', rawData: `{"answers":{${parts.join(',')}},"pageMs":${pageMs.toFixed(2)}${tabPart}}` };
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
  refuseScriptUrl(url);
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

// At most one pageEvents frame this often: the requests of tabs loading at once (a restored
// session) become a few frames, not thousands against the server's frame budget.
const PAGE_EVENTS_EVERY_MS = 5;
const pageEvents = [];
let pageEventsTimer = null;
let pageEventsSentAt = 0;

function pageEvent(event) {
  if (!link || !link.helloSent) return; // dropped, not queued, while unlinked
  pageEvents.push(event);
  if (pageEventsTimer === null) {
    pageEventsTimer = setTimeout(flushPageEvents, Math.max(0, pageEventsSentAt + PAGE_EVENTS_EVERY_MS - Date.now()));
  }
}

function flushPageEvents() {
  clearTimeout(pageEventsTimer);
  pageEventsTimer = null;
  if (!pageEvents.length) return;
  pageEventsSentAt = Date.now();
  sendEvent({ type: 'pageEvents', events: pageEvents.splice(0) });
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

// Field checks: the server validates what it sends, but a bad frame must still get an answer.
function optional(msg, field, check, expected) {
  const value = msg[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw badField(msg, field, expected);
  return value;
}

const isText = (v) => typeof v === 'string' && v.length > 0;
const oneOf = (values) => (v) => values.includes(v);
const intBetween = (lo, hi) => (v) => Number.isInteger(v) && v >= lo && v <= hi;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
