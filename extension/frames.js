// tabmcp service worker: incoming frames. Each request goes to its handler (tabs.js, page_host.js);
// every request gets an answer frame with its id, an error frame when the handler fails.
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

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
