// tabmcp page agent: the main scope of the page and its pagination (docs/page-agent.md §11, "Lists"):
// numbered and next links, a page parameter in their URLs (how a page number is written in them), a
// "Page 2 of 8" line, a "Load more" button. lists.js reads it for the main list's answer, marks and
// moves.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const { collapse, isVisible, explicitRole } = shared;

  const CONTROL_TEXT_MAX = 40; // longer text is no pager link, page size or "Load more"
  // How a pager link's or "Load more"'s text can start: one test rules out most links and buttons.
  const PAGER_START = /^\s*(\d|[«»‹›←→<>]|next|prev|first|last|older|newer|load|show|see|view|more|page)|^\s*$/i;
  const PAGE_NUMBER = /^\d{1,5}$/;
  // Query parameters that hold a page number or a row offset.
  // Tested on the name without leading punctuation (Roundup's `@startwith`).
  const PAGE_PARAM_NAME = /^(p|pg|page|paged|pagenum|pageno|page_?number|start|startwith|offset|skip|from)$|[_-]page$/i;
  const OFFSET_PARAM_NAME = /^(start|startwith|offset|skip|from)$/i;
  const PER_PAGE_PARAM_NAME = /^(per_?page|page_?size|pagesize|limit|per|size|rows|length|ipp|items_?per_?page|list_per_page)$/i;
  const bare = (key) => key.replace(/^[^a-z0-9]+/i, '');
  const PAGE_PARAM = { test: (key) => PAGE_PARAM_NAME.test(bare(key)) };
  const OFFSET_PARAM = { test: (key) => OFFSET_PARAM_NAME.test(bare(key)) };
  const PER_PAGE_PARAM = { test: (key) => PER_PAGE_PARAM_NAME.test(bare(key)) };
  const NEXT_WORDS = /^(next|next page|older|older posts|older entries|more results)$/i;
  const PREV_WORDS = /^(prev|previous|previous page|newer|newer posts|newer entries)$/i;
  const LOAD_MORE = /^(load|show|see|view) (\d+ )?more\b|^more results$/i;
  const PAGER_HINT = /pag|pager/i;
  const ARROWS = /[«»‹›←→<>▲▼△▽↑↓⇅⬆⬇…]/g;
  const CURRENT_CLASS = /(^|[\s_-])(active|current|selected|this-page|is-current)($|[\s_-])/i;
  // The links and buttons of the main scope: pagination and the per-page links both read them (one query).
  const SCOPE_CONTROLS = 'a, button, [role=link], [role=button]';
  // A link in a body cell of a table or grid is the row's, never the pager's.
  const BODY_CELL = 'tbody td, [role=gridcell], [role=cell]';

  function mainRoot() {
    return document.querySelector('main') || document.querySelector('[role=main]') || document.body
      || document.documentElement;
  }

  const words = (el) => collapse((el.innerText || el.textContent || '').replace(ARROWS, ' '));

  // ---- pagination

  function hrefOf(el) {
    if (el.localName !== 'a' || !el.hasAttribute('href')) return null;
    const raw = el.getAttribute('href').trim();
    if (!raw || raw.startsWith('#') || /^javascript:/i.test(raw)) return null;
    try {
      const url = new URL(el.href, location.href);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
    } catch {
      return null;
    }
  }

  function pageParams(url) {
    return url ? [...url.searchParams.keys()].filter((k) => PAGE_PARAM.test(k)) : [];
  }

  /** A link to another page of this list sets no query parameter but the page's (and its size) to a
   * value the page does not have: numbers that set another one are filters (a date drill-down's
   * years in a nav). One it leaves out (a page's own token) is no matter. */
  function onlyPageChanges(url) {
    if (!url) return true;
    const here = new URL(location.href).searchParams;
    return [...new Set(url.searchParams.keys())].every((k) => PAGE_PARAM.test(k) || PER_PAGE_PARAM.test(k)
      || url.searchParams.getAll(k).join('\n') === here.getAll(k).join('\n'));
  }

  function pagerHinted(el) {
    for (let node = el, depth = 0; node && depth < 4; node = node.parentElement, depth += 1) {
      const label = `${typeof node.className === 'string' ? node.className : ''} ${node.id} ${node.getAttribute('aria-label') || ''}`;
      if (PAGER_HINT.test(label) || node.localName === 'nav' || explicitRole(node) === 'navigation') return true;
    }
    return false;
  }

  /** A link's or button's words: its text (hidden parts too: "Next page" for screen readers), else its label. */
  function linkWords(el) {
    return collapse(el.textContent.replace(ARROWS, ' ')) || collapse((el.getAttribute('aria-label') || el.title || '').replace(ARROWS, ' '));
  }

  function direction(el) {
    const rel = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
    const label = collapse(`${el.getAttribute('aria-label') || ''} ${el.title || ''}`);
    const text = linkWords(el);
    if (rel.includes('next') || NEXT_WORDS.test(text) || /^next( page)?$/i.test(label)) return 'next';
    if (rel.includes('prev') || rel.includes('previous') || PREV_WORDS.test(text) || /^prev(ious)?( page)?$/i.test(label)) return 'prev';
    if (/^first( page)?$/i.test(text || label)) return 'first';
    if (/^last( page)?$/i.test(text || label)) return 'last';
    if (text) return '';
    // a link that is only an arrow: one points to the next or previous page, a double one to the end
    const arrow = collapse(el.textContent);
    if (/^[›→>]$/.test(arrow)) return 'next';
    if (/^[‹←<]$/.test(arrow)) return 'prev';
    if (/^(»|>>|⇥)$/.test(arrow)) return 'last';
    if (/^(«|<<|⇤)$/.test(arrow)) return 'first';
    return '';
  }

  // "Page 2 of 8", "Page 2 / 8" written in the pager.
  const PAGE_OF = /\bpage (\d{1,5}) ?(?:of|\/) ?(\d{1,5})\b/i;

  /** The main scope's links and buttons, in document order. */
  function scopeControls() {
    const scope = mainRoot();
    return scope ? scope.querySelectorAll(SCOPE_CONTROLS) : [];
  }

  /** el.textContent, without building a new string for the usual link or button of one text node. */
  function ownText(el) {
    const first = el.firstChild;
    return first !== null && first.nextSibling === null && first.nodeType === 3 ? first.data : el.textContent;
  }

  /** The elements holding the pager links (a pager may be shown above and below the list). */
  function regionsOf(links) {
    return [...new Set(links.map((l) => l.el.closest('nav, [role=navigation], ul, ol, p, div') || l.el.parentElement))]
      .filter(Boolean);
  }

  function pageOfText(regions) {
    for (const region of regions) {
      const found = PAGE_OF.exec(words(region));
      if (found) return { current: Number(found[1]), last: Number(found[2]) };
    }
    return null;
  }

  /**
   * The page's pagination: `{links: [{el, number?, dir?, url}], current, map?, loadMore?, last}`, or
   * null. Numbered links count when their URL has a page parameter or they sit in a pager (a nav,
   * an element whose class says "pag…"); links in a table's body cells never do.
   */
  function pagination(controls = scopeControls()) {
    const inRows = (el) => el.closest(BODY_CELL) !== null;
    const links = [];
    let loadMore = null;
    // every link and button: one test of its text start rules out most (cheaper than narrowing by selectors)
    for (const el of controls) {
      const raw = ownText(el);
      if (!el.hasAttribute('rel') && (raw.length > CONTROL_TEXT_MAX || !(PAGER_START.test(raw) || el.hasAttribute('aria-label')))) continue;
      const text = linkWords(el);
      if (!loadMore && LOAD_MORE.test(text) && !el.disabled && isVisible(el)) {
        loadMore = el;
        continue;
      }
      const dir = direction(el);
      if (!dir && !PAGE_NUMBER.test(text)) continue;
      if (el.closest('thead, [role=columnheader]') || inRows(el) || !isVisible(el)) continue;
      const url = hrefOf(el);
      if (dir && (url ? pageParams(url).length > 0 || pagerHinted(el) || el.getAttribute('rel') : pagerHinted(el))) {
        links.push({ el, dir, url });
      } else if (!dir && (pageParams(url).length > 0 || pagerHinted(el)) && onlyPageChanges(url)) {
        links.push({ el, number: Number(text), url });
      }
    }
    if (!links.length && !loadMore) return null;
    // a double arrow is the last page beside a single one, else the next page
    for (const [end, step] of [['last', 'next'], ['first', 'prev']]) {
      if (!links.some((l) => l.dir === step)) for (const l of links) if (l.dir === end && /^(»|«|>>|<<)$/.test(collapse(l.el.textContent))) l.dir = step;
    }
    const regions = regionsOf(links);
    const known = pageOfText(regions);
    const map = pageMap(links, known);
    const current = known ? known.current : currentPage(regions, map, inRows);
    return { links, map, loadMore, current, last: known ? known.last : null };
  }

  /** param = a × number + b fitted to `[number, url]` points, for the first page parameter that fits them all. */
  function fit(points) {
    for (const [, url] of points) {
      for (const param of pageParams(url)) {
        const pairs = points.filter(([, u]) => u.searchParams.has(param))
          .map(([n, u]) => [n, Number(u.searchParams.get(param))]).filter(([, v]) => Number.isInteger(v));
        const distinct = pairs.filter(([n], i) => pairs.findIndex(([m]) => m === n) === i);
        let a = 1;
        if (distinct.length >= 2) {
          const [[n1, v1], [n2, v2]] = distinct;
          a = (v2 - v1) / (n2 - n1);
        } else if (OFFSET_PARAM.test(param)) {
          continue; // one link cannot tell how many rows a page holds
        }
        const [n0, v0] = distinct[0] || [];
        if (n0 === undefined || !Number.isInteger(a) || a <= 0) continue;
        const b = v0 - a * n0;
        if (distinct.every(([n, v]) => a * n + b === v)) return { param, a, b, base: url };
      }
    }
    return null;
  }

  /**
   * How a page number is written in the URL: param = a × number + b (`?p=2` is page 2, `?page=1`
   * may be page 2, `?start=20` page 3), from the numbered links, a row offset beside a page size,
   * or the next, previous, first and last links around a known page. Null when none tells.
   */
  function pageMap(links, known) {
    const numbered = fit(links.filter((l) => l.number !== undefined && l.url).map((l) => [l.number, l.url]));
    if (numbered) return numbered;
    // a row offset beside the page size (`?start=50&size=50`): page n starts at (n - 1) × size
    for (const link of links) {
      if (!link.url) continue;
      const keys = [...link.url.searchParams.keys()];
      const offset = keys.find((k) => OFFSET_PARAM.test(k));
      const size = Number(link.url.searchParams.get(keys.find((k) => PER_PAGE_PARAM.test(k)) || ''));
      if (offset && Number.isInteger(size) && size > 0) return { param: offset, a: size, b: -size, base: link.url };
    }
    if (!known) return null;
    const at = { next: known.current + 1, prev: known.current - 1, first: 1, last: known.last };
    return fit(links.filter((l) => l.dir && l.url).map((l) => [at[l.dir], l.url]));
  }

  function currentPage(regions, map, inRows) {
    for (const region of regions) {
      for (const el of region.querySelectorAll('[aria-current]:not([aria-current=false])')) {
        if (PAGE_NUMBER.test(words(el))) return Number(words(el));
      }
      for (const el of region.querySelectorAll('*')) {
        if (el.children.length || el.textContent.length > CONTROL_TEXT_MAX || !PAGE_NUMBER.test(words(el))
          || inRows(el) || !isVisible(el)) continue;
        const link = el.closest('a[href], button');
        const marked = CURRENT_CLASS.test(`${el.className} ${el.parentElement ? el.parentElement.className : ''}`);
        if (!link || marked || (link && link.getAttribute('aria-disabled') === 'true')) return Number(words(el));
      }
    }
    if (map) {
      const value = new URL(location.href).searchParams.get(map.param);
      if (value !== null && Number.isInteger(Number(value))) return (Number(value) - map.b) / map.a;
    }
    return loadMoreState.pages;
  }

  // "Load more": the pages loaded so far in this document and the rows each started at.
  const loadMoreState = { pages: 1, starts: [0] };

  /** What the answer says about the pages: `{page, next, of?, last?, loadMore?}`: `of` the number of
   * pages the pager states, `last` the highest page it links to. */
  function pagesInfo(pager) {
    if (!pager) return null;
    const numbers = pager.links.filter((l) => l.number !== undefined).map((l) => l.number);
    const last = Math.max(pager.current, pager.last || 0, ...numbers);
    const next = pager.links.some((l) => l.dir === 'next') || numbers.some((n) => n > pager.current) || Boolean(pager.loadMore);
    const info = { page: pager.current, next };
    if (pager.last && pager.last >= pager.current) info.of = pager.last; // the pager says how many
    else if (last > pager.current) info.last = last;
    if (pager.loadMore) info.loadMore = true;
    return info;
  }

  Object.assign(shared, {
    mainRoot, words, hrefOf, scopeControls, pagination, pagesInfo, loadMoreState,
    PAGE_NUMBER, PER_PAGE_PARAM, CURRENT_CLASS, CONTROL_TEXT_MAX,
  });
})();
