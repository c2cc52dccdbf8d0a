// tabmcp page agent: liveResults, the results a live search shows near its box once the query is
// typed (a docs site's search dialog, an autocomplete's listbox, a filter box's popover), read as
// rows, and the one a call asked to open.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    AgentError, failure, collapse, cut, sleep, refFor, flatParent, isVisible,
  } = shared;
  // Defined by other files (targets.js, summary.js): called through `shared` (by then every file has run).
  const resolveTarget = (target) => shared.resolveTarget(target);
  const renderedText = (node, max) => shared.renderedText(node, max);

  const RESULT_SELECTOR = 'a[href], [role=option], [role=link]';
  const ITEM_SELECTOR = 'li, [role=option], [role=listitem], article, tr';
  const OWNS = ['aria-controls', 'aria-owns'];
  const ROWS_MAX = 50;
  const ROW_TEXT_MAX = 200;
  const WAIT_MS = 5000; // results a search fetches or computes (in a worker, its index maybe still loading) have this long
  const WAIT_MAX_MS = 10000;
  const POLL_MS = 100;
  // The page changed near the box and then stayed quiet this long without a result: it answered
  // "nothing found".
  const QUIET_MS = 2500;

  /**
   * `{target, token, open?, timeoutMs?}` (target: the search box the query was typed into; token:
   * the plan's watchChanges). Waits until results show near the box (in the elements its
   * aria-controls / aria-owns name, else in its nearest ancestor holding links or options
   * that appeared since the plan began), or the page answers without any, or the time is up.
   * Answers `{ok, rows, total, answered, text}`: rows as `{title, url?, text?}` in page order (text: the result's item, its snippet), answered whether
   * anything showed near the box at all, text what the results' place says when it holds none; with `open` (a text a row shows), `open` is the ref of the first
   * result showing it (exact, then at the start, then anywhere).
   */
  async function liveResults(arg) {
    try {
      if (!arg || typeof arg !== 'object' || !arg.target) throw new AgentError('BAD_MESSAGE', 'liveResults needs {target}');
      const box = resolveTarget(arg.target);
      const watch = shared.watchOf(arg.token);
      const wait = Number.isInteger(arg.timeoutMs) && arg.timeoutMs >= 0 ? Math.min(arg.timeoutMs, WAIT_MAX_MS) : WAIT_MS;
      const deadline = performance.now() + wait;
      let found = { results: [], place: null };
      let changes = -1;
      let quietSince = performance.now();
      // the same query as this box's last answer: the page may change nothing, its results stand
      const last = answered.get(box);
      const again = last && last.query === box.value && last.place.isConnected ? last.place : null;
      for (;;) {
        if (watch) await shared.settleWatch(watch);
        found = resultsNear(box, watch, again);
        const now = performance.now();
        if (found.results.length || now >= deadline) break;
        const seen = watch ? watch.changes : 0;
        if (seen !== changes) {
          changes = seen;
          quietSince = now;
        } else if (now - quietSince >= (found.place ? QUIET_MS : 2 * QUIET_MS)) {
          break; // the page answered without results, or did nothing at all as the query was typed
        }
        await sleep(POLL_MS);
      }
      const rows = [];
      const shown = [];
      const seenRows = new Set();
      // an option holding a link is one result: the link
      const results = found.results.filter((el) => !found.results.some((other) => other !== el && el.contains(other)));
      for (const el of results) {
        const title = cut(renderedText(el, ROW_TEXT_MAX), ROW_TEXT_MAX);
        if (!title) continue;
        const row = { title };
        const url = shortUrl(el);
        if (url) row.url = url;
        // the item the result stands in, when it is the item's only result, says more (its snippet)
        const item = el.parentElement ? el.parentElement.closest(ITEM_SELECTOR) : null;
        if (item && found.place && found.place.contains(item) && results.every((other) => other === el || !item.contains(other))) {
          const text = cut(renderedText(item, ROW_TEXT_MAX), ROW_TEXT_MAX);
          if (text !== title) row.text = text;
        }
        const key = `${title}\n${url}`;
        if (seenRows.has(key)) continue;
        seenRows.add(key);
        shown.push(el);
        rows.push(row);
      }
      // answered: the page showed something near the box (results, or words saying there are none)
      if (rows.length && found.place) answered.set(box, { query: box.value, place: found.place });
      const out = { ok: true, rows: rows.slice(0, ROWS_MAX), total: rows.length, answered: Boolean(found.place) };
      if (!rows.length && found.place) out.text = cut(renderedText(found.place, ROW_TEXT_MAX), ROW_TEXT_MAX);
      if (typeof arg.open === 'string' && arg.open.trim()) out.open = refFor(chosen(arg.open, shown, rows));
      return out;
    } catch (e) {
      return failure(e);
    }
  }

  /** The result whose row shows `text`: the same text, else one starting with it, else one holding it. */
  function chosen(text, shown, rows) {
    const wanted = collapse(text).toLowerCase();
    const titles = rows.map((row) => collapse(row.title).toLowerCase());
    for (const fits of [(t) => t === wanted, (t) => t.startsWith(wanted), (t) => t.includes(wanted)]) {
      const index = titles.findIndex(fits);
      if (index !== -1) return shown[index];
    }
    const listed = rows.slice(0, 10).map((row) => JSON.stringify(row.title.slice(0, 60))).join(', ');
    throw new AgentError(
      'ELEMENT_NOT_FOUND',
      rows.length ? `no result row shows ${JSON.stringify(text)}; the results: ${listed}` : `no result row shows ${JSON.stringify(text)}: the search found nothing`,
    );
  }

  // Per box, the query of its last answer and where its results showed.
  const answered = new WeakMap();

  /** The path, query and fragment a result links to on this site, the whole URL on another. */
  function shortUrl(el) {
    const href = el.localName === 'a' ? el.getAttribute('href') : null;
    if (!href || /^(javascript:|#$)/i.test(href.trim())) return '';
    try {
      const url = new URL(href, location.href);
      return url.origin === location.origin ? `${url.pathname}${url.search}${url.hash}` : url.href;
    } catch {
      return '';
    }
  }

  /** `{results, place}`: the results near the box and the element they show in (place: where the page
   * answered, even with no result). `again`: where the box's last results showed, for the same query. */
  function resultsNear(box, watch, again) {
    const owned = ownedBy(box);
    if (owned.length) {
      const results = owned.flatMap((el) => [...el.querySelectorAll(RESULT_SELECTOR)]).filter(isVisible);
      return { results, place: owned.find(isVisible) || null };
    }
    const own = box.form || box;
    if (again) {
      const results = [...again.querySelectorAll(RESULT_SELECTOR)].filter((el) => !own.contains(el) && isVisible(el));
      if (results.length) return { results, place: again };
    }
    if (!watch) return { results: [], place: null };
    const { added, holders } = changes(watch, own);
    const appeared = (el) => {
      if (holders.has(el)) return true;
      for (let p = el; p; p = flatParent(p)) if (added.has(p)) return true;
      return false;
    };
    let place = null;
    for (let anc = flatParent(box); anc && anc !== document.documentElement; anc = flatParent(anc)) {
      if (!place && holders.has(anc)) place = anc;
      const results = [...anc.querySelectorAll(RESULT_SELECTOR)].filter((el) => !own.contains(el) && appeared(el) && isVisible(el));
      if (results.length) return { results, place: anc };
      if (anc === document.body) break;
    }
    return { results: [], place };
  }

  /** The elements the box says it controls or owns (an autocomplete's listbox, a results region). */
  function ownedBy(box) {
    const root = box.getRootNode();
    const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
    const ids = OWNS.flatMap((name) => (box.getAttribute(name) || '').split(/\s+/)).filter(Boolean);
    return ids.map(byId).filter((el) => el && el !== box);
  }

  /** The nodes given new content since the plan began, outside the box's own form, and every
   * element holding one. */
  function changes(watch, own) {
    const added = new Set();
    const holders = new Set();
    for (const node of watch.added) {
      if (!node.isConnected || own.contains(node)) continue;
      added.add(node);
      for (let p = node; p && !holders.has(p); p = flatParent(p)) holders.add(p);
    }
    return { added, holders };
  }

  Object.assign(shared, {
    liveResults,
  });
})();
