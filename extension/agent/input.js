// tabmcp page agent: synthetic input, the events a user's pointer and keyboard would fire and the
// browser's default actions for them.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;
  const {
    SKIPPED_TAGS, AgentError, forEachChild, flatParent, deepActiveElement, isRendered, explicitRole, isFocusable,
    isDisabled, isReadOnly, drawnEditorOf,
  } = shared;

  const UNFILLABLE_INPUT_TYPES = new Set(['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'hidden']);
  // Fields that block implicit submission (HTML: "a field that blocks implicit submission").
  const IMPLICIT_SUBMISSION_BLOCKERS = new Set([
    'text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number',
  ]);

  // -------------------------------------------------------------------------------------------
  // Synthetic input

  let lastHovered = null; // WeakRef of the element the last pointer action ended on

  function mouseInit(x, y, extra) {
    return {
      bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y,
      screenX: x + window.screenX, screenY: y + window.screenY, button: 0, buttons: 0, ...extra,
    };
  }

  function pointerInit(x, y, extra) {
    return { ...mouseInit(x, y, extra), pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1 };
  }

  const firePointer = (type, el, x, y, extra) => el.dispatchEvent(new PointerEvent(type, pointerInit(x, y, extra)));
  const fireMouse = (type, el, x, y, extra) => el.dispatchEvent(new MouseEvent(type, mouseInit(x, y, extra)));

  /** pointerover, pointerenter, mouseover, mouseenter, pointermove, mousemove (and out/leave first). */
  function moveMouse(target, x, y) {
    const previous = lastHovered && lastHovered.deref();
    if (previous && previous !== target && previous.isConnected) {
      firePointer('pointerout', previous, x, y, { relatedTarget: target });
      firePointer('pointerleave', previous, x, y, { relatedTarget: target, bubbles: false, cancelable: false });
      fireMouse('mouseout', previous, x, y, { relatedTarget: target });
      fireMouse('mouseleave', previous, x, y, { relatedTarget: target, bubbles: false, cancelable: false });
    }
    const from = previous && previous !== target ? previous : null;
    firePointer('pointerover', target, x, y, { relatedTarget: from });
    firePointer('pointerenter', target, x, y, { relatedTarget: from, bubbles: false, cancelable: false });
    fireMouse('mouseover', target, x, y, { relatedTarget: from });
    fireMouse('mouseenter', target, x, y, { relatedTarget: from, bubbles: false, cancelable: false });
    firePointer('pointermove', target, x, y);
    fireMouse('mousemove', target, x, y);
    lastHovered = new WeakRef(target);
  }

  function focusableAncestor(el) {
    for (let n = el; n; n = flatParent(n)) if (isFocusable(n)) return n;
    return null;
  }

  // A mousedown moves focus to the clicked element's focusable ancestor, or away to the body.
  function focusOnPointerDown(target) {
    const focusable = focusableAncestor(target);
    const active = deepActiveElement();
    if (focusable) {
      if (focusable !== active) focusable.focus({ preventScroll: true });
    } else if (active && active !== document.body && typeof active.blur === 'function') {
      active.blur();
    }
  }

  /** The full click sequence at (x, y) on target; clicks = 2 adds the second click and dblclick. */
  function pointerClick(target, x, y, clicks) {
    moveMouse(target, x, y);
    for (let detail = 1; detail <= clicks; detail++) {
      const down = firePointer('pointerdown', target, x, y, { buttons: 1, pressure: 0.5 });
      // a cancelled pointerdown suppresses the compatibility mouse events, not the click
      let mousedown = true;
      if (down) mousedown = fireMouse('mousedown', target, x, y, { buttons: 1, detail });
      if (mousedown && detail === 1) focusOnPointerDown(target);
      firePointer('pointerup', target, x, y);
      if (down) fireMouse('mouseup', target, x, y, { detail });
      if (!target.isConnected) return;
      fireMouse('click', target, x, y, { detail });
    }
    if (clicks === 2 && target.isConnected) fireMouse('dblclick', target, x, y, { detail: 2 });
  }

  // -- text editing

  function isTextControl(el) {
    return (el instanceof HTMLInputElement && !UNFILLABLE_INPUT_TYPES.has(el.type)) || el instanceof HTMLTextAreaElement;
  }

  function isEditable(el) {
    return isTextControl(el) || (el instanceof HTMLElement && (el.isContentEditable || !!el.editContext));
  }

  // Takes its text through its own input handling (a code editor's hidden textarea, an EditContext):
  // edited with the browser's editing commands and keys, never by setting a value.
  const ownInput = (el) => !!el.editContext || !!drawnEditorOf(el);

  // The prototype's setter, not el.value = …: frameworks (React) wrap the instance property and
  // would otherwise miss the change.
  function setNativeValue(el, value) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype
      : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
  }

  function fireInput(el, inputType, data) {
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType, data }));
  }

  function fireBeforeInput(el, inputType, data) {
    return el.dispatchEvent(new InputEvent('beforeinput', {
      bubbles: true, cancelable: true, composed: true, inputType, data,
    }));
  }

  function fireChange(el) {
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  // email and number inputs have no selection API: "select all" is remembered here instead.
  const selectedAll = new WeakSet();

  function selectionOf(el) {
    try {
      if (el.selectionStart !== null) return { start: el.selectionStart, end: el.selectionEnd };
    } catch {
      // no selection API for this input type
    }
    const length = el.value.length;
    return selectedAll.has(el) ? { start: 0, end: length } : { start: length, end: length };
  }

  function setCaret(el, position) {
    selectedAll.delete(el);
    try {
      el.setSelectionRange(position, position);
    } catch {
      // no selection API for this input type
    }
  }

  /** Edits a text control like a keystroke: beforeinput, value via the native setter, input. */
  function editControl(el, inputType, data, edit) {
    const value = el.value;
    const { start, end } = selectionOf(el);
    const result = edit(value, start, end);
    if (!result) return false;
    if (!fireBeforeInput(el, inputType, data)) return false;
    setNativeValue(el, result[0]);
    setCaret(el, result[1]);
    fireInput(el, inputType, data);
    return true;
  }

  const insertEdit = (text) => (value, start, end) => [value.slice(0, start) + text + value.slice(end), start + text.length];
  const backspaceEdit = (value, start, end) => {
    if (start !== end) return [value.slice(0, start) + value.slice(end), start];
    return start > 0 ? [value.slice(0, start - 1) + value.slice(start), start - 1] : null;
  };
  const deleteEdit = (value, start, end) => {
    if (start !== end) return [value.slice(0, start) + value.slice(end), start];
    return start < value.length ? [value.slice(0, start) + value.slice(start + 1), start] : null;
  };

  function insertText(el, text) {
    if (ownInput(el)) return editorInsert(el, text);
    if (isTextControl(el)) return editControl(el, 'insertText', text, insertEdit(text));
    if (el.isContentEditable) return execEdit(el, 'insertText', text);
    return false;
  }

  /** Text into an editor with its own input handling: the browser's insertText command (beforeinput and
   * input as typing fires them); a paste where the element takes text through an EditContext, which
   * editing commands do not reach. */
  function editorInsert(el, text) {
    focusElement(el);
    if (!el.editContext && document.execCommand('insertText', false, text)) return true;
    const data = new DataTransfer();
    data.setData('text/plain', text);
    return !el.dispatchEvent(new ClipboardEvent('paste', {
      clipboardData: data, bubbles: true, cancelable: true, composed: true,
    }));
  }

  /** Deletes the selection (or the character before the caret) in an editor with its own input handling. */
  function editorDelete(el, forward) {
    focusElement(el);
    if (!el.editContext) return document.execCommand(forward ? 'forwardDelete' : 'delete');
    return false; // an EditContext editor deletes in its own key handling, which the keydown reached
  }

  /** A line break where the user pressed Enter in a multi-line editable. */
  function insertLineBreak(el) {
    if (ownInput(el)) return editorInsert(el, '\n');
    if (el instanceof HTMLTextAreaElement) return editControl(el, 'insertLineBreak', null, insertEdit('\n'));
    if (el.isContentEditable) return execEdit(el, 'insertParagraph');
    return false;
  }

  // Select all, line start and end: Meta on a Mac, Control elsewhere (as the editors bind "Mod").
  const PRIMARY_MODIFIER = /Mac|iPhone|iPad/.test(navigator.platform) ? 'Meta' : 'Control';

  /** Everything in el selected as a user selects it: Mod+A, which an editor handles itself (its whole
   * document, drawn or not), the browser's select-all where nothing handled it. */
  function selectAllKeys(el) {
    focusElement(el);
    pressKey(el, 'a', [PRIMARY_MODIFIER]);
  }

  /** fill and clear on an editor: select all, then type the text over it (or delete it). */
  function replaceInEditor(el, text) {
    selectAllKeys(el);
    if (text) {
      insertText(el, text);
      return;
    }
    if (ownInput(el)) {
      if (!fireKey('keydown', el, 'Backspace', {}) || editorDelete(el, false)) {
        fireKey('keyup', el, 'Backspace', {});
        return;
      }
      fireKey('keyup', el, 'Backspace', {});
      return;
    }
    if (!document.execCommand('delete')) {
      el.textContent = '';
      fireInput(el, 'deleteContentBackward', null);
    }
  }

  /** The caret to the end of el's text: Mod+End in an editor (its document's end), directly elsewhere. */
  function caretToEndKeys(el) {
    if (ownInput(el) || el.isContentEditable) pressKey(el, 'End', [PRIMARY_MODIFIER]);
    else caretToEnd(el);
  }

  /** contenteditable editing through the browser's own editing commands. */
  function execEdit(el, command, value) {
    if (deepActiveElement() !== el && !el.contains(deepActiveElement())) el.focus();
    if (document.execCommand(command, false, value)) return true;
    // execCommand refused (no selection): fall back to a plain text edit at the end
    if (command === 'insertText') el.append(value);
    else if (command === 'delete' && el.lastChild && el.lastChild.nodeType === Node.TEXT_NODE) {
      el.lastChild.data = el.lastChild.data.slice(0, -1);
    } else return false;
    fireInput(el, command === 'insertText' ? 'insertText' : 'deleteContentBackward', command === 'insertText' ? value : null);
    return true;
  }

  function selectAllIn(el) {
    if (isTextControl(el)) {
      selectedAll.add(el);
      if (typeof el.select === 'function') el.select();
      return;
    }
    const selection = getSelection();
    if (selection) selection.selectAllChildren(el.isContentEditable ? el : document.body || document.documentElement);
  }

  function caretToStart(el) {
    if (isTextControl(el)) {
      setCaret(el, 0);
      return;
    }
    const selection = getSelection();
    if (selection && el.isContentEditable) {
      selection.selectAllChildren(el);
      selection.collapseToStart();
    }
  }

  /** Escape's default: the topmost modal dialog gets a cancel event and closes unless it is cancelled. */
  function closeModalDialog() {
    const modal = [...document.querySelectorAll('dialog[open]')].filter((d) => d.matches(':modal')).pop();
    if (modal && modal.dispatchEvent(new Event('cancel', { cancelable: true }))) modal.close();
  }

  function caretToEnd(el) {
    if (isTextControl(el)) {
      setCaret(el, el.value.length);
      return;
    }
    const selection = getSelection();
    if (selection && el.isContentEditable) {
      selection.selectAllChildren(el);
      selection.collapseToEnd();
    }
  }

  function focusElement(el) {
    if (deepActiveElement() !== el && typeof el.focus === 'function') el.focus({ preventScroll: true });
  }

  // -- keys

  const KEY_ALIASES = {
    enter: 'Enter', return: 'Enter', tab: 'Tab', escape: 'Escape', esc: 'Escape', backspace: 'Backspace',
    delete: 'Delete', del: 'Delete', space: ' ', arrowleft: 'ArrowLeft', arrowright: 'ArrowRight',
    arrowup: 'ArrowUp', arrowdown: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight', up: 'ArrowUp',
    down: 'ArrowDown', home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown', insert: 'Insert',
  };
  const MODIFIER_ALIASES = {
    control: 'Control', ctrl: 'Control', controlormeta: 'Control', shift: 'Shift', alt: 'Alt', option: 'Alt',
    meta: 'Meta', cmd: 'Meta', command: 'Meta', super: 'Meta',
  };
  const MODIFIER_FLAGS = { Control: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey' };
  const NAMED_KEY_CODES = {
    Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, ' ': 32, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39,
    ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34, Insert: 45, Control: 17, Shift: 16, Alt: 18, Meta: 91,
  };
  const PUNCTUATION_CODES = {
    ',': ['Comma', 188], '.': ['Period', 190], '/': ['Slash', 191], ';': ['Semicolon', 186], "'": ['Quote', 222],
    '[': ['BracketLeft', 219], ']': ['BracketRight', 221], '\\': ['Backslash', 220], '-': ['Minus', 189],
    '=': ['Equal', 187], '`': ['Backquote', 192],
  };

  /** "Control+Shift+a" -> {key: "A", modifiers: ["Control", "Shift"]}; "+" and "Control++" work too. */
  function parseKey(text) {
    let parts;
    if (text === '+') parts = ['+'];
    else if (text.endsWith('++')) parts = [...text.slice(0, -2).split('+'), '+'];
    else parts = text.split('+');
    let key = parts.pop();
    if (!key) throw new AgentError('BAD_MESSAGE', `Unknown key ${JSON.stringify(text)}`);
    const modifiers = [];
    for (const part of parts) {
      const modifier = MODIFIER_ALIASES[part.toLowerCase()];
      if (!modifier) throw new AgentError('BAD_MESSAGE', `Unknown modifier ${JSON.stringify(part)} in key ${JSON.stringify(text)}`);
      if (!modifiers.includes(modifier)) modifiers.push(modifier);
    }
    if ([...key].length > 1) {
      const lower = key.toLowerCase();
      if (KEY_ALIASES[lower]) key = KEY_ALIASES[lower];
      else if (MODIFIER_ALIASES[lower]) key = MODIFIER_ALIASES[lower];
      else if (/^f([1-9]|1[0-2])$/.test(lower)) key = key.toUpperCase();
      else throw new AgentError('BAD_MESSAGE', `Unknown key ${JSON.stringify(key)}`);
    }
    // a letter's key follows Shift: "Shift+a" is "A", "Control+A" is "a" (as a keyboard sends them)
    if (modifiers.includes('Shift') && /^[a-z]$/.test(key)) key = key.toUpperCase();
    else if (modifiers.length && !modifiers.includes('Shift') && /^[A-Z]$/.test(key)) key = key.toLowerCase();
    return { key, modifiers };
  }

  function keyCodes(key) {
    if (NAMED_KEY_CODES[key] !== undefined) {
      const code = { ' ': 'Space', Control: 'ControlLeft', Shift: 'ShiftLeft', Alt: 'AltLeft', Meta: 'MetaLeft' }[key] || key;
      return { code, keyCode: NAMED_KEY_CODES[key] };
    }
    if (/^F\d+$/.test(key)) return { code: key, keyCode: 111 + Number(key.slice(1)) };
    if (/^[a-z]$/i.test(key)) return { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0) };
    if (/^[0-9]$/.test(key)) return { code: `Digit${key}`, keyCode: key.charCodeAt(0) };
    if (PUNCTUATION_CODES[key]) return { code: PUNCTUATION_CODES[key][0], keyCode: PUNCTUATION_CODES[key][1] };
    return { code: '', keyCode: 0 };
  }

  function fireKey(type, el, key, flags) {
    const { code, keyCode } = keyCodes(key);
    const charCode = type === 'keypress' ? (key === 'Enter' ? 13 : key.charCodeAt(0)) : 0;
    return el.dispatchEvent(new KeyboardEvent(type, {
      key, code, keyCode: type === 'keypress' ? charCode : keyCode, which: type === 'keypress' ? charCode : keyCode,
      charCode, bubbles: true, cancelable: true, composed: true, view: window, ...flags,
    }));
  }

  const isPrintable = (key) => [...key].length === 1;

  /** keydown/keypress/keyup for one key with held modifiers, then its default action. */
  function pressKey(el, key, modifiers) {
    const flags = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
    for (const modifier of modifiers) {
      flags[MODIFIER_FLAGS[modifier]] = true;
      fireKey('keydown', el, modifier, { ...flags });
    }
    const shortcut = flags.ctrlKey || flags.metaKey || flags.altKey;
    let proceed = fireKey('keydown', el, key, { ...flags });
    if (proceed && !shortcut && (isPrintable(key) || key === 'Enter')) proceed = fireKey('keypress', el, key, { ...flags });
    const afterKeyup = proceed ? keyDefault(el, key, flags, shortcut) : null;
    fireKey('keyup', el, key, { ...flags });
    if (afterKeyup) afterKeyup();
    for (const modifier of [...modifiers].reverse()) {
      flags[MODIFIER_FLAGS[modifier]] = false;
      fireKey('keyup', el, modifier, { ...flags });
    }
  }

  function isButtonLike(el) {
    return el instanceof HTMLButtonElement || el.localName === 'summary'
      || (el instanceof HTMLInputElement && ['button', 'submit', 'reset', 'image', 'checkbox', 'radio'].includes(el.type))
      || ['button', 'checkbox', 'radio', 'switch', 'menuitem', 'tab', 'option'].includes(explicitRole(el));
  }

  /** The browser's default action for a key on el; may return work to do after keyup (Space). */
  function keyDefault(el, key, flags, shortcut) {
    const editable = isEditable(el) && !isReadOnly(el) && !isDisabled(el);
    if (key === 'Tab') {
      moveFocus(el, flags.shiftKey);
      return null;
    }
    if ((key === 'a' || key === 'A') && (flags.ctrlKey || flags.metaKey)) {
      selectAllIn(el);
      return null;
    }
    if ((key === 'End' || key === 'Home') && (flags.ctrlKey || flags.metaKey) && editable && !ownInput(el)) {
      if (key === 'End') caretToEnd(el);
      else caretToStart(el);
      return null;
    }
    if (key === 'Escape') {
      closeModalDialog();
      return null;
    }
    if (shortcut) return null;
    if (key === 'Enter') {
      if (el instanceof HTMLInputElement && isTextControl(el)) implicitSubmission(el);
      else if (editable && !(el instanceof HTMLInputElement)) insertLineBreak(el);
      else if ((el instanceof HTMLAnchorElement && el.hasAttribute('href')) || (isButtonLike(el) && !isCheckLike(el))) el.click();
      return null;
    }
    if (key === ' ' && isButtonLike(el) && !editable) return () => el.click();
    if (!editable) return null;
    if (key === 'Backspace' || key === 'Delete') {
      const forward = key === 'Delete';
      if (ownInput(el)) editorDelete(el, forward);
      else if (isTextControl(el)) editControl(el, forward ? 'deleteContentForward' : 'deleteContentBackward', null, forward ? deleteEdit : backspaceEdit);
      else execEdit(el, forward ? 'forwardDelete' : 'delete');
    } else if (isTextControl(el) && !ownInput(el) && ['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(key)) {
      const { start, end } = selectionOf(el);
      const length = el.value.length;
      const position = { ArrowLeft: start === end ? Math.max(0, start - 1) : start,
        ArrowRight: start === end ? Math.min(length, end + 1) : end, Home: 0, End: length }[key];
      setCaret(el, position);
    } else if (isPrintable(key)) {
      insertText(el, key);
    }
    return null;
  }

  function isCheckLike(el) {
    return el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
  }

  function isSubmitButton(el) {
    return (el instanceof HTMLButtonElement && el.type === 'submit')
      || (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
  }

  /** Enter in a form's text field: click the default button, or submit a one-field form. */
  function implicitSubmission(field) {
    const form = field.form;
    if (!form) return;
    const elements = [...form.elements];
    const button = elements.find(isSubmitButton);
    if (button) {
      if (!button.disabled) button.click();
      return;
    }
    const blockers = elements.filter((e) => e instanceof HTMLInputElement && IMPLICIT_SUBMISSION_BLOCKERS.has(e.type));
    if (blockers.length <= 1) submitForm(form, null);
  }

  /** Sequential focus navigation: tabindex > 0 in order, then the rest in tree order. */
  function moveFocus(from, backwards) {
    const order = [];
    const visit = (parent) => {
      forEachChild(parent, true, (el) => {
        if (SKIPPED_TAGS.has(el.localName)) return;
        if (el.tabIndex >= 0 && isFocusable(el) && isRendered(el)) order.push(el);
        if (el.localName !== 'iframe') visit(el);
      });
    };
    if (document.body) visit(document.body);
    if (!order.length) return;
    const positive = order.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
    const sequence = [...positive, ...order.filter((el) => el.tabIndex === 0)];
    const index = sequence.indexOf(from);
    let next;
    if (index < 0) next = backwards ? sequence[sequence.length - 1] : sequence[0];
    else next = sequence[(index + (backwards ? -1 : 1) + sequence.length) % sequence.length];
    next.focus();
    if (isTextControl(next) && typeof next.select === 'function') next.select();
  }

  // requestSubmit runs validation and submit handlers as a user's submit would; the submitter
  // adds its name/value to the form data.
  function submitForm(form, submitter) {
    if (typeof form.requestSubmit !== 'function') form.submit();
    else if (submitter) form.requestSubmit(submitter);
    else form.requestSubmit();
  }

  Object.assign(shared, {
    moveMouse, pointerClick, isTextControl, isEditable, setNativeValue, fireInput, fireBeforeInput, fireChange,
    editControl, insertEdit, insertText, execEdit, selectAllIn, caretToEnd, focusElement, parseKey, fireKey,
    pressKey, isCheckLike, isSubmitButton, submitForm, ownInput, insertLineBreak, replaceInEditor, caretToEndKeys,
  });
})();
