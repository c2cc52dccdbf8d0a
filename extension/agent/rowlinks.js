// tabmcp page agent: the rows of a list that open something (docs/page-agent.md §11, "Lists"): a
// row's primary link (the link of its title) or the row itself when a click on it opens it (an
// app's message list drawn as buttons, a row with a click handler, an <a> covering the row).
// rowLinkMarks marks them for the capture: every opener `open`, the first `open:<css>`, a selector
// that finds exactly one opener in each row of the list in this document. The row_links
// introspector makes one tool of it, whose call picks the row by its text with a row target
// (targets.js), so the tool names no row.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const { collapse, isRendered, isVisible } = shared;

  const SAMPLE_ROWS = 50; // rows looked at to decide (a page of thousands decides on its first rows)
  const MIN_SHARE = 2 / 3; // of the rows looked at that must have an opener of one kind
  const WHOLE_ROW_TEXT_MIN = 30; // a row clicked as a whole shows a line of data, not a control's name
  const WHOLE_ROWS_MIN = 3;
  const TITLE_TAGS = new Set(['h2', 'h3', 'h4', 'dt']);
  const COVER_SHARE = 0.8; // a link whose box covers this much of the row's box opens the row
  const CLASSES_MAX = 3;
  const WALK_MAX = 20000; // elements the search for a list clicked as a whole looks at
  const SKIPPED_TAGS = new Set(['script', 'style', 'svg', 'template', 'noscript', 'select', 'table']);
  const CLICKABLE = 'a[href], button, [role=link], [role=button]';
  const HEADINGS = 'h1, h2, h3, h4, h5, h6, [role=heading]';
  // Lists that are navigation or controls; an aside may hold a master list (the mail beside the message).
  const EXCLUDED = 'nav, header, footer, menu, select, datalist, [role=navigation], [role=banner], '
    + '[role=contentinfo], [role=menu], [role=menubar], [role=tablist], [role=listbox], [role=tree], [role=toolbar], '
    + '[role=radiogroup]';
  // Dialogs hold controls, not rows (and a form's buttons are its own).
  const DIALOGS = 'dialog, [role=dialog], [role=alertdialog], .modal';
  // Classes that make a list navigation or controls (a tab bar, a menu, a row of buttons) whatever its tags.
  const NAV_CLASS = /^(nav|navbar|navigation|tabs?|menu|breadcrumbs?|pagination|pager|toolbar|btn|button)([-_].*)?$/i;
  // Links that act on a row rather than open it.
  const ACTION_WORDS = /^(edit|delete|remove|view|show|open|more|details|copy|duplicate|download|select|add|new|reply|share|×|x)$/i;
  const WORDY = /\p{L}.*\p{L}/u;

  const navLike = (el) => classesOf(el).some((c) => NAV_CLASS.test(c));
  const classesOf = (el) => {
    const names = el.className;
    return typeof names === 'string' && names !== '' ? names.trim().split(/\s+/).filter(Boolean) : [];
  };
  const textOf = (el) => collapse(el.textContent || '') || collapse(el.getAttribute('aria-label') || el.title || '');

  function followable(a) {
    const raw = (a.getAttribute('href') || '').trim();
    return raw !== '' && !raw.startsWith('#') && !/^javascript:/i.test(raw) && a.target !== '_blank';
  }

  /** A link to a page under this page's path (`/db/books` → `/db/books/11`), on this site. */
  function below(a) {
    const here = location.pathname.replace(/\/+$/, '');
    if (here === '' || a.origin !== location.origin) return false;
    const path = a.pathname.replace(/\/+$/, '');
    return path.startsWith(`${here}/`);
  }

  /** Clicked as a whole: a link or button itself, a click handler, or the hand cursor the page gives it. */
  function wholeRow(item) {
    if (item.matches(CLICKABLE) || item.hasAttribute('onclick')) return true;
    return getComputedStyle(item).cursor === 'pointer' && !item.querySelector('input, select, textarea');
  }

  function covers(link, item) {
    const a = link.getBoundingClientRect();
    const b = item.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && a.width * a.height >= COVER_SHARE * b.width * b.height;
  }

  /**
   * The element that opens a row, or null: the row itself when it is a link or button; else its
   * primary link (in its heading, one covering the row, the only place its links go, one under the
   * list's own address, the first with words that is no row action); else the row when it is clicked
   * as a whole.
   */
  function rowOpener(item) {
    if (item.matches(CLICKABLE)) return item;
    const links = [...item.querySelectorAll('a[href]')].filter((a) => followable(a) && isVisible(a));
    const wordy = links.filter((a) => WORDY.test(textOf(a)) && !ACTION_WORDS.test(textOf(a)));
    const titled = wordy.find((a) => a.closest(HEADINGS));
    if (titled) return titled;
    const cover = links.find((a) => covers(a, item));
    if (cover) return cover;
    if (links.length && new Set(links.map((a) => a.href)).size === 1) return wordy[0] || links[0];
    // a link under the list's own address is the row's record, even when it shows only the row's id;
    // the others go to related records (a table's foreign keys: the row's author, its project)
    const own = links.filter((a) => below(a) && !ACTION_WORDS.test(textOf(a)));
    if (own.length) return own.find((a) => wordy.includes(a)) || own[0];
    if (wordy.length) return wordy[0];
    return wholeRow(item) ? item : null;
  }

  // ---- the list

  /**
   * Lists outside the main list's rules, found in one bounded walk: runs of 3+ alike siblings (tag
   * and first class) clicked as a whole, each showing a line of data (a master list beside the main
   * content: an aside may hold it), and runs of 2+ headings each holding a link (results written as
   * titles, their snippets between them).
   */
  function otherRuns() {
    const runs = [];
    let budget = WALK_MAX;
    if (!document.body) return runs;
    const visit = (parent) => {
      if (parent.firstElementChild === null) return;
      const groups = new Map();
      for (let child = parent.firstElementChild; child && budget > 0; child = child.nextElementSibling) {
        budget -= 1;
        const tag = child.localName;
        if (SKIPPED_TAGS.has(tag) || tag === 'form' || child.matches(EXCLUDED) || child.matches(DIALOGS)) continue;
        const classes = classesOf(child);
        if (classes.length && classes.some((c) => NAV_CLASS.test(c))) continue;
        const key = `${tag}.${classes[0] || ''}`;
        const group = groups.get(key);
        if (group === undefined) groups.set(key, [child]);
        else group.push(child);
        visit(child);
      }
      for (const items of groups.values()) {
        if (items.length < 2 || !isRendered(items[0])) continue;
        const sample = items.slice(0, SAMPLE_ROWS);
        if (TITLE_TAGS.has(items[0].localName)) {
          if (sample.every((h) => h.querySelector('a[href]'))) runs.push({ container: parent, items });
        } else if (items.length >= WHOLE_ROWS_MIN && wholeRow(items[0])
          && sample.every((c) => collapse(c.textContent || '').length >= WHOLE_ROW_TEXT_MIN)) {
          runs.push({ container: parent, items });
        }
      }
    };
    visit(document.body);
    return runs;
  }

  /** The list whose rows open: `{container, items, openers}` (openers of the rows looked at), or null. */
  function openableList() {
    const main = shared.mainList();
    const candidates = main && !navLike(main.container) && !navLike(main.items[0]) && !main.container.closest(DIALOGS) ? [main] : [];
    const found = (list) => {
      const rows = list.items.filter((item) => isRendered(item)).slice(0, SAMPLE_ROWS);
      const openers = rows.map(rowOpener);
      const have = openers.filter(Boolean);
      if (have.length < 2 || have.length < MIN_SHARE * rows.length) return null;
      // rows that are links or buttons themselves: a few short ones are controls ("Register", "Lost your password?")
      const whole = openers.filter((el, i) => el && el === rows[i]);
      if (whole.length && have.length < WHOLE_ROWS_MIN
        && whole.some((el) => collapse(el.textContent || '').length < WHOLE_ROW_TEXT_MIN)) return null;
      const tag = have[0].localName;
      const kept = rows.map((row, i) => (openers[i] && openers[i].localName === tag ? [row, openers[i]] : null)).filter(Boolean);
      return kept.length >= MIN_SHARE * rows.length ? { ...list, rows: kept.map((k) => k[0]), openers: kept.map((k) => k[1]) } : null;
    };
    for (const list of candidates) {
      const out = found(list);
      if (out) return out;
    }
    let best = null;
    for (const run of otherRuns()) {
      const out = found(run);
      if (out && (!best || out.openers.length > best.openers.length)) best = out;
    }
    return best;
  }

  // ---- a selector for the openers

  const STABLE_ATTRS = ['role', 'type', 'data-testid', 'data-test', 'data-qa'];

  /** Tag, the classes and stable attributes all of `els` share (their shape), or null when the tags differ. */
  function shapeOf(els, classes = CLASSES_MAX) {
    const tag = els[0].localName;
    if (els.some((el) => el.localName !== tag)) return null;
    let common = classesOf(els[0]);
    for (const el of els.slice(1)) {
      const mine = new Set(classesOf(el));
      common = common.filter((c) => mine.has(c));
    }
    let out = CSS.escape(tag) + common.filter((c) => !/\d{3,}/.test(c)).slice(0, classes).map((c) => `.${CSS.escape(c)}`).join('');
    for (const name of STABLE_ATTRS) {
      const value = els[0].getAttribute(name);
      if (value !== null && els.every((el) => el.getAttribute(name) === value)) out += `[${name}="${CSS.escape(value)}"]`;
    }
    return out;
  }

  function cellOf(opener, row) {
    const cell = opener.closest('td, th, [role=cell], [role=gridcell], [role=rowheader]');
    return cell && cell !== row && row.contains(cell) ? cell : null;
  }

  /** The chain of shapes from each row down to its opener (`h3 > a`), when every row has the same depth. */
  function pathShape(rows, openers, classes) {
    const chains = openers.map((el, i) => {
      const chain = [];
      for (let node = el; node && node !== rows[i]; node = node.parentElement) chain.unshift(node);
      return chain;
    });
    const depth = chains[0].length;
    if (!depth || chains.some((c) => c.length !== depth)) return '';
    const levels = [];
    for (let k = 0; k < depth; k += 1) {
      const level = shapeOf(chains.map((c) => c[k]), classes);
      if (!level) return '';
      levels.push(level);
    }
    return levels.join(' > ');
  }

  function containerShape(container, classes) {
    if (container.id && !/\d{3,}/.test(container.id)) return `#${CSS.escape(container.id)}`;
    return shapeOf([container], classes);
  }

  /** The row (one of `rowSet`) an element sits in, or null. */
  function rowIn(el, rowSet, container) {
    for (let node = el; node && node !== container; node = node.parentElement) if (rowSet.has(node)) return node;
    return null;
  }

  /** A selector finding one opener in each row and nothing outside the rows, or "". */
  function openerSelector(list) {
    const { container, rows, openers } = list;
    const rowSet = new Set(list.items);
    const wanted = new Set(openers);
    const exact = (css) => {
      let found;
      try {
        found = document.querySelectorAll(css);
      } catch {
        return false;
      }
      const used = new Set();
      const matched = new Set(found);
      for (const el of found) {
        const row = rowIn(el, rowSet, container);
        if (!row || used.has(row)) return false;
        used.add(row);
      }
      return [...wanted].every((el) => matched.has(el));
    };
    const whole = openers.every((el, i) => el === rows[i]);
    const cells = whole ? [] : openers.map((el, i) => cellOf(el, rows[i]));
    const index = cells.length && cells.every(Boolean) ? cells[0].cellIndex : -1;
    const cell = index >= 0 && cells.every((c) => c.cellIndex === index) ? `${cells[0].localName}:nth-child(${index + 1})` : '';
    const inBody = rows.every((r) => r.parentElement && r.parentElement.localName === 'tbody'); // not the header's row
    // the fewest classes first: the ones a row gains or loses ("unread", "selected") come after its own
    for (let classes = 0; classes <= CLASSES_MAX; classes += 1) {
      const opener = shapeOf(openers, classes);
      if (!opener) return '';
      const row = whole ? '' : `${inBody ? 'tbody > ' : ''}${shapeOf(rows, classes)}`;
      const path = whole ? '' : pathShape(rows, openers, classes);
      const scope = containerShape(container, classes);
      const tries = whole ? [opener, `${scope} > ${opener}`]
        : [opener, `${row} ${opener}`, cell && `${row} > ${cell} ${opener}`, path && `${row} > ${path}`,
          `${scope} ${row} ${opener}`, cell && `${scope} ${row} > ${cell} ${opener}`, path && `${scope} ${row} > ${path}`];
      const found = tries.find((css) => css && !css.includes('null') && exact(css));
      if (found) return found;
    }
    return '';
  }

  /** Adds `open` marks to the capture's list marks (capture.js): never over a mark already there. */
  function rowLinkMarks(marks) {
    try {
      const list = openableList();
      if (!list) return;
      const css = openerSelector(list);
      if (!css) return;
      let first = true;
      for (const el of list.openers) {
        if (marks.has(el)) continue;
        marks.set(el, first ? `open:${css}` : 'open');
        first = false;
      }
    } catch {
      // a page the rules cannot read gets no tool to open its rows; the capture goes on
    }
  }

  Object.assign(shared, { rowLinkMarks, rowOpener });
})();
