// tabmcp page agent: targets (ref, selector, role and name) to elements, find, actionability,
// frameOffset and probe.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    NAME_MAX, SKIPPED_TAGS, AgentError, failure, collapse, cut, sleep, nextFrame, framesPainted, DOC_ID, refFor,
    elementForRef, connectedRoots, forEachChild, composedContains, deepActiveElement, deepElementFromPoint,
    collectShadowRoots, isRendered, isVisible, hiddenReason, roleOf, accName, checkedState, isDisabled, isReadOnly,
  } = shared;

  const DESCRIBE_NAME_MAX = 40;
  const CANDIDATES_MAX = 10;
  const FIND_LIMIT = 20;
  const DEFAULT_TIMEOUT_MS = 5000;
  const RETRY_MS = 50;

  // -------------------------------------------------------------------------------------------
  // Targets

  function describeTag(el) {
    let text = `<${el.localName}`;
    if (el.id) text += ` id="${cut(el.id, 30)}"`;
    const cls = typeof el.className === 'string' ? collapse(el.className) : '';
    if (cls) text += ` class="${cut(cls, 40)}"`;
    return `${text}> ${refFor(el)}`;
  }

  /** `e5 button "Save"` for messages; elements without a role by their tag. */
  function describe(el) {
    const role = roleOf(el);
    if (!role) return describeTag(el);
    const name = cut(accName(el, role, true), DESCRIBE_NAME_MAX);
    return `${refFor(el)} ${role}${name ? ` ${JSON.stringify(name)}` : ''}`;
  }

  function candidate(el) {
    const role = roleOf(el);
    return { ref: refFor(el), role: role || 'generic', name: cut(accName(el, role, true), NAME_MAX) };
  }

  function targetText(target) {
    // as the model writes a target (tools/targets.py): css=…, role=…[name=…]
    if (typeof target.css === 'string') {
      return typeof target.row === 'string' ? `the row showing ${JSON.stringify(target.row)}` : `css=${target.css}`;
    }
    return `role=${target.role}${typeof target.name === 'string' ? `[name=${target.name}]` : ''}`;
  }

  function checkTarget(target) {
    const ok = target && typeof target === 'object'
      && (typeof target.ref === 'string' || typeof target.css === 'string' || typeof target.role === 'string');
    if (!ok) throw new AgentError('BAD_MESSAGE', 'A target is {ref}, {css} or {role, name?}');
  }

  function resolveRef(target) {
    const { ref } = target;
    if (typeof target.doc === 'string' && target.doc && target.doc !== DOC_ID) {
      throw new AgentError('STALE_REF',
        `Ref ${ref} is from a page that is gone (the frame navigated or reloaded): take a new snapshot and use its refs`);
    }
    const el = elementForRef(ref);
    if (!el) throw new AgentError('STALE_REF', `Ref ${ref} is unknown here: take a new snapshot and use its refs`);
    if (!el.isConnected) {
      throw new AgentError('STALE_REF', `Ref ${ref} was removed from the page: take a new snapshot and use its refs`);
    }
    return el;
  }

  function queryAll(css) {
    let matches;
    try {
      matches = [...document.querySelectorAll(css)];
    } catch (e) {
      throw new AgentError('ELEMENT_NOT_FOUND', `Invalid css selector ${JSON.stringify(css)}: ${e.message}`);
    }
    if (document.documentElement) {
      for (const root of collectShadowRoots(document, [])) matches.push(...root.querySelectorAll(css));
    }
    return matches;
  }

  /** Elements with the role (every element, visible or not), filtered by name when one is given. */
  function queryRole(role, name) {
    const wanted = role.toLowerCase();
    const found = [];
    const visit = (parent) => {
      forEachChild(parent, true, (el) => {
        if (SKIPPED_TAGS.has(el.localName)) return;
        if ((roleOf(el) || 'generic') === wanted && !(el.localName === 'input' && el.type === 'hidden')) found.push(el);
        if (el.localName !== 'iframe') visit(el);
      });
    };
    if (document.documentElement) visit(document.documentElement);
    if (typeof name !== 'string') return found;
    const needle = collapse(name).toLowerCase();
    const names = found.map((el) => accName(el, wanted, true).toLowerCase());
    const exact = found.filter((el, i) => names[i] === needle);
    return exact.length ? exact : found.filter((el, i) => names[i].includes(needle));
  }

  function matchesFor(target) {
    if (typeof target.ref === 'string') return [resolveRef(target)];
    if (typeof target.css === 'string') {
      const matches = queryAll(target.css);
      return typeof target.row === 'string' ? byRow(matches, target.row).matches : matches;
    }
    return queryRole(target.role, target.name);
  }

  // -------------------------------------------------------------------------------------------
  // Rows by what a person sees: {css, row} is the match whose table row, list item or article
  // shows the text. Rows are picked at call time, so a tool's schema never lists a page's rows.

  const ROW_SELECTOR = 'tr, [role=row], li, [role=listitem], article, [role=article]';
  const CELL_SELECTOR = 'td, th, [role=cell], [role=gridcell], [role=rowheader], a, label';
  const HEADING_SELECTOR = 'h1, h2, h3, h4, h5, h6, [role=heading]';
  const NEAR_MAX = 5;
  const ROW_TEXT_MAX = 80;

  /**
   * Each match's row: its table row, list item or article; else (a list drawn with bare buttons or
   * divs) its largest ancestor that holds no other match, the match itself when it is the row.
   */
  function rowsOf(matches) {
    const counts = new Map();
    if (matches.length > 1) {
      for (const el of matches) for (let node = el; node; node = node.parentElement) counts.set(node, (counts.get(node) || 0) + 1);
    }
    return new Map(matches.map((el) => {
      const row = el.closest(ROW_SELECTOR);
      if (row || matches.length < 2) return [el, row || el.parentElement || el];
      let node = el;
      while (node.parentElement && counts.get(node.parentElement) === 1) node = node.parentElement;
      return [el, node];
    }));
  }

  /** The row as a person reads it: its cells' texts apart ("Dune | Frank Herbert | 1965"). */
  function rowText(row) {
    const cells = row.querySelectorAll(':scope > td, :scope > th, :scope > [role=cell], :scope > [role=gridcell], :scope > [role=rowheader]');
    if (!cells.length) return collapse(row.textContent || '');
    return [...cells].map((cell) => collapse(cell.textContent || '')).filter(Boolean).join(' | ');
  }

  /**
   * The matches whose row shows `text` (case and spaces ignored): those with a heading that says
   * exactly that first, then those with a cell or link that does, else those whose row contains it (or each of its " | "-separated cells). `near`: when none does, the texts of
   * the rows most like it (most words in common), for an error the model can act on.
   */
  function byRow(matches, text) {
    const needle = collapse(text).toLowerCase();
    const rowOf = rowsOf(matches);
    const rows = matches.map((el) => ({ el, row: rowOf.get(el) }));
    const says = (cells) => [...cells]
      .some((cell) => collapse(cell.textContent || '').toLowerCase() === needle);
    // a row whose own title says it first: an article that links to another ("See also Lemon")
    // is not the "Lemon" article
    const titled = rows.filter(({ row }) => says(row.querySelectorAll(HEADING_SELECTOR)));
    const exact = titled.length ? titled
      : rows.filter(({ row }) => says([row, ...row.querySelectorAll(CELL_SELECTOR)]));
    // a row's cells as a list answer gives them ("Dune | Frank Herbert | 1965"): each part in the row
    const parts = needle.split('|').map((part) => part.trim()).filter(Boolean);
    const shows = (row) => {
      const shown = rowText(row).toLowerCase();
      return shown.includes(needle) || (parts.length > 1 && parts.every((part) => shown.includes(part)));
    };
    const found = exact.length ? exact : rows.filter(({ row }) => shows(row));
    if (found.length || !needle) return { matches: found.map((r) => r.el), near: [], rowOf };
    const words = new Set(needle.split(/\W+/).filter(Boolean));
    const scored = rows.map(({ row }, i) => {
      const shown = rowText(row);
      const common = shown.toLowerCase().split(/\W+/).filter((w) => words.has(w));
      return { shown, score: new Set(common).size, i };
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    const near = [...new Set(scored.map((s) => cut(s.shown, ROW_TEXT_MAX)).filter(Boolean))].slice(0, NEAR_MAX);
    return { matches: [], near, rowOf };
  }

  /**
   * One element or an AgentError. A role target prefers the matches that show: a hidden duplicate
   * (a closed dialog's "Close") is not what the model saw in its snapshot.
   */
  function resolveTarget(target) {
    checkTarget(target);
    if (typeof target.ref === 'string') return resolveRef(target);
    if (typeof target.css === 'string' && typeof target.row === 'string') return resolveRow(target);
    let matches = matchesFor(target);
    if (typeof target.role === 'string' && matches.length > 1) {
      const shown = matches.filter(isVisible);
      if (shown.length) matches = shown;
    }
    if (!matches.length) throw new AgentError('ELEMENT_NOT_FOUND', `Nothing matches ${targetText(target)}`);
    if (matches.length > 1) {
      const candidates = matches.slice(0, CANDIDATES_MAX).map(candidate);
      const listed = candidates.map((c) => `${c.ref} ${c.role}${c.name ? ` ${JSON.stringify(cut(c.name, DESCRIBE_NAME_MAX))}` : ''}`);
      throw new AgentError('ELEMENT_AMBIGUOUS',
        `${targetText(target)} matches ${matches.length} elements: ${listed.join(', ')}${matches.length > CANDIDATES_MAX ? ', …' : ''}. Use one of these refs as target`,
        candidates);
    }
    return matches[0];
  }

  /** A row target's one match, or an error naming the rows most like the text / the rows that show it. */
  function resolveRow(target) {
    const { matches, near, rowOf } = byRow(queryAll(target.css), target.row);
    if (matches.length === 1) return matches[0];
    if (!matches.length) {
      const closest = near.length ? `; the closest rows: ${near.map((t) => JSON.stringify(t)).join('; ')}` : '; the list has no rows';
      throw new AgentError('ELEMENT_NOT_FOUND', `No row on the page shows ${JSON.stringify(target.row)}${closest}`);
    }
    // longer than a miss's rows: what tells these rows apart may come late in them
    const shown = matches.slice(0, CANDIDATES_MAX).map((el) => JSON.stringify(cut(rowText(rowOf.get(el)), 2 * ROW_TEXT_MAX)));
    throw new AgentError('ELEMENT_AMBIGUOUS',
      `${matches.length} rows show ${JSON.stringify(target.row)}: ${shown.join('; ')}${matches.length > CANDIDATES_MAX ? '; …' : ''}. Give more of the row's text`);
  }

  function find(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'find needs {target}');
      checkTarget(arg.target);
      const limit = Number.isInteger(arg.limit) && arg.limit > 0 ? arg.limit : FIND_LIMIT;
      const { target } = arg;
      if (typeof target.css === 'string' && typeof target.row === 'string') {
        // a row target: the candidates are named by their rows' text, what the model chose them by
        const { matches, near, rowOf } = byRow(queryAll(target.css), target.row);
        return {
          ok: true,
          matches: matches.slice(0, limit).map((el) => ({
            ...candidate(el), name: cut(rowText(rowOf.get(el)), ROW_TEXT_MAX), visible: isVisible(el),
          })),
          total: matches.length,
          near,
        };
      }
      const matches = matchesFor(target);
      return {
        ok: true,
        matches: matches.slice(0, limit).map((el) => ({ ...candidate(el), visible: isVisible(el) })),
        total: matches.length,
      };
    } catch (e) {
      return failure(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Actionability (docs/page-agent.md §3)

  function inViewport(rect) {
    const viewport = viewportSize();
    return rect.top >= 0 && rect.left >= 0 && rect.bottom <= viewport.height && rect.right <= viewport.width;
  }

  function scrollIntoViewIfNeeded(el) {
    let rect = el.getBoundingClientRect();
    if (!inViewport(rect)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      rect = el.getBoundingClientRect();
    }
    return rect;
  }

  /** 'pending' (about to start: it has not moved yet, but will), 'running' or ''. */
  function animationOn(el) {
    let found = '';
    for (const animation of document.getAnimations()) {
      if (animation.playState !== 'running') continue;
      const target = animation.effect && animation.effect.target;
      if (!target || !composedContains(target, el)) continue;
      if (animation.pending) return 'pending';
      found = 'running';
    }
    return found;
  }

  function isLabelOf(label, el) {
    return label.localName === 'label' && label.control === el;
  }

  /**
   * One pass of the checks: {ok: true, x, y, rect, hit} or {ok: false, reason, permanent}.
   * need: {enabled, editable, pointer}.
   */
  async function checkActionable(el, need) {
    if (!el.isConnected) return { ok: false, reason: 'it was removed from the page (detached)', permanent: true };
    if (!isRendered(el) || (el instanceof HTMLInputElement && el.type === 'hidden')) {
      return { ok: false, reason: hiddenReason(el) };
    }
    let rect = el.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return { ok: false, reason: 'it is not visible (zero size)' };
    const enabledOf = need.enabledOf || el;
    if (need.enabled && isDisabled(enabledOf)) return { ok: false, reason: 'it is disabled' };
    if (need.editable && isReadOnly(el)) return { ok: false, reason: 'it is read-only' };
    const before = rect;
    rect = scrollIntoViewIfNeeded(el);
    const scrolled = rect.x !== before.x || rect.y !== before.y;
    // a hidden tab runs no frames: its animations neither start nor advance, nothing to wait for
    const animation = document.visibilityState === 'hidden' ? '' : animationOn(el);
    if (animation === 'pending') return { ok: false, reason: 'it is not stable (an animation is starting)' };
    // Animations only advance with frames: without one (hidden tab) there is nothing to compare.
    if (animation && await nextFrame()) {
      if (!el.isConnected) return { ok: false, reason: 'it was removed from the page (detached)', permanent: true };
      const after = el.getBoundingClientRect();
      const moved = after.x !== rect.x || after.y !== rect.y || after.width !== rect.width || after.height !== rect.height;
      rect = after;
      if (moved) return { ok: false, reason: 'it is not stable (it is moving)' };
    }
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    let hit = el;
    if (need.pointer) {
      const found = deepElementFromPoint(x, y);
      if (!found) return { ok: false, reason: 'its centre is outside the viewport' };
      if (found !== el && !composedContains(el, found) && !isLabelOf(found, el)) {
        return { ok: false, reason: `${describeTag(found)} covers it` };
      }
      hit = found;
    }
    return { ok: true, x, y, rect, hit, scrolled };
  }

  async function waitActionable(el, need, timeoutMs, verb) {
    const started = performance.now();
    let last;
    for (;;) {
      last = await checkActionable(el, need);
      if (last.ok) return last;
      if (last.permanent || performance.now() - started + RETRY_MS > timeoutMs) break;
      await sleep(RETRY_MS);
    }
    const waited = last.permanent ? '' : ` (waited ${Math.round(performance.now() - started)} ms)`;
    throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${verb} ${describe(el)}: ${last.reason}${waited}`);
  }

  function timeoutOf(arg) {
    const ms = arg && arg.timeoutMs;
    return typeof ms === 'number' && ms >= 0 ? ms : DEFAULT_TIMEOUT_MS;
  }

  // -------------------------------------------------------------------------------------------
  // frameOffset: where an iframe's content box is in this frame's viewport (trusted input into it)

  async function frameOffset(arg) {
    try {
      // the CDP driver, in the same world as this agent, hands over the <iframe> element itself
      const given = arg && typeof Element !== 'undefined' && arg.element instanceof Element ? arg.element : null;
      if (!given && (!arg || typeof arg.ref !== 'string')) throw new AgentError('BAD_MESSAGE', 'frameOffset needs {ref}');
      const el = given || resolveTarget({ ref: arg.ref, doc: arg.doc });
      if (el.localName !== 'iframe' && el.localName !== 'frame') {
        throw new AgentError('BAD_MESSAGE', `${describe(el)} is not an iframe`);
      }
      let box = contentBox(el);
      const point = arg.point;
      if (point && typeof point.x === 'number' && typeof point.y === 'number') {
        // bring that point of the frame's viewport into this frame's viewport
        const viewport = viewportSize();
        const x = box.x + point.x;
        const y = box.y + point.y;
        if (x < 0 || y < 0 || x >= viewport.width || y >= viewport.height) {
          window.scrollBy({ left: x - viewport.width / 2, top: y - viewport.height / 2, behavior: 'instant' });
          box = contentBox(el);
          // the browser routes input to an out-of-process frame by what was last painted
          await framesPainted();
        }
      }
      return { ok: true, x: box.x, y: box.y };
    } catch (e) {
      return failure(e);
    }
  }

  function contentBox(iframe) {
    const rect = iframe.getBoundingClientRect();
    const style = getComputedStyle(iframe);
    return {
      x: rect.left + iframe.clientLeft + parseFloat(style.paddingLeft || '0'),
      y: rect.top + iframe.clientTop + parseFloat(style.paddingTop || '0'),
    };
  }

  function viewportSize() {
    const root = document.documentElement;
    return {
      width: (root && root.clientWidth) || window.innerWidth,
      height: (root && root.clientHeight) || window.innerHeight,
    };
  }

  // -------------------------------------------------------------------------------------------
  // probe (docs/page-agent.md §4)

  const STATES = new Set(['visible', 'hidden', 'attached', 'detached', 'enabled', 'disabled', 'checked', 'unchecked', 'focused']);

  function probe(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'probe needs a condition');
      if (typeof arg.text === 'string') {
        const found = visibleTextIncludes(arg.text);
        return { ok: true, met: found, detail: `it ${found ? 'is' : 'is not'} on the page` }; // the caller's message names the text
      }
      if (typeof arg.textGone === 'string') {
        const found = visibleTextIncludes(arg.textGone);
        return { ok: true, met: !found, detail: `it ${found ? 'is still' : 'is not'} on the page` };
      }
      if (arg.target !== undefined) return probeTarget(arg.target, arg.state);
      throw new AgentError('BAD_MESSAGE', 'A condition is {text}, {textGone} or {target, state}');
    } catch (e) {
      return failure(e);
    }
  }

  function probeTarget(target, state) {
    if (!STATES.has(state)) throw new AgentError('BAD_MESSAGE', `state is one of ${[...STATES].join(', ')}`);
    checkTarget(target);
    let matches;
    try {
      matches = matchesFor(target);
    } catch (e) {
      // a ref whose element is gone is detached (and hidden); for other states it never comes back
      if (e instanceof AgentError && e.code === 'STALE_REF' && (state === 'detached' || state === 'hidden')) {
        return { ok: true, met: true, detail: `${target.ref} is gone`, count: 0 };
      }
      throw e;
    }
    const what = typeof target.ref === 'string' ? target.ref : targetText(target);
    const count = matches.length;
    const result = (met, detail) => ({ ok: true, met, detail, count });
    switch (state) {
      case 'attached': return result(count > 0, count ? `${what} is attached` : `nothing matches ${what}`);
      case 'detached': return result(count === 0, count ? `${what} is still attached` : `${what} is detached`);
      case 'visible': {
        const shown = matches.find(isVisible);
        return result(!!shown, shown ? `${describe(shown)} is visible` : count ? `${what} is not visible` : `nothing matches ${what}`);
      }
      case 'hidden': {
        const shown = matches.find(isVisible);
        return result(!shown, shown ? `${describe(shown)} is still visible` : `${what} is hidden`);
      }
      default: break;
    }
    if (!count) return result(false, `nothing matches ${what}`);
    if (count > 1) {
      const candidates = matches.slice(0, CANDIDATES_MAX).map(candidate);
      throw new AgentError('ELEMENT_AMBIGUOUS', `${what} matches ${count} elements; use a ref as target`, candidates);
    }
    const el = matches[0];
    let met;
    if (state === 'enabled' || state === 'disabled') met = isDisabled(el) === (state === 'disabled');
    else if (state === 'focused') met = deepActiveElement() === el;
    else {
      const checked = checkedState(el, roleOf(el));
      if (!checked) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${describe(el)} cannot be checked or unchecked`);
      met = checked === state;
    }
    return result(met, `${describe(el)} is ${met ? '' : 'not '}${state}`);
  }

  const ROOT_SCAN_MS = 1000;
  let lastRootScan = -Infinity;

  /** Case-insensitive, whitespace-collapsed search of the rendered text, shadow trees included. */
  function visibleTextIncludes(text) {
    const needle = collapse(text).toLowerCase();
    if (!needle) return true;
    const body = document.body;
    if (body) {
      // textContent is cheap and a superset of the visible text: rule out most misses with it
      if (collapse(body.textContent).toLowerCase().includes(needle)
        && collapse(body.innerText).toLowerCase().includes(needle)) return true;
    }
    // page_hooks.js reports new shadow roots; a walk finds the rest (declarative ones, or all of
    // them when the hooks were not there), at most once a second.
    if (document.documentElement && performance.now() - lastRootScan > ROOT_SCAN_MS) {
      lastRootScan = performance.now();
      collectShadowRoots(document, []);
    }
    for (const root of connectedRoots()) {
      const parts = [];
      for (const child of root.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) parts.push(child.data);
        else if (child.nodeType === Node.ELEMENT_NODE && !SKIPPED_TAGS.has(child.localName)) parts.push(child.innerText || '');
      }
      if (collapse(parts.join(' ')).toLowerCase().includes(needle)) return true;
    }
    return false;
  }

  Object.assign(shared, {
    frameOffset, viewportSize, describeTag, describe, checkTarget, resolveTarget, find, scrollIntoViewIfNeeded,
    waitActionable, timeoutOf, probe,
  });
})();
