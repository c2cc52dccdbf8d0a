// tabmcp page agent: findText, a bounded search of the rendered text (of the page or one element's
// subtree) that answers each match with the ref of the element it is in and the text around it.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    SKIPPED_TAGS, INLINE_TAGS, AgentError, failure, collapse, DOC_ID, refFor, forEachChild, flatParent, renderState,
    PRUNED, VISIBLE, CONTENTS, MARKED_SELECTOR, roleOf, isInteractive, frameTokenOf, parentTokenOf, renderedText,
    connectedRoots, collectShadowRoots,
  } = shared;
  // Defined by a later file: called through `shared` (by then every file has run).
  const resolveTarget = (target) => shared.resolveTarget(target);

  const QUERY_MAX = 200;
  const KEEP_MAX = 100; // matches answered with their context; the rest are only counted
  const AROUND = 60; // characters of context on each side of a match
  // A short block (a cell, an index entry) says little alone: its text is shown with its group's (the
  // row, the entry with its sub-entries), the widest group up to this many characters.
  const GROUP_MAX = 160;
  const GROUP_LEVELS = 3;
  // Their text is a value (shown by the snapshot), not page text.
  const NOT_TEXT = new Set(['textarea', 'input', 'select', 'option', 'datalist']);

  /**
   * arg: {text, root?, limit?}. A match is case-insensitive, whitespace collapsed, within one block
   * (a run of text between block elements: a paragraph, a cell, a list item). Answers
   * {ok, url, title, docId, parentToken, nodes, total}: nodes are the first `limit` matches in page
   * order, {ref, role, name: the text around it}, with a {frameToken, skip: true} node where a
   * rendered iframe is (the page session searches that frame and splices its matches there);
   * total counts every match of this document.
   */
  function findText(arg) {
    try {
      if (!arg || typeof arg.text !== 'string') throw new AgentError('BAD_MESSAGE', 'findText needs {text}');
      const needle = collapse(arg.text).slice(0, QUERY_MAX);
      if (!needle) throw new AgentError('BAD_MESSAGE', 'findText needs a text that is not blank');
      const limit = Number.isInteger(arg.limit) && arg.limit > 0 ? Math.min(arg.limit, KEEP_MAX) : KEEP_MAX;
      const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const pattern = new RegExp(escaped, 'gi');
      const search = { pattern, limit, nodes: [], kept: 0, total: 0, skippable: skipTest(escaped) };
      const root = arg.root ? resolveTarget(arg.root) : document.documentElement;
      if (root && !SKIPPED_TAGS.has(root.localName) && renderState(root) !== PRUNED) walkRoot(root, search);
      return {
        ok: true, url: location.href, title: document.title, docId: DOC_ID, parentToken: parentTokenOf(),
        nodes: search.nodes, total: search.total,
      };
    } catch (e) {
      return failure(e);
    }
  }

  /**
   * A test that tells a subtree holding no match from its textContent alone, or null when it cannot:
   * textContent holds every rendered text node of a light-DOM subtree, without the spaces block
   * boundaries add (so the spaces of the text are optional here). Shadow trees are not in it, and
   * an iframe's matches must still be placed: subtrees with either are always walked. A common word
   * passes the test at every level of nesting, each reading its whole subtree again: once the tests
   * have read the document's text 8 times over, the rest is walked without them.
   */
  function skipTest(escaped) {
    // the page hooks report the shadow roots a script attaches, not declarative ones: look for those
    if (!document.documentElement || connectedRoots().length || collectShadowRoots(document, []).length) return null;
    const loose = new RegExp(escaped.replace(/ /g, '\\s*'), 'i');
    const framed = new Set();
    for (const frame of document.querySelectorAll('iframe, frame')) {
      for (let n = frame; n && !framed.has(n); n = n.parentElement) framed.add(n);
    }
    let budget = 8 * document.documentElement.textContent.length;
    return (el) => {
      if (budget <= 0 || framed.has(el)) return false;
      const text = el.textContent;
      budget -= text.length;
      return !loose.test(text);
    };
  }

  // A segment is the text of one block between its nested blocks: pieces (text nodes) joined with
  // whitespace collapsed, and where each piece starts, to find the node a match is in.
  function newSegment(block) {
    return { block, text: '', starts: [], nodes: [] };
  }

  function walkRoot(root, search) {
    if (root.localName === 'iframe' || root.localName === 'frame') {
      search.nodes.push({ ref: refFor(root), role: 'iframe', frameToken: frameTokenOf(root), skip: true });
      return;
    }
    const rootShown = renderState(root) !== PRUNED && root.checkVisibility({ visibilityProperty: true });
    let segment = newSegment(root);
    const close = (next) => {
      searchSegment(segment, search);
      segment = newSegment(next);
    };
    const add = (node, data) => {
      let piece = data.replace(/\s+/g, ' ');
      if (piece.startsWith(' ') && (!segment.text || segment.text.endsWith(' '))) piece = piece.slice(1);
      if (!piece) return;
      segment.starts.push(segment.text.length);
      segment.nodes.push(node);
      segment.text += piece;
    };
    const walk = (el, block, shown) => {
      const onlySummary = el.localName === 'details' && !el.open;
      forEachChild(el, false, (child) => {
        if (child.nodeType === Node.TEXT_NODE) {
          if (shown && !onlySummary) add(child, child.data);
          return;
        }
        if (child.nodeType !== Node.ELEMENT_NODE) return;
        const tag = child.localName;
        if (SKIPPED_TAGS.has(tag) || NOT_TEXT.has(tag) || (onlySummary && tag !== 'summary')) return;
        if (tag === 'br') {
          add(child, ' ');
          return;
        }
        const inline = INLINE_TAGS.has(tag);
        if (!inline && search.skippable && search.skippable(child)) {
          close(block); // what follows is not the same run of text
          return;
        }
        const rendering = renderState(child);
        if (rendering === PRUNED) return;
        if (tag === 'iframe' || tag === 'frame') {
          close(block);
          search.nodes.push({ ref: refFor(child), role: 'iframe', frameToken: frameTokenOf(child), skip: true });
          return;
        }
        // visibility:hidden: its own text does not show, its children's may
        const childShown = rendering === VISIBLE || (rendering === CONTENTS && shown);
        if (inline) {
          walk(child, block, childShown);
          return;
        }
        close(child);
        walk(child, child, childShown);
        close(block);
      });
    };
    walk(root, root, rootShown);
    close(null);
  }

  function searchSegment(segment, search) {
    const { text } = segment;
    if (!text) return;
    const { pattern } = search;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      search.total += 1;
      if (search.kept < search.limit) {
        search.kept += 1;
        search.nodes.push(matchRow(segment, m.index, m[0].length));
      }
    }
  }

  function matchRow(segment, at, length) {
    const { text, starts, nodes } = segment;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) { // the last piece starting at or before the match
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    const el = holder(nodes[low], segment.block);
    const role = roleOf(el) || 'generic';
    const name = text.length < AROUND ? group(segment.block, text) : around(text, at, length);
    return { ref: refFor(el), role, name };
  }

  /**
   * The text of the widest of block and its nearest ancestors that is at most GROUP_MAX characters
   * and holds the block's text. (renderedText stops reading past its limit: a text read with a
   * wider limit that comes out short is whole.)
   */
  function group(block, text) {
    let shown = text.trim();
    const own = shown.toLowerCase();
    let node = block;
    for (let level = 0; node && level < GROUP_LEVELS; level += 1) {
      if (node === document.body || node === document.documentElement) break;
      const wider = renderedText(node, 4 * GROUP_MAX);
      if (wider.length > GROUP_MAX || !wider.toLowerCase().includes(own)) break;
      if (wider.length >= shown.length) shown = wider;
      node = flatParent(node);
    }
    return shown;
  }

  /** The element a match is shown as: its nearest interactive ancestor (a link) within the block, else the block. */
  function holder(node, block) {
    for (let el = node.nodeType === Node.ELEMENT_NODE ? node : flatParent(node); el; el = flatParent(el)) {
      const tag = el.localName;
      const marked = el.matches(MARKED_SELECTOR);
      if (isInteractive(el, roleOf(el, tag, marked), tag, marked)) return el;
      if (el === block) break;
    }
    return block || flatParent(node);
  }

  /** The match with up to AROUND characters on each side, cut at a word where it can be, … where cut. */
  function around(text, at, length) {
    let from = Math.max(0, at - AROUND);
    let to = Math.min(text.length, at + length + AROUND);
    if (from > 0) {
      const space = text.indexOf(' ', from);
      if (space !== -1 && space < at) from = space + 1;
    }
    if (to < text.length) {
      const space = text.lastIndexOf(' ', to);
      if (space >= at + length) to = space;
    }
    return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
  }

  Object.assign(shared, {
    findText,
  });
})();
