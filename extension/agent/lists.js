// tabmcp page agent: the page's main result list and how to move through it (docs/page-agent.md §11,
// "Lists"): its rows (columns named by the table's headers), its pagination (pager.js), its sortable
// column headers and its per-page control. listAnswer reads them for a page tool's answer, listMarks marks them for the
// capture (the lists introspector makes its arguments from the marks), browse moves the page one
// step toward the page, sort and page size a call asked for.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    AgentError, failure, collapse, cut, isRendered, isVisible, explicitRole,
  } = shared;
  // The main scope and its pagination (pager.js).
  const {
    mainRoot, words, hrefOf, scopeControls, pagination, pagesInfo, loadMoreState,
    PAGE_NUMBER, PER_PAGE_PARAM, CURRENT_CLASS, CONTROL_TEXT_MAX,
  } = shared;
  // Defined by a file before this one (summary.js): its bounded visible text.
  const renderedText = (node, max) => shared.renderedText(node, max);

  const ROWS_MAX = 100; // rows of one answer; a longer list says how many are left
  const CELL_TEXT_MAX = 120;
  const RESULT_TEXT_MAX = 200;
  const RESULT_SCORE_ITEMS = 50;
  const HEADER_MAX = 40;
  const PAGE_SIZE_TEXT = /^(\d{1,5})( (items|rows|entries|results|records|per page))?$/i;
  // Whole words only: a name like `editrows` (an editor's height) is no page size.
  const PER_PAGE_LABEL = /(^|[^a-z])(per page|page size|rows|entries|results|items|show)([^a-z]|$)/i;
  const SORT_UP = /(^|[\s_-])(up|asc|ascending|sort-up|caret-up)($|[\s_-])/i;
  const SORT_DOWN = /(^|[\s_-])(down|desc|descending|sort-down|caret-down)($|[\s_-])/i;
  const RESULT_LIST_SELECTOR = '[role=feed], [role=list], [role=grid], [role=table], table, ul, ol, dl';
  // Classes that make a block navigation whatever its tags (a menu bar of links in a div): a list in
  // it, or in its child, is no result list.
  const NAV_BLOCK_CLASS = /^(nav|navbar|navigation|menu|menubar|breadcrumbs?)([-_].*)?$/i;
  const NAV_BLOCK_DEPTH = 3; // the list, its parent and its grandparent
  // Header cells, tested one by one for what makes them sort (sortable): a selector with descendant
  // combinators (`th a[href]`) walks up from every link of the page instead.
  const HEADER_CELLS = 'th, [role=columnheader]';
  // Words in a link's URL that may set a page size (tested exactly below), on the lower-cased href.
  const PER_PAGE_HREF = /size|per|limit|rows|length|ipp/;
  // Lists that are navigation or controls, not content.
  const RESULT_EXCLUDED = 'nav, header, footer, aside, menu, select, datalist, [role=navigation], [role=banner], '
    + '[role=contentinfo], [role=complementary], [role=menu], [role=menubar], [role=tablist], [role=listbox], '
    + '[role=radiogroup], [role=tree], [role=toolbar]';
  // Siblings of these tags are text or structure, not a run of results.
  const RUN_EXCLUDED_TAGS = new Set([
    'li', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'p', 'span', 'br', 'hr', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'label', 'input', 'button', 'select', 'textarea', 'dt', 'dd', 'script', 'style',
    'template', 'link', 'meta', 'img', 'svg', 'source', 'col', 'colgroup', 'b', 'i', 'em', 'strong', 'small',
  ]);
  // Items holding fields to type into are a layout of forms (a search card beside a "new item"
  // card), not results; result rows may hold checkboxes and buttons.
  const RESULT_ITEM_FIELDS = 'textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden])';


  // ---- the main result list

  /** Items of one candidate list, or null when el is not one. */
  function listItems(el) {
    const tag = el.localName;
    const role = explicitRole(el);
    const children = [...el.children];
    if (role === 'feed') {
      const articles = children.filter((c) => explicitRole(c) === 'article' || c.localName === 'article');
      return articles.length ? articles : children;
    }
    if (role === 'list') {
      const items = children.filter((c) => explicitRole(c) === 'listitem');
      return items.length ? items : children;
    }
    if (role === 'grid' || role === 'table') {
      return [...el.querySelectorAll('[role=row]')].filter((row) => !row.querySelector('[role=columnheader]'));
    }
    if (tag === 'table') {
      const rows = el.tBodies.length ? [...el.tBodies].flatMap((body) => [...body.rows]) : [...el.rows];
      // a row of two header cells or more pairs labels with values: a record's sheet of fields, not a result
      return rows.filter((row) => [...row.cells].some((cell) => cell.localName === 'td')
        && [...row.cells].filter((cell) => cell.localName === 'th').length < 2);
    }
    if (tag === 'ul' || tag === 'ol') return children.filter((c) => c.localName === 'li');
    if (tag === 'dl') return linkedTerms(el);
    return null;
  }

  /** A definition list of results (a search's hits, a timeline's events): its terms when most hold a
   * link, with the terms of the definition lists beside it (one per day) as one list; a list of
   * properties ("Owner", "Status") links none of its terms. */
  function linkedTerms(dl) {
    const termsOf = (list) => {
      const terms = [...list.children].filter((c) => c.localName === 'dt');
      return 2 * terms.filter((dt) => dt.querySelector('a[href]')).length > terms.length ? terms : null;
    };
    if (!termsOf(dl)) return null;
    const lists = dl.parentElement ? [...dl.parentElement.children].filter((c) => c.localName === 'dl') : [dl];
    return lists.flatMap((list) => termsOf(list) || []);
  }

  /** The heading right above the definition list a term opens (a timeline's day), for its first
   * term only: the rows under it say when, the heading once. */
  function termsHeading(item) {
    if (item.localName !== 'dt' || !item.parentElement) return '';
    const list = item.parentElement;
    if (list.querySelector(':scope > dt') !== item) return '';
    const head = list.previousElementSibling;
    return head && /^h[1-6]$/.test(head.localName) ? cut(words(head), HEADER_MAX) : '';
  }

  function inNavBlock(el) {
    for (let node = el, depth = 0; node && depth < NAV_BLOCK_DEPTH; node = node.parentElement, depth += 1) {
      const names = typeof node.className === 'string' ? node.className.trim().split(/\s+/) : [];
      if (names.some((name) => NAV_BLOCK_CLASS.test(name))) return true;
    }
    return false;
  }

  // What a control shows of itself: a button's name, the tooltip that names it.
  const CONTROL_TEXT = 'button, [role=button], [role=tooltip]';
  const letters = (text) => text.replace(/\s+/g, '').length;

  /** An item that is only controls (a toolbar's button and its tooltip): no link, and no text of its
   * own outside its buttons. A result shows text or a link of its own. */
  function controlsOnly(item) {
    if (item.matches(CONTROL_TEXT) || item.querySelector('a[href]')) return false;
    let inControls = 0;
    let found = false;
    for (const control of item.querySelectorAll(CONTROL_TEXT)) {
      const outer = control.parentElement.closest(CONTROL_TEXT);
      if (outer && item.contains(outer)) continue; // counted with the control around it
      found = true;
      inControls += letters(control.textContent);
    }
    return found && inControls >= letters(item.textContent);
  }

  /** A table row that shows its record with one column or a few editable in place (a quantity
   * beside a name, a price and a date): a result still. A row whose cells are mostly fields is a
   * form's layout (rows of an inline formset). */
  function editableRow(item) {
    const cells = item.localName === 'tr' ? [...item.cells] : [];
    let fields = 0;
    let text = 0;
    for (const cell of cells) {
      if (cell.querySelector(RESULT_ITEM_FIELDS)) fields += 1;
      else if (collapse(cell.textContent)) text += 1;
    }
    return fields > 0 && text >= 2 * fields;
  }

  function scoreItems(items) {
    let count = 0;
    let score = 0;
    for (const item of items) {
      if (count >= RESULT_SCORE_ITEMS) break;
      if (!isRendered(item) || controlsOnly(item)) continue;
      if (item.querySelector(RESULT_ITEM_FIELDS) && !editableRow(item)) return 0;
      count += 1;
      score += Math.min(collapse(item.textContent.slice(0, 4 * RESULT_TEXT_MAX)).length, RESULT_TEXT_MAX);
    }
    return count >= 2 ? score : 0;
  }

  // Only these can be in a run (a shape needs classes, or the article tag): one native query finds
  // them instead of a walk over every element of the scope.
  const RUN_CANDIDATES = '[class], article';

  /**
   * Runs of 2+ siblings with the same tag and classes (cards, result rows built of divs), in the
   * order a walk would close them: each right after the subtree of its last item (an inner run
   * before the run around it).
   */
  function siblingRuns(scope) {
    const runs = [];
    const runOf = new Map(); // a candidate → its run ({shape, items}), while a next sibling may extend it
    for (const el of scope.querySelectorAll(RUN_CANDIDATES)) {
      const tag = el.localName;
      if (RUN_EXCLUDED_TAGS.has(tag)) continue;
      const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).sort().join('.') : '';
      if (!classes && tag !== 'article') continue;
      const shape = `${tag}.${classes}`;
      const before = el.previousElementSibling;
      const run = before === null ? undefined : runOf.get(before);
      if (run !== undefined && run.shape === shape) {
        run.items.push(el);
      } else {
        const started = { shape, items: [el] };
        runs.push(started);
        runOf.set(el, started);
        continue;
      }
      runOf.set(el, run);
    }
    const kept = runs.filter((run) => run.items.length >= 2).map((run) => run.items);
    // closing order: by the last item, a descendant's run before its ancestor's
    const closes = (a, b) => {
      const x = a[a.length - 1];
      const y = b[b.length - 1];
      if (x === y) return 0;
      if (x.contains(y)) return 1;
      if (y.contains(x)) return -1;
      return x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    };
    return kept.sort(closes);
  }

  /** The page's main result list: {container, items}, or null. */
  function mainList() {
    const scope = mainRoot();
    if (!scope) return null;
    let best = null;
    let bestScore = 0;
    const consider = (items, container) => {
      const score = scoreItems(items);
      if (score > bestScore) {
        best = { container, items };
        bestScore = score;
      }
    };
    for (const el of scope.querySelectorAll(RESULT_LIST_SELECTOR)) {
      if (el.closest(RESULT_EXCLUDED) || inNavBlock(el)) continue;
      const items = listItems(el);
      if (items && items.length >= 2) consider(items, el);
    }
    for (const run of siblingRuns(scope)) {
      const parent = run[0].parentElement;
      if (!parent.closest(RESULT_EXCLUDED) && !inNavBlock(parent)) consider(run, parent);
    }
    return best;
  }

  /** The table (or grid) an item row belongs to, when the list is one. */
  function tableOf(list) {
    const { container } = list;
    if (!container) return null;
    if (container.localName === 'table') return container;
    const role = explicitRole(container);
    return role === 'grid' || role === 'table' ? container : null;
  }

  function headerCells(table) {
    if (table.localName === 'table') {
      const head = table.tHead && table.tHead.rows.length ? table.tHead.rows[table.tHead.rows.length - 1] : null;
      const row = head || [...table.rows].find((r) => [...r.cells].every((c) => c.localName === 'th'));
      return row ? [...row.cells] : [];
    }
    return [...table.querySelectorAll('[role=columnheader]')];
  }

  const cellsOf = (row) => (row.localName === 'tr' ? [...row.cells] : [...row.querySelectorAll('[role=cell], [role=gridcell], [role=rowheader]')]);

  /** The name a header goes by: its sort control's text when it has one, else its own, arrows left out. */
  function headerName(th) {
    const control = sortControl(th);
    const text = control && control !== th ? words(control) : '';
    return cut(text || words(th), HEADER_MAX);
  }

  /** Column names from the headers: unnamed ones are "column N", repeated ones get a suffix. */
  function columnNames(table, width) {
    const headers = headerCells(table);
    const names = [];
    const seen = new Set();
    for (let i = 0; i < width; i += 1) {
      let name = headers[i] ? headerName(headers[i]) : '';
      if (!name) name = `column ${i + 1}`;
      let unique = name;
      for (let n = 2; seen.has(unique); n += 1) unique = `${name} ${n}`;
      seen.add(unique);
      names.push(unique);
    }
    return names;
  }

  /** A cell's text; a cell editable in place shows its field's value (a select: the chosen option's);
   * a cell showing only an icon (a yes/no column's ✓ image) reads as the icon's alternative text. */
  function cellText(cell) {
    const text = renderedText(cell, CELL_TEXT_MAX);
    if (text) return text;
    const icons = [...cell.querySelectorAll('img[alt]')].filter((img) => collapse(img.alt) && isRendered(img));
    if (icons.length === 1) return collapse(icons[0].alt);
    const fields = cell.querySelectorAll(RESULT_ITEM_FIELDS);
    if (fields.length !== 1) return '';
    const field = fields[0];
    if (field.localName === 'select') return field.selectedOptions.length ? collapse(field.selectedOptions[0].text) : '';
    return collapse(field.value || '');
  }

  /**
   * The rows of the main list from `skip` on: objects keyed by column name for a table (columns
   * empty in every row left out), the item's text otherwise. `{rows, total}`: total counts the
   * rendered items, shown or not.
   */
  function listRows(list, skip) {
    const rendered = list.items.filter((item) => isRendered(item));
    const shown = rendered.slice(skip, skip + ROWS_MAX);
    const table = tableOf(list);
    if (!table) {
      const rows = shown.map((item) => {
        const text = cut(renderedText(item, RESULT_TEXT_MAX), RESULT_TEXT_MAX);
        const heading = text ? termsHeading(item) : '';
        return heading ? `${heading} ${text}` : text;
      }).filter(Boolean);
      return { rows, total: rendered.length };
    }
    const cells = shown.map((row) => cellsOf(row).map((cell) => cut(cellText(cell), CELL_TEXT_MAX)));
    const width = Math.max(0, ...cells.map((c) => c.length));
    const names = columnNames(table, width);
    const used = names.map((_, i) => cells.some((row) => row[i]));
    const rows = cells.filter((row) => row.some(Boolean)).map((row) => {
      const out = {};
      names.forEach((name, i) => { if (used[i]) out[name] = row[i] || ''; });
      return out;
    });
    return { rows, total: rendered.length };
  }

  // ---- sorting and page size

  function sortControl(th) {
    const links = [...th.querySelectorAll('a[href], button, [role=button]')].filter((el) => isVisible(el));
    return links.find((el) => words(el)) || links[0] || null;
  }

  function sortState(th) {
    const aria = (th.getAttribute('aria-sort') || '').toLowerCase();
    if (aria === 'ascending' || aria === 'descending') return aria;
    const classes = `${th.className} ${(sortControl(th) || th).className || ''}`;
    if (/desc/i.test(classes) || /headerSortUp/.test(classes)) return 'descending';
    if (/asc/i.test(classes) || /headerSortDown/.test(classes)) return 'ascending';
    const arrow = arrowOf(th);
    if (arrow === 'none') return 'none';
    // an arrow says the list is sorted by this column, but some tables draw the order a click gives:
    // the address says which when it names the order (`_sort_desc=rating`, `dir=asc`, `ordering=-name`)
    const here = orderIn(new URL(location.href));
    if (here) return here;
    const control = hrefOf(sortControl(th) || th);
    const next = control ? orderIn(control) : null;
    if (next === arrow) return arrow === 'ascending' ? 'descending' : 'ascending'; // its link goes there
    return arrow;
  }

  /** An arrow icon or character in the header: up is ascending, as most tables draw it. */
  function arrowOf(th) {
    for (const el of th.querySelectorAll('[class]')) {
      if (!isRendered(el)) continue;
      const names = String(el.className);
      if (SORT_DOWN.test(names)) return 'descending';
      if (SORT_UP.test(names)) return 'ascending';
    }
    const text = th.textContent;
    if (/[▼▾↓⬇]/.test(text)) return 'descending';
    if (/[▲▴↑⬆]/.test(text)) return 'ascending';
    return 'none';
  }

  /** The sort order an address names, or null: a `…desc…` parameter set, an `asc`/`desc` value, a `-column`. */
  function orderIn(url) {
    for (const [key, value] of url.searchParams) {
      if (/(^|[_-])desc(ending)?($|[_-])/i.test(key) && value !== '' && !/^(0|false|no|off)$/i.test(value)) return 'descending';
      if (/^(desc|descending)$/i.test(value)) return 'descending';
      if (/^(asc|ascending)$/i.test(value)) return 'ascending';
      if (/sort|order/i.test(key) && value.startsWith('-')) return 'descending';
    }
    return null;
  }

  /** The table whose headers sort it: the first in main, outside navigation, with 2+ rows. */
  function sortTable() {
    const scope = mainRoot();
    if (!scope) return null;
    const seen = new Set();
    for (const cell of scope.querySelectorAll(HEADER_CELLS)) {
      if (!sortable(cell)) continue;
      const table = cell.closest('table, [role=grid], [role=table]');
      if (!table || seen.has(table)) continue;
      seen.add(table);
      const items = table.closest(RESULT_EXCLUDED) ? null : listItems(table);
      if (items && items.filter((item) => isRendered(item)).length >= 2) return table;
    }
    return null;
  }

  /** A header cell with aria-sort, a link or button inside, or (a th) a "sort…" class. */
  function sortable(cell) {
    return cell.hasAttribute('aria-sort') || cell.querySelector('a[href], button') !== null
      || (cell.localName === 'th' && (cell.getAttribute('class') || '').toLowerCase().includes('sort'));
  }

  /** Its sortable headers: with aria-sort, a link or button, or a "sort…" class. */
  function sortHeaders() {
    const table = sortTable();
    if (!table) return [];
    return headerCells(table).filter((th) => isVisible(th) && headerName(th) && (
      th.hasAttribute('aria-sort') || /sort/i.test(String(th.className)) || hrefOf(sortControl(th) || th)
      || (sortControl(th) && sortControl(th).localName === 'button')));
  }

  /** The per-page control: a select of page sizes, or links that set a per-page parameter. */
  function perPageControl(controls = scopeControls()) {
    const scope = mainRoot();
    if (!scope) return null;
    for (const select of scope.querySelectorAll('select')) {
      // the options first: most selects are ruled out without the visibility check's style read
      if (select.multiple) continue;
      const options = [...select.options].map((o) => collapse(o.text));
      if (options.length < 2 || !options.every((t) => PAGE_NUMBER.test(t) || /^all$/i.test(t)) || !isVisible(select)) continue;
      const label = `${select.name} ${select.id} ${select.getAttribute('aria-label') || ''} ${[...select.labels || []].map(words).join(' ')}`;
      if (PER_PAGE_PARAM.test(select.name) || PER_PAGE_LABEL.test(label)) return { select, choices: options };
    }
    // links may sit in a closed dropdown: they are followed, not clicked, so they need not show
    const links = [];
    let param = null;
    for (const a of controls) {
      if (a.localName !== 'a' || !PER_PAGE_HREF.test((a.getAttribute('href') || '').toLowerCase())) continue;
      if (a.textContent.length > CONTROL_TEXT_MAX || !/^\s*\d/.test(a.textContent)) continue;
      const size = PAGE_SIZE_TEXT.exec(collapse(a.textContent));
      const url = size ? hrefOf(a) : null;
      const key = url && size ? [...url.searchParams.keys()].find((k) => PER_PAGE_PARAM.test(k)) : undefined;
      // "50 items" sets 50: a page link that carries the page size along says another number
      if (key === undefined || (param !== null && key !== param) || url.searchParams.get(key) !== size[1]) continue;
      param = key;
      links.push({ el: a, choice: size[1], value: url.searchParams.get(key) });
    }
    // page links carry the page size too, all the same one: the choices are links that differ in it
    const choices = [...new Set(links.map((l) => l.choice))];
    if (choices.length < 2 || new Set(links.map((l) => l.value)).size < 2) return null;
    return { links, param, choices };
  }

  // ---- marks for the capture

  /** Element -> `data-tabmcp-list` value: `pager`, `more`, `sort:<column>`, `perpage`, `open` (rowlinks.js). */
  function listMarks() {
    const marks = new Map();
    try {
      const controls = scopeControls();
      const pager = pagination(controls);
      if (pager) {
        for (const link of pager.links) marks.set(link.el, 'pager');
        if (pager.loadMore) marks.set(pager.loadMore, 'more');
      } else {
        const long = longList();
        if (long) marks.set(long, 'long');
      }
      for (const th of sortHeaders()) marks.set(th, `sort:${headerName(th)}`);
      const perPage = perPageControl(controls);
      if (perPage && perPage.select) marks.set(perPage.select, 'perpage');
      else if (perPage) for (const link of perPage.links) marks.set(link.el, `perpage:${link.choice}`);
      if (shared.rowLinkMarks) shared.rowLinkMarks(marks); // the rows that open (rowlinks.js)
    } catch {
      // a page the rules cannot read gets no list arguments; the capture goes on
    }
    return marks;
  }

  /** A table or list in main with more rows than one answer holds (it is read in pages of ROWS_MAX). */
  function longList() {
    const scope = mainRoot();
    if (!scope) return null;
    for (const el of scope.querySelectorAll('table, ul, ol')) {
      const count = el.localName === 'table' ? [...el.tBodies].reduce((n, body) => n + body.rows.length, 0) || el.rows.length
        : el.childElementCount;
      if (count > ROWS_MAX && !el.closest(RESULT_EXCLUDED) && isRendered(el)) return el;
    }
    return null;
  }

  // ---- the answer

  /** `{results?, pages?}` for a page summary: the main list's rows from `skip` on and its pages. */
  function listAnswer(skip = 0) {
    const list = mainList();
    if (!list) return {};
    const { rows, total } = listRows(list, skip);
    const out = {};
    if (rows.length >= 2 || (skip > 0 && rows.length)) out.results = rows;
    let info = pagesInfo(pagination());
    if (!info && loadMoreState.pages > 1) info = { page: loadMoreState.pages, next: false }; // "Load more" is gone
    if (info && out.results) out.pages = info;
    const readInPages = !info && (total > ROWS_MAX || skip > 0);
    if (readInPages) {
      // one page of the site longer than an answer: read in pages of ROWS_MAX rows
      out.pages = { page: Math.floor(skip / ROWS_MAX) + 1, next: total > skip + rows.length };
    }
    if (total > skip + rows.length || readInPages) {
      out.pages = { ...(out.pages || {}), shown: `rows ${skip + 1}-${skip + rows.length} of ${total}` };
    }
    return out;
  }

  // ---- browse: one move toward {page, sort, order, per_page}

  const same = (a, b) => collapse(a).toLowerCase() === collapse(b).toLowerCase();

  function go(el) {
    const url = hrefOf(el);
    if (url) return { ok: true, url: url.href };
    el.click();
    return { ok: true, clicked: true };
  }

  function browseMove(args) {
    const list = mainList();
    if (args.per_page !== undefined && args.per_page !== null) {
      const want = String(args.per_page);
      const control = perPageControl();
      if (!control) throw new AgentError('ELEMENT_NOT_FOUND', 'this page offers no page size to choose');
      if (control.select) {
        const option = [...control.select.options].find((o) => same(o.text, want) || same(o.value, want));
        if (!option) throw new AgentError('BAD_MESSAGE', `per_page must be one of: ${control.choices.join(', ')}`);
        if (control.select.value !== option.value) {
          control.select.value = option.value;
          control.select.dispatchEvent(new Event('input', { bubbles: true }));
          control.select.dispatchEvent(new Event('change', { bubbles: true }));
          const { form } = control.select;
          if (form && form.method !== 'post' && form.isConnected) form.requestSubmit();
          return { ok: true, clicked: true };
        }
      } else {
        const link = control.links.find((l) => l.choice === want);
        if (!link) throw new AgentError('BAD_MESSAGE', `per_page must be one of: ${control.choices.join(', ')}`);
        const marked = CURRENT_CLASS.test(String(link.el.className)) || link.el.getAttribute('aria-current') === 'true';
        const here = new URL(location.href).searchParams.get(control.param);
        if (here !== link.value && !(here === null && marked)) return { ok: true, url: hrefOf(link.el).href };
      }
    }
    if (args.sort !== undefined && args.sort !== null) {
      const headers = sortHeaders();
      const th = headers.find((h) => same(headerName(h), String(args.sort)));
      if (!th) {
        const names = headers.map(headerName);
        throw new AgentError('BAD_MESSAGE', names.length ? `sort must be one of: ${names.join(', ')}` : 'this list cannot be sorted');
      }
      const state = sortState(th);
      const order = args.order === 'ascending' || args.order === 'descending' ? args.order : null;
      if (order ? state !== order : state === 'none') return go(sortControl(th) || th);
    }
    const page = args.page === undefined || args.page === null ? null : Number(args.page);
    if (page === null) return { ok: true, done: true };
    if (!Number.isInteger(page) || page < 1) throw new AgentError('BAD_MESSAGE', 'page is a whole number from 1');
    const pager = pagination();
    const current = pager ? pager.current : loadMoreState.pages; // the last "Load more" may have gone
    if (page === current) return { ok: true, done: true, skip: loadMoreState.starts[page - 1] || 0 };
    if (!pager) {
      // no pagination: a list longer than one answer is read ROWS_MAX rows a page, in place
      const total = list ? list.items.filter((item) => isRendered(item)).length : 0;
      if ((page - 1) * ROWS_MAX < total) return { ok: true, done: true, skip: (page - 1) * ROWS_MAX };
      const pages = Math.max(1, Math.ceil(total / ROWS_MAX));
      throw new AgentError('BAD_MESSAGE', `page ${page} does not exist: the list has ${pages === 1 ? 'one page' : `${pages} pages`}`);
    }
    const numbered = pager.links.find((l) => l.number === page);
    if (numbered) return go(numbered.el);
    if (pager.map && page > 0) {
      const url = new URL(pager.map.base.href);
      url.searchParams.set(pager.map.param, String(pager.map.a * page + pager.map.b));
      return { ok: true, url: url.href };
    }
    const step = pager.links.find((l) => l.dir === (page > current ? 'next' : 'prev'));
    if (step) return go(step.el);
    if (page > current && pager.loadMore) {
      loadMoreState.starts[current] = list ? list.items.filter((item) => isRendered(item)).length : 0;
      loadMoreState.pages = current + 1;
      pager.loadMore.click();
      return { ok: true, clicked: true };
    }
    const info = pagesInfo(pager);
    throw new AgentError('BAD_MESSAGE', `page ${page} is not offered: the list is at page ${current}${info && info.last ? ` of at least ${info.last}` : ''} and has no link further`);
  }

  /**
   * `{args: {page?, sort?, order?, per_page?}}`: one move toward them (page size first, then sort,
   * then page, as each of the first two starts the list again). `{ok, done, skip?}` when the page
   * shows them; `{ok, url}` for the caller to load; `{ok, clicked}` after a click here.
   */
  function browse(arg) {
    try {
      const args = arg && typeof arg.args === 'object' && arg.args !== null ? arg.args : {};
      return browseMove(args);
    } catch (e) {
      return failure(e);
    }
  }

  Object.assign(shared, { mainList, listAnswer, listMarks, browse });
})();
