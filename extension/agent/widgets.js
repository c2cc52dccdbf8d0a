// tabmcp page agent: form widgets a person fills differently from a plain field (docs/page-agent.md,
// Widgets): a combobox standing in for a <select> or offering options as one types (chosen by typing,
// then clicking the option by its visible text), code and rich-text editors (editors.js), date pickers
// (typed, or picked in their calendar). widgetOf tells the capture what a field is; choose and pickDate
// fill them.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    AgentError, collapse, sleep, isVisible, isRendered, describe, waitActionable, pointerClick, deepActiveElement,
    fireKey, insertText, isTextControl, isEditable, focusElement, pressKey, selectAllIn, drawnEditorOf, fireChange,
    fireInput, setNativeValue, nextFrame, pageBusy,
  } = shared;

  const POLL_MS = 40;
  // Options that stop changing for this long, the page's own work done, are the widget's answer to what
  // was typed (an empty list gets longer: a server may still be searching).
  const SETTLED_MS = 400;
  const EMPTY_SETTLED_MS = 1000;
  const CLOSE_MATCHES = 5;
  const FOCUS_MS = 300; // a widget focuses its search field within this after the click that opens it
  const CALENDAR_MS = 1000; // a date picker's calendar shows within this after a click, or it has none
  const MAX_MONTH_STEPS = 240; // a calendar is paged at most 20 years away
  const OPTION_SELECTOR = '[role="option"], [role="treeitem"]';
  // Date pickers that leave no ARIA mark on their input: the one list of their input's classes (the
  // generic signal, a text input with aria-haspopup="dialog" or "grid", comes first).
  const DATE_PICKER_INPUTS = [
    '.flatpickr-input', // flatpickr
    '.hasDatepicker', // jQuery UI
    '.datepicker-input', // vanillajs-datepicker
    '[data-provide="datepicker"]', // bootstrap-datepicker
  ].join(',');
  const TEXT_TYPES = new Set(['text', 'search', '']);

  // -------------------------------------------------------------------------------------------
  // What a field is

  /** Withdrawn from the user: not rendered, hidden from assistive technology, or out of the tab order. */
  function withdrawn(el) {
    return (el instanceof HTMLInputElement && el.type === 'hidden') || !isRendered(el) || el.getAttribute('aria-hidden') === 'true' || el.getAttribute('tabindex') === '-1';
  }

  // Combobox libraries that put no ARIA role on what they show (select2 3.x, Chosen): the one list of their
  // root classes, tried after the generic signals (a visible role=combobox, a control with aria-haspopup).
  const UNMARKED_COMBOBOXES = ['.select2-container', '.chosen-container'].join(',');

  function shownBox(el) {
    if (!el || el instanceof HTMLSelectElement || (el instanceof HTMLInputElement && el.type === 'hidden')) return null;
    const box = el.matches('[role="combobox"]') ? el : el.querySelector('[role="combobox"]');
    if (box && isVisible(box)) return box;
    const popup = el.querySelector('[aria-haspopup="listbox"], [aria-haspopup="true"]');
    if (popup && isVisible(popup) && popup.closest(UNMARKED_COMBOBOXES) === el) return el;
    return el.matches(UNMARKED_COMBOBOXES) && isVisible(el) ? el : null;
  }

  /** The visible combobox a library put in place of a <select> (or of the hidden input it keeps its value
   * in) that it withdrew (select2, Tom Select, Choices.js…): around it (the select inside the widget) or
   * just after or before it. */
  function comboboxOf(field) {
    const hiddenInput = field instanceof HTMLInputElement && field.type === 'hidden';
    if (!(field instanceof HTMLSelectElement || hiddenInput) || !withdrawn(field)) return null;
    if (hiddenInput) { // pages hold many hidden inputs: only a widget right beside one is looked for
      for (const sibling of [field.nextElementSibling, field.previousElementSibling]) {
        if (sibling && (sibling.matches(UNMARKED_COMBOBOXES) || sibling.getAttribute('role') === 'combobox')) {
          const box = shownBox(sibling);
          if (box) return box;
        }
      }
      return null;
    }
    let node = field;
    for (let depth = 0; depth < 3 && node && node !== document.body && node.localName !== 'form'; depth += 1) {
      if (node !== field && node.getAttribute('role') === 'combobox' && isVisible(node)) return node;
      for (const sibling of [node.nextElementSibling, node.previousElementSibling]) {
        const box = shownBox(sibling);
        if (box) return box;
      }
      node = node.parentElement;
    }
    return null;
  }

  /** Several options are chosen in it: a multiple <select>, or a hidden input whose widget says so. */
  function isMultiple(field, box) {
    if (field instanceof HTMLSelectElement) return field.multiple;
    const root = box.closest(UNMARKED_COMBOBOXES) || box;
    return field.hasAttribute('multiple') || /^(1|true)$/.test(field.getAttribute('data-multiple') || '')
      || /\bmulti/.test(typeof root.className === 'string' ? root.className : '');
  }

  /** An input that offers options as one types (ARIA 1.2 combobox with a listbox popup), not the search
   * field of a combobox standing in for a <select>. */
  function isAutocomplete(el) {
    return el instanceof HTMLInputElement && TEXT_TYPES.has(el.getAttribute('type') || '')
      && el.getAttribute('role') === 'combobox' && el.getAttribute('aria-autocomplete') !== 'none' && !standsInPart(el);
  }

  function standsInPart(el) {
    if (el.closest(UNMARKED_COMBOBOXES)) return true;
    let node = el.parentElement;
    for (let depth = 0; depth < 3 && node && node !== document.body && node.localName !== 'form'; depth += 1) {
      for (const sibling of [node.previousElementSibling, node.nextElementSibling]) {
        if ((sibling instanceof HTMLSelectElement || (sibling instanceof HTMLInputElement && sibling.type === 'hidden'))
          && comboboxOf(sibling)) return true;
      }
      if (node.querySelector(':scope > select') && comboboxOf(node.querySelector(':scope > select'))) return true;
      node = node.parentElement;
    }
    return false;
  }

  /** The visible date picker a hidden input keeps its date for (flatpickr's altInput: the page's input made
   * hidden, a copy beside it shows the date as people read it). */
  function pickerOf(hidden) {
    if (!hidden.matches(DATE_PICKER_INPUTS)) return null;
    for (const sibling of [hidden.nextElementSibling, hidden.previousElementSibling]) {
      if (sibling instanceof HTMLInputElement && TEXT_TYPES.has(sibling.getAttribute('type') || '') && isVisible(sibling)) {
        return sibling;
      }
    }
    return null;
  }

  /** The input to pick a date in for el: el itself, or the visible copy a hidden el stands behind (its
   * calendar is the hidden input's). */
  function datePickerFor(el) {
    if (isDatePicker(el)) return el;
    return el instanceof HTMLInputElement && el.type === 'hidden' ? pickerOf(el) : null;
  }

  function isDatePicker(el) {
    if (!(el instanceof HTMLInputElement) || !TEXT_TYPES.has(el.getAttribute('type') || '')) return false;
    const popup = el.getAttribute('aria-haspopup');
    return popup === 'dialog' || popup === 'grid' || el.matches(DATE_PICKER_INPUTS);
  }

  /** A drawn editor's key taker or a contenteditable root: the element an editor is filled through. */
  function isEditorInput(el) {
    const drawn = drawnEditorOf(el);
    if (drawn) return drawn.input === el;
    return el instanceof HTMLElement && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
  }

  /** The hidden <textarea> an editor stands for (a code editor made from a form's textarea,
   * which the page copies the editor's text into on submit): the nearest one beside the editor or one of
   * its first ancestors, within its form. */
  function editorField(el) {
    const drawn = drawnEditorOf(el);
    let node = drawn ? drawn.root : el;
    for (let depth = 0; depth < 4 && node && node !== document.body && node.localName !== 'form'; depth += 1) {
      for (const sibling of [node.previousElementSibling, node.nextElementSibling]) {
        if (sibling instanceof HTMLTextAreaElement && sibling.name && !isRendered(sibling)) return sibling;
      }
      node = node.parentElement;
    }
    return null;
  }

  /** {kind, standsIn?, field?, namedBy?, multiple?} for a field filled as a widget ('combobox', 'editor',
   * 'date'), else null; standsIn: a combobox shows in its place (it is withdrawn);
   * field: the name of the form field an editor stands for; namedBy: where its name is when it has none
   * (the combobox standing in for a <select>, the textarea an editor stands for). Cheap for
   * everything else: most elements are ruled out by their tag. */
  function widgetOf(el) {
    const tag = el.localName;
    if (tag === 'select' || (tag === 'input' && el.type === 'hidden')) {
      const box = comboboxOf(el);
      if (box) return { kind: 'combobox', standsIn: true, namedBy: box, multiple: isMultiple(el, box) };
      const picker = tag === 'input' ? pickerOf(el) : null;
      return picker ? { kind: 'date', standsIn: true, namedBy: picker } : null;
    }
    if (tag === 'input') {
      if (isAutocomplete(el)) return { kind: 'combobox' };
      return isDatePicker(el) ? { kind: 'date' } : null;
    }
    // the attribute first: isContentEditable costs a style update
    if (tag !== 'textarea' && !el.hasAttribute('contenteditable') && !el.editContext) return null;
    if (!isEditorInput(el)) return null;
    const field = editorField(el);
    return field ? { kind: 'editor', field: field.name, namedBy: field } : { kind: 'editor' };
  }

  // -------------------------------------------------------------------------------------------
  // Comboboxes: type, wait for the options, click the one whose visible text is wanted

  const norm = (text) => collapse(text).toLowerCase();
  const optionText = (option) => collapse(option.innerText || option.textContent || '');

  function isEnabledOption(option) {
    return option.getAttribute('aria-disabled') !== 'true' && !option.classList.contains('disabled') && isVisible(option);
  }

  function byIdRefs(el, attribute) {
    const ids = (el.getAttribute(attribute) || '').split(/\s+/).filter(Boolean);
    return ids.map((id) => el.getRootNode().getElementById(id)).filter(Boolean);
  }

  function visibleListboxes() {
    return [...document.querySelectorAll('[role="listbox"], [role="tree"]')].filter(isVisible);
  }

  /** The popup listbox: the one the typing field or combobox controls, else one shown since the widget was
   * closed. */
  function popupOf(fields, before) {
    for (const el of fields) {
      if (!el) continue;
      for (const attribute of ['aria-controls', 'aria-owns']) {
        for (const owned of byIdRefs(el, attribute)) {
          const role = owned.getAttribute('role');
          if ((role === 'listbox' || role === 'tree') && isVisible(owned)) return owned;
          const inner = owned.querySelector('[role="listbox"], [role="tree"]');
          if (inner && isVisible(inner)) return inner;
        }
      }
    }
    // a list of the items already chosen may have shown since (a role=listbox too): the popup offers the
    // most options not chosen yet
    let best = null;
    let most = -1;
    for (const list of visibleListboxes()) {
      if (before.has(list)) continue;
      const offered = optionsIn(list).filter((o) => o.getAttribute('aria-selected') !== 'true').length;
      if (offered > most) {
        best = list;
        most = offered;
      }
    }
    if (best) return best;
    // options in a list with no role (select2 3.x): the list of the first one shown since
    for (const option of document.querySelectorAll(OPTION_SELECTOR)) {
      const list = option.closest('[role="listbox"], [role="tree"]');
      if (list && before.has(list)) continue;
      if (isVisible(option)) return option.closest('ul, ol') || option.parentElement;
    }
    return null;
  }

  function optionsIn(list) {
    return list ? [...list.querySelectorAll(OPTION_SELECTOR)].filter(isEnabledOption) : [];
  }

  /** The option wanted: its text, else the one option whose text holds it. */
  function matchOption(options, wanted) {
    const needle = norm(wanted);
    const exact = options.filter((o) => norm(optionText(o)) === needle);
    if (exact.length) return exact[0];
    const holding = options.filter((o) => norm(optionText(o)).includes(needle));
    return holding.length === 1 ? holding[0] : null;
  }

  // what is chosen already may show until the search comes back: only other options are an answer
  const offered = (option) => option.getAttribute('aria-selected') !== 'true';

  /** Waits until an option matches or the options settle. {option, options}. */
  async function awaitOptions(fields, before, wanted, deadline) {
    let last = '';
    let since = performance.now();
    let options = [];
    for (;;) {
      options = optionsIn(popupOf(fields(), before));
      const option = matchOption(options, wanted);
      if (option) return { option, options };
      const now = performance.now();
      const key = options.map(optionText).join('\n');
      if (key !== last || pageBusy()) { // the page still searching (its debounce, its request) is no answer yet
        last = key;
        since = now;
      } else if (now - since >= (options.some(offered) ? SETTLED_MS : EMPTY_SETTLED_MS)) {
        return { option: null, options };
      }
      if (now >= deadline) return { option: null, options };
      await sleep(POLL_MS);
    }
  }

  /** Bigram similarity, for the close matches an error lists. */
  function similarity(a, b) {
    const grams = (s) => {
      const out = new Map();
      for (let i = 0; i < s.length - 1; i += 1) out.set(s.slice(i, i + 2), (out.get(s.slice(i, i + 2)) || 0) + 1);
      return out;
    };
    const x = grams(norm(a));
    const y = grams(norm(b));
    let common = 0;
    for (const [gram, n] of x) common += Math.min(n, y.get(gram) || 0);
    const total = [...x.values(), ...y.values()].reduce((s, n) => s + n, 0);
    return total ? (2 * common) / total : 0;
  }

  function closeMatches(texts, wanted) {
    return [...new Set(texts)].map((text) => ({ text, score: similarity(text, wanted) }))
      .sort((a, b) => b.score - a.score).slice(0, CLOSE_MATCHES).map((m) => m.text);
  }

  /** Types text into the field as keys (the widget searches on input or keyup). */
  function typeInto(field, text) {
    focusElement(field);
    selectAllIn(field);
    if (isTextControl(field) && field.value) {
      setNativeValue(field, '');
      fireInput(field, 'deleteContentBackward', null);
    }
    for (const ch of text) {
      let proceed = fireKey('keydown', field, ch, {});
      if (proceed) proceed = fireKey('keypress', field, ch, {});
      if (proceed) insertText(field, ch);
      fireKey('keyup', field, ch, {});
    }
  }

  async function clickElement(el, timeoutMs, verb) {
    const point = await waitActionable(el, { pointer: true }, timeoutMs, verb);
    pointerClick(point.hit, point.x, point.y, 1);
  }

  /** The field keys go to once the widget is open: the focused text field, else the combobox itself. */
  function typingField(box) {
    const active = deepActiveElement();
    if (active && active !== box && isEditable(active)) return active;
    return isEditable(box) ? box : null;
  }

  /** Where a person clicks to open the combobox: the combobox, or when a library moved it out of sight (Tom
   * Select's input once an item is chosen) the nearest box around it that shows. */
  function clickable(box) {
    let el = box;
    for (let depth = 0; depth < 3 && el.parentElement; depth += 1) {
      const rect = el.getBoundingClientRect();
      const away = rect.right + window.scrollX <= 0 || rect.bottom + window.scrollY <= 0;
      if (!away && rect.width > 1 && rect.height > 1 && getComputedStyle(el).opacity !== '0') return el;
      el = el.parentElement;
    }
    return box;
  }

  /** Opens the widget (a click on it, where it is closed) and the field that takes its search: one the
   * widget focuses (some a task after the click), else the combobox itself if it takes text. */
  async function open(box, timeoutMs) {
    const active = deepActiveElement();
    const expanded = box.getAttribute('aria-expanded') === 'true';
    if (expanded && active && (active === box || box.contains(active))) return typingField(box);
    await clickElement(clickable(box), timeoutMs, 'open');
    const until = performance.now() + Math.min(timeoutMs, FOCUS_MS);
    for (;;) {
      await nextFrame();
      const field = typingField(box);
      if ((field && (field !== box || deepActiveElement() === box)) || performance.now() >= until) return field;
      await sleep(POLL_MS);
    }
  }

  function closePopup(field) {
    const el = field || deepActiveElement();
    if (el) pressKey(el, 'Escape', []);
  }

  /** One option chosen in a combobox by its visible text: {text} of the option clicked. `field`: the <select>
   * or hidden input the combobox stands for, if any (then an option must be chosen). */
  async function chooseOne(box, field, wanted, before, deadline) {
    const typing = await open(box, Math.max(0, deadline - performance.now()));
    if (typing) typeInto(typing, wanted);
    const fields = () => [deepActiveElement(), typing, box];
    let found = await awaitOptions(fields, before, wanted, deadline);
    if (!found.option && typing && found.options.length && !found.options.some(offered)) {
      // nothing but what is chosen already: the widget missed the keys (typed while it was still opening), so
      // they are typed again, as a person would
      typeInto(typing, wanted);
      found = await awaitOptions(fields, before, wanted, deadline);
    }
    if (found.option) {
      const text = optionText(found.option);
      await clickElement(found.option, Math.max(0, deadline - performance.now()), 'choose');
      return { text };
    }
    if (!field && typing && !found.options.length) {
      // a combobox of its own offering nothing for the text (recipients, tags anyone may add) takes the
      // text as typed (no Escape: a combobox may clear its text on it)
      return { text: wanted, typed: true };
    }
    let seen = found.options.map(optionText);
    // a person who finds nothing shortens the search: what the first letters offer are the close matches
    const prefix = [...wanted].slice(0, 3).join('');
    if (typing && prefix !== wanted) {
      typeInto(typing, prefix);
      const shorter = await awaitOptions(fields, before, `\u0000${wanted}`, deadline);
      seen = seen.concat(shorter.options.map(optionText));
    }
    if (typing && isTextControl(typing)) typeInto(typing, '');
    closePopup(typing);
    const close = closeMatches(seen, wanted);
    const listed = close.length ? `; close matches: ${close.map((t) => JSON.stringify(t)).join(', ')}`
      : '; it offered no options for it';
    throw new AgentError('ELEMENT_NOT_FOUND', `No option ${JSON.stringify(wanted)} in ${describe(box)}${listed}`);
  }

  const REMOVER = /remove|delete|clear|close|×|✕|✖/i;

  /** The chosen items a widget shows as chips, each with the button that removes it: [{text, remover}]. */
  function chipsIn(root) {
    const chips = [];
    for (const button of root.querySelectorAll('button, a, [role="button"], [title], [aria-label]')) {
      const cls = typeof button.className === 'string' ? button.className : '';
      const said = `${button.getAttribute('aria-label') || ''} ${button.getAttribute('title') || ''} ${cls} ${button.textContent}`;
      if (!REMOVER.test(said) || !isVisible(button) || !button.parentElement) continue;
      const chip = button.parentElement;
      const text = collapse((chip.innerText || chip.textContent || '').replace(button.innerText || button.textContent || '', ''));
      if (text) chips.push({ text, remover: button, title: collapse(chip.getAttribute('title') || '') });
    }
    return chips;
  }

  /** The texts chosen in a widget: its <select>'s selected options, else the chips it shows. */
  function chosenTexts(field, box) {
    if (field instanceof HTMLSelectElement) {
      return [...field.selectedOptions].filter((o) => o.value !== '').map((o) => collapse(o.label || o.text));
    }
    return chipsIn(widgetRoot(box)).map((chip) => chip.text);
  }

  /** The element that removes a chosen item showing `text` (its chip's "Remove" or "×" button). */
  function removerFor(root, text) {
    const chip = chipsIn(root).find((c) => norm(c.text) === norm(text) || norm(c.title) === norm(text));
    return chip ? chip.remover : null;
  }

  function widgetRoot(box) {
    // a library's root, else the nearest ancestor holding the chosen items as well as the combobox: two
    // levels up at most
    const root = box.closest(UNMARKED_COMBOBOXES);
    if (root) return root;
    return box.parentElement && box.parentElement.parentElement ? box.parentElement.parentElement : box;
  }

  /**
   * Chooses `wanted` (texts) in the combobox `box`; `select` is the <select> it stands in for, if any,
   * whose selected options then show what was chosen (items chosen before and not wanted are removed).
   */
  async function choose(box, field, wanted, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    const multiple = !!field && isMultiple(field, box);
    if (wanted.length > 1 && !multiple) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${describe(box)} takes one option, ${wanted.length} were given`);
    }
    if (multiple) {
      for (const text of chosenTexts(field, box)) {
        if (wanted.some((w) => norm(w) === norm(text))) continue;
        const remover = removerFor(widgetRoot(box), text);
        if (!remover) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot remove ${JSON.stringify(text)} from ${describe(box)}: no remove button shows for it`);
        await clickElement(remover, Math.max(0, deadline - performance.now()), 'remove an item from');
      }
    }
    closePopup(null);
    const before = new Set(visibleListboxes());
    const chosen = [];
    for (const text of wanted) {
      if (multiple && chosenTexts(field, box).some((t) => norm(t) === norm(text))) {
        chosen.push(text);
        continue;
      }
      const value = field ? field.value : null;
      const picked = await chooseOne(box, field, text, before, deadline);
      chosen.push(picked.text);
      if (field) await selected(field, box, picked.text, value, deadline);
    }
    if (multiple) closePopup(null);
    return { selected: chosen };
  }

  /** Until the field behind the widget holds the chosen option (the library updates it a moment later): a
   * <select>'s selected options show its text; a hidden input's value (an id) has changed. */
  async function selected(field, box, text, before, deadline) {
    for (;;) {
      if (field instanceof HTMLSelectElement ? chosenTexts(field, box).some((t) => norm(t) === norm(text))
        : field.value !== before && field.value !== '') return;
      if (performance.now() >= deadline) {
        throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Clicking ${JSON.stringify(text)} in ${describe(box)} did not choose it`);
      }
      await sleep(POLL_MS);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Date pickers: typed where the input takes text, else picked in the calendar

  const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

  /** The calendar day an element stands for (its aria-label, title or data-date), as yyyy-mm-dd. */
  function dayOf(el) {
    for (const text of [el.getAttribute('data-date'), el.getAttribute('aria-label'), el.getAttribute('title')]) {
      if (!text) continue;
      if (ISO_DATE.test(text)) return text;
      if (/^\d{10,13}$/.test(text)) return isoOf(new Date(Number(text)));
      if (!/\d{4}/.test(text) || !/\d/.test(text.replace(/\d{4}/, ''))) continue;
      const time = Date.parse(text);
      if (!Number.isNaN(time)) return isoOf(new Date(time));
    }
    return null;
  }

  function isoOf(date) {
    const pad = (n) => String(n).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  }

  /** The visible day cells of an open calendar: [{el, day}]. */
  function calendarDays() {
    const cells = [];
    for (const el of document.querySelectorAll('[aria-label], [data-date], [title]')) {
      if (el instanceof HTMLInputElement || el.closest('form input')) continue;
      const day = dayOf(el);
      if (day && isVisible(el)) cells.push({ el, day });
    }
    return cells;
  }

  /** The calendar's button to the next or previous month: named so, or classed so, near its days. */
  function pager(days, forward) {
    const root = calendarRoot(days);
    const words = forward ? /next|forward|›|»|→/i : /prev|back|‹|«|←/i;
    for (const el of root.querySelectorAll('button, a, span, div, th, [role="button"]')) {
      if (el.children.length > 2 || !isVisible(el)) continue;
      const said = `${el.getAttribute('aria-label') || ''} ${el.getAttribute('title') || ''} ${typeof el.className === 'string' ? el.className : ''} ${el.children.length ? '' : el.textContent}`;
      if (words.test(said) && !/year/i.test(said)) return el;
    }
    return null;
  }

  /** Types the year into the calendar's year field (or picks it in a year list); false where it has none. */
  function setYear(days, year) {
    const root = calendarRoot(days);
    for (const el of root.querySelectorAll('input, select')) {
      const said = `${el.getAttribute('aria-label') || ''} ${el.getAttribute('title') || ''} ${typeof el.className === 'string' ? el.className : ''}`;
      if (!/year/i.test(said) || !isVisible(el)) continue;
      if (el instanceof HTMLSelectElement) {
        const option = [...el.options].find((o) => collapse(o.text) === year);
        if (!option) return false;
        focusElement(el);
        option.selected = true;
        fireInput(el, 'insertReplacementText', null);
        fireChange(el);
        return true;
      }
      typeInto(el, year);
      fireChange(el);
      return true;
    }
    return false;
  }

  function calendarRoot(days) {
    let root = days[0].el;
    for (let i = 0; i < 6 && root.parentElement; i += 1) root = root.parentElement;
    return root;
  }

  async function pickDate(input, value, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    if (!ISO_DATE.test(value)) {
      throw new AgentError('BAD_MESSAGE', `A date is written yyyy-mm-dd, not ${JSON.stringify(value)}`);
    }
    await clickElement(input, timeoutMs, 'open the calendar of');
    let triedYear = false;
    // the calendar as a person uses it; an input with no calendar showing takes the date typed
    const calendarDeadline = Math.min(deadline, performance.now() + CALENDAR_MS);
    for (let step = 0; step <= MAX_MONTH_STEPS; step += 1) {
      let days = calendarDays();
      while (!days.length && performance.now() < calendarDeadline) {
        await sleep(POLL_MS);
        days = calendarDays();
      }
      if (!days.length && !input.readOnly) {
        typeInto(input, value);
        fireChange(input);
        pressKey(input, 'Enter', []);
        input.blur();
        return { value: input.value };
      }
      if (!days.length) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `No calendar opened for ${describe(input)}`);
      const hit = days.find((d) => d.day === value);
      if (hit) {
        await clickElement(hit.el, Math.max(0, deadline - performance.now()), 'pick a day in');
        return { value: input.value };
      }
      if (value >= days[0].day && value <= days[days.length - 1].day) {
        throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${value} cannot be picked in the calendar of ${describe(input)}`);
      }
      const year = value.slice(0, 4);
      const shownYear = days[Math.floor(days.length / 2)].day.slice(0, 4);
      if (year !== shownYear && !triedYear) { // years away: the calendar's year field, as a person would
        triedYear = true;
        if (setYear(days, year)) {
          const was = days[0].day;
          while (performance.now() < deadline && (calendarDays()[0] || {}).day === was) await sleep(POLL_MS);
          continue;
        }
      }
      const forward = value > days[days.length - 1].day;
      const button = pager(days, forward);
      if (!button) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `The calendar of ${describe(input)} has no ${forward ? 'next' : 'previous'} month button`);
      const shown = days[0].day;
      await clickElement(button, Math.max(0, deadline - performance.now()), 'page the calendar of');
      while (performance.now() < deadline && (calendarDays()[0] || {}).day === shown) await sleep(POLL_MS);
    }
    throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${value} is too far from the month the calendar of ${describe(input)} shows`);
  }

  Object.assign(shared, { widgetOf, comboboxOf, isAutocomplete, datePickerFor, choose, pickDate });
})();
