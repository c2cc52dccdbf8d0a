// tabmcp page agent: roles, accessible names, values and states of elements.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    SKIPPED_TAGS, INLINE_TAGS, CHECKABLE_ROLES, LABELABLE_TAGS, FORM_CONTROL_TAGS, collapse, forEachChild,
    isRendered,
  } = shared;

  const VALID_ROLES = new Set([
    'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox',
    'code', 'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory',
    'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img',
    'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu',
    'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph',
    'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar',
    'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript',
    'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree',
    'treegrid', 'treeitem',
  ]);
  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'option', 'checkbox', 'radio', 'switch',
    'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
  ]);
  const NAME_FROM_CONTENT = new Set([
    'link', 'button', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'cell', 'gridcell',
    'columnheader', 'rowheader', 'checkbox', 'radio', 'switch', 'treeitem', 'tooltip',
  ]);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox', 'listbox']);
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar']);
  const LANDMARK_SCOPE = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), '
    + 'section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
  const FOCUSABLE_TAGS = new Set(['button', 'select', 'textarea', 'iframe', 'summary']);

  // -------------------------------------------------------------------------------------------
  // Roles

  function explicitRole(el) {
    const attr = el.getAttribute('role');
    if (!attr) return '';
    for (const token of attr.trim().toLowerCase().split(/\s+/)) if (VALID_ROLES.has(token)) return token;
    return '';
  }

  function isContentEditableHost(el) {
    const attr = el.getAttribute('contenteditable');
    return attr !== null && attr.toLowerCase() !== 'false';
  }

  function isNativelyFocusable(el) {
    const tag = el.localName;
    if (FOCUSABLE_TAGS.has(tag)) return true;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href');
    if (tag === 'input') return el.type !== 'hidden';
    return isContentEditableHost(el);
  }

  function isFocusable(el) {
    if (FORM_CONTROL_TAGS.has(el.localName) && el.matches(':disabled')) return false;
    return isNativelyFocusable(el) || el.hasAttribute('tabindex');
  }

  function hasAriaName(el) {
    return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
  }

  function inputRole(el) {
    const type = el.type;
    switch (type) {
      case 'hidden': return '';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'search': return el.hasAttribute('list') && el.list ? 'combobox' : 'searchbox';
      case 'text': case 'email': case 'tel': case 'url': return el.hasAttribute('list') && el.list ? 'combobox' : 'textbox';
      default: return 'textbox';
    }
  }

  // An element without these attributes has its tag's role and is interactive by its tag alone.
  const MARKED_SELECTOR = '[role],[aria-hidden],[contenteditable],[tabindex],[aria-expanded]';

  /** marked: el may carry MARKED_SELECTOR attributes (false lets the common case skip reading them). */
  function implicitRole(el, tag = el.localName, marked = true) {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'article': return 'article';
      case 'aside': return 'complementary';
      case 'blockquote': return 'blockquote';
      case 'button': return 'button';
      case 'caption': return 'caption';
      case 'datalist': return 'listbox';
      case 'dd': return 'definition';
      case 'details': return 'group';
      case 'dialog': return 'dialog';
      case 'dt': case 'dfn': return 'term';
      case 'fieldset': case 'optgroup': return 'group';
      case 'figure': return 'figure';
      case 'footer': return el.closest(LANDMARK_SCOPE) ? '' : 'contentinfo';
      case 'header': return el.closest(LANDMARK_SCOPE) ? '' : 'banner';
      case 'form': return hasAriaName(el) ? 'form' : '';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'hr': return 'separator';
      case 'iframe': case 'frame': return 'iframe';
      case 'img':
        return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !el.hasAttribute('aria-label') ? '' : 'img';
      case 'input': return inputRole(el);
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      case 'section': return hasAriaName(el) ? 'region' : '';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'summary': return 'button';
      case 'table': return 'table';
      case 'td': {
        const table = el.closest('table');
        const role = table ? explicitRole(table) : '';
        return role === 'grid' || role === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'th': {
        const scope = el.getAttribute('scope');
        return scope === 'row' || scope === 'rowgroup' ? 'rowheader' : 'columnheader';
      }
      case 'textarea': return 'textbox';
      case 'tr': return 'row';
      default:
        if (!marked) return '';
        if (isContentEditableHost(el)) return 'textbox';
        // a popup's trigger drawn without a role (a tag pill: <span aria-expanded>) is clicked as a
        // button; aria-expanded belongs to no generic element
        return el.hasAttribute('aria-expanded') ? 'button' : '';
    }
  }

  /** The element's role as the snapshot shows it; '' for generic elements. */
  function roleOf(el, tag = el.localName, marked = true) {
    if (!marked) return implicitRole(el, tag, false);
    const explicit = explicitRole(el);
    if (explicit === 'generic') return '';
    if (explicit && explicit !== 'none' && explicit !== 'presentation') return explicit;
    const implicit = implicitRole(el);
    // role=none on a focusable element is an author error: the browser keeps the implicit role
    if (explicit) return isFocusable(el) ? implicit : '';
    return implicit;
  }

  function isInteractive(el, role, tag = el.localName, marked = true) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (role === 'gridcell') return marked && el.hasAttribute('tabindex');
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href');
      case 'button': case 'select': case 'textarea': case 'summary': return true;
      case 'input': return el.type !== 'hidden';
      default: break;
    }
    if (!marked) return false;
    if (isContentEditableHost(el)) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && tabindex.trim() !== '' && Number(tabindex) >= 0;
  }

  // -------------------------------------------------------------------------------------------
  // Accessible names (accname, simplified: docs/page-agent.md §1)

  function idRefs(el, ids) {
    const root = el.getRootNode();
    const out = [];
    for (const id of ids.trim().split(/\s+/)) {
      const found = id && root.getElementById ? root.getElementById(id) : null;
      if (found) out.push(found);
    }
    return out;
  }

  const nameVisited = new Set(); // reused: accName is never re-entered

  /** The collapsed, uncut accessible name. */
  function accName(el, role, includeHidden) {
    nameVisited.clear();
    const name = collapse(computeName(el, role, { visited: nameVisited, includeHidden, skip: null }, false));
    nameVisited.clear();
    return name;
  }

  function computeName(el, role, ctx, referenced) {
    if (ctx.visited.has(el)) return '';
    ctx.visited.add(el);
    if (!referenced) {
      const ids = el.getAttribute('aria-labelledby');
      if (ids) {
        const inner = { ...ctx, includeHidden: true };
        const text = idRefs(el, ids).map((r) => computeName(r, roleOf(r), inner, true)).join(' ');
        if (text.trim()) return text;
      }
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return label;
    const native = nativeName(el, ctx);
    if (native && native.trim()) return native;
    if (referenced || NAME_FROM_CONTENT.has(role) || (!role && isInteractive(el, role))) {
      const text = contentText(el, ctx);
      if (text.trim()) return text;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    if (el.localName === 'input' || el.localName === 'textarea') return el.getAttribute('placeholder') || '';
    return '';
  }

  // el.labels scans the element's whole tree the first time it is read: naming every control of a
  // page that way is quadratic. A reader that names many elements at once (the capture) runs inside
  // withLabelIndex, and the labels of each tree are found once, in one pass over its <label>s.
  let labelIndex = null; // Map: root node -> Map: control -> its labels in tree order
  const NO_LABELS = [];

  function withLabelIndex(work) {
    labelIndex = new Map();
    try {
      return work();
    } finally {
      labelIndex = null;
    }
  }

  function labelsOf(el) {
    if (labelIndex === null) return el.labels;
    const root = el.getRootNode();
    let byControl = labelIndex.get(root);
    if (!byControl) {
      byControl = new Map();
      const labels = root.querySelectorAll ? root.querySelectorAll('label') : NO_LABELS;
      for (let i = 0, n = labels.length; i < n; i += 1) {
        const control = labels[i].control;
        if (!control) continue;
        const known = byControl.get(control);
        if (known) known.push(labels[i]);
        else byControl.set(control, [labels[i]]);
      }
      labelIndex.set(root, byControl);
    }
    return byControl.get(el) || NO_LABELS;
  }

  function firstChildTag(el, tag) {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.localName === tag) return c;
    return null;
  }

  function nativeName(el, ctx) {
    const tag = el.localName;
    if (tag === 'input') {
      const type = el.type;
      if (type === 'button' || type === 'submit' || type === 'reset') {
        if (el.hasAttribute('value')) return el.value;
        if (type !== 'button') return type === 'submit' ? 'Submit' : 'Reset';
      }
      if (type === 'image') return el.getAttribute('alt') || el.getAttribute('value') || 'Submit';
    }
    const labels = LABELABLE_TAGS.has(tag) ? labelsOf(el) : null;
    if (labels && labels.length) {
      const parts = [];
      for (const label of labels) parts.push(contentText(label, { ...ctx, skip: el }));
      const text = parts.join(' ');
      if (text.trim()) return text;
    }
    switch (tag) {
      case 'img': case 'area': return el.getAttribute('alt') || '';
      case 'fieldset': { const legend = firstChildTag(el, 'legend'); return legend ? contentText(legend, ctx) : ''; }
      case 'table': { const caption = firstChildTag(el, 'caption'); return caption ? contentText(caption, ctx) : ''; }
      case 'figure': {
        const caption = el.querySelector(':scope > figcaption');
        return caption ? contentText(caption, ctx) : '';
      }
      case 'svg': { const title = firstChildTag(el, 'title'); return title ? title.textContent : ''; }
      case 'iframe': case 'frame': return el.getAttribute('title') || '';
      case 'option': return el.label || '';
      default: return '';
    }
  }

  function contentText(el, ctx) {
    const parts = [];
    appendContent(el, parts, ctx);
    return parts.join('');
  }

  function appendContent(parent, parts, ctx) {
    forEachChild(parent, false, (child) => {
      const type = child.nodeType;
      if (type === Node.TEXT_NODE) {
        parts.push(child.data);
        return;
      }
      if (type !== Node.ELEMENT_NODE || child === ctx.skip) return;
      const tag = child.localName;
      if (SKIPPED_TAGS.has(tag)) return;
      if (!ctx.includeHidden && (child.getAttribute('aria-hidden') === 'true' || !isRendered(child))) return;
      const block = !INLINE_TAGS.has(tag);
      if (block) parts.push(' ');
      parts.push(embeddedText(child, ctx));
      if (block) parts.push(' ');
    });
  }

  /** What a descendant contributes to its ancestor's name: a control its value, others their name. */
  function embeddedText(el, ctx) {
    if (ctx.visited.has(el)) return '';
    const role = roleOf(el);
    if (el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-label')) return computeName(el, role, ctx, false);
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea') {
      if (tag === 'input' && ['button', 'submit', 'reset', 'image'].includes(el.type)) return nativeName(el, ctx);
      return role === 'checkbox' || role === 'radio' ? '' : el.value;
    }
    if (tag === 'select') return selectedLabels(el);
    if (tag === 'img' || tag === 'area') return el.getAttribute('alt') || el.getAttribute('title') || '';
    if (RANGE_ROLES.has(role) && el.hasAttribute('aria-valuenow')) return rangeValue(el);
    ctx.visited.add(el);
    const text = contentText(el, ctx);
    return text.trim() ? text : el.getAttribute('title') || '';
  }

  function selectedLabels(select) {
    const labels = [];
    for (const option of select.selectedOptions) labels.push(collapse(option.label || option.text));
    return labels.join(', ');
  }

  function rangeValue(el) {
    return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
  }

  // -------------------------------------------------------------------------------------------
  // Values and states

  // an editor's text as it shows (a code editor's lines, a contenteditable's blocks): editors.js
  const editorValue = (el) => shared.editorText(el);

  function valueOf(el, role) {
    const tag = el.localName;
    if (tag === 'input') {
      if (el.type === 'password') return el.value ? '********' : '';
      return VALUE_ROLES.has(role) ? el.value : '';
    }
    if (tag === 'textarea') return editorValue(el) ?? el.value;
    if (tag === 'select') return selectedLabels(el);
    if (tag === 'progress' || tag === 'meter') return el.hasAttribute('value') ? String(el.value) : '';
    if (RANGE_ROLES.has(role)) return rangeValue(el);
    if (role === 'textbox' || role === 'searchbox') return editorValue(el) ?? el.textContent;
    return '';
  }

  function checkedState(el, role) {
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) return 'mixed';
      return el.checked ? 'checked' : 'unchecked';
    }
    if (!CHECKABLE_ROLES.has(role)) return '';
    const aria = (el.getAttribute('aria-checked') || '').toLowerCase();
    if (aria === 'mixed') return 'mixed';
    return aria === 'true' ? 'checked' : 'unchecked';
  }

  /** Natively disabled (a disabled fieldset included), or aria-disabled on it or an ancestor. */
  function isDisabled(el) {
    if (FORM_CONTROL_TAGS.has(el.localName) && el.matches(':disabled')) return true;
    for (let n = el; n;) {
      if (n.closest('[aria-disabled="true"]')) return true;
      const root = n.getRootNode();
      n = root && root.host ? root.host : null; // out of a shadow tree, and on up
    }
    return false;
  }

  function isReadOnly(el) {
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      return el.readOnly || el.getAttribute('aria-readonly') === 'true';
    }
    if (el.isContentEditable) return false;
    return el.getAttribute('aria-readonly') === 'true';
  }

  function statesOf(el, role, active) {
    const states = [];
    if (el === active && el !== document.body) states.push('focused');
    const checked = checkedState(el, role);
    if (checked) states.push(checked);
    if (isDisabled(el)) states.push('disabled');
    const expanded = el.getAttribute('aria-expanded');
    if (expanded === 'true') states.push('expanded');
    else if (expanded === 'false') states.push('collapsed');
    else if (el.localName === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
      states.push(el.parentElement.open ? 'expanded' : 'collapsed');
    }
    if (el.getAttribute('aria-selected') === 'true' || (el.localName === 'option' && el.selected)) states.push('selected');
    if (el.required || el.getAttribute('aria-required') === 'true') states.push('required');
    const invalid = el.getAttribute('aria-invalid');
    if ((invalid && invalid !== 'false') || (FORM_CONTROL_TAGS.has(el.localName) && safeMatches(el, ':user-invalid'))) {
      states.push('invalid');
    }
    if ((VALUE_ROLES.has(role) || role === 'checkbox') && isReadOnly(el) && !isDisabled(el)) states.push('readonly');
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true') states.push('pressed');
    else if (pressed === 'mixed') states.push('mixed');
    if (role === 'heading') states.push(`level=${headingLevel(el)}`);
    return states;
  }

  function safeMatches(el, selector) {
    try {
      return el.matches(selector);
    } catch {
      return false;
    }
  }

  function headingLevel(el) {
    const aria = Number(el.getAttribute('aria-level'));
    if (Number.isInteger(aria) && aria > 0) return aria;
    const match = /^h([1-6])$/.exec(el.localName);
    return match ? Number(match[1]) : 2;
  }

  Object.assign(shared, {
    explicitRole, isFocusable, MARKED_SELECTOR, roleOf, isInteractive, accName, withLabelIndex, valueOf, checkedState, isDisabled,
    isReadOnly, statesOf,
  });
})();
