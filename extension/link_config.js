// tabmcp: where the extension links, through what, and with which pairing token.
//
// The options page (chrome.storage.local) wins; a browser tabmcp launched carries the launcher's
// choices in its copy of the extension (tabmcp-config.json, absent in the repo); else the
// defaults. Loaded by background.js with importScripts and by the options and popup pages with a
// <script>, so the three never disagree on a default. Everything stays inside `tabmcpLinkConfig`:
// in the worker it shares one global scope with background.js.
'use strict';

const tabmcpLinkConfig = (() => {
  const DEFAULT_SERVER_URL = 'ws://127.0.0.1:8765';
  const CONFIG_FILE = 'tabmcp-config.json';
  let fileRead = null; // the file never changes while the extension runs: read once per page or worker

  /** The launcher's tabmcp-config.json, or {} for a copy of the extension the user loaded. */
  function readConfigFile() {
    if (!fileRead) {
      fileRead = (async () => {
        try {
          const response = await fetch(chrome.runtime.getURL(CONFIG_FILE));
          if (response.ok) {
            const config = await response.json();
            if (config && typeof config === 'object') return config;
          }
        } catch {
          // no config file: the normal case for the unpacked repo copy
        }
        return {};
      })();
    }
    return fileRead;
  }

  const pick = (...values) => values.find((v) => typeof v === 'string' && v.trim()) || '';

  /**
   * {url, token, transport} from what the options page stored (`stored`: chrome.storage.local's
   * serverUrl, pairingToken, transport; {} gives what applies when nothing is stored there).
   */
  async function resolve(stored) {
    const file = await readConfigFile();
    return {
      url: pick(stored.serverUrl, file.serverUrl) || DEFAULT_SERVER_URL,
      token: pick(stored.pairingToken, file.token).trim(),
      transport: pick(stored.transport, file.transport) === 'native' ? 'native' : 'websocket',
    };
  }

  return { DEFAULT_SERVER_URL, STORED_KEYS: ['serverUrl', 'pairingToken', 'transport'], resolve };
})();
