// tabmcp service worker.
//
// Connects to the tabmcp server's WebSocket as a client (or, where local ports are blocked, through
// the native messaging host: docs/native-messaging.md), reports tab events, answers the server's
// page primitives (one browser call each: tabs, frames, the page agent in frames, debugger commands,
// captures, navigations) and forwards what the browser sees of the pages (navigations, requests,
// the agents' messages); the page agent is agent/*.js. The page session itself (waits, refs, plans…) runs in the server. The wire
// protocol is docs/protocol.md; every frame sent here must match it exactly, because the server
// validates each one.
//
// This file holds what every part shares and starts the worker; each job is a file loaded below, all
// in one global scope. Each file registers its listeners at top level as it loads, so they also wake
// the worker. A file reads the others' names when it is called, except frames.js, whose table of
// handlers names them as it loads: it comes after the files that define them.
'use strict';

const DEBUGGER_IDLE_MS = 10000;
const CDP_VERSION = '1.3';
const CAPTURE_RETRY_MS = 600;

// The page agent's files in load order: the manifest's isolated-world content script is the one list.
const AGENT_FILES = chrome.runtime.getManifest().content_scripts.find((script) => script.world !== 'MAIN').js;
const HOOKS_FILE = 'page_hooks.js';

const log = (...args) => console.debug('[tabmcp]', ...args);

/** An error that becomes an `error` frame with this code. */
class ProtocolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

importScripts(
  'policy.js', // tabmcpPolicy: the navigation policy's browser rules (docs/security.md)
  'link_config.js', // tabmcpLinkConfig: server address, transport, pairing token
  'agent_entry.js', // tabmcpAgentEntry: how a page agent is called (either host)
  'page_host.js', // the page primitives the server's page session asks for, and the page events
  'transports.js', // how frames reach the server: a WebSocket or the native messaging host
  'link.js', // the link to the server: hello, pings, reconnects, refusals, sending frames
  'link_status.js', // what the user sees of the link: the popup's state, the toolbar badge
  'tabs.js', // tabs and tab groups: their requests and their events
  'page_events.js', // the pages' requests, popups, navigations and agent ports, as page events
  'frames.js', // incoming frames: each request to its handler, every answer with its id
);

self.addEventListener('unhandledrejection', (event) => {
  log('unhandled rejection', event.reason);
  event.preventDefault();
});

// A (re)started worker has no socket yet: what the popup showed of the last one is gone with it.
chrome.storage.session.set({ controlled: [], traffic: { ...traffic } }).catch((e) => log('storage.session', e));
showLinkStatus();
connect();
