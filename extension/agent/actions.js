// tabmcp page agent: act (one action, its actionability checks, dialog policy and bookkeeping),
// and point / rect for the service worker's trusted input.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    POLICY_EVENT, CHECKABLE_ROLES, AgentError, failure, collapse, sleep, framesPainted, flatParent,
    deepActiveElement, isVisible, hiddenReason, roleOf, checkedState, viewportSize, describe, checkTarget,
    resolveTarget, scrollIntoViewIfNeeded, waitActionable, timeoutOf, moveMouse, pointerClick, isTextControl,
    isEditable, setNativeValue, fireInput, fireBeforeInput, fireChange, editControl, insertEdit, insertText,
    execEdit, selectAllIn, caretToEnd, focusElement, parseKey, fireKey, pressKey, isCheckLike, isSubmitButton,
    submitForm, ownInput, insertLineBreak, replaceInEditor, caretToEndKeys, editingTarget, pointerSurface,
    isRichEditor, comboboxOf, choose, datePickerFor, pickDate, foldToggleOf,
  } = shared;
  // Defined by a later file: called through `shared` (by then every file has run).
  const flushConsole = () => shared.flushConsole();
  const settledVersion = () => shared.settledVersion();

  const POINT_POLICY_MS = 5000;
  // Input types whose value is the text typed (no sanitising to a format).
  const TEXT_INPUT_TYPES = new Set(['text', 'search', 'url', 'tel', 'email', 'password']);

  // -------------------------------------------------------------------------------------------
  // Dialog policy and the action's bookkeeping (dialogs seen, navigation started)

  const liveActions = new Set();

  function setDialogPolicy(mode, promptText, ms) {
    const detail = JSON.stringify({ mode, promptText: typeof promptText === 'string' ? promptText : null, ms });
    window.dispatchEvent(new CustomEvent(POLICY_EVENT, { detail }));
  }

  // A submitted form plans its navigation in a later task, queued apart from timers: its
  // `navigate` event is awaited, bounded, rather than assumed to come within one timer tick.
  const SUBMIT_NAVIGATION_MS = 1000;

  function beginAction(arg) {
    const record = { dialogs: [], navigation: null, submits: [], navigated: null };
    let navigated;
    record.navigated = new Promise((resolve) => { navigated = resolve; });
    const onNavigate = (event) => {
      if (record.navigation) return;
      const destination = event.destination;
      record.navigation = { url: destination.url, sameDocument: destination.sameDocument };
      navigated();
    };
    const onSubmit = (event) => { record.submits.push(event); };
    const nav = globalThis.navigation;
    if (nav) nav.addEventListener('navigate', onNavigate);
    window.addEventListener('submit', onSubmit, true);
    liveActions.add(record);
    setDialogPolicy(arg.dialog === 'accept' ? 'accept' : 'dismiss', arg.promptText);
    record.end = () => {
      if (nav) nav.removeEventListener('navigate', onNavigate);
      window.removeEventListener('submit', onSubmit, true);
      liveActions.delete(record);
      if (!liveActions.size) setDialogPolicy('dismiss', null);
    };
    return record;
  }

  /** A submit event that will navigate this window: not cancelled, not into another window, not a dialog form. */
  function navigatesHere(event) {
    if (event.defaultPrevented) return false;
    const form = event.target;
    const submitter = event.submitter;
    const method = (submitter && submitter.hasAttribute('formmethod') ? submitter.formMethod : form.method) || '';
    if (method.toLowerCase() === 'dialog') return false;
    const target = submitter && submitter.hasAttribute('formtarget')
      ? submitter.getAttribute('formtarget') : form.getAttribute('target');
    return !target || target === '_self' || (target === '_top' && window === window.top)
      || (target === '_parent' && window === window.parent);
  }

  // A navigation may be started by a handler a moment later: one setTimeout(0), no fixed grace;
  // a submitted form's navigation is awaited until it starts (bounded).
  async function settleAction(record) {
    if (!record.navigation) await sleep(0);
    if (!record.navigation && record.submits.some(navigatesHere) && globalThis.navigation) {
      await Promise.race([record.navigated, sleep(SUBMIT_NAVIGATION_MS)]);
    }
    const navigation = record.navigation;
    const nav = globalThis.navigation;
    // a same-origin router may have intercepted a cross-document navigation
    if (navigation && !navigation.sameDocument && nav && nav.transition && nav.currentEntry
      && nav.currentEntry.url === navigation.url) navigation.sameDocument = true;
  }

  // -------------------------------------------------------------------------------------------
  // act

  function needString(arg, field) {
    if (typeof arg[field] !== 'string') throw new AgentError('BAD_MESSAGE', `${arg.action} needs a string ${field}`);
    return arg[field];
  }

  async function actClick(arg, clicks) {
    const el = resolveTarget(arg.target);
    const point = await waitActionable(el, { enabled: true, pointer: true }, timeoutOf(arg), clicks === 2 ? 'double-click' : 'click');
    pointerClick(point.hit, point.x, point.y, clicks);
    return {};
  }

  async function actHover(arg) {
    const el = resolveTarget(arg.target);
    const point = await waitActionable(el, { pointer: true }, timeoutOf(arg), 'hover');
    moveMouse(point.hit, point.x, point.y);
    return {};
  }

  /** A field in a folded section is reached as a person reaches it: the section's toggle is clicked
   * first (dom.js, foldToggleOf); the field is then waited for as any other. */
  async function unfoldFor(el, arg) {
    const toggle = foldToggleOf(el);
    if (!toggle) return;
    const point = await waitActionable(toggle, { enabled: true, pointer: true }, timeoutOf(arg), 'unfold the section of a field with');
    pointerClick(point.hit, point.x, point.y, 1);
  }

  // An editor's key taker may be hidden (a code editor's textarea): its visible surface is checked.
  async function editableTarget(arg, verb) {
    const el = editingTarget(resolveTarget(arg.target));
    if (!isEditable(el)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${verb} ${describe(el)}: it is not a text field`);
    }
    await unfoldFor(el, arg);
    await waitActionable(pointerSurface(el), { enabled: true, enabledOf: el, editable: true }, timeoutOf(arg), verb);
    return el;
  }

  /** A password field: the server keeps the text out of its audit log (never the value itself). */
  const sensitiveTarget = (el) => (el instanceof HTMLInputElement && el.type === 'password' ? { sensitive: true } : {});

  async function actFill(arg, text) {
    // a date picker takes the date as its calendar gives it (typed where it takes text)
    const picker = text ? datePickerFor(resolveTarget(arg.target)) : null;
    if (picker) return pickDate(picker, text, timeoutOf(arg));
    const el = await editableTarget(arg, text ? 'fill' : 'clear');
    fillElement(el, text);
    return sensitiveTarget(el);
  }

  function fillElement(el, text) {
    focusElement(el);
    if (isTextControl(el) && !ownInput(el)) {
      if (!fireBeforeInput(el, 'insertReplacementText', text)) return;
      setNativeValue(el, text);
      if (el instanceof HTMLInputElement && !TEXT_INPUT_TYPES.has(el.type) && el.value !== text) {
        throw new AgentError('ELEMENT_NOT_INTERACTABLE',
          `Cannot fill ${describe(el)} with ${JSON.stringify(text)}: an input of type ${el.type} did not accept it (value is now ${JSON.stringify(el.value)})`);
      }
      fireInput(el, 'insertReplacementText', text);
      fireChange(el);
      return;
    }
    replaceInEditor(el, text);
  }

  async function actType(arg) {
    const text = needString(arg, 'text');
    const el = await editableTarget(arg, 'type into');
    focusElement(el);
    caretToEndKeys(el);
    const before = isTextControl(el) ? el.value : null;
    if (el.editContext) return typeIntoEditContext(el, text);
    for (const ch of text) {
      if (ch === '\n' && el instanceof HTMLInputElement) continue;
      const key = ch === '\n' ? 'Enter' : ch;
      let proceed = fireKey('keydown', el, key, {});
      if (proceed) proceed = fireKey('keypress', el, key, {});
      if (proceed) {
        if (ch === '\n') insertLineBreak(el);
        else insertText(el, ch);
      }
      fireKey('keyup', el, key, {});
    }
    if (before !== null && el.value !== before) fireChange(el);
    return sensitiveTarget(el);
  }

  // An EditContext takes text only from the browser's own typing: the keys are fired one by one, the
  // text goes in once, as a paste (pastes in a row would race the editor's own updates).
  function typeIntoEditContext(el, text) {
    for (const ch of text) {
      const key = ch === '\n' ? 'Enter' : ch;
      fireKey('keydown', el, key, {});
      fireKey('keyup', el, key, {});
    }
    insertText(el, text);
    return {};
  }

  async function actSelect(arg) {
    let wanted;
    if (Array.isArray(arg.values)) wanted = arg.values;
    else if (arg.value !== undefined && arg.value !== null) wanted = [arg.value];
    // an empty list of values (a multiple select left with none chosen) is a choice too
    if (!wanted || (!wanted.length && !Array.isArray(arg.values)) || !wanted.every((v) => typeof v === 'string')) {
      throw new AgentError('BAD_MESSAGE', 'select needs a string value or a list of string values');
    }
    const el = resolveTarget(arg.target);
    // a combobox (a library's in place of a <select>, or one offering options as one types): chosen as a
    // person chooses, by typing and clicking the option whose visible text is wanted
    const standIn = comboboxOf(el); // a <select>'s (or hidden input's) combobox
    const box = standIn || (el.getAttribute('role') === 'combobox' ? el : null);
    if (box) return choose(box, standIn ? el : null, wanted, timeoutOf(arg));
    if (!(el instanceof HTMLSelectElement)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot select in ${describe(el)}: it is not a <select> or a combobox (click its options instead)`);
    }
    await unfoldFor(el, arg);
    await waitActionable(el, { enabled: true }, timeoutOf(arg), 'select in');
    const options = [...el.options];
    const chosen = wanted.map((value) => {
      const needle = collapse(value).toLowerCase();
      const option = options.find((o) => o.value === value)
        || options.find((o) => collapse(o.label || o.text).toLowerCase() === needle);
      if (!option) {
        const listed = options.map((o) => `${JSON.stringify(collapse(o.label || o.text))} (value ${JSON.stringify(o.value)})`);
        throw new AgentError('ELEMENT_NOT_FOUND',
          `No option ${JSON.stringify(value)} in ${describe(el)}; its options: ${listed.join(', ') || 'none'}`);
      }
      if (option.disabled) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Option ${JSON.stringify(value)} is disabled`);
      return option;
    });
    if (chosen.length !== 1 && !el.multiple) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `${describe(el)} takes one option, ${chosen.length} were given`);
    }
    focusElement(el);
    if (el.multiple) for (const option of options) option.selected = chosen.includes(option);
    else chosen[0].selected = true;
    fireInput(el, 'insertReplacementText', null);
    fireChange(el);
    return { selected: chosen.map((o) => o.value) };
  }

  function checkedNow(el, role) {
    return checkedState(el, role) === 'checked';
  }

  async function actCheck(arg, wanted) {
    const el = resolveTarget(arg.target);
    const role = roleOf(el);
    const native = isCheckLike(el);
    if (!native && !CHECKABLE_ROLES.has(role)) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot ${arg.action} ${describe(el)}: it is not a checkbox, radio or switch`);
    }
    if (checkedNow(el, role) === wanted) return {};
    if (!wanted && (role === 'radio' || role === 'menuitemradio')) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot uncheck ${describe(el)}: a radio is unchecked by checking another one`);
    }
    await unfoldFor(el, arg);
    // a visually hidden native checkbox is clicked through its label, as a user would
    let target = el;
    if (native && !isVisible(el) && el.labels) target = [...el.labels].find(isVisible) || el;
    const point = await waitActionable(target, { enabled: true, enabledOf: el, pointer: true }, timeoutOf(arg), arg.action);
    pointerClick(point.hit, point.x, point.y, 1);
    if (checkedNow(el, role) !== wanted) await sleep(0); // a framework may update on the next task
    if (checkedNow(el, role) !== wanted) {
      throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Clicking ${describe(el)} did not ${arg.action} it`);
    }
    return {};
  }

  async function actPress(arg) {
    const { key, modifiers } = parseKey(needString(arg, 'key'));
    let el;
    if (arg.target) {
      el = resolveTarget(arg.target);
      await waitActionable(pointerSurface(el), {}, timeoutOf(arg), 'press a key on');
      focusElement(el);
    }
    el = deepActiveElement() || document.body || document.documentElement;
    pressKey(el, key, modifiers);
    return {};
  }

  /** The nearest ancestor (or el) that scrolls vertically/horizontally, else the page. */
  function scrollerFor(el, vertical) {
    for (let n = el; n && n !== document.body && n !== document.documentElement; n = flatParent(n)) {
      const overflow = getComputedStyle(n)[vertical ? 'overflowY' : 'overflowX'];
      const room = vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth;
      if (room && (overflow === 'auto' || overflow === 'scroll')) return n;
    }
    return null;
  }

  async function actScroll(arg) {
    const el = arg.target ? resolveTarget(arg.target) : null;
    const direction = arg.direction;
    if (direction === undefined || direction === null) {
      if (!el) throw new AgentError('BAD_MESSAGE', 'scroll needs a target or a direction');
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return { scroll: pagePosition() };
    }
    if (!['up', 'down', 'left', 'right'].includes(direction)) {
      throw new AgentError('BAD_MESSAGE', 'direction is up, down, left or right');
    }
    const vertical = direction === 'up' || direction === 'down';
    const scroller = el ? scrollerFor(el, vertical) : null;
    const viewport = viewportSize();
    const page = vertical ? viewport.height : viewport.width;
    const amount = typeof arg.amount === 'number' && arg.amount > 0 ? arg.amount
      : scroller ? (vertical ? scroller.clientHeight : scroller.clientWidth) : page;
    const sign = direction === 'up' || direction === 'left' ? -1 : 1;
    const delta = { left: vertical ? 0 : sign * amount, top: vertical ? sign * amount : 0, behavior: 'instant' };
    if (scroller) {
      scroller.scrollBy(delta);
      return { scroll: { x: scroller.scrollLeft, y: scroller.scrollTop } };
    }
    window.scrollBy(delta);
    return { scroll: pagePosition() };
  }

  function pagePosition() {
    return { x: Math.round(window.scrollX), y: Math.round(window.scrollY) };
  }

  function formOf(el) {
    const form = el instanceof HTMLFormElement ? el : el.closest('form') || el.form;
    if (!form) throw new AgentError('ELEMENT_NOT_FOUND', `${describe(el)} is not a form and is not inside one`);
    return form;
  }

  async function actSubmit(arg) {
    const el = resolveTarget(arg.target);
    const form = formOf(el);
    const submitter = isSubmitButton(el) && el.form === form && !el.disabled ? el : null;
    submitForm(form, submitter);
    return {};
  }

  const ACT_HANDLERS = {
    click: (arg) => actClick(arg, 1),
    dblclick: (arg) => actClick(arg, 2),
    hover: actHover,
    fill: (arg) => actFill(arg, needString(arg, 'text')),
    clear: (arg) => actFill(arg, ''),
    type: actType,
    select: actSelect,
    check: (arg) => actCheck(arg, true),
    uncheck: (arg) => actCheck(arg, false),
    press: actPress,
    scroll: actScroll,
    submit: actSubmit,
  };
  const TARGETED = new Set(['click', 'dblclick', 'hover', 'fill', 'clear', 'type', 'select', 'check', 'uncheck', 'submit']);

  /** One action: {ok: true, navigation?, dialogs, ...} or {ok: false, code, message, candidates?}. */
  async function act(arg) {
    try {
      if (!arg || typeof arg !== 'object' || !Object.hasOwn(ACT_HANDLERS, arg.action)) {
        throw new AgentError('BAD_MESSAGE', `Unknown action ${JSON.stringify(arg && arg.action)}`);
      }
      if (TARGETED.has(arg.action)) checkTarget(arg.target);
      const record = beginAction(arg);
      try {
        const extra = await ACT_HANDLERS[arg.action](arg);
        await settleAction(record);
        const result = { ok: true, ...extra, dialogs: record.dialogs };
        if (record.navigation) {
          result.navigation = record.navigation;
        } else { // where the page is now, and its version: the server need not ask again
          result.url = location.href;
          result.title = document.title;
          const version = settledVersion();
          if (version) result.version = version;
        }
        return result;
      } finally {
        record.end();
        flushConsole(); // what the action logged reaches the worker before its answer does
      }
    } catch (e) {
      return failure(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // point, rect

  const POINT_CHECKS = {
    click: { enabled: true, pointer: true },
    dblclick: { enabled: true, pointer: true },
    check: { enabled: true, pointer: true },
    uncheck: { enabled: true, pointer: true },
    hover: { pointer: true },
    fill: { enabled: true, editable: true, pointer: true },
    type: { enabled: true, editable: true, pointer: true },
    clear: { enabled: true, editable: true, pointer: true },
    select: { enabled: true, pointer: true },
  };

  const EDITING_ACTIONS = new Set(['fill', 'type', 'clear']);

  /** Select-all and typed text replace its value: an editor, a textarea, a text-like input (not a date,
   * number, colour or range input, whose value typing does not set the same way). */
  function takesTypedText(el) {
    return isRichEditor(el) || el instanceof HTMLTextAreaElement
      || (el instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(el.type));
  }

  /** Where trusted input should land: the centre of the element once it is actionable. */
  async function point(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'point needs {target}');
      const target = resolveTarget(arg.target);
      const action = typeof arg.action === 'string' && POINT_CHECKS[arg.action] ? arg.action : 'click';
      // a code editor's hidden textarea is reached where the editor shows
      const el = EDITING_ACTIONS.has(action) ? editingTarget(target) : target;
      // a date picker takes its date from its calendar, not from typed text (widgets.js): the agent fills it
      const picker = action === 'fill' ? datePickerFor(target) : null;
      const checks = picker ? { enabled: true, pointer: true } : { ...POINT_CHECKS[action], enabledOf: el };
      const found = await waitActionable(picker || pointerSurface(el), checks, timeoutOf(arg), action);
      // trusted input is routed by the browser from what was last painted: let the scroll show
      if (found.scrolled) await framesPainted();
      // dialogs opened by the trusted input that follows answer by this policy for a while
      if (arg.dialog === 'accept' || arg.dialog === 'dismiss') setDialogPolicy(arg.dialog, arg.promptText, POINT_POLICY_MS);
      const { rect } = found;
      const answer = { ok: true, x: found.x, y: found.y, rect: plainRect(rect), ...sensitiveTarget(el) };
      if (EDITING_ACTIONS.has(action)) answer.textEntry = !picker && takesTypedText(el);
      return answer;
    } catch (e) {
      return failure(e);
    }
  }

  function plainRect(rect) {
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  }

  function rect(arg) {
    try {
      if (!arg || typeof arg !== 'object') throw new AgentError('BAD_MESSAGE', 'rect needs {target}');
      const el = resolveTarget(arg.target);
      if (!isVisible(el)) throw new AgentError('ELEMENT_NOT_INTERACTABLE', `Cannot measure ${describe(el)}: ${hiddenReason(el)}`);
      return { ok: true, rect: plainRect(scrollIntoViewIfNeeded(el)), dpr: window.devicePixelRatio || 1 };
    } catch (e) {
      return failure(e);
    }
  }

  Object.assign(shared, {
    liveActions, beginAction, settleAction, act, point, rect,
  });
})();
