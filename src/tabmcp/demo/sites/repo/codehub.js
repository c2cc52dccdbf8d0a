// Codehub: a GitHub look-alike (repository page, issues list, fork page) as a hash-routed app.
//
// Routes: #/<owner>/<repo> (code), #/<owner>/<repo>/issues?q=<query>, #/<owner>/<repo>/issues/<n>,
// #/<owner>/<repo>/pulls|actions|…, #/<owner>/<repo>/fork. Star, watch and fork state live in
// sessionStorage (a new tab starts from the seed). Rendering is synchronous on each route change.
'use strict';

(() => {
  const ME = 'sam-dev';
  const STORE = 'codehub.v1';
  const DAY = 24 * 60 * 60 * 1000;
  const UPSTREAM = 'nimbus-labs/skylark';

  // ------------------------------------------------------------------------------- seed data

  const REPOS = {
    'nimbus-labs/skylark': {
      owner: 'nimbus-labs', name: 'skylark', ownerType: 'organization',
      description: 'A tiny, fast HTTP router for Python with typed routes and zero dependencies.',
      homepage: 'skylark.dev', topics: ['python', 'http', 'router', 'asgi', 'web-framework'],
      stars: 847, forks: 96, watchers: 23, pulls: 7, commits: 412, release: 'v1.4.2',
      lastCommit: { author: 'kmatsuda', message: 'Route params: support typed converters (#230)', sha: '4f2a9c1', daysAgo: 2 },
    },
  };

  const FILES = [
    ['dir', '.github/workflows', 'CI: test on Python 3.13 (#222)', 9],
    ['dir', 'docs', 'Docs: explain route priority (#227)', 4],
    ['dir', 'skylark', 'Route params: support typed converters (#230)', 2],
    ['dir', 'tests', 'Route params: support typed converters (#230)', 2],
    ['file', '.gitignore', 'Initial commit', 420],
    ['file', 'CHANGELOG.md', 'Release v1.4.2', 16],
    ['file', 'LICENSE', 'Initial commit', 420],
    ['file', 'README.md', 'Docs: explain route priority (#227)', 4],
    ['file', 'pyproject.toml', 'Drop Python 3.8 support (#198)', 45],
  ];

  // number, title, state, author, labels, comments, opened (days ago), closed (days ago)
  const ISSUE_ROWS = [
    [231, 'Route params: typed converters for UUID', 'open', 'kmatsuda', ['enhancement'], 2, 1],
    [229, 'Trailing slash redirect drops the query string', 'open', 'rfranco', ['bug'], 5, 3],
    [228, 'Docs: middleware ordering example is wrong', 'open', 'ana-lima', ['documentation', 'good first issue'], 1, 4],
    [226, 'Support ASGI lifespan events', 'open', 'dpetrov', ['enhancement'], 8, 6],
    [224, 'Benchmark routing against Starlette and Falcon', 'open', 't-okafor', ['performance'], 3, 9],
    [221, 'Crash when a route pattern contains a literal colon', 'closed', 'mkowalski', ['bug'], 4, 12, 2],
    [219, 'Ship a py.typed marker', 'closed', 'jlee', ['good first issue'], 2, 14, 10],
    [217, 'HEAD requests return 405 for GET routes', 'open', 'chen-wei', ['bug'], 6, 15],
    [214, 'Mount sub-routers under a prefix', 'closed', 'kmatsuda', ['enhancement'], 11, 20, 8],
    [212, 'Windows: path converter rejects backslashes', 'open', 'pnair', ['bug', 'windows'], 2, 22],
    [209, 'Typo in the README quickstart', 'closed', 'ana-lima', ['documentation'], 0, 25, 24],
    [205, 'Expose the matched route name on the request', 'open', 'rfranco', ['enhancement'], 3, 31],
    [201, 'Memory grows with many dynamic routes', 'closed', 'dpetrov', ['bug', 'performance'], 9, 40, 30],
    [198, 'Drop Python 3.8 support', 'closed', 'kmatsuda', ['breaking change'], 5, 50, 45],
  ];
  const ISSUES = ISSUE_ROWS.map(([number, title, state, author, labels, comments, opened, closed]) => ({ number, title, state, author, labels, comments, opened, closed }));

  const LABEL_COLORS = {
    bug: 'd73a4a', enhancement: 'a2eeef', documentation: '0075ca', 'good first issue': '7057ff',
    performance: 'fbca04', windows: 'c5def5', 'breaking change': 'b60205',
  };

  const WATCH_LEVELS = {
    included: ['Participating and @mentions', 'Only receive notifications from this repository when participating or @mentioned.'],
    subscribed: ['All Activity', 'Notified of all notifications on this repository.'],
    ignore: ['Ignore', 'Never be notified.'],
    custom: ['Custom', 'Select events you want to be notified of in addition to participating and @mentions.'],
  };
  const CUSTOM_EVENTS = [['Issue', 'Issues'], ['PullRequest', 'Pull requests'], ['Release', 'Releases'], ['Discussion', 'Discussions'], ['SecurityAlert', 'Security alerts']];

  // ------------------------------------------------------------------------------- state

  function load() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE));
      if (saved && saved.repos) return saved;
    } catch { /* the seed */ }
    return { repos: {}, forks: [] };
  }

  const state = load();
  const save = () => sessionStorage.setItem(STORE, JSON.stringify(state));

  function repoState(slug) {
    if (!state.repos[slug]) state.repos[slug] = { starred: false, watch: 'included', events: [] };
    return state.repos[slug];
  }

  function repoInfo(slug) {
    if (REPOS[slug]) return REPOS[slug];
    const fork = state.forks.find((f) => `${f.owner}/${f.name}` === slug);
    if (!fork) return null;
    const up = REPOS[fork.from];
    return {
      ...up, owner: fork.owner, name: fork.name, ownerType: 'user', description: fork.description, forkedFrom: fork.from,
      stars: 0, forks: 0, watchers: 1, pulls: 0, topics: [], homepage: '',
      commits: fork.branchOnly ? up.commits : up.commits + 3,
    };
  }

  const counts = (slug) => {
    const info = repoInfo(slug);
    const s = repoState(slug);
    const watching = s.watch === 'subscribed' || s.watch === 'custom';
    return { stars: info.stars + (s.starred ? 1 : 0), watchers: info.watchers + (watching ? 1 : 0), forks: info.forks + state.forks.filter((f) => f.from === slug).length };
  };

  // ------------------------------------------------------------------------------- helpers

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

  const OCTICONS = {
    repo: 'M2 2.5A2.5 2.5 0 0 1 4.5 0h8.75a.75.75 0 0 1 .75.75v12.5a.75.75 0 0 1-.75.75h-2.5a.75.75 0 0 1 0-1.5h1.75v-2h-8a1 1 0 0 0-.71 1.71.75.75 0 0 1-1.06 1.06A2.5 2.5 0 0 1 2 11.5Zm10.5-1h-8a1 1 0 0 0-1 1v6.71A2.5 2.5 0 0 1 4.5 9h8ZM5 12.25a.25.25 0 0 1 .25-.25h3.5a.25.25 0 0 1 .25.25v3.25a.25.25 0 0 1-.4.2l-1.45-1.09a.25.25 0 0 0-.3 0L5.4 15.7a.25.25 0 0 1-.4-.2Z',
    star: 'M8 .25a.75.75 0 0 1 .67.42l1.88 3.8 4.2.61a.75.75 0 0 1 .41 1.28l-3.04 2.96.72 4.18a.75.75 0 0 1-1.09.79L8 12.32l-3.75 1.97a.75.75 0 0 1-1.09-.79l.72-4.18L.84 6.36a.75.75 0 0 1 .41-1.28l4.2-.61L7.33.67A.75.75 0 0 1 8 .25Zm0 2.45L6.63 5.48a.75.75 0 0 1-.56.41l-3.07.45 2.22 2.16a.75.75 0 0 1 .22.66l-.53 3.06 2.74-1.44a.75.75 0 0 1 .7 0l2.74 1.44-.53-3.06a.75.75 0 0 1 .22-.66l2.22-2.16-3.07-.45a.75.75 0 0 1-.56-.41Z',
    starFill: 'M8 .25a.75.75 0 0 1 .67.42l1.88 3.8 4.2.61a.75.75 0 0 1 .41 1.28l-3.04 2.96.72 4.18a.75.75 0 0 1-1.09.79L8 12.32l-3.75 1.97a.75.75 0 0 1-1.09-.79l.72-4.18L.84 6.36a.75.75 0 0 1 .41-1.28l4.2-.61L7.33.67A.75.75 0 0 1 8 .25Z',
    fork: 'M5 5.37v.88c0 .41.34.75.75.75h4.5a.75.75 0 0 0 .75-.75v-.88a2.25 2.25 0 1 1 1.5 0v.88A2.25 2.25 0 0 1 10.25 8.5h-1.5v2.13a2.25 2.25 0 1 1-1.5 0V8.5h-1.5A2.25 2.25 0 0 1 3.5 6.25v-.88a2.25 2.25 0 1 1 1.5 0ZM5 3.25a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Zm6.75.75a.75.75 0 1 0 0-1.5.75.75 0 0 0 0 1.5Zm-3 8.75a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Z',
    eye: 'M8 2c1.98 0 3.73.97 4.96 2.13C14.2 5.3 15 6.71 15 8c0 1.29-.8 2.7-2.04 3.87C11.73 13.03 9.98 14 8 14s-3.73-.97-4.96-2.13C1.8 10.7 1 9.29 1 8c0-1.29.8-2.7 2.04-3.87C4.27 2.97 6.02 2 8 2Zm0 2a4 4 0 1 0 0 8 4 4 0 0 0 0-8Zm0 2.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Z',
    bellSlash: 'm4.18 1.12 9.7 9.7a.75.75 0 0 1-1.06 1.06L12 11.06V12H2.75a.75.75 0 0 1-.6-1.2l.85-1.13V6c0-.73.16-1.42.44-2.04L1.87 2.38a.75.75 0 0 1 1.06-1.06ZM6.5 14h3a1.5 1.5 0 0 1-3 0ZM8 1.5A4.5 4.5 0 0 1 12.5 6v2.25L5.43 1.93A4.5 4.5 0 0 1 8 1.5Z',
    issueOpened: 'M8 9.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM8 0a8 8 0 1 1 0 16A8 8 0 0 1 8 0ZM1.5 8a6.5 6.5 0 1 0 13 0 6.5 6.5 0 0 0-13 0Z',
    issueClosed: 'M11.28 6.78a.75.75 0 0 0-1.06-1.06L7.25 8.69 5.78 7.22a.75.75 0 0 0-1.06 1.06l2 2a.75.75 0 0 0 1.06 0ZM8 0a8 8 0 1 1 0 16A8 8 0 0 1 8 0ZM1.5 8a6.5 6.5 0 1 0 13 0 6.5 6.5 0 0 0-13 0Z',
    pull: 'M1.5 3.25a2.25 2.25 0 1 1 3 2.12v5.26a2.25 2.25 0 1 1-1.5 0V5.37A2.25 2.25 0 0 1 1.5 3.25Zm5.68-.3 2.3-2.3a.25.25 0 0 1 .43.18V2.5h1.34a2.25 2.25 0 0 1 2.25 2.25v5.88a2.25 2.25 0 1 1-1.5 0V4.75a.75.75 0 0 0-.75-.75H9.9v1.67a.25.25 0 0 1-.43.18l-2.3-2.3a.25.25 0 0 1 0-.35Z',
    play: 'M8 0a8 8 0 1 1 0 16A8 8 0 0 1 8 0ZM1.5 8a6.5 6.5 0 1 0 13 0 6.5 6.5 0 0 0-13 0Zm4.88-3.1 4.27 2.68a.5.5 0 0 1 0 .84L6.38 11.1A.5.5 0 0 1 5.6 10.7V5.3a.5.5 0 0 1 .78-.4Z',
    table: 'M0 1.75C0 .78.78 0 1.75 0h12.5C15.22 0 16 .78 16 1.75v12.5A1.75 1.75 0 0 1 14.25 16H1.75A1.75 1.75 0 0 1 0 14.25ZM6.5 6.5v8h7.75a.25.25 0 0 0 .25-.25V6.5Zm8-1.5V1.75a.25.25 0 0 0-.25-.25H6.5V5Zm-13 1.5v7.75c0 .14.11.25.25.25H5v-8Z',
    shield: 'M7.47.22a.75.75 0 0 1 1.06 0C9.8 1.5 11.7 2.2 13.66 2.28a.75.75 0 0 1 .72.73C14.63 9.24 11.9 13.5 8.3 15.9a.75.75 0 0 1-.6 0C4.1 13.5 1.37 9.24 1.62 3a.75.75 0 0 1 .72-.73C4.3 2.2 6.2 1.5 7.47.22Z',
    graph: 'M1.5 1.75V13.5h13.75a.75.75 0 0 1 0 1.5H.75a.75.75 0 0 1-.75-.75V1.75a.75.75 0 0 1 1.5 0Zm14.28 2.53-5.25 5.25a.75.75 0 0 1-1.06 0L7 7.06 4.28 9.78a.75.75 0 0 1-1.06-1.06l3.25-3.25a.75.75 0 0 1 1.06 0L10 7.94l4.72-4.72a.75.75 0 1 1 1.06 1.06Z',
    code: 'm11.28 3.22 4.25 4.25a.75.75 0 0 1 0 1.06l-4.25 4.25a.75.75 0 0 1-1.06-1.06L13.94 8l-3.72-3.72a.75.75 0 0 1 1.06-1.06Zm-6.56 0a.75.75 0 0 1 0 1.06L2.06 8l3.72 3.72a.75.75 0 0 1-1.06 1.06L.47 8.53a.75.75 0 0 1 0-1.06l4.25-4.25a.75.75 0 0 1 1.06 0Z',
    comment: 'M1 2.75C1 1.78 1.78 1 2.75 1h10.5c.97 0 1.75.78 1.75 1.75v7.5A1.75 1.75 0 0 1 13.25 12H9.06l-2.57 2.57A1.46 1.46 0 0 1 4 13.54V12H2.75A1.75 1.75 0 0 1 1 10.25Z',
    dir: 'M1.75 1A1.75 1.75 0 0 0 0 2.75v10.5C0 14.22.78 15 1.75 15h12.5A1.75 1.75 0 0 0 16 13.25v-8.5A1.75 1.75 0 0 0 14.25 3H7.5a.25.25 0 0 1-.2-.1l-.9-1.2C6.07 1.26 5.55 1 5 1H1.75Z',
    file: 'M2 1.75C2 .78 2.78 0 3.75 0h6.59c.46 0 .91.18 1.24.51l2.91 2.91c.33.33.51.78.51 1.24v9.59A1.75 1.75 0 0 1 13.25 16h-9.5A1.75 1.75 0 0 1 2 14.25Z',
    caret: 'm4.43 6.57 3.4 3.4a.25.25 0 0 0 .35 0l3.4-3.4A.25.25 0 0 0 11.4 6H4.6a.25.25 0 0 0-.17.43Z',
    check: 'M13.78 4.22a.75.75 0 0 1 0 1.06l-7.25 7.25a.75.75 0 0 1-1.06 0L2.22 9.28a.75.75 0 0 1 1.06-1.06L6 10.94l6.72-6.72a.75.75 0 0 1 1.06 0Z',
    search: 'M10.68 11.74a6 6 0 0 1-7.92-8.98 6 6 0 0 1 8.98 7.92l3.04 3.04a.75.75 0 0 1-1.06 1.06ZM11.5 7a4.5 4.5 0 1 0-9 0 4.5 4.5 0 0 0 9 0Z',
  };

  function octicon(name, extra = '') {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('class', `octicon octicon-${name} ${extra}`.trim());
    svg.setAttribute('viewBox', '0 0 16 16');
    svg.setAttribute('width', '16');
    svg.setAttribute('height', '16');
    svg.setAttribute('aria-hidden', 'true');
    const p = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    p.setAttribute('d', OCTICONS[name.replace(/-(\w)/g, (_, c) => c.toUpperCase())] || OCTICONS.file);
    svg.append(p);
    return svg;
  }

  function ago(days) {
    if (days <= 0) return 'today';
    if (days === 1) return 'yesterday';
    if (days < 30) return `${days} days ago`;
    const months = Math.round(days / 30);
    if (months < 12) return months === 1 ? 'last month' : `${months} months ago`;
    const years = Math.round(days / 365);
    return years === 1 ? 'last year' : `${years} years ago`;
  }

  const iso = (days) => new Date(Date.now() - days * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
  const relTime = (days) => h('relative-time', { datetime: iso(days), class: 'no-wrap', title: new Date(Date.now() - days * DAY).toDateString() }, ago(days));
  const repoHref = (slug, rest = '') => `#/${slug}${rest}`;
  const abbreviate = (n) => (n >= 1000 ? `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k` : String(n));

  // ------------------------------------------------------------------------------- routing

  function parseRoute() {
    const raw = location.hash.replace(/^#\/?/, '');
    const [path, query = ''] = raw.split('?');
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts.length < 2) return { slug: UPSTREAM, page: 'code', query: new URLSearchParams(), redirect: true };
    return { slug: `${parts[0]}/${parts[1]}`, page: parts[2] || 'code', arg: parts[3] || null, query: new URLSearchParams(query) };
  }

  let renderedHash = null;

  /** A Turbo-like visit: the URL changes and the page is rendered at once, not on hashchange. */
  function visit(hash) {
    if (location.hash !== hash) location.hash = hash;
    render();
  }

  function render() {
    const route = parseRoute();
    if (route.redirect) {
      history.replaceState(null, '', repoHref(UPSTREAM));
    }
    renderedHash = location.hash;
    const app = $('#app');
    app.replaceChildren();
    const info = repoInfo(route.slug);
    $('#app-context').replaceChildren(...(info ? [h('a', { href: `#/${info.owner}` }, info.owner), ' / ', h('a', { href: repoHref(route.slug) }, h('strong', {}, info.name))] : []));
    if (!info) {
      app.append(notFound());
      document.title = 'Page not found · Codehub';
      return;
    }
    if (route.page === 'fork') {
      app.append(forkPage(route.slug, info));
      document.title = `Create a new fork · Codehub`;
      return;
    }
    app.append(repoHeader(route.slug, info, route.page));
    const content = h('div', { id: 'repo-content-pjax-container', class: 'repository-content' });
    app.append(h('div', { class: 'container-xl clearfix new-discussion-timeline px-3 px-md-4 px-lg-5' }, content));
    if (route.page === 'issues' && route.arg) {
      content.append(issuePage(route.slug, Number(route.arg)));
    } else if (route.page === 'issues') {
      content.append(issuesPage(route.slug, info, route.query.has('q') ? route.query.get('q') : 'is:issue is:open '));
      document.title = `Issues · ${route.slug}`;
    } else if (route.page === 'code') {
      content.append(codePage(route.slug, info));
      document.title = `${route.slug}: ${info.description}`;
    } else {
      content.append(h('div', { class: 'blankslate' }, h('h3', { class: 'blankslate-heading' }, 'Nothing to show in this demo'), h('p', {}, 'Only the Code and Issues tabs have content here.')));
      document.title = `${route.page} · ${route.slug}`;
    }
  }

  function notFound() {
    return h('main', { class: 'container-md text-center p-6' }, h('h1', {}, '404'), h('p', {}, 'This is not the web page you are looking for.'), h('a', { href: repoHref(UPSTREAM) }, `Go to ${UPSTREAM}`));
  }

  // ------------------------------------------------------------------------------- repository header

  function repoHeader(slug, info, page) {
    const c = counts(slug);
    const s = repoState(slug);
    const own = info.owner === ME;
    const title = h('div', { class: 'd-flex flex-wrap flex-items-center wb-break-word f3 text-normal' },
      octicon('repo', 'color-fg-muted mr-2'),
      h('span', { class: 'author flex-self-stretch', itemprop: 'author' }, h('a', { class: 'url fn', rel: 'author', 'data-hovercard-type': info.ownerType, href: `#/${info.owner}` }, info.owner)),
      h('span', { class: 'mx-1 flex-self-stretch color-fg-muted' }, '/'),
      h('strong', { itemprop: 'name', class: 'mr-2 flex-self-stretch' }, h('a', { href: repoHref(slug) }, info.name)),
      ' ', h('span', { class: 'Label Label--secondary v-align-middle mr-1' }, 'Public'));
    const heading = h('div', { class: 'flex-auto min-width-0 width-fit mr-3' }, title);
    if (info.forkedFrom) {
      heading.append(h('span', { class: 'fork-flag text-small lh-condensed-ultra' }, 'forked from ', h('a', { class: 'Link--inTextBlock', href: repoHref(info.forkedFrom) }, info.forkedFrom)));
    }

    const actions = h('ul', { class: 'pagehead-actions flex-shrink-0 d-none d-md-inline' },
      h('li', {}, watchMenu(slug, s, c)),
      h('li', {}, forkButton(slug, info, c, own)),
      h('li', {}, starButtons(slug, info, s, c)));

    const header = h('div', { id: 'repository-container-header', class: 'pt-3 hide-full-screen', 'data-turbo-replace': '' },
      h('div', { class: 'd-flex flex-nowrap flex-justify-end mb-3 px-3 px-lg-5' },
        heading,
        h('div', { id: 'repository-details-container', class: 'flex-shrink-0', 'data-turbo-replace': '' }, actions)),
      repoNav(slug, info, page));
    return header;
  }

  function watchMenu(slug, s, c) {
    const watching = s.watch === 'subscribed' || s.watch === 'custom';
    const summaryText = s.watch === 'ignore' ? 'Stop ignoring' : watching ? 'Unwatch' : 'Watch';
    const summaryIcon = s.watch === 'ignore' ? 'bell-slash' : 'eye';
    const items = Object.entries(WATCH_LEVELS).map(([value, [label, description]]) => h('button', {
      type: value === 'custom' ? 'button' : 'submit', name: 'do', value, class: 'SelectMenu-item flex-items-start', role: 'menuitemradio',
      'aria-checked': String(s.watch === value),
      onclick: (event) => {
        event.preventDefault();
        if (value === 'custom') {
          details.open = false;
          openCustomDialog(slug, s);
          return;
        }
        s.watch = value;
        s.events = [];
        save();
        refreshWatch(slug);
      },
    }, octicon('check', 'SelectMenu-icon SelectMenu-icon--check'), h('div', {}, h('div', { class: 'f5 text-bold' }, label), h('div', { class: 'text-small color-fg-muted text-normal pb-1' }, description))));
    const details = h('details', { class: 'details-reset details-overlay select-menu hx_rsm', id: 'watch-menu' },
      h('summary', {
        class: 'btn-sm btn', 'aria-haspopup': 'menu', role: 'button', 'data-ga-click': 'Repository, click Watch settings',
        'aria-label': `${summaryText}: ${WATCH_LEVELS[s.watch][0]}`,
      }, octicon(summaryIcon, 'mr-2'), h('span', { 'data-menu-button': '' }, summaryText), ' ',
      h('span', { class: 'Counter', id: 'repo-notifications-counter', title: String(c.watchers), 'aria-label': `${c.watchers} users are watching this repository` }, abbreviate(c.watchers)),
      octicon('caret', 'dropdown-caret')),
      h('details-menu', { class: 'SelectMenu', role: 'menu', 'aria-label': 'Notifications' },
        h('div', { class: 'SelectMenu-modal' },
          h('header', { class: 'SelectMenu-header' }, h('h3', { class: 'SelectMenu-title' }, 'Notifications')),
          h('div', { class: 'SelectMenu-list' },
            h('form', { class: 'js-notifications-subscription-form', action: `/notifications/subscribe`, method: 'post', 'aria-label': 'Notification settings' },
              h('input', { type: 'hidden', name: 'authenticity_token', value: 'demo-csrf-token' }),
              h('input', { type: 'hidden', name: 'repository_id', value: '48213977' }),
              items)))));
    return h('notifications-list-subscription-form', { class: 'f5 position-relative d-flex' }, details, customDialog(slug, s));
  }

  /** A new notification level: the Watch button and the sidebar count change in place, as on GitHub. */
  function refreshWatch(slug) {
    const c = counts(slug);
    $('notifications-list-subscription-form').replaceWith(watchMenu(slug, repoState(slug), c));
    const sidebar = $('#sidebar-watchers');
    if (sidebar) sidebar.textContent = `${c.watchers} watching`;
  }

  function customDialog(slug, s) {
    const boxes = CUSTOM_EVENTS.map(([value, label]) => h('label', { class: 'd-block py-1' },
      h('input', { type: 'checkbox', name: 'thread_types[]', value, checked: s.watch === 'custom' && s.events.includes(value) }), ` ${label}`));
    const form = h('form', { class: 'js-custom-notifications-form', 'aria-label': 'Custom notifications' },
      h('fieldset', {}, h('legend', { class: 'text-bold' }, 'Custom'),
        h('p', { class: 'color-fg-muted text-small' }, 'Select events you want to be notified of in addition to participating and @mentions.'),
        boxes),
      h('div', { class: 'd-flex flex-justify-end mt-2' },
        h('button', { type: 'button', class: 'btn btn-sm mr-2', onclick: () => { dialog.hidden = true; } }, 'Cancel'),
        h('button', { type: 'submit', class: 'btn btn-sm btn-primary' }, 'Apply')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const chosen = $$('input[name="thread_types[]"]', form).filter((b) => b.checked).map((b) => b.value);
      s.watch = chosen.length ? 'custom' : 'included';
      s.events = chosen;
      save();
      refreshWatch(slug);
    });
    const dialog = h('div', { class: 'SelectMenu-modal custom-notifications', id: 'custom-notifications-dialog', role: 'dialog', 'aria-label': 'Custom notifications', hidden: true }, form);
    return dialog;
  }

  function openCustomDialog() {
    $('#custom-notifications-dialog').hidden = false;
  }

  function forkButton(slug, info, c, own) {
    const counter = h('span', { id: 'repo-network-counter', class: 'Counter', title: String(c.forks), 'data-view-component': 'true' }, abbreviate(c.forks));
    if (own) {
      return h('span', { class: 'btn-sm btn disabled', id: 'fork-button', 'aria-disabled': 'true', title: 'Cannot fork because you own this repository and are not a member of any organizations.' }, octicon('fork', 'mr-2'), 'Fork ', counter);
    }
    return h('a', {
      icon: 'repo-forked', id: 'fork-button', href: repoHref(slug, '/fork'), class: 'btn-sm btn', 'data-hydro-click': 'fork',
      'aria-label': `Fork your own copy of ${slug}`,
      onclick: (event) => {
        event.preventDefault();
        visit(repoHref(slug, '/fork'));
      },
    }, octicon('fork', 'mr-2'), 'Fork ', counter);
  }

  function starButtons(slug, info, s, c) {
    const starForm = (starred) => {
      const form = h('form', { class: `${starred ? 'starred' : 'unstarred'} js-social-form BtnGroup-parent flex-auto`, action: `/${slug}/${starred ? 'unstar' : 'star'}`, 'accept-charset': 'UTF-8', method: 'post' },
        h('input', { type: 'hidden', name: 'authenticity_token', value: 'demo-csrf-token' }),
        h('input', { type: 'hidden', name: 'context', value: 'repository' }),
        h('button', {
          type: 'submit', class: 'rounded-left-2 btn-sm btn BtnGroup-item', 'data-ga-click': `Repository, click ${starred ? 'unstar' : 'star'} button`,
          'aria-label': `${starred ? 'Unstar' : 'Star'} this repository (${c.stars})`,
        }, octicon(starred ? 'star-fill' : 'star', `${starred ? 'starred-button-icon' : ''} d-inline-block mr-2`), h('span', { class: 'd-inline' }, starred ? 'Starred' : 'Star'), ' ',
        h('span', { id: `repo-stars-counter-${starred ? 'unstar' : 'star'}`, class: 'Counter js-social-count', title: String(c.stars), 'aria-label': `${c.stars} users starred this repository` }, abbreviate(c.stars))));
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        s.starred = !starred;
        save();
        const fresh = counts(slug);
        const container = form.closest('.starring-container');
        container.classList.toggle('on', s.starred);
        for (const counter of $$('.js-social-count', container)) {
          counter.textContent = abbreviate(fresh.stars);
          counter.title = String(fresh.stars);
          counter.setAttribute('aria-label', `${fresh.stars} users starred this repository`);
        }
        $('.starred button', container).setAttribute('aria-label', `Unstar this repository (${fresh.stars})`);
        $('.unstarred button', container).setAttribute('aria-label', `Star this repository (${fresh.stars})`);
        const sidebarStars = $('#sidebar-stars');
        if (sidebarStars) sidebarStars.textContent = `${fresh.stars.toLocaleString('en-US')} stars`;
      });
      return form;
    };
    return h('div', { class: `js-toggler-container js-social-container starring-container BtnGroup d-flex${s.starred ? ' on' : ''}` },
      starForm(true), starForm(false));
  }

  function repoNav(slug, info, page) {
    const openIssues = ISSUES.filter((i) => i.state === 'open').length;
    const tab = (id, name, icon, rest, counter) => h('li', { class: 'd-inline-flex' },
      h('a', {
        id: `${id}-tab`, href: repoHref(slug, rest), class: `UnderlineNav-item no-wrap${page === name.toLowerCase().replace(/ /g, '') || (name === 'Code' && page === 'code') ? ' selected' : ''}`,
        'data-tab-item': `i0${id}-tab`, 'data-turbo-frame': 'repo-content-turbo-frame',
        'aria-current': (name === 'Code' ? page === 'code' : rest.slice(1) === page) ? 'page' : null,
        onclick: (event) => {
          event.preventDefault();
          visit(repoHref(slug, rest));
        },
      }, octicon(icon, 'UnderlineNav-octicon'), h('span', { 'data-content': name }, name), ' ',
      counter !== undefined ? h('span', { id: `${id}-repo-tab-count`, title: String(counter), class: 'Counter' }, String(counter)) : null));
    return h('nav', { class: 'js-repo-nav js-sidenav-container-pjax js-responsive-underlinenav overflow-hidden UnderlineNav px-3 px-md-4 px-lg-5', 'aria-label': 'Repository', 'data-pjax': '#js-repo-pjax-container' },
      h('ul', { class: 'UnderlineNav-body list-style-none' },
        tab('code', 'Code', 'code', ''),
        tab('issues', 'Issues', 'issue-opened', '/issues', info.forkedFrom ? 0 : openIssues),
        tab('pull-requests', 'Pull requests', 'pull', '/pulls', info.pulls),
        tab('actions', 'Actions', 'play', '/actions'),
        tab('projects', 'Projects', 'table', '/projects'),
        tab('security', 'Security', 'shield', '/security'),
        tab('insights', 'Insights', 'graph', '/pulse')));
  }

  // ------------------------------------------------------------------------------- code page

  function codePage(slug, info) {
    const c = counts(slug);
    const commit = info.lastCommit;
    const rows = FILES.map(([kind, name, message, days]) => h('tr', { class: 'react-directory-row' },
      h('td', { class: 'react-directory-row-name-cell-large-screen' }, octicon(kind === 'dir' ? 'dir' : 'file', kind === 'dir' ? 'icon-directory' : 'color-fg-muted'), ' ',
        h('a', { class: 'Link--primary', title: name, href: repoHref(slug, `/tree/main/${name}`), 'aria-label': `${name}, (${kind === 'dir' ? 'Directory' : 'File'})` }, name)),
      h('td', { class: 'react-directory-row-commit-cell' }, h('a', { class: 'Link--secondary', href: repoHref(slug, '/commits') }, message)),
      h('td', { class: 'react-directory-commit-age' }, relTime(days))));
    const readme = h('article', { class: 'markdown-body entry-content container-lg', itemprop: 'text' },
      h('h1', { tabindex: '-1', dir: 'auto' }, 'skylark'),
      h('p', { dir: 'auto' }, h('strong', {}, 'A tiny, fast HTTP router for Python.'), ' Typed path parameters, sub-routers and ASGI support in under 1,500 lines, with no dependencies.'),
      h('h2', { dir: 'auto' }, 'Installation'),
      h('pre', {}, h('code', {}, 'pip install skylark-router')),
      h('h2', { dir: 'auto' }, 'Quickstart'),
      h('pre', {}, h('code', {}, 'from skylark import Router\n\nrouter = Router()\n\n@router.get("/users/{id:int}")\nasync def show_user(request, id: int):\n    return {"id": id}\n')),
      h('h2', { dir: 'auto' }, 'Features'),
      h('ul', { dir: 'auto' },
        h('li', {}, 'Typed converters: int, str, uuid, path and your own'),
        h('li', {}, 'Sub-routers mounted under a prefix'),
        h('li', {}, 'Works with any ASGI server (uvicorn, hypercorn)'),
        h('li', {}, 'Route priority that does what you expect')),
      h('h2', { dir: 'auto' }, 'License'),
      h('p', { dir: 'auto' }, 'MIT'));
    const main = h('div', { class: 'Layout-main' },
      h('div', { class: 'file-navigation d-flex flex-items-center mb-3' },
        h('button', { type: 'button', class: 'btn btn-sm', id: 'branch-picker-repos-header-ref-selector', 'aria-label': 'main branch', 'aria-haspopup': 'true' }, octicon('fork', 'mr-1'), ' main ', octicon('caret')),
        h('span', { class: 'ml-3 color-fg-muted text-small' }, '4 Branches · 18 Tags'), ' ',
        h('a', { class: 'btn btn-sm ml-auto', href: repoHref(slug, '/find/main') }, 'Go to file'),
        h('button', { type: 'button', class: 'btn btn-sm btn-primary ml-2', 'aria-label': 'Code', 'aria-haspopup': 'true' }, octicon('code', 'mr-1'), ' Code ', octicon('caret'))),
      h('div', { class: 'Box mb-3' },
        h('div', { class: 'Box-header d-flex flex-items-center', 'data-testid': 'latest-commit' },
          h('span', { class: 'avatar avatar-small mr-2', 'aria-hidden': 'true' }, (info.forkedFrom ? ME : commit.author)[0].toUpperCase()),
          h('a', { class: 'commit-author user-mention', href: `#/${commit.author}` }, info.forkedFrom ? ME : commit.author), ' ',
          h('span', { class: 'color-fg-muted flex-auto ml-2' }, info.forkedFrom ? `Merge branch 'main' of ${info.forkedFrom}` : commit.message),
          h('span', { class: 'color-fg-muted text-small' }, `${commit.sha} · `, relTime(info.forkedFrom ? 0 : commit.daysAgo)),
          h('a', { class: 'ml-3 Link--primary no-wrap', href: repoHref(slug, '/commits/main') }, octicon('graph', 'mr-1'), ` ${info.commits} Commits`)),
        h('table', { 'aria-labelledby': 'folders-and-files', class: 'Table-module files-table' },
          h('thead', {}, h('tr', {}, h('th', { id: 'folders-and-files', colspan: '3', class: 'sr-only' }, 'Folders and files'))),
          h('tbody', {}, rows))),
      h('div', { class: 'Box', id: 'readme' },
        h('div', { class: 'Box-header' }, h('h2', { class: 'Box-title' }, octicon('book', 'mr-2'), 'README')),
        h('div', { class: 'Box-body px-5 pb-5' }, readme)));
    const sidebar = h('div', { class: 'Layout-sidebar' },
      h('div', { class: 'BorderGrid-cell' },
        h('h2', { class: 'mb-3 h4' }, 'About'),
        h('p', { class: 'f4 my-3' }, info.description),
        info.homepage ? h('div', { class: 'my-3 d-flex flex-items-center' }, h('a', { class: 'text-bold', href: '#', rel: 'noopener noreferrer nofollow' }, info.homepage)) : null,
        info.topics.length ? h('div', { class: 'my-3 topic-list' }, info.topics.map((t) => h('a', { class: 'topic-tag topic-tag-link', href: `#/topics/${t}`, 'data-octo-click': 'topic_click', title: `Topic: ${t}` }, t))) : null,
        h('h3', { class: 'sr-only' }, 'Resources'),
        h('div', { class: 'mt-2' }, h('a', { class: 'Link--muted', href: '#readme' }, octicon('book', 'mr-2'), 'Readme')),
        h('div', { class: 'mt-2' }, h('a', { class: 'Link--muted', href: repoHref(slug, '/blob/main/LICENSE') }, octicon('law', 'mr-2'), 'MIT license')),
        h('div', { class: 'mt-2' }, h('a', { class: 'Link--muted', href: repoHref(slug, '/stargazers') }, octicon('star', 'mr-2'), h('strong', { id: 'sidebar-stars' }, `${c.stars.toLocaleString('en-US')} stars`))),
        h('div', { class: 'mt-2' }, h('a', { class: 'Link--muted', href: repoHref(slug, '/watchers') }, octicon('eye', 'mr-2'), h('strong', { id: 'sidebar-watchers' }, `${c.watchers} watching`))),
        h('div', { class: 'mt-2' }, h('a', { class: 'Link--muted', href: repoHref(slug, '/forks') }, octicon('fork', 'mr-2'), h('strong', {}, `${c.forks} forks`)))),
      h('div', { class: 'BorderGrid-cell' },
        h('h2', { class: 'h4 mb-3' }, 'Releases ', h('span', { class: 'Counter' }, '18')),
        h('a', { class: 'Link--primary d-flex', href: repoHref(slug, `/releases/tag/${info.release}`) }, octicon('tag', 'mr-2'), h('span', { class: 'text-bold' }, info.release), h('span', { class: 'Label Label--success ml-2' }, 'Latest'))),
      h('div', { class: 'BorderGrid-cell' },
        h('h2', { class: 'h4 mb-3' }, 'Languages'),
        h('div', { class: 'Progress' }, h('span', { class: 'Progress-item lang-python', style: 'width: 97.8%' }), h('span', { class: 'Progress-item lang-other', style: 'width: 2.2%' })),
        h('ul', { class: 'list-style-none' }, h('li', { class: 'd-inline' }, h('span', { class: 'text-bold' }, 'Python'), ' 97.8%'), h('li', { class: 'd-inline ml-3' }, h('span', { class: 'text-bold' }, 'Other'), ' 2.2%'))));
    return h('div', { class: 'Layout Layout--sidebarPosition-end' }, main, sidebar);
  }

  // ------------------------------------------------------------------------------- issues

  /** GitHub's issue search, the parts that matter here: is:open|closed|issue|pr, label:, author:, no:label, sort:, free text. */
  function searchIssues(query) {
    const terms = query.match(/-?[\w-]+:(?:"[^"]*"|\S+)|"[^"]*"|\S+/g) || [];
    let found = [...ISSUES];
    for (const raw of terms) {
      const negated = raw.startsWith('-');
      const term = negated ? raw.slice(1) : raw;
      const colon = term.indexOf(':');
      const key = colon > 0 ? term.slice(0, colon).toLowerCase() : '';
      const value = (colon > 0 ? term.slice(colon + 1) : term).replace(/^"|"$/g, '').toLowerCase();
      let test;
      if (key === 'is' && (value === 'open' || value === 'closed')) test = (i) => i.state === value;
      else if (key === 'is' && value === 'issue') test = () => true;
      else if (key === 'is' && (value === 'pr' || value === 'pull-request')) test = () => false;
      else if (key === 'state') test = (i) => i.state === value;
      else if (key === 'label') test = (i) => i.labels.includes(value);
      else if (key === 'author') test = (i) => i.author.toLowerCase() === value;
      else if (key === 'no' && value === 'label') test = (i) => !i.labels.length;
      else if (key === 'sort' || key === 'type') test = () => true;
      else test = (i) => `${i.title} #${i.number} ${i.labels.join(' ')}`.toLowerCase().includes(value); // titles and labels stand in for bodies
      found = found.filter((i) => test(i) !== negated);
    }
    const sort = (query.match(/sort:([\w-]+)/) || [])[1] || 'created-desc';
    if (sort === 'created-asc') found.sort((a, b) => a.number - b.number);
    else if (sort === 'comments-desc') found.sort((a, b) => b.comments - a.comments || b.number - a.number);
    else found.sort((a, b) => b.number - a.number);
    return found;
  }

  /** The query with its is:open/is:closed replaced by `state` (GitHub's Open/Closed toggle links). */
  function withState(query, wanted) {
    const rest = query.split(/\s+/).filter((t) => t && !/^is:(open|closed)$/i.test(t) && !/^is:issue$/i.test(t));
    return ['is:issue', `is:${wanted}`, ...rest].join(' ');
  }

  function issuesPage(slug, info, query) {
    const input = h('input', {
      type: 'text', name: 'q', id: 'js-issues-search', class: 'form-control subnav-search-input input-contrast width-full',
      value: query, placeholder: 'Search all issues', 'aria-label': 'Search all issues', autocomplete: 'off', 'data-hotkey': 'Control+/,Meta+/',
    });
    const searchForm = h('form', { class: 'subnav-search flex-auto', role: 'search', 'aria-label': 'Issues', 'data-pjax': '', action: repoHref(slug, '/issues'), 'accept-charset': 'UTF-8', method: 'get' },
      input, octicon('search', 'subnav-search-icon'));
    searchForm.addEventListener('submit', (event) => {
      event.preventDefault();
      visit(repoHref(slug, `/issues?q=${encodeURIComponent(input.value.trim()).replace(/%20/g, '+')}`));
    });
    const scoped = info.forkedFrom ? [] : null;
    const base = query.split(/\s+/).filter((t) => t && !/^is:(open|closed)$/i.test(t)).join(' ');
    const inScope = scoped || searchIssues(base);
    const open = inScope.filter((i) => i.state === 'open').length;
    const closed = inScope.length - open;
    const shownState = /(^|\s)is:open(\s|$)/i.test(query) ? 'open' : /(^|\s)is:closed(\s|$)/i.test(query) ? 'closed' : null;
    const toggle = (which, count, icon) => h('a', {
      class: `btn-link${shownState === which ? ' selected' : ''}`, 'data-ga-click': `Issues, Table state, ${which === 'open' ? 'Open' : 'Closed'}`,
      href: repoHref(slug, `/issues?q=${encodeURIComponent(withState(query, which)).replace(/%20/g, '+')}`),
      'aria-current': shownState === which ? 'page' : null,
      onclick: (event) => {
        event.preventDefault();
        visit(event.currentTarget.getAttribute('href'));
      },
    }, octicon(icon, 'mr-1'), ` ${count} ${which === 'open' ? 'Open' : 'Closed'}`);
    const issues = scoped || searchIssues(query);
    const rows = issues.map((i) => issueRow(slug, i));
    const list = h('div', { class: 'js-navigation-container js-active-navigation-container', 'aria-label': 'Issues', role: 'group' }, rows);
    const box = h('div', { class: 'Box mt-3 Box--responsive hx_Box--firstRowRounded0', id: 'js-issues-toolbar-container' },
      h('div', { class: 'Box-header d-flex flex-justify-between', id: 'js-issues-toolbar' },
        h('div', { class: 'table-list-filters flex-auto d-flex min-width-0' },
          h('div', { class: 'flex-auto d-none d-lg-block no-wrap' },
            h('div', { class: 'table-list-header-toggle states flex-auto pl-0' },
              toggle('open', open, 'issue-opened'), toggle('closed', closed, 'check'))),
          h('div', { class: 'table-list-header-toggle no-wrap d-flex flex-auto flex-justify-end' },
            ['Author', 'Label', 'Projects', 'Milestones', 'Assignee', 'Sort'].map((name) => h('span', { class: 'select-menu-button btn-link', 'aria-hidden': 'true' }, `${name} `, octicon('caret')))))),
      issues.length ? list : h('div', { class: 'blankslate blankslate-large' }, octicon('issue-opened', 'blankslate-icon'), h('h3', { class: 'blankslate-heading' }, 'No results matched your search.'), h('p', {}, 'You could search all of Codehub or try an advanced search.')));
    return h('div', { class: 'repository-content issues-listing' },
      h('div', { class: 'subnav d-flex mb-3 flex-column flex-md-row' }, searchForm,
        h('nav', { class: 'subnav-links d-flex', 'aria-label': 'Issue' },
          h('a', { class: 'subnav-item', href: repoHref(slug, '/labels') }, 'Labels ', h('span', { class: 'Counter' }, '9')), ' ',
          h('a', { class: 'subnav-item', href: repoHref(slug, '/milestones') }, 'Milestones ', h('span', { class: 'Counter' }, '2'))),
        h('a', { class: 'btn btn-primary ml-md-3', href: repoHref(slug, '/issues/new/choose'), role: 'button', 'data-hotkey': 'c' }, 'New issue')),
      box);
  }

  function issueRow(slug, i) {
    const opened = i.state === 'open';
    const labels = i.labels.map((name) => h('a', {
      id: `label-${name.replace(/\s+/g, '-')}-${i.number}`, class: 'IssueLabel hx_IssueLabel', 'data-name': name,
      style: `--label-color: #${LABEL_COLORS[name] || 'cccccc'}`, href: repoHref(slug, `/issues?q=${encodeURIComponent(`is:issue is:open label:"${name}"`)}`),
      'data-view-component': 'true',
    }, name));
    const author = h('a', { class: 'Link--muted', title: `Open issues created by ${i.author}`, 'data-hovercard-type': 'user', href: repoHref(slug, `/issues?q=${encodeURIComponent(`is:issue author:${i.author}`)}`) }, i.author);
    const meta = opened
      ? [`#${i.number} opened `, relTime(i.opened), ' by ', author]
      : [`#${i.number} by `, author, ' was closed ', relTime(i.closed)];
    return h('div', { id: `issue_${i.number}`, class: 'Box-row Box-row--focus-gray p-0 mt-0 js-navigation-item js-issue-row', 'data-id': String(900000 + i.number) },
      h('div', { class: 'd-flex Box-row--drag-hide position-relative' },
        h('div', { class: 'flex-shrink-0 pt-2 pl-3' },
          h('span', { class: 'tooltipped tooltipped-e', 'aria-label': opened ? 'Open issue' : 'Closed issue' }, octicon(opened ? 'issue-opened' : 'issue-closed', opened ? 'open color-fg-open' : 'closed color-fg-done'))),
        h('div', { class: 'flex-auto min-width-0 p-2 pr-3 pr-md-2' },
          h('a', {
            id: `issue_${i.number}_link`, class: 'Link--primary v-align-middle no-underline h4 js-navigation-open markdown-title', 'data-hovercard-type': 'issue',
            'data-hovercard-url': `/${slug}/issues/${i.number}/hovercard`, href: repoHref(slug, `/issues/${i.number}`),
            onclick: (event) => {
              event.preventDefault();
              visit(repoHref(slug, `/issues/${i.number}`));
            },
          }, i.title),
          ' ',
          labels.length ? h('span', { class: 'lh-default d-block d-md-inline labels' }, labels.flatMap((l, n) => (n ? [' ', l] : [l]))) : null,
          h('div', { class: 'd-flex mt-1 text-small color-fg-muted' }, h('span', { class: 'opened-by' }, meta))),
        h('div', { class: 'flex-shrink-0 col-4 col-md-3 pt-2 text-right pr-3 no-wrap d-flex' },
          h('span', { class: 'ml-2 flex-1 flex-shrink-0' }),
          h('span', { class: 'ml-2 flex-1 flex-shrink-0' }, i.comments ? h('a', { href: repoHref(slug, `/issues/${i.number}`), class: 'Link--muted', 'aria-label': `${i.comments} comment${i.comments > 1 ? 's' : ''}` }, octicon('comment', 'v-align-middle'), ' ', h('span', { class: 'text-small text-bold' }, String(i.comments))) : null))));
  }

  function issuePage(slug, number) {
    const i = ISSUES.find((x) => x.number === number);
    if (!i) return h('div', { class: 'blankslate' }, h('h3', {}, `Issue #${number} does not exist.`));
    document.title = `${i.title} · Issue #${i.number} · ${slug}`;
    return h('div', { class: 'js-issues-results' },
      h('div', { class: 'gh-header' },
        h('h1', { class: 'gh-header-title' }, h('bdi', { class: 'js-issue-title markdown-title' }, i.title), ' ', h('span', { class: 'f1-light color-fg-muted' }, `#${i.number}`)),
        h('div', { class: 'gh-header-meta' },
          h('span', { class: `State State--${i.state === 'open' ? 'open' : 'merged'}`, title: `Status: ${i.state === 'open' ? 'Open' : 'Closed'}` }, i.state === 'open' ? 'Open' : 'Closed'),
          ' ', h('a', { class: 'author Link--secondary text-bold', href: `#/${i.author}` }, i.author), ` opened this issue `, relTime(i.opened), ` · ${i.comments} comments`)),
      h('div', { class: 'timeline-comment' }, h('div', { class: 'comment-body markdown-body' }, h('p', {}, `${i.title}. Steps to reproduce and details are in the original report; this demo keeps only the summary.`))),
      h('p', {}, h('a', { href: repoHref(slug, '/issues') }, '← Back to issues')));
  }

  // ------------------------------------------------------------------------------- fork page

  function forkPage(slug, info) {
    const existing = new Set(state.forks.map((f) => `${f.owner}/${f.name}`));
    const owner = h('select', { id: 'fork-owner', name: 'owner', class: 'form-select', 'aria-label': 'Owner' }, h('option', { value: ME, selected: true }, ME));
    const name = h('input', { id: 'repository-name-input', name: 'name', type: 'text', class: 'form-control', value: info.name, required: true, 'aria-required': 'true', 'aria-describedby': 'repo-name-note', autocomplete: 'off' });
    const description = h('input', { id: 'fork-description', name: 'description', type: 'text', class: 'form-control', value: info.description });
    const branchOnly = h('input', { type: 'checkbox', id: 'fork-default-branch-only', name: 'default_branch_only', checked: true });
    const nameError = h('p', { id: 'repo-name-error', class: 'error-text', role: 'alert', hidden: true });
    const status = h('p', { id: 'fork-status', class: 'fork-status', role: 'status', 'aria-live': 'polite' });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Create fork');
    const form = h('form', { id: 'fork-form', class: 'js-fork-form', action: repoHref(slug, '/fork'), method: 'post', 'aria-label': 'Create a new fork', novalidate: true },
      h('input', { type: 'hidden', name: 'authenticity_token', value: 'demo-csrf-token' }),
      h('div', { class: 'd-flex flex-items-end' },
        h('div', { class: 'form-group mr-2' }, h('label', { for: 'fork-owner' }, 'Owner ', h('span', { 'aria-hidden': 'true' }, '*')), owner),
        h('span', { class: 'f3 mx-1 pb-2' }, '/'),
        h('div', { class: 'form-group flex-auto' }, h('label', { for: 'repository-name-input' }, 'Repository name ', h('span', { 'aria-hidden': 'true' }, '*')), name)),
      nameError,
      h('p', { id: 'repo-name-note', class: 'note color-fg-muted' }, 'By default, forks are named the same as their upstream repository. You can customize the name to distinguish it further.'),
      h('div', { class: 'form-group' }, h('label', { for: 'fork-description' }, 'Description ', h('span', { class: 'color-fg-muted' }, '(optional)')), description),
      h('div', { class: 'form-checkbox' }, h('label', { for: 'fork-default-branch-only' }, branchOnly, ' Copy the ', h('code', {}, 'main'), ' branch only'),
        h('p', { class: 'note' }, 'Contribute back to nimbus-labs/skylark by adding your own branch.')),
      h('p', { class: 'color-fg-muted' }, 'You are creating a fork in your personal account.'),
      h('hr'),
      submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const wanted = name.value.trim();
      const fail = (message) => {
        nameError.textContent = message;
        nameError.hidden = false;
        name.setAttribute('aria-invalid', 'true');
      };
      nameError.hidden = true;
      name.removeAttribute('aria-invalid');
      if (!wanted) return fail('Repository name is required.');
      if (!/^[A-Za-z0-9._-]{1,100}$/.test(wanted)) return fail(`The repository name ${wanted} is invalid: use letters, digits, "-", "_" and ".".`);
      if (existing.has(`${owner.value}/${wanted}`)) return fail(`The repository ${wanted} already exists on this account.`);
      submit.disabled = true;
      status.textContent = `Forking ${slug}… It should only take a few seconds.`;
      setTimeout(() => {
        state.forks.push({ owner: owner.value, name: wanted, description: description.value.trim(), from: slug, branchOnly: branchOnly.checked });
        save();
        visit(`#/${owner.value}/${wanted}`);
      }, 500);
    });
    return h('main', { class: 'container-md px-3 py-5', id: 'fork-page' },
      h('h1', { class: 'h2 mb-2' }, 'Create a new fork'),
      h('p', { class: 'color-fg-muted mb-4' }, 'A ', h('em', {}, 'fork'), ' is a copy of a repository. Forking a repository allows you to freely experiment with changes without affecting the original project. ',
        h('a', { href: repoHref(slug, '/forks') }, 'View existing forks.')),
      h('p', { class: 'text-small color-fg-muted' }, 'Required fields are marked with an asterisk (*).'),
      form, status,
      h('p', { class: 'mt-3' }, h('a', { href: repoHref(slug) }, `← Back to ${slug}`)));
  }

  // ------------------------------------------------------------------------------- wiring

  // An open menu closes on a click elsewhere, as GitHub's details-menu does.
  document.addEventListener('click', (event) => {
    for (const details of $$('details.details-overlay[open]')) {
      if (!details.contains(event.target)) details.open = false;
    }
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === renderedHash) return; // already rendered by visit()
    render();
  });
  render();
})();
