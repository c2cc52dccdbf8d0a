// Tasks: the to-do app of index.html, and the WebMCP tools it declares.
//
// The list is kept in sessionStorage (a new tab starts from SEED) and rendered again after every
// change, whoever made it: the user through the page, or an agent through a tool. The search form
// is a plain GET form (index.html?q=…&show=…), so it works without script and as a declarative
// WebMCP tool alike.
'use strict';

(() => {
  const STORE = 'tasks.v1';
  const SEED = [
    { id: 't1', text: 'Buy oat milk', due: '2025-07-03', done: false },
    { id: 't2', text: 'Book the dentist appointment', due: '2025-07-10', done: false },
    { id: 't3', text: 'Send the Q3 report to Priya', due: null, done: false },
  ];
  const DATE = /^\d{4}-\d{2}-\d{2}$/;
  const TEXT_MAX = 200;

  // ------------------------------------------------------------------------------------ state

  function load() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE));
      if (saved && Array.isArray(saved.todos) && Number.isInteger(saved.next)) return saved;
    } catch {
      // a damaged entry: start again from the seed
    }
    return { todos: SEED.map((todo) => ({ ...todo })), next: SEED.length + 1 };
  }

  const state = load();

  function save() {
    sessionStorage.setItem(STORE, JSON.stringify(state));
  }

  function counts() {
    const done = state.todos.filter((todo) => todo.done).length;
    return { open: state.todos.length - done, done };
  }

  function matching(query, show) {
    const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
    return state.todos.filter((todo) => {
      if (show === 'open' && todo.done) return false;
      if (show === 'done' && !todo.done) return false;
      const text = todo.text.toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }

  function addTodo(text, due) {
    const clean = String(text || '').trim();
    if (!clean) throw new Error('A to-do needs some text');
    if (clean.length > TEXT_MAX) throw new Error(`A to-do's text is at most ${TEXT_MAX} characters`);
    if (due && !(DATE.test(due) && !Number.isNaN(Date.parse(due)))) {
      throw new Error(`due must be a date as YYYY-MM-DD, not "${due}"`);
    }
    const todo = { id: `t${state.next}`, text: clean, due: due || null, done: false };
    state.next += 1;
    state.todos.push(todo);
    changed();
    return todo;
  }

  function findTodo(id) {
    const todo = state.todos.find((t) => t.id === id);
    if (!todo) {
      const ids = state.todos.map((t) => t.id).join(', ') || 'none';
      throw new Error(`No to-do has the id "${id}" (ids now: ${ids}); list_todos shows them`);
    }
    return todo;
  }

  function setDone(id, done) {
    const todo = findTodo(id);
    todo.done = done;
    changed();
    return todo;
  }

  function clearCompleted() {
    const removed = state.todos.filter((todo) => todo.done);
    state.todos = state.todos.filter((todo) => !todo.done);
    changed();
    return removed;
  }

  function changed() {
    save();
    render();
    syncStateTools();
  }

  // ----------------------------------------------------------------------------------- render

  const params = new URLSearchParams(location.search);
  const filter = { q: params.get('q') || '', show: ['open', 'done'].includes(params.get('show')) ? params.get('show') : 'all' };
  const searchForm = document.getElementById('search');
  searchForm.elements.q.value = filter.q;
  searchForm.elements.show.value = filter.show;

  function render() {
    const { open, done } = counts();
    document.getElementById('summary').textContent = `${open} open, ${done} done`;
    const note = document.getElementById('filter-note');
    const filtered = filter.q || filter.show !== 'all';
    note.hidden = !filtered;
    note.textContent = filtered ? `Showing ${filter.show === 'all' ? 'all' : filter.show} to-dos${filter.q ? ` matching "${filter.q}"` : ''}.` : '';
    const list = document.getElementById('todos');
    list.replaceChildren();
    const shown = matching(filter.q, filter.show);
    for (const todo of shown) {
      const item = document.createElement('li');
      item.dataset.id = todo.id;
      item.className = todo.done ? 'done' : '';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `done-${todo.id}`;
      box.checked = todo.done;
      box.addEventListener('change', () => setDone(todo.id, box.checked));
      const label = document.createElement('label');
      label.className = 'text';
      label.htmlFor = box.id;
      label.textContent = todo.text;
      item.append(box, label);
      if (todo.due) {
        const due = document.createElement('span');
        due.className = 'due';
        due.textContent = `due ${todo.due}`;
        item.append(due);
      }
      list.append(item);
    }
    document.getElementById('empty').hidden = shown.length > 0;
    document.getElementById('clear-completed').hidden = done === 0;
  }

  document.getElementById('add-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    addTodo(form.elements.text.value, form.elements.due.value);
    form.reset();
  });
  document.getElementById('clear-completed').addEventListener('click', () => clearCompleted());

  // ----------------------------------------------------------------------------------- WebMCP

  const modelContext = document.modelContext || navigator.modelContext;

  function register(tool, options) {
    if (!modelContext) return;
    try {
      const registration = modelContext.registerTool(tool, options);
      if (registration && typeof registration.catch === 'function') {
        registration.catch((error) => {
          if (!(options && options.signal && options.signal.aborted)) console.warn(`WebMCP: ${tool.name}:`, error);
        });
      }
    } catch (error) {
      console.warn(`WebMCP: ${tool.name}:`, error);
    }
  }

  const plain = (todo) => ({ id: todo.id, text: todo.text, due: todo.due, done: todo.done });

  register({
    name: 'list_todos',
    title: 'List to-dos',
    description: 'Lists the to-dos (id, text, due date, done) and how many are open and done.',
    inputSchema: {
      type: 'object',
      properties: {
        show: { type: 'string', enum: ['all', 'open', 'done'], description: 'Which to-dos to list (default all)' },
        query: { type: 'string', description: 'Only to-dos whose text contains these words' },
      },
    },
    annotations: { readOnlyHint: true },
    execute({ show = 'all', query = '' } = {}) {
      return { todos: matching(query, show).map(plain), ...counts() };
    },
  });

  register({
    name: 'add_todo',
    title: 'Add a to-do',
    description: 'Adds a to-do to the list and returns it with its id.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: TEXT_MAX, description: 'What needs doing' },
        due: { type: 'string', format: 'date', description: 'Due date, YYYY-MM-DD (optional)' },
      },
      required: ['text'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
    execute({ text, due } = {}) {
      const todo = addTodo(text, due);
      return { added: plain(todo), ...counts() };
    },
  });

  register({
    name: 'complete_todo',
    title: 'Mark a to-do done',
    description: 'Marks a to-do as done (or, with done: false, as open again).',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The to-do\'s id, as list_todos gives it (e.g. "t2")' },
        done: { type: 'boolean', description: 'true to mark it done (default), false to reopen it' },
      },
      required: ['id'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    execute({ id, done = true } = {}) {
      return { todo: plain(setDone(String(id), done !== false)), ...counts() };
    },
  });

  // clear_completed exists only while some to-do is done: registered when the first one is
  // marked done, unregistered (its signal aborted) when none is left.
  let clearController = null;

  function syncStateTools() {
    const anyDone = counts().done > 0;
    if (anyDone && !clearController) {
      clearController = new AbortController();
      register({
        name: 'clear_completed',
        title: 'Clear completed to-dos',
        description: 'Deletes every to-do that is marked done. They cannot be brought back.',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: false, destructiveHint: true },
        execute() {
          const removed = clearCompleted();
          return { removed: removed.map(plain), ...counts() };
        },
      }, { signal: clearController.signal });
    } else if (!anyDone && clearController) {
      clearController.abort();
      clearController = null;
    }
  }

  if (modelContext && typeof modelContext.addEventListener === 'function') {
    modelContext.addEventListener('toolactivated', (event) => {
      document.getElementById('agent-activity').textContent = `An agent used ${event.toolName}.`;
    });
  }

  render();
  syncStateTools();
})();
