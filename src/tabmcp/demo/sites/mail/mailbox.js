// Mailbox: a Gmail look-alike single-page app (hash routes, in-memory mailbox kept in sessionStorage).
//
// Routes are Gmail's: #inbox, #starred, #sent, #all, #search/<query> (spaces as "+"), and a thread
// under its list: #inbox/<threadId>, #search/<query>/<threadId>. Rendering is synchronous on each
// route change; the static chrome (search box, Compose, navigation) is never re-rendered.
'use strict';

(() => {
  const ME = { name: 'Alex Morgan', email: 'alex.morgan@mailbox.example' };
  const STORE = 'mailbox.v1';
  const MINUTE = 60 * 1000;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;

  // ------------------------------------------------------------------------------- seed data

  const SEED = [
    {
      id: 'FMfcgzQXJWDsKvbHnZqLxgTcRmPdNwBk', legacy: '18f3a2c4b5d6e701', ago: 47 * MINUTE, unread: true,
      from: { name: 'Priya Raman', email: 'priya.raman@northwind.example' },
      subject: 'Q3 roadmap review: agenda for Thursday',
      body: 'Hi Alex,\n\nHere is the agenda for Thursday\'s roadmap review (10:00, room Aurora):\n1. Q2 retro, 15 min\n2. Search relaunch scope, 30 min\n3. Hiring plan, 15 min\n\nPlease add your team\'s top three risks to the doc by Wednesday noon.\n\nThanks,\nPriya',
    },
    {
      id: 'FMfcgzQXJWDtLpQrSvKmNbHcXzYwTgFd', legacy: '18f3a11e07c2d9f4', ago: 2 * HOUR + 13 * MINUTE, unread: true,
      from: { name: 'Codehub', email: 'notifications@codehub.example' },
      subject: '[nimbus-labs/skylark] Run failed: CI - main (4f2a9c1)',
      body: 'The run "CI" failed on main for commit 4f2a9c1 (Route params: support typed converters).\n\nFailed job: test (3.12), step "pytest", 2 failed, 318 passed.\n\nView the run at codehub.example/nimbus-labs/skylark/actions/runs/9921.',
    },
    {
      id: 'FMfcgzQXJWDvBnMkLpQwErTyUiOpAsDf', legacy: '18f38d5f61a0b2c3', ago: 5 * HOUR + 2 * MINUTE, unread: false,
      from: { name: 'Skyscan', email: 'trips@skyscan.example' },
      subject: 'Price alert: SFO to JFK from $289',
      body: 'Good news, Alex. Fares on your watched route dropped.\n\nSan Francisco (SFO) to New York (JFK), Dec 21 - Dec 28: from $289 round trip, economy, nonstop options from $342.\n\nPrices change often; book soon to lock in this fare.',
    },
    {
      id: 'FMfcgzQXJWDwCxZaSdFgHjKlQwErTyUi', legacy: '18f2f0a9c4e5d6b7', ago: 1 * DAY + 3 * HOUR, unread: true,
      from: { name: 'Marcus Webb', email: 'marcus@webbdesign.example' },
      subject: 'Invoice #2024-117 for October',
      body: 'Hi Alex,\n\nPlease find attached invoice #2024-117 for the October design work (landing page and onboarding illustrations): $3,450.00, due in 30 days.\n\nLet me know if anything needs adjusting.\n\nBest,\nMarcus',
    },
    {
      id: 'FMfcgzQXJWDxVbNmQwErTyUiOpLkJhGf', legacy: '18f2b7d2e9a1c0f8', ago: 2 * DAY + 6 * HOUR, unread: false,
      from: { name: 'Lena Fischer', email: 'lena.fischer@example.org' },
      subject: 'Dinner on Saturday?',
      body: 'Hey! We are doing a small dinner on Saturday around 7 at our place. Tom is making his famous lasagna. Can you make it? Bring nothing but yourself (and maybe that board game).\n\nLena',
    },
    {
      id: 'FMfcgzQXJWDyHgFdSaQwErTyUiOpZxCv', legacy: '18f1e4c8b7a6d5e4', ago: 3 * DAY + 1 * HOUR, unread: false,
      from: { name: 'The Weekly Byte', email: 'newsletter@weeklybyte.example' },
      subject: 'Issue #212: Rust in the kernel, WebGPU lands, and more',
      body: 'This week: Rust drivers merged for two more subsystems; WebGPU ships on by default in another browser; a deep dive into CRDTs for collaborative editors; and our pick of five small tools worth a look.',
    },
    {
      id: 'FMfcgzQXJWDzPoIuYtReWqAsDfGhJkLm', legacy: '18f0c2a1d3e4f5a6', ago: 5 * DAY + 4 * HOUR, unread: false,
      from: { name: 'Bank of Example', email: 'alerts@bankofexample.example' },
      subject: 'Your November statement is ready',
      body: 'Your statement for the account ending in 4417 is ready to view in online banking. Statement balance: $1,284.50. Minimum payment due: $35.00 by December 18.',
    },
    {
      id: 'FMfcgzQXJWFbQaWsEdRfTgYhUjIkOlPm', legacy: '18efa9b8c7d6e5f4', ago: 8 * DAY + 2 * HOUR, unread: true,
      from: { name: 'Tomás Ortega', email: 'tomas@ortega.example' },
      subject: 'Re: Apartment viewing on Thursday',
      body: 'Thursday at 6:30 pm works. The address is 41 Alder Street, flat 3B; ring twice, the buzzer is a bit temperamental. The landlord will bring the lease so you can read it through.\n\nSee you then,\nTomás',
    },
    {
      id: 'FMfcgzQXJWFcRsTdYuIoPaSdFgHjKlZx', legacy: '18ef1f2e3d4c5b6a', ago: 9 * DAY, unread: false, folder: 'sent',
      from: ME, to: 'Lena Fischer <lena.fischer@example.org>',
      subject: 'Photos from the hike',
      body: 'Here are the photos from Sunday. The one at the ridge came out great!',
    },
  ];

  // ------------------------------------------------------------------------------- state

  function seedState() {
    const now = Date.now();
    return {
      messages: SEED.map((m, i) => ({
        id: m.id, legacy: m.legacy, from: m.from, to: m.to || `${ME.name} <${ME.email}>`,
        subject: m.subject, body: m.body, time: now - m.ago, unread: m.unread, starred: i === 3,
        labels: [m.folder || 'inbox'],
      })),
      next: 1,
    };
  }

  function load() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE));
      if (saved && Array.isArray(saved.messages)) return saved;
    } catch { /* fall through to the seed */ }
    return seedState();
  }

  const state = load();
  const save = () => sessionStorage.setItem(STORE, JSON.stringify(state));
  save();
  const selected = new Set(); // legacy ids of the checked rows
  let listed = []; // the messages of the list on screen, in order

  // ------------------------------------------------------------------------------- helpers

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

  function icon(path) {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('width', '20');
    svg.setAttribute('height', '20');
    svg.setAttribute('aria-hidden', 'true');
    const p = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    p.setAttribute('d', path);
    svg.append(p);
    return svg;
  }

  const ICONS = {
    archive: 'M20.54 5.23 19.15 3.55A1.45 1.45 0 0 0 18 3H6c-.47 0-.88.21-1.16.55L3.46 5.23A2 2 0 0 0 3 6.5V19a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V6.5c0-.48-.17-.93-.46-1.27zM12 17.5 6.5 12H10v-2h4v2h3.5L12 17.5zM5.12 5l.81-1h12l.94 1H5.12z',
    trash: 'M6 19a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V7H6v12zM19 4h-3.5l-1-1h-5l-1 1H5v2h14V4z',
    read: 'M21.99 8c0-.72-.37-1.35-.94-1.7L12 1 2.95 6.3C2.38 6.65 2 7.28 2 8v10a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2l-.01-10zM12 13 3.74 7.84 12 3l8.26 4.84L12 13z',
    unread: 'M20 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2zm0 4-8 5-8-5V6l8 5 8-5v2z',
    refresh: 'M17.65 6.35A7.96 7.96 0 0 0 12 4a8 8 0 1 0 7.73 10h-2.08A6 6 0 1 1 12 6c1.66 0 3.14.69 4.22 1.78L13 11h7V4l-2.35 2.35z',
    back: 'M20 11H7.83l5.59-5.59L12 4l-8 8 8 8 1.41-1.41L7.83 13H20v-2z',
    star: 'M12 17.27 18.18 21l-1.64-7.03L22 9.24l-7.19-.61L12 2 9.19 8.63 2 9.24l5.46 4.73L5.82 21z',
    close: 'M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z',
  };

  const SHORT_MONTH = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const DAY_NAME = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

  function clock(d) {
    const hours = d.getHours() % 12 || 12;
    return `${hours}:${String(d.getMinutes()).padStart(2, '0')} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
  }

  // Gmail's list dates: a time today, "Dec 12" this year, "12/3/24" before.
  function listDate(time) {
    const d = new Date(time);
    const now = new Date();
    if (d.toDateString() === now.toDateString()) return clock(d);
    if (d.getFullYear() === now.getFullYear()) return `${SHORT_MONTH[d.getMonth()]} ${d.getDate()}`;
    return `${d.getMonth() + 1}/${d.getDate()}/${String(d.getFullYear()).slice(2)}`;
  }

  function fullDate(time) {
    const d = new Date(time);
    return `${DAY_NAME[d.getDay()]}, ${SHORT_MONTH[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}, ${clock(d)}`;
  }

  function ago(time) {
    const minutes = Math.max(0, Math.round((Date.now() - time) / MINUTE));
    if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
    const hours = Math.round(minutes / 60);
    if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
    const days = Math.round(hours / 24);
    return `${days} day${days === 1 ? '' : 's'} ago`;
  }

  function snippet(m) {
    const flat = m.body.replace(/\s+/g, ' ').trim();
    return flat.length > 140 ? `${flat.slice(0, 140).trimEnd()}…` : flat;
  }
  const byId = (id) => state.messages.find((m) => m.id === id);

  // ------------------------------------------------------------------------------- search

  /**
   * Gmail's operators that matter here: from:, to:, subject:, is:unread|read|starred,
   * in:inbox|sent|trash|anywhere, "quoted phrases", -negation and OR; other words match anywhere.
   */
  function matches(m, query) {
    return query.split(/\s+OR\s+/).some((part) => matchesAll(m, part));
  }

  function matchesAll(m, query) {
    const terms = query.match(/-?(?:[^\s"]+:)?(?:"[^"]*"|\S+)/g) || [];
    let folderChosen = false;
    for (const raw of terms) {
      const negated = raw.startsWith('-') && raw.length > 1;
      const term = (negated ? raw.slice(1) : raw).toLowerCase();
      if (term.startsWith('in:')) {
        folderChosen = true;
        const folder = term.slice(3);
        const inside = folder === 'anywhere' || m.labels.includes(folder);
        if (inside === negated) return false;
      } else if (matchesTerm(m, term) === negated) {
        return false;
      }
    }
    return folderChosen || !m.labels.includes('trash');
  }

  function matchesTerm(m, term) {
    const colon = term.indexOf(':');
    const op = colon > 0 ? term.slice(0, colon) : '';
    const value = (colon > 0 ? term.slice(colon + 1) : term).replace(/^"|"$/g, '');
    const sender = `${m.from.name} ${m.from.email}`.toLowerCase();
    if (op === 'from') return sender.includes(value);
    if (op === 'to') return m.to.toLowerCase().includes(value);
    if (op === 'subject') return m.subject.toLowerCase().includes(value);
    if (op === 'is') {
      if (value === 'unread') return m.unread;
      if (value === 'read') return !m.unread;
      if (value === 'starred') return m.starred;
      return true;
    }
    return `${sender} ${m.to} ${m.subject} ${m.body}`.toLowerCase().includes(value);
  }

  // ------------------------------------------------------------------------------- routes

  function parseRoute() {
    const parts = (location.hash.replace(/^#/, '') || 'inbox').split('/');
    const decode = (part) => {
      try {
        return decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        return part;
      }
    };
    if (parts[0] === 'search') return { list: 'search', query: decode(parts[1] || ''), thread: parts[2] || null };
    const list = ['inbox', 'starred', 'sent', 'all'].includes(parts[0]) ? parts[0] : 'inbox';
    return { list, query: '', thread: parts[1] || null };
  }

  const listHash = (route) => (route.list === 'search' ? `#search/${encodeURIComponent(route.query).replace(/%20/g, '+')}` : `#${route.list}`);

  function messagesFor(route) {
    let found;
    if (route.list === 'search') found = state.messages.filter((m) => matches(m, route.query));
    else if (route.list === 'all') found = state.messages.filter((m) => !m.labels.includes('trash'));
    else if (route.list === 'starred') found = state.messages.filter((m) => m.starred);
    else found = state.messages.filter((m) => m.labels.includes(route.list));
    return found.sort((a, b) => b.time - a.time);
  }

  const LIST_TITLES = { inbox: 'Inbox', starred: 'Starred', sent: 'Sent Mail', all: 'All Mail', search: 'Search results' };

  let renderedHash = null;

  /** A route change: rendered at once (so the page is ready when the click returns), not on hashchange. */
  function go(hash) {
    if (location.hash === hash) render();
    else {
      location.hash = hash;
      render();
    }
  }

  function render() {
    renderedHash = location.hash;
    const route = parseRoute();
    const main = $('#main');
    main.replaceChildren();
    hideToastUnlessFresh();
    if (route.thread && byId(route.thread)) renderThread(main, route, byId(route.thread));
    else renderList(main, route);
    const input = $('input[name=q]');
    if (document.activeElement !== input) input.value = route.query;
    $('.gb_clear').hidden = !route.query;
    for (const item of $$('.aim')) item.classList.toggle('nZ', item.dataset.folder === route.list && !route.thread);
    updateCounts();
    const what = route.thread && byId(route.thread) ? byId(route.thread).subject : route.list === 'search' ? `Search results` : LIST_TITLES[route.list];
    document.title = `${what} - ${ME.email} - Mailbox`;
  }

  function updateCounts() {
    const unread = state.messages.filter((m) => m.unread && m.labels.includes('inbox')).length;
    const inbox = $('.aim[data-folder=inbox]');
    $('.bsU', inbox).textContent = unread ? String(unread) : '';
    $('a', inbox).setAttribute('aria-label', unread ? `Inbox ${unread} unread` : 'Inbox');
  }

  // ------------------------------------------------------------------------------- list view

  function toolbarButton(act, label, path, onclick, extra = '') {
    return h('div', {
      class: `T-I J-J5-Ji lR T-I-ax7 T-I-Js-IF ar7 ${extra}`.trim(), act, role: 'button', tabindex: '0',
      'aria-label': label, 'data-tooltip': label, onclick,
    }, icon(path));
  }

  function renderList(main, route) {
    listed = messagesFor(route);
    for (const id of [...selected]) if (!listed.some((m) => m.legacy === id)) selected.delete(id);

    const selectAll = h('div', {
      class: 'T-Jo J-J5-Ji', role: 'checkbox', 'aria-label': 'Select', 'aria-checked': 'false', tabindex: '0',
      onclick: () => {
        const all = listed.length > 0 && selected.size === listed.length;
        selected.clear();
        if (!all) for (const m of listed) selected.add(m.legacy);
        syncSelection();
      },
    }, h('div', { class: 'T-Jo-auh' }));

    const actions = h('div', { class: 'G-tF', id: 'selection-actions' },
      toolbarButton('7', 'Archive', ICONS.archive, () => archive([...selected])),
      toolbarButton('10', 'Delete', ICONS.trash, () => trash([...selected])),
      toolbarButton('1', 'Mark as read', ICONS.read, () => markRead([...selected], false)),
      toolbarButton('2', 'Mark as unread', ICONS.unread, () => markRead([...selected], true)),
    );
    const count = listed.length;
    const toolbar = h('div', { class: 'G-atb', gh: 'tm', role: 'toolbar', 'aria-label': 'Mail list toolbar' },
      selectAll,
      h('div', { class: 'G-Ni', id: 'refresh-only' }, toolbarButton('20', 'Refresh', ICONS.refresh, () => render())),
      actions,
      h('span', { class: 'Dj' }, count ? [h('span', { class: 'ts' }, '1'), '–', h('span', { class: 'ts' }, String(count)), ' of ', h('span', { class: 'ts' }, String(count))] : ''),
    );
    main.append(toolbar);

    if (route.list === 'search') {
      main.append(h('div', { class: 'aKh', role: 'heading', 'aria-level': '2' }, `Search results for `, h('span', { class: 'aKk' }, route.query || '(everything)')));
    }

    const body = h('tbody');
    const table = h('table', { class: 'F cf zt', role: 'grid', 'aria-label': LIST_TITLES[route.list] }, h('colgroup'), body);
    if (!count) {
      const empty = route.list === 'search'
        ? 'No messages matched your search. Try using search options such as sender, date, size and more.'
        : route.list === 'inbox' ? 'Your Primary tab is empty.' : 'No conversations.';
      body.append(h('tr', {}, h('td', { class: 'TC', colspan: '6' }, empty)));
    }
    for (const [i, m] of listed.entries()) body.append(row(m, i, route));
    main.append(h('div', { class: 'Cp' }, table));
    syncSelection();
  }

  function row(m, i, route) {
    const checkbox = h('div', {
      class: 'oZ-jc T-Jo J-J5-Ji', role: 'checkbox', 'aria-checked': 'false', tabindex: '-1', 'aria-label': 'Select conversation',
      onclick: (event) => {
        event.stopPropagation();
        if (selected.has(m.legacy)) selected.delete(m.legacy);
        else selected.add(m.legacy);
        syncSelection();
      },
    }, h('div', { class: 'T-Jo-auh' }));
    const star = h('span', {
      class: `aXw T-KT${m.starred ? ' T-KT-Jp' : ''}`, role: 'button', 'aria-label': m.starred ? 'Starred' : 'Not starred', title: m.starred ? 'Starred' : 'Not starred',
      onclick: (event) => {
        event.stopPropagation();
        m.starred = !m.starred;
        save();
        render();
      },
    }, icon(ICONS.star));
    const sender = route.list === 'sent' || (m.labels.includes('sent') && route.list !== 'inbox')
      ? h('span', { class: m.unread ? 'zF' : 'yP', email: m.to.replace(/.*<|>.*/g, ''), name: m.to.replace(/\s*<.*/, '') }, `To: ${m.to.replace(/\s*<.*/, '')}`)
      : h('span', { class: m.unread ? 'zF' : 'yP', email: m.from.email, name: m.from.name }, m.from.name);
    const labels = route.list !== 'inbox' && m.labels.includes('inbox') ? h('div', { class: 'ar as' }, h('div', { class: 'at', title: 'Inbox' }, 'Inbox')) : null;
    const when = h('span', { title: fullDate(m.time), 'aria-label': listDate(m.time) }, h('span', {}, listDate(m.time)));
    return h('tr', {
      class: `zA ${m.unread ? 'zE' : 'yO'}`, id: `:${(i + 10).toString(36)}k`, role: 'row', tabindex: '-1', draggable: 'false',
      onclick: () => go(`${listHash(route)}/${m.id}`),
    },
    h('td', { class: 'PF xY PE' }),
    h('td', { class: 'oZ-x3 xY aid' }, checkbox),
    h('td', { class: 'apU xY' }, star),
    h('td', { class: 'yX xY' }, h('div', { class: 'yW' }, h('span', { class: 'bA4' }, sender))),
    h('td', { class: 'xY a4W' }, h('div', { class: 'xS', role: 'link' },
      h('div', { class: 'xT' },
        labels,
        h('div', { class: 'y6' }, h('span', { class: 'bog' }, h('span', { 'data-thread-id': `#thread-f:${BigInt('0x' + m.legacy)}`, 'data-legacy-thread-id': m.legacy }, m.subject))),
        h('span', { class: 'y2' }, h('span', { class: 'Zt' }, ' - '), snippet(m))))),
    h('td', { class: 'xW xY' }, when));
  }

  function syncSelection() {
    for (const tr of $$('tr.zA')) {
      const id = $('[data-legacy-thread-id]', tr).getAttribute('data-legacy-thread-id');
      const on = selected.has(id);
      tr.classList.toggle('x7', on);
      $('[role=checkbox]', tr).setAttribute('aria-checked', String(on));
    }
    const all = $('div.G-atb .T-Jo[aria-label=Select]');
    if (all) all.setAttribute('aria-checked', listed.length > 0 && selected.size === listed.length ? 'true' : selected.size ? 'mixed' : 'false');
    const actions = $('#selection-actions');
    if (actions) actions.hidden = selected.size === 0;
  }

  // ------------------------------------------------------------------------------- actions

  function conversations(n, what) {
    return n === 1 ? `Conversation ${what}.` : `${n} conversations ${what}.`;
  }

  /**
   * After an action on the list: rows update in place, as Gmail's do (rows that left the list go,
   * the others change state), so the page changes only where the mail did. A thread view re-renders.
   */
  function refreshList() {
    const route = parseRoute();
    if (route.thread) {
      go(listHash(route));
      return;
    }
    listed = messagesFor(route);
    const keep = new Set(listed.map((m) => m.legacy));
    for (const tr of $$('tr.zA')) {
      const id = $('[data-legacy-thread-id]', tr).getAttribute('data-legacy-thread-id');
      const m = state.messages.find((x) => x.legacy === id);
      if (!m || !keep.has(id)) {
        tr.remove();
        continue;
      }
      tr.classList.toggle('zE', m.unread);
      tr.classList.toggle('yO', !m.unread);
      const sender = $('span[email]', tr);
      sender.className = m.unread ? 'zF' : 'yP';
      const chip = $('.ar.as', tr);
      if (chip && !m.labels.includes('inbox')) chip.remove();
    }
    for (const id of [...selected]) if (!keep.has(id)) selected.delete(id);
    const count = listed.length;
    const range = count ? `1–${count} of ${count}` : '';
    if ($('.Dj').textContent !== range) $('.Dj').textContent = range;
    if (!count) render();
    syncSelection();
    updateCounts();
  }

  function archive(ids) {
    const chosen = state.messages.filter((m) => ids.includes(m.legacy));
    if (!chosen.length) return;
    for (const m of chosen) m.labels = m.labels.filter((l) => l !== 'inbox');
    save();
    refreshList();
    toast(conversations(chosen.length, 'archived'), true);
  }

  function trash(ids) {
    const chosen = state.messages.filter((m) => ids.includes(m.legacy));
    if (!chosen.length) return;
    for (const m of chosen) m.labels = ['trash'];
    save();
    refreshList();
    toast(conversations(chosen.length, 'moved to Trash'), true);
  }

  function markRead(ids, unread) {
    const chosen = state.messages.filter((m) => ids.includes(m.legacy));
    if (!chosen.length) return;
    for (const m of chosen) m.unread = unread;
    save();
    refreshList();
    toast(conversations(chosen.length, unread ? 'marked as unread' : 'marked as read'), true);
  }

  let toastTimer = null;
  let toastShownAt = 0;

  function toast(text, undo = false, view = null) {
    const box = $('#toast');
    const line = $('.aT', box);
    line.replaceChildren(h('span', { class: 'bAq' }, text));
    if (undo) line.append(' ', h('span', { class: 'ag a8k', role: 'link', tabindex: '0' }, 'Undo'));
    if (view) line.append(' ', h('span', { class: 'ag a8k', role: 'link', tabindex: '0', onclick: view }, 'View message'));
    line.append(h('div', { class: 'bBe', role: 'button', 'aria-label': 'Close', tabindex: '0', onclick: () => { box.hidden = true; } }, icon(ICONS.close)));
    box.hidden = false;
    toastShownAt = Date.now();
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 10000);
  }

  function hideToastUnlessFresh() {
    if (Date.now() - toastShownAt > 1500) $('#toast').hidden = true;
  }

  // ------------------------------------------------------------------------------- thread view

  function renderThread(main, route, m) {
    if (m.unread) {
      m.unread = false;
      save();
    }
    const back = listHash(route);
    main.append(h('div', { class: 'G-atb', gh: 'mtb', role: 'toolbar', 'aria-label': 'Conversation toolbar' },
      toolbarButton('19', route.list === 'search' ? 'Back to Search Results' : `Back to ${LIST_TITLES[route.list]}`, ICONS.back, () => go(back)),
      toolbarButton('7', 'Archive', ICONS.archive, () => archive([m.legacy])),
      toolbarButton('10', 'Delete', ICONS.trash, () => trash([m.legacy])),
      toolbarButton('2', 'Mark as unread', ICONS.unread, () => { m.unread = true; save(); go(back); })));
    const chips = m.labels.filter((l) => l === 'inbox' || l === 'sent').map((l) => h('div', { class: 'ar as' }, h('div', { class: 'at' }, l === 'inbox' ? 'Inbox' : 'Sent')));
    main.append(h('div', { class: 'ha' },
      h('h2', { class: 'hP', tabindex: '-1', 'data-thread-perm-id': `thread-f:${BigInt('0x' + m.legacy)}`, 'data-legacy-thread-id': m.legacy }, m.subject),
      chips));
    const message = h('div', { class: 'adn ads', role: 'listitem', 'data-message-id': `#msg-f:${BigInt('0x' + m.legacy)}`, 'data-legacy-message-id': m.legacy },
      h('div', { class: 'gs' },
        h('div', { class: 'gE iv gt' },
          h('div', { class: 'ajy', 'aria-hidden': 'true' }, (m.from.name[0] || '?').toUpperCase()),
          h('h3', { class: 'iw' },
            h('span', { class: 'gD', email: m.from.email, name: m.from.name }, h('span', {}, m.from.name)),
            ' ', h('span', { class: 'go' }, `<${m.from.email}>`)),
          h('span', { class: 'g3', title: fullDate(m.time), alt: fullDate(m.time) }, `${listDate(m.time)} (${ago(m.time)})`),
          h('div', { class: 'hb' }, 'to ', h('span', { class: 'g2', email: m.to.replace(/.*<|>.*/g, '') }, m.to.includes(ME.email) ? 'me' : m.to.replace(/\s*<.*/, '')))),
        h('div', { class: 'a3s aiL' }, ...m.body.split(/\n{2,}/).map((para) => h('div', { dir: 'ltr' }, ...para.split('\n').flatMap((line, i) => (i ? [h('br'), line] : [line])))))));
    main.append(h('div', { role: 'list', class: 'nH aHU' }, message));
  }

  // ------------------------------------------------------------------------------- compose

  const ADDRESS = /^\s*(?:[^<>,;]*<\s*)?([^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+)\s*>?\s*$/;

  function openCompose() {
    const existing = $('#compose-host div[role=dialog]');
    if (existing) {
      $('input[aria-label="To recipients"]', existing).focus();
      return;
    }
    const to = h('input', { class: 'agP aFw', type: 'text', role: 'combobox', 'aria-label': 'To recipients', 'aria-autocomplete': 'list', 'aria-expanded': 'false', spellcheck: 'false', autocomplete: 'off' });
    const subject = h('input', { class: 'aoT', name: 'subjectbox', placeholder: 'Subject', 'aria-label': 'Subject', spellcheck: 'true' });
    const body = h('div', { class: 'Am Al editable LW-avf tS-tW', role: 'textbox', 'aria-label': 'Message Body', 'aria-multiline': 'true', contenteditable: 'true', g_editable: 'true', spellcheck: 'true' });
    const send = h('div', {
      class: 'T-I J-J5-Ji aoO v7 T-I-atl L3', role: 'button', tabindex: '1', 'aria-label': 'Send \u202a(Ctrl-Enter)\u202c', 'data-tooltip': 'Send \u202a(Ctrl-Enter)\u202c',
      onclick: () => sendMessage(dialog, to, subject, body),
    }, 'Send');
    const close = () => dialog.remove();
    const dialog = h('div', { class: 'nH Hd', role: 'dialog', 'aria-label': 'New Message' },
      h('div', { class: 'aDh' },
        h('h2', { class: 'a3E' }, h('div', { class: 'aYF' }, 'New Message')),
        h('div', { class: 'Ha', role: 'button', tabindex: '0', 'aria-label': 'Save & close', 'data-tooltip': 'Save & close', onclick: close }, icon(ICONS.close))),
      h('div', { class: 'aoD hl' }, h('span', { class: 'aB', 'aria-hidden': 'true' }, 'To'), to),
      h('div', { class: 'aoD az6' }, subject),
      h('div', { class: 'Ar Au' }, body),
      h('div', { class: 'btC' }, send,
        h('div', { class: 'og T-I-J3', role: 'button', tabindex: '1', 'aria-label': 'Discard draft \u202a(Ctrl-Shift-D)\u202c', 'data-tooltip': 'Discard draft', onclick: close }, icon(ICONS.trash))));
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        send.click();
      }
    });
    $('#compose-host').append(dialog);
    to.focus();
  }

  function alertDialog(message) {
    const box = h('div', { class: 'Kj-JD', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'alert-title', 'aria-describedby': 'alert-text' },
      h('div', { class: 'Kj-JD-K7', id: 'alert-title' }, 'Error'),
      h('div', { class: 'Kj-JD-Jz', id: 'alert-text' }, message),
      h('div', { class: 'Kj-JD-Jl' }, h('button', { name: 'ok', class: 'J-at1-auR', onclick: () => box.remove() }, 'OK')));
    document.body.append(box);
  }

  function sendMessage(dialog, toInput, subjectInput, bodyBox) {
    const addresses = toInput.value.split(/[,;]/).map((a) => a.trim()).filter(Boolean);
    if (!addresses.length) {
      alertDialog('Please specify at least one recipient.');
      return;
    }
    const bad = addresses.find((a) => !ADDRESS.test(a));
    if (bad) {
      alertDialog(`The address "${bad}" in the "To" field was not recognized. Please make sure that all addresses are properly formed.`);
      return;
    }
    const message = {
      id: `FMfcgzSent${String(state.next).padStart(22, '0')}`, legacy: (0x19000000000000n + BigInt(state.next)).toString(16),
      from: ME, to: addresses.join(', '), subject: subjectInput.value.trim() || '(no subject)',
      body: bodyBox.innerText.trim(), time: Date.now(), unread: false, starred: false, labels: ['sent'],
    };
    state.next += 1;
    dialog.remove();
    toast('Sending...');
    setTimeout(() => {
      state.messages.push(message);
      save();
      if (parseRoute().list === 'sent' || parseRoute().list === 'all') render();
      toast('Message sent', true, () => go(`#sent/${message.id}`));
    }, 400);
  }

  // ------------------------------------------------------------------------------- wiring

  $('div[gh=cm]').addEventListener('click', openCompose);
  $('div[gh=cm]').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') openCompose();
  });
  $('#aso_search_form_anchor').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = $('input[name=q]').value.trim();
    selected.clear();
    go(query ? `#search/${encodeURIComponent(query).replace(/%20/g, '+')}` : '#inbox');
  });
  $('.gb_clear').addEventListener('click', () => {
    $('input[name=q]').value = '';
    go('#inbox');
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === renderedHash) return; // already rendered by go()
    selected.clear();
    render();
  });
  render();
})();
