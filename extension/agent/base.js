// tabmcp page agent: the constants, errors and helpers every part uses.
//
// The page agent is the files of extension/agent/, in the order manifest.json's first content
// script lists them (every frame's ISOLATED world, document_start); background.js injects the same
// list into pages that were open before the extension loaded, and the CDP driver evaluates it in
// each frame. Each file has one job and shares what others need through globalThis.__tabmcpParts,
// which this file creates and entry.js removes once it has built globalThis.__tabmcpAgent. Every
// file returns at once when the agent already exists: injecting it twice is harmless.
(() => {
  'use strict';

  if (globalThis.__tabmcpAgent) return;
  const shared = {};
  globalThis.__tabmcpParts = shared;

  const NAME_MAX = 120;
  const IS_TOP = window.top === window;

  // Events shared with page_hooks.js (main world); details are JSON strings.
  const CONSOLE_EVENT = 'tabmcp:console';
  const DIALOG_EVENT = 'tabmcp:dialog';
  const POLICY_EVENT = 'tabmcp:policy';
  const SHADOW_EVENT = 'tabmcp:shadow';
  const WORK_EVENT = 'tabmcp:work';
  const PENDING_EVENT = 'tabmcp:pending';
  // Marks the agent's own timers: under the CDP driver the agent shares the page's world, whose
  // setTimeout page_hooks.js wraps to count the page's work; the agent's timers are not the page's.
  const UNCOUNTED = Symbol.for('tabmcp.uncounted');

  // Never walked: no rendered content, or content that is not the page's (head).
  const SKIPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base']);
  // Inline in text: no space is added around them when text is gathered from content.
  const INLINE_TAGS = new Set([
    'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'label',
    'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'slot', 'img',
  ]);
  const CAPTURE_INTERACTIVE_SELECTOR = [
    'a[href]', 'button', 'input', 'select', 'textarea', 'form', 'label', 'summary', '[role]',
    '[tabindex]', '[contenteditable=""]', '[contenteditable="true"]', '[contenteditable="plaintext-only"]',
    '[aria-expanded]',
  ].join(',');

  const CHECKABLE_ROLES = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  const LABELABLE_TAGS = new Set(['input', 'select', 'textarea', 'meter', 'output', 'progress']);
  const FORM_CONTROL_TAGS = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset']);

  /** A failure with a protocol error code (docs/page-agent.md §6). */
  class AgentError extends Error {
    constructor(code, message, candidates) {
      super(message);
      this.code = code;
      this.candidates = candidates;
    }
  }

  function failure(e) {
    if (e instanceof AgentError) {
      const out = { ok: false, code: e.code, message: e.message };
      if (e.candidates) out.candidates = e.candidates;
      return out;
    }
    return { ok: false, code: 'INTERNAL', message: String((e && e.stack) || e) };
  }

  const collapse = (text) => String(text).replace(/\s+/g, ' ').trim();
  const cut = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  /** setTimeout for the agent's own work (never counted as the page's). */
  function agentTimer(callback, ms) {
    const run = () => callback();
    run[UNCOUNTED] = true;
    return setTimeout(run, ms);
  }

  const sleep = (ms) => new Promise((resolve) => agentTimer(resolve, ms));

  /**
   * Resolves true once animations have advanced by a frame (a rAF callback can run in the frame
   * whose time was already read, so wait until the timeline moves, at most three frames), or
   * false after 500 ms without frames (a hidden tab, where frames do not run).
   */
  function nextFrame() {
    const start = document.timeline ? document.timeline.currentTime : null;
    return new Promise((resolve) => {
      const timer = agentTimer(() => resolve(false), 500);
      let frames = 0;
      const onFrame = () => {
        frames += 1;
        const now = document.timeline ? document.timeline.currentTime : null;
        if (now === start && frames < 3) {
          requestAnimationFrame(onFrame);
          return;
        }
        clearTimeout(timer);
        resolve(true);
      };
      requestAnimationFrame(onFrame);
    });
  }

  /** Two animation frames (what changed is painted), or 200 ms in a tab that paints nothing. */
  function framesPainted() {
    return new Promise((resolve) => {
      const timer = agentTimer(resolve, 200);
      requestAnimationFrame(() => requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve();
      }));
    });
  }

  const DOC_ID = (() => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return [...crypto.getRandomValues(new Uint8Array(8))].map((b) => alphabet[b % 36]).join('');
  })();

  Object.assign(shared, {
    NAME_MAX, IS_TOP, CONSOLE_EVENT, DIALOG_EVENT, POLICY_EVENT, SHADOW_EVENT, WORK_EVENT, PENDING_EVENT, SKIPPED_TAGS,
    INLINE_TAGS,
    CAPTURE_INTERACTIVE_SELECTOR, CHECKABLE_ROLES, LABELABLE_TAGS, FORM_CONTROL_TAGS, AgentError, failure, collapse,
    cut, agentTimer, sleep, nextFrame, framesPainted, DOC_ID,
  });
})();
