// tabmcp page agent: editors that draw their own text (code and rich-text editors): where their text
// shows, and which element takes their keys.
(() => {
  'use strict';

  const shared = globalThis.__tabmcpParts;
  if (globalThis.__tabmcpAgent || !shared) return;

  // Editors whose keys go to a hidden textarea (or an EditContext element) while their text is drawn in
  // line elements: the one list of editor roots (docs/page-agent.md, Editors). A contenteditable editor
  // (CodeMirror 6, ProseMirror, Lexical, Quill…) needs no entry: its text is its own.
  const DRAWN_EDITORS = [
    { root: '.CodeMirror', lines: '.CodeMirror-code .CodeMirror-line' }, // CodeMirror 5
    { root: '.ace_editor', lines: '.ace_text-layer .ace_line' }, // Ace
    { root: '.monaco-editor', lines: '.view-lines .view-line' }, // Monaco
  ];
  const DRAWN_ROOTS = DRAWN_EDITORS.map((e) => e.root).join(',');
  // the element in a drawn editor that takes its keys
  const KEY_TAKERS = 'textarea:not([readonly]):not([aria-hidden="true"]), [role="textbox"], [contenteditable]';

  /** The drawn editor el belongs to (el its root, its key taker or anything inside): {root, lines, input}. */
  function drawnEditorOf(el) {
    if (!(el instanceof Element)) return null;
    const root = el.closest(DRAWN_ROOTS);
    if (!root) return null;
    const kind = DRAWN_EDITORS.find((e) => root.matches(e.root));
    const input = root.querySelector(KEY_TAKERS);
    return input ? { root, lines: kind.lines, input } : null;
  }

  const cleanLine = (text) => text.replace(/\u200b/g, '').replace(/\u00a0/g, ' ');

  /** The text an editor shows, one line per drawn line (lines in the order they stand on screen). */
  function drawnText(editor) {
    const lines = [...editor.root.querySelectorAll(editor.lines)]
      .map((line) => ({ line, top: line.getBoundingClientRect().top }));
    lines.sort((a, b) => a.top - b.top);
    return lines.map(({ line }) => cleanLine(line.textContent)).join('\n');
  }

  /** An editor's text: a drawn editor's lines, or a contenteditable's text as it shows (a block a line);
   * null for anything else. */
  function editorText(el) {
    const drawn = drawnEditorOf(el);
    if (drawn) return drawnText(drawn);
    if (el instanceof HTMLElement && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) {
      // a div per line (CodeMirror 6): an empty line's <br> would read as a line break of its own
      const lines = [...el.children];
      if (lines.length && lines.every((line) => line.localName === 'div')) {
        return lines.map((line) => cleanLine(line.innerText).replace(/\n$/, '')).join('\n');
      }
      return cleanLine(el.innerText).replace(/\n$/, '');
    }
    return null;
  }

  /** Where an editing action on el goes: a drawn editor's key taker, else el itself. */
  function editingTarget(el) {
    const drawn = drawnEditorOf(el);
    return drawn ? drawn.input : el;
  }

  /** Where a pointer reaches el: a drawn editor's visible surface for its hidden key taker (anything
   * else in the editor, a gutter marker or a widget's button, is reached where it is). */
  function pointerSurface(el) {
    const drawn = drawnEditorOf(el);
    return drawn && drawn.input === el ? drawn.root : el;
  }

  /** A drawn editor's key taker drawn without a box of its own (Monaco's EditContext element): it shows
   * where its editor shows. */
  function shownByEditor(el) {
    const drawn = drawnEditorOf(el);
    return !!drawn && drawn.input === el && shared.isVisible(drawn.root);
  }

  /** Edited through the editor's own input handling (keys, editing commands), not by setting a value. */
  function isRichEditor(el) {
    return !!drawnEditorOf(el) || (el instanceof HTMLElement && (el.isContentEditable || !!el.editContext));
  }

  Object.assign(shared, { shownByEditor, drawnEditorOf, editorText, editingTarget, pointerSurface, isRichEditor });
})();
