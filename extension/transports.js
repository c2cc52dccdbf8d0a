// tabmcp service worker: the transports, how frames reach the server (a WebSocket, or the native
// messaging host where local ports are blocked: docs/native-messaging.md).
// Loaded by background.js with importScripts, in the worker's one global scope: it declares its
// functions, state and listeners, and reads the other files' names when it is called.
'use strict';

const NATIVE_HOST = 'com.tabmcp.bridge'; // written by `tabmcp install-native-host`
const MAX_CHUNKED_BYTES = 64 * 1024 * 1024; // a server frame the native host had to cut in pieces

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
