// tabmcp page agent: snapshot, the page (or one element's subtree) as rows with refs; each iframe's
// document learns the token of its <iframe> element in the parent.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    NAME_MAX, IS_TOP, SKIPPED_TAGS, INLINE_TAGS, LABELABLE_TAGS, FORM_CONTROL_TAGS, collapse, cut, DOC_ID, refFor,
    forEachChild, flatParent, deepActiveElement, isRendered, isVisible, PRUNED, VISIBLE, ZERO_SIZE, renderState,
    visibilityOf, MARKED_SELECTOR, roleOf, isInteractive, accName, valueOf, statesOf, renderedText, failure,
    AgentError, hiddenReason, openRoots,
  } = shared;
  // Defined by a later file: called through `shared` (by then every file has run).
  const resolveTarget = (target) => shared.resolveTarget(target);

  const VALUE_MAX = 120;
  const TEXT_ROW_MAX = 200;
  // A region (snapshot of one element's subtree) is what the model asked to read: its texts are not
  // cut but split into rows of at most this many characters, which the server's budget pages.
  const REGION_TEXT_CHUNK = 500;
  // A value in a region (a long textarea): with its cut marker, within the 1,000 characters the
  // server keeps of a field.
  const REGION_VALUE_MAX = 960;
  // Roles that are not rows in full mode: their children move up.
  const GENERIC_ROLES = new Set(['', 'generic', 'none', 'presentation', 'rowgroup', 'caption']);

  // -------------------------------------------------------------------------------------------
  // snapshot

  let parentToken = null;

  /** arg: {mode, root?}; with root (a Target) only that element's subtree, the element its first row. */
  function snapshot(arg) {
    // locate: full, plus what tells near-duplicates apart (hint, context) for the description locator
    const locate = !!arg && arg.mode === 'locate';
    const full = locate || (!!arg && arg.mode === 'full');
    let region = null;
    try {
      if (arg && arg.root) region = regionRoot(arg.root);
    } catch (e) {
      return failure(e);
    }
    // mute > 0: text is not gathered (it is already in a name or value, or does not show)
    const state = {
      full, locate, rows: [], active: deepActiveElement(), owner: null, text: [], mute: 0, region, textFrom: null,
      textTo: null,
    };
    if (locate) state.contexts = new Map(); // ancestor -> its context text (null: too long), once per snapshot
    if (region) {
      walkElement(region, 0, state);
    } else if (document.documentElement) {
      walkChildren(document.documentElement, 0, state);
    }
    if (full) flushText(state);
    return { url: location.href, title: document.title, docId: DOC_ID, parentToken: parentTokenOf(), nodes: state.rows };
  }

  /** The element a region starts at; one that does not render at all is an error, not an empty region. */
  function regionRoot(target) {
    const el = resolveTarget(target);
    if (SKIPPED_TAGS.has(el.localName) || visibilityOf(el) === PRUNED) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${refFor(el)} shows nothing: ${hiddenReason(el)}`);
    }
    return el;
  }

  /** shown: whether parent is known to render visibly (saves a style read for its text). */
  function walkChildren(parent, depth, state, tag = parent.localName, shown = undefined) {
    if (!state.full) {
      forEachChild(parent, true, (child) => {
        walkElement(child, depth, state);
      }, tag);
      return;
    }
    let textVisible;
    forEachChild(parent, false, (node) => {
      const type = node.nodeType;
      if (type === Node.ELEMENT_NODE) {
        walkElement(node, depth, state);
      } else if (type === Node.TEXT_NODE && !state.mute) {
        const data = node.data;
        if (!/\S/.test(data)) {
          if (data) state.text.push(' ');
          return;
        }
        if (textVisible === undefined) textVisible = textShows(parent, shown);
        if (textVisible) {
          state.text.push(data);
          if (!state.textFrom) state.textFrom = parent;
          state.textTo = parent;
        }
      }
    });
  }

  /**
   * Whether the text children of el show (full mode only). Text directly inside a
   * content-visibility:hidden element is not detected (its child elements are).
   */
  function textShows(el, shown) {
    if (!(shown === undefined ? isRendered(el) : shown)) return false;
    return !(el.localName === 'details' && !el.open); // a closed details shows only its summary
  }

  function walkElement(el, depth, state) {
    const tag = el.localName;
    if (SKIPPED_TAGS.has(tag)) return;
    const marked = el.matches(MARKED_SELECTOR);
    if (marked && el.getAttribute('aria-hidden') === 'true') return;
    if (tag === 'input' && el.type === 'hidden') return;
    const role = roleOf(el, tag, marked);
    const include = el === state.region || (state.full
      ? !GENERIC_ROLES.has(role) || isInteractive(el, role, tag, marked)
      : isInteractive(el, role, tag, marked) || role === 'heading' || role === 'iframe');
    let visibility = VISIBLE;
    let shown; // known to render visibly: its text shows
    if (include) {
      visibility = visibilityOf(el);
      if (visibility === ZERO_SIZE && shared.shownByEditor(el)) visibility = VISIBLE;
      if (visibility === PRUNED) return;
      if (visibility === VISIBLE) shown = true;
    } else if (state.full) {
      const rendering = renderState(el);
      if (rendering === PRUNED) return; // a generic container that does not render at all: skip its subtree
      // visibility:hidden or display:contents: decide per text parent
      shown = rendering === VISIBLE ? true : undefined;
    }
    const isFrame = tag === 'iframe' || tag === 'frame';
    // a textarea's children are its default value, an iframe's are fallback content
    const leaf = isFrame || tag === 'textarea';
    if (!include || visibility !== VISIBLE) {
      if (leaf) return;
      // a label's text is its control's name
      const mute = state.full && (visibility === ZERO_SIZE || (tag === 'label' && el.control && isVisible(el.control)));
      if (mute) state.mute += 1;
      walkContent(el, depth, state, visibility === VISIBLE ? shown : undefined);
      if (mute) state.mute -= 1;
      return;
    }
    if (state.full) flushText(state);
    const name = accName(el, role, false);
    const ref = refFor(el);
    const row = {
      ref,
      role: role || 'generic',
      name: cut(name, NAME_MAX),
      value: cutValue(collapse(valueOf(el, role)), ref, state),
      states: statesOf(el, role, state.active),
      depth: state.full ? depth : 0,
    };
    if (state.locate && isInteractive(el, role, tag, marked)) addLocateHints(row, el, tag, name, state);
    state.rows.push(row);
    if (isFrame) {
      row.frameToken = frameTokenOf(el, row.ref);
      return;
    }
    if (leaf) return;
    if (!state.full) {
      walkChildren(el, depth, state, tag);
      return;
    }
    const outer = state.owner;
    // in a region a text the cut name does not show in full is a text row too (there it is not cut)
    state.owner = { name: (state.region ? row.name : name).toLowerCase(), depth: depth + 1 };
    const mute = role === 'textbox' || role === 'searchbox'; // the value shows the text
    if (mute) state.mute += 1;
    walkContent(el, depth + 1, state, true);
    if (mute) state.mute -= 1;
    flushText(state);
    state.owner = outer;
  }

  // Locate mode (docs/nl-tools.md): per interactive row, the words a person may use for the element
  // that are not its name (placeholder, title, alt, input type and name), and the text of the
  // smallest group around it (a product card, a table row), so that "Add to cart for the Onesie"
  // finds the right one of three "Add to cart" buttons.
  const HINT_MAX = 120;
  const CONTEXT_MAX = 200;
  const CONTEXT_SCAN = 1000; // raw characters read to decide whether a group's text is short
  const CONTEXT_LEVELS = 4;
  // Input types the role already says (or that say nothing a person would use).
  const UNHINTED_INPUT_TYPES = new Set(['text', 'submit', 'button', 'checkbox', 'radio', 'search', 'reset', 'image']);

  function addLocateHints(row, el, tag, name, state) {
    const own = name.toLowerCase();
    const words = [];
    const add = (text) => {
      const value = collapse(text || '');
      if (value && !own.includes(value.toLowerCase()) && !words.includes(value)) words.push(value);
    };
    add(el.getAttribute('placeholder'));
    add(el.getAttribute('title'));
    add(el.getAttribute('alt'));
    if (tag === 'input' && !UNHINTED_INPUT_TYPES.has(el.type)) add(el.type);
    if (FORM_CONTROL_TAGS.has(tag)) add(el.getAttribute('name'));
    const hint = cut(words.join(' | '), HINT_MAX);
    if (hint) row.hint = hint;
    const ownText = LABELABLE_TAGS.has(tag) ? '' : renderedText(el, CONTEXT_MAX);
    const context = contextOf(el, ownText, state.contexts);
    if (context) row.context = context;
  }

  /** The visible text of the nearest ancestor that says more than the element itself, if it is short. */
  function contextOf(el, ownText, cache) {
    let node = el;
    for (let level = 0; level < CONTEXT_LEVELS; level += 1) {
      node = flatParent(node);
      if (!node || node === document.body || node === document.documentElement) return '';
      let text = cache.get(node);
      if (text === undefined) {
        text = renderedText(node, CONTEXT_SCAN);
        if (text.length > CONTEXT_MAX) text = null; // a whole section, not this element's own group
        cache.set(node, text);
      }
      if (text === null) return '';
      if (text && text !== ownText) return text;
    }
    return '';
  }

  function walkContent(el, depth, state, shown) {
    const block = state.full && !INLINE_TAGS.has(el.localName);
    if (block) state.text.push(' ');
    if (state.full && el.localName === 'br') state.text.push(' ');
    walkChildren(el, depth, state, el.localName, shown);
    if (block) state.text.push(' ');
  }

  /**
   * Full mode: the text gathered since the last row becomes a text row, unless its row's name says it.
   * A long text is cut, and the cut says how much is left and which region holds all of it; in a
   * region it is split into several rows instead.
   */
  function flushText(state) {
    const { textFrom, textTo } = state;
    state.textFrom = null;
    state.textTo = null;
    if (!state.text.length) return;
    const text = collapse(state.text.join(''));
    state.text = [];
    if (!text) return;
    const owner = state.owner;
    if (owner && owner.name.includes(text.toLowerCase())) return;
    const depth = owner ? owner.depth : 0;
    const row = (name) => state.rows.push({ ref: '', role: 'text', name, value: '', states: [], depth });
    if (state.region) {
      for (const chunk of chunks(text, REGION_TEXT_CHUNK)) row(chunk);
    } else if (text.length <= TEXT_ROW_MAX || state.locate || !textFrom) {
      row(cut(text, TEXT_ROW_MAX));
    } else {
      const holder = commonAncestor(textFrom, textTo);
      const shown = text.slice(0, TEXT_ROW_MAX - 1);
      row(`${shown}… (+${text.length - shown.length} chars: root=${refFor(holder)})`);
    }
  }

  /** A long value says how much is cut, and outside a region that its own region shows more of it. */
  function cutValue(value, ref, state) {
    const max = state.region ? REGION_VALUE_MAX : VALUE_MAX;
    if (value.length <= max || state.locate) return cut(value, max);
    const shown = value.slice(0, max - 1);
    const where = state.region ? '' : `: root=${ref}`;
    return `${shown}… (+${value.length - shown.length} chars${where})`;
  }

  /** text in pieces of at most max characters, split after a space where there is one late enough. */
  function chunks(text, max) {
    const out = [];
    let rest = text;
    while (rest.length > max) {
      const space = rest.lastIndexOf(' ', max);
      const end = space > max / 2 ? space + 1 : max;
      out.push(rest.slice(0, end).trimEnd());
      rest = rest.slice(end);
    }
    if (rest) out.push(rest);
    return out;
  }

  /** The nearest element holding both (flat tree). */
  function commonAncestor(a, b) {
    const above = new Set();
    for (let n = a; n; n = flatParent(n)) above.add(n);
    for (let n = b; n; n = flatParent(n)) if (above.has(n)) return n;
    return a;
  }

  // -------------------------------------------------------------------------------------------
  // Frames: each iframe's document learns the token of its <iframe> element in the parent.

  /** The token of a rendered iframe element, handed to its document now (it reports it as parentToken). */
  function frameTokenOf(iframe, ref = refFor(iframe)) {
    const token = `${DOC_ID}:${ref}`;
    postFrameToken(iframe, token);
    return token;
  }

  function postFrameToken(iframe, token) {
    try {
      const win = iframe.contentWindow;
      if (win) win.postMessage({ __tabmcp: 'frame', token }, '*');
    } catch {
      // a detached or sandboxed frame: it stays unmatched
    }
  }

  // A frame's document learns its token from a message; a parent that rewrites the frame's document
  // (document.open()/write(): the iframe of a rich-text editor) erases every listener of its window,
  // ours too. A tokenless frame therefore listens again (the same function: a no-op when it still
  // listens) and asks its parent, which answers with the token of the iframe that holds it.
  function onFrameMessage(event) {
    const data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.__tabmcp === 'frame-ask') {
      answerTokenAsk(event);
      return;
    }
    if (data.__tabmcp !== 'frame') return;
    if (IS_TOP || event.source !== window.parent) return;
    if (typeof data.token === 'string' && data.token.length <= 64) parentToken = data.token;
    event.stopImmediatePropagation();
  }

  /** A child frame asked for its token: post it to the iframe element whose window sent the ask. */
  function answerTokenAsk(event) {
    event.stopImmediatePropagation();
    if (!event.source) return;
    for (const root of [document, ...openRoots()]) {
      for (const iframe of root.querySelectorAll('iframe, frame')) {
        if (iframe.contentWindow === event.source) {
          frameTokenOf(iframe);
          return;
        }
      }
    }
  }

  function parentTokenOf() {
    if (parentToken === null && !IS_TOP) {
      addEventListener('message', onFrameMessage, true);
      try {
        window.parent.postMessage({ __tabmcp: 'frame-ask' }, '*');
      } catch {
        // a parent that cannot be reached: the frame stays unmatched
      }
    }
    return parentToken;
  }

  addEventListener('message', onFrameMessage, true);

  Object.assign(shared, {
    snapshot, frameTokenOf, parentTokenOf,
  });
})();
