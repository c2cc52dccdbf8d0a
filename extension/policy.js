// tabmcp's navigation policy in the browser (docs/security.md, "Navigation policy").
//
// The server sends its rules with `connect` (protocol.py PolicyRules): every pattern already
// translated, by src/tabmcp/policy.py, into a regular expression that matches a URL as the browser
// writes it. Here the rules that can match web pages become declarativeNetRequest session rules
// for main_frame and sub_frame requests, which the browser applies to every navigation of every
// tab: links, forms, `location =` in scripts, server redirects, popups. A blocked main-frame
// navigation is reported to the server (`navigationBlocked`); the server's page session, which sees
// the navigation fail with net::ERR_BLOCKED_BY_CLIENT, fails the call that caused it with
// NAVIGATION_BLOCKED.
// The rules outlive the link and the worker: declarativeNetRequest session rules survive a worker
// restart, and the policy they came from is kept in chrome.storage.session, so a page that
// navigates while the worker restarts or relinks is still held to them. They go when the server
// shuts down (it closes the link with 1001), when the user disconnects or points the extension at
// another server, when another server's `connect` replaces them, and when the browser closes.
//
// Loaded by background.js with importScripts; it shares the worker's global scope, so everything
// here stays inside one object, `tabmcpPolicy`. It uses the worker's ProtocolError and log
// (background.js) and sendEvent (link.js) when called, never while loading.
'use strict';

const tabmcpPolicy = (() => {
  const FRAME_TYPES = ['main_frame', 'sub_frame'];
  // The highest-priority rule that matches a request decides: a block pattern beats an allow
  // pattern, which beats the allow list's "everything else is blocked".
  const PRIORITY = { blockAll: 1, allow: 2, block: 3 };
  const BLOCKED_BY_CLIENT = 'net::ERR_BLOCKED_BY_CLIENT';
  // Pages an allow pattern must name before a tab is sent there (the server checked first).
  const dnr = chrome.declarativeNetRequest;
  const NO_POLICY = Object.freeze({ block: [], allow: [], allowReason: '' });
  const STORED_KEY = 'navigationPolicy'; // the wire policy in force, for a restarted worker

  let current = NO_POLICY;
  let queue = Promise.resolve();

  /** Rule changes run one after another: a clear on disconnect cannot interleave with a connect. */
  function serially(work) {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  }

  function badPolicy(message) {
    return new ProtocolError('BAD_MESSAGE', `"connect" policy: ${message}`);
  }

  function readRules(rules, field) {
    if (rules === undefined) return [];
    if (!Array.isArray(rules)) throw badPolicy(`"${field}" must be an array`);
    return rules.map((rule, index) => {
      const where = `${field}[${index}]`;
      if (!rule || typeof rule !== 'object' || typeof rule.pattern !== 'string' || typeof rule.regex !== 'string' || !rule.regex) {
        throw badPolicy(`${where} needs the strings "pattern" and "regex"`);
      }
      let re;
      try {
        re = new RegExp(rule.regex);
      } catch (e) {
        throw badPolicy(`${where} (${rule.pattern}): ${e.message}`);
      }
      const reason = typeof rule.reason === 'string' ? rule.reason : '';
      return { pattern: rule.pattern, regex: rule.regex, re, web: rule.web !== false, reason };
    });
  }

  function read(policy) {
    if (policy === undefined || policy === null) return NO_POLICY;
    if (typeof policy !== 'object' || Array.isArray(policy)) throw badPolicy('must be an object');
    return {
      block: readRules(policy.block, 'block'),
      allow: readRules(policy.allow, 'allow'),
      allowReason: typeof policy.allowReason === 'string' ? policy.allowReason : '',
    };
  }

  /** The session rules that enforce a policy (rules for chrome:, file:… opt pages in, no more). */
  function sessionRules(policy) {
    const rules = [];
    const add = (priority, type, condition) => {
      rules.push({ id: rules.length + 1, priority, action: { type }, condition: { ...condition, resourceTypes: FRAME_TYPES } });
    };
    for (const rule of policy.block) {
      if (rule.web) add(PRIORITY.block, 'block', { regexFilter: rule.regex, isUrlFilterCaseSensitive: true });
    }
    if (policy.allow.length) {
      add(PRIORITY.blockAll, 'block', { regexFilter: '^https?://' });
      for (const rule of policy.allow) {
        if (rule.web) add(PRIORITY.allow, 'allow', { regexFilter: rule.regex, isUrlFilterCaseSensitive: true });
      }
    }
    return rules;
  }

  async function checkRegexes(policy) {
    for (const rule of [...policy.block, ...policy.allow]) {
      if (!rule.web) continue;
      const { isSupported, reason } = await dnr.isRegexSupported({ regex: rule.regex, isCaseSensitive: true });
      if (!isSupported) {
        throw badPolicy(`the browser cannot enforce the URL pattern ${rule.pattern} (${reason}): simplify it`);
      }
    }
  }

  async function install(rules) {
    const existing = await dnr.getSessionRules();
    await dnr.updateSessionRules({ removeRuleIds: existing.map((r) => r.id), addRules: rules });
  }

  /**
   * Installs a policy (the `connect` request's `policy`), replacing any earlier rules; resolves
   * with the number of session rules. A policy the browser cannot enforce is refused whole
   * (BAD_MESSAGE naming the pattern) and leaves no rules: the server must not go on believing
   * it is enforced.
   */
  function apply(policy) {
    const parsed = read(policy);
    return serially(async () => {
      const rules = sessionRules(parsed);
      if (!dnr) {
        if (rules.length) throw badPolicy('this browser has no declarativeNetRequest: it cannot enforce URL patterns');
        current = parsed;
        return 0;
      }
      try {
        await checkRegexes(parsed);
        await install(rules);
      } catch (e) {
        current = NO_POLICY;
        await install([]).catch(() => {});
        await remember(null);
        if (e instanceof ProtocolError) throw e;
        throw badPolicy(`the browser refused the navigation rules: ${(e && e.message) || e}`);
      }
      current = parsed;
      await remember(rules.length ? policy : null);
      log('navigation policy:', rules.length, 'session rules');
      return rules.length;
    });
  }

  async function remember(policy) {
    try {
      if (policy) await chrome.storage.session.set({ [STORED_KEY]: policy });
      else await chrome.storage.session.remove(STORED_KEY);
    } catch (e) {
      log('storage.session: the navigation policy is not kept for a restarted worker', e);
    }
  }

  /**
   * A (re)started worker: the session rules are still in force in the browser; read back the
   * policy they came from, so blocks are explained (NAVIGATION_BLOCKED, navigationBlocked) at once.
   */
  async function restore() {
    let stored;
    try {
      stored = (await chrome.storage.session.get(STORED_KEY))[STORED_KEY];
    } catch (e) {
      log('storage.session unavailable: the kept navigation policy is not read', e);
      return;
    }
    if (!stored) return;
    try {
      current = read(stored);
      log('navigation policy kept from before the worker started:', current.block.length, 'block,', current.allow.length, 'allow');
    } catch (e) {
      log('the kept navigation policy is unreadable', e);
    }
  }

  /** No policy: the server shut down, or the user unlinked the browser or chose another server. */
  function clear() {
    return serially(async () => {
      current = NO_POLICY;
      if (dnr) await install([]);
      await remember(null);
    }).catch((e) => log('clearing the navigation rules failed', e));
  }

  /**
   * Why the policy refuses a web URL as the browser wrote it ("blocked by tabmcp's navigation
   * policy (block_urls: …); ask the user…"), or null when it does not.
   */
  function explain(url) {
    if (typeof url !== 'string') return null;
    const blocking = current.block.find((rule) => rule.re.test(url));
    if (blocking) return blocking.reason || `blocked by tabmcp's navigation policy (block_urls: ${blocking.pattern})`;
    if (current.allow.length && /^https?:/.test(url) && !current.allow.some((rule) => rule.re.test(url))) {
      return current.allowReason || "not allowed by tabmcp's navigation policy (allow_urls)";
    }
    return null;
  }

  // Settled once the kept policy is read: the worker (frames.js) answers no request before that.
  let restored = false;
  const ready = serially(restore).then(() => { restored = true; });

  function reportBlocked(details) {
    const reason = explain(details.url);
    if (reason) sendEvent({ type: 'navigationBlocked', tabId: details.tabId, url: details.url, reason });
  }

  // Registered at top level (before page_events.js's listener), so the server hears of a
  // block before the answer of the request that caused it.
  chrome.webNavigation.onErrorOccurred.addListener((details) => {
    if (details.frameId !== 0 || details.tabId < 0 || details.error !== BLOCKED_BY_CLIENT) return;
    if (restored) reportBlocked(details);
    else ready.then(() => reportBlocked(details));
  });

  return { apply, clear, explain, ready };
})();
