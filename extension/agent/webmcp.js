// tabmcp page agent: the page's WebMCP tools (listed by capture) and webmcpCall.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    cut, agentTimer, DOC_ID, beginAction, settleAction, flushConsole, parseDetail, onToolRelevantChange,
  } = shared;

  // -------------------------------------------------------------------------------------------
  // WebMCP: the tools the page declared through document.modelContext /
  // navigator.modelContext (docs/page-agent.md "WebMCP"). page_hooks.js keeps the registry in the
  // main world (a polyfill, or wrappers around the browser's own API) and sends the list after
  // every change; `webmcpTools` is the latest list with the caps of docs/protocol.md
  // (PageCapture), `webmcpCall({name, args, timeoutMs})` runs the page's own execute() there.

  const WEBMCP_TOOLS_EVENT = 'tabmcp:webmcp-tools';
  const WEBMCP_SYNC_EVENT = 'tabmcp:webmcp-sync';
  const WEBMCP_CALL_EVENT = 'tabmcp:webmcp-call';
  const WEBMCP_CANCEL_EVENT = 'tabmcp:webmcp-cancel';
  const WEBMCP_RESULT_EVENT = 'tabmcp:webmcp-result';
  const WEBMCP_MAX_TOOLS = 64;
  const WEBMCP_NAME_MAX = 128;
  const WEBMCP_DESCRIPTION_MAX = 2000;
  const WEBMCP_TITLE_MAX = 200;
  const WEBMCP_SCHEMA_MAX = 20000; // characters of the input schema's JSON
  const WEBMCP_RESULT_MAX = 20000; // the hooks cap the result's JSON; a little slack for the marker
  const WEBMCP_MESSAGE_MAX = 2000;
  const WEBMCP_TIMEOUT_MS = 30000;
  const WEBMCP_ANNOTATIONS = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint',
    'untrustedContentHint', 'consequentialHint', 'debugging']);

  let webmcpTools = []; // replaced, never changed in place: the capture hands it out as it is
  let webmcpKey = '[]'; // its JSON, to tell a new list from a repeat
  let webmcpHooks = false; // page_hooks.js answered: WebMCP calls can reach the page
  let webmcpCallSeq = 0;
  const webmcpPending = new Map(); // callId → settle(answer)
  const currentWebmcpTools = () => webmcpTools; // for the capture, which carries the latest list

  /** One tool of the hooks' list as the capture carries it, or null when it breaks a cap. */
  function webmcpTool(raw) {
    if (!raw || typeof raw !== 'object') return null;
    const { name, title, description, inputSchema, annotations } = raw;
    if (typeof name !== 'string' || !name || name.length > WEBMCP_NAME_MAX) return null;
    if (typeof description !== 'string' || description.length > WEBMCP_DESCRIPTION_MAX) return null;
    const tool = { name, description };
    if (typeof title === 'string' && title) tool.title = title.slice(0, WEBMCP_TITLE_MAX);
    if (inputSchema !== undefined && inputSchema !== null) {
      if (typeof inputSchema !== 'object' || Array.isArray(inputSchema)) return null;
      const json = JSON.stringify(inputSchema);
      if (json.length > WEBMCP_SCHEMA_MAX) return null;
      tool.inputSchema = inputSchema;
    }
    if (annotations && typeof annotations === 'object') {
      const hints = {};
      let any = false;
      for (const key of WEBMCP_ANNOTATIONS) {
        if (typeof annotations[key] !== 'boolean') continue;
        hints[key] = annotations[key];
        any = true;
      }
      if (any) tool.annotations = hints;
    }
    return tool;
  }

  // The hooks answer the first sync (sent once the agent is initialised, at the end) synchronously.
  addEventListener(WEBMCP_TOOLS_EVENT, (event) => {
    const detail = parseDetail(event);
    if (!detail || !Array.isArray(detail.tools)) return;
    webmcpHooks = true;
    const list = [];
    const names = new Set();
    for (const raw of detail.tools) {
      if (list.length >= WEBMCP_MAX_TOOLS) break;
      const tool = webmcpTool(raw);
      if (!tool || names.has(tool.name)) continue;
      names.add(tool.name);
      list.push(tool);
    }
    const key = JSON.stringify(list);
    if (key === webmcpKey) return;
    webmcpTools = list;
    webmcpKey = key;
    onToolRelevantChange('webmcp');
  }, true);

  addEventListener(WEBMCP_RESULT_EVENT, (event) => {
    const answer = parseDetail(event);
    if (!answer || typeof answer.callId !== 'string') return;
    const settle = webmcpPending.get(answer.callId);
    if (settle) settle(answer);
  }, true);

  function webmcpSync() {
    window.dispatchEvent(new CustomEvent(WEBMCP_SYNC_EVENT, { detail: '{}' }));
  }

  /** The hooks' answer as the agent's: {ok: true, result, truncated?} or {ok: false, code, message}. */
  function webmcpOutcome(answer, name) {
    if (answer.ok !== true) {
      const code = answer.code === 'TOOL_NOT_FOUND' ? 'TOOL_NOT_FOUND' : 'SCRIPT_ERROR';
      const message = typeof answer.message === 'string' && answer.message ? answer.message : `WebMCP tool "${name}" failed`;
      return { ok: false, code, message: cut(message, WEBMCP_MESSAGE_MAX) };
    }
    let result = null;
    let truncated = answer.truncated === true;
    if (typeof answer.json === 'string') {
      if (answer.json.length > WEBMCP_RESULT_MAX + 200) {
        result = `${answer.json.slice(0, WEBMCP_RESULT_MAX)} … [truncated]`;
        truncated = true;
      } else {
        try {
          result = JSON.parse(answer.json);
        } catch {
          result = null;
        }
      }
    }
    const outcome = { ok: true, result };
    if (truncated) outcome.truncated = true;
    if (answer.notJson === true) outcome.notJson = true;
    return outcome;
  }

  /**
   * `{name, args, timeoutMs}` → `{ok: true, result, dialogs, navigation?}` or `{ok: false, code:
   * TOOL_NOT_FOUND | SCRIPT_ERROR | TIMEOUT | BAD_MESSAGE, message}`. Like an action, it reports the
   * dialogs the tool opened and a navigation it started, so the worker waits for that page.
   */
  async function webmcpCall(arg) {
    const request = arg && typeof arg === 'object' ? arg : {};
    const { name } = request;
    if (typeof name !== 'string' || !name) return { ok: false, code: 'BAD_MESSAGE', message: 'webmcpCall needs a tool name' };
    const args = request.args === undefined || request.args === null ? {} : request.args;
    if (typeof args !== 'object' || Array.isArray(args)) {
      return { ok: false, code: 'BAD_MESSAGE', message: `The arguments of WebMCP tool "${name}" must be an object` };
    }
    const timeoutMs = Number.isFinite(request.timeoutMs) && request.timeoutMs > 0 ? request.timeoutMs : WEBMCP_TIMEOUT_MS;
    if (!webmcpHooks) webmcpSync();
    if (!webmcpHooks) {
      return { ok: false, code: 'TOOL_NOT_FOUND', message: `WebMCP tool "${name}" cannot be reached: tabmcp's page hooks are not running in this page (reload it)` };
    }
    webmcpCallSeq += 1;
    const callId = `${DOC_ID}:${webmcpCallSeq}`;
    const record = beginAction({});
    try {
      const answer = await new Promise((resolve) => {
        const timer = agentTimer(() => {
          webmcpPending.delete(callId);
          window.dispatchEvent(new CustomEvent(WEBMCP_CANCEL_EVENT, { detail: JSON.stringify({ callId }) }));
          resolve({ ok: false, code: 'TIMEOUT', message: `WebMCP tool "${name}" did not finish within ${timeoutMs} ms (its execute() is still pending; it was asked to abort)` });
        }, timeoutMs);
        webmcpPending.set(callId, (value) => {
          clearTimeout(timer);
          webmcpPending.delete(callId);
          resolve(webmcpOutcome(value, name));
        });
        window.dispatchEvent(new CustomEvent(WEBMCP_CALL_EVENT, { detail: JSON.stringify({ callId, name, args }) }));
      });
      if (!answer.ok) return answer;
      await settleAction(record);
      const out = { ...answer, dialogs: record.dialogs };
      if (record.navigation) out.navigation = record.navigation;
      return out;
    } finally {
      record.end();
      flushConsole(); // what the tool logged reaches the worker before its answer does
    }
  }

  Object.assign(shared, {
    currentWebmcpTools, webmcpSync, webmcpCall,
  });
})();
