// Skyscan's search page: airport comboboxes, the search as a single-page route change
// (history.pushState to ?origin=…&destination=…&depart=…), result cards, and Select → review.html.
'use strict';

(() => {
  const S = SKYSCAN;
  const $ = (selector, root = document) => root.querySelector(selector);
  const form = $('#flight-search');
  const SEARCH_DELAY_MS = 600; // the "searching" phase a real metasearch has while providers answer

  // ------------------------------------------------------------------------------- comboboxes

  function combobox(kind) {
    const input = $(`#${kind}-input`);
    const list = $(`#${kind}-listbox`);
    const code = form.elements[kind];
    let options = [];
    let active = -1;

    function close() {
      list.replaceChildren();
      list.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      options = [];
      active = -1;
    }

    function choose(airport) {
      code.value = airport.code;
      input.value = `${airport.city} (${airport.code})`;
      input.dataset.chosen = input.value;
      close();
      clearError();
    }

    function highlight(i) {
      active = i;
      [...list.children].forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
      if (i >= 0) input.setAttribute('aria-activedescendant', `${kind}-option-${i}`);
    }

    function open() {
      options = S.suggest(input.value);
      list.replaceChildren();
      if (!input.value.trim()) {
        close();
        return;
      }
      if (!options.length) {
        list.append(h('li', { class: 'no-match', role: 'presentation' }, `No airports match "${input.value.trim()}"`));
      }
      options.forEach((a, i) => list.append(h('li', {
        role: 'option', id: `${kind}-option-${i}`, 'data-code': a.code, 'aria-selected': 'false',
        onmousedown: (event) => event.preventDefault(), // keep focus in the input
        onclick: () => choose(a),
      }, h('span', { class: 'code' }, a.code), h('span', { class: 'place' }, h('b', {}, a.city), `, ${S.describe(a).slice(a.city.length + 2)}`), h('span', { class: 'airport' }, a.name))));
      list.hidden = false;
      input.setAttribute('aria-expanded', 'true');
      highlight(options.length ? 0 : -1);
    }

    input.addEventListener('input', () => {
      if (input.value !== input.dataset.chosen) code.value = '';
      open();
    });
    input.addEventListener('focus', () => {
      if (input.value && !code.value) open();
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown' && options.length) {
        event.preventDefault();
        highlight((active + 1) % options.length);
      } else if (event.key === 'ArrowUp' && options.length) {
        event.preventDefault();
        highlight((active - 1 + options.length) % options.length);
      } else if (event.key === 'Enter' && !list.hidden) {
        event.preventDefault();
        if (active >= 0) choose(options[active]);
      } else if (event.key === 'Escape') {
        close();
      }
    });
    input.addEventListener('blur', () => setTimeout(() => {
      if (document.activeElement === input) return;
      // a typed airport code counts as chosen, as on Kayak
      if (!code.value) {
        const exact = S.BY_CODE[input.value.trim().toUpperCase()];
        if (exact) choose(exact);
      }
      close();
    }, 150));

    return {
      set(airportCode) {
        const a = S.BY_CODE[airportCode];
        if (a) choose(a);
        else {
          code.value = '';
          input.value = '';
        }
      },
      /** The chosen airport, or the only one the typed text can mean. */
      resolve() {
        if (code.value) return S.BY_CODE[code.value];
        const found = S.suggest(input.value);
        const exact = S.BY_CODE[input.value.trim().toUpperCase()];
        if (exact) return exact;
        return found.length === 1 ? found[0] : null;
      },
      input,
    };
  }

  const origin = combobox('origin');
  const destination = combobox('destination');

  $('.swap').addEventListener('click', () => {
    const a = form.elements.origin.value;
    const b = form.elements.destination.value;
    origin.set(b);
    destination.set(a);
  });

  // ------------------------------------------------------------------------------- search

  /** A search the page cannot run: the message, and no stale results beside it. */
  function showError(message, field) {
    clearTimeout(searchTimer);
    $('#results').hidden = true;
    $('#results-list').replaceChildren();
    const box = $('#form-error');
    box.textContent = message;
    box.hidden = false;
    if (field) field.setAttribute('aria-invalid', 'true');
  }

  function clearError() {
    $('#form-error').hidden = true;
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  }

  const todayIso = () => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  };

  function readForm() {
    clearError();
    const from = origin.resolve();
    if (!from) return showError('Choose an origin airport from the list.', origin.input);
    const to = destination.resolve();
    if (!to) return showError('Choose a destination airport from the list.', destination.input);
    if (from.code === to.code) return showError('Origin and destination must be different airports.', destination.input);
    const depart = form.elements.depart.value;
    if (!depart) return showError('Choose a departure date.', form.elements.depart);
    if (depart < todayIso()) return showError(`The departure date ${depart} is in the past.`, form.elements.depart);
    const back = form.elements.return.value;
    if (back && back < depart) return showError('The return date must be on or after the departure date.', form.elements.return);
    origin.set(from.code);
    destination.set(to.code);
    return {
      origin: from.code, destination: to.code, depart, return: back,
      adults: Number(form.elements.adults.value), cabin: form.elements.cabin.value, sort: 'price',
    };
  }

  let searchTimer = null;
  let current = null;

  function runSearch(search, { animate }) {
    current = search;
    document.body.classList.add('has-results');
    $('#hero').hidden = true;
    $('#promo').hidden = true;
    $('#results').hidden = false;
    const from = S.BY_CODE[search.origin];
    const to = S.BY_CODE[search.destination];
    const dates = search.return ? `${S.shortDate(search.depart)} – ${S.shortDate(search.return)}` : `${S.shortDate(search.depart)} (one-way)`;
    const people = `${search.adults} traveler${search.adults > 1 ? 's' : ''}`;
    $('#results-title').textContent = `${from.city} (${from.code}) to ${to.city} (${to.code}) · ${dates} · ${people} · ${S.CABINS[search.cabin][0]}`;
    document.title = `${from.code} to ${to.code}, ${dates} | Skyscan`;
    for (const tab of document.querySelectorAll('.sort-tabs [role=tab]')) tab.setAttribute('aria-selected', String(tab.dataset.sort === search.sort));
    clearTimeout(searchTimer);
    const list = $('#results-list');
    list.replaceChildren();
    list.setAttribute('aria-busy', 'true');
    const progress = $('#progress');
    if (animate) {
      progress.textContent = 'Searching flights…';
      progress.classList.add('busy');
      searchTimer = setTimeout(() => showResults(search), SEARCH_DELAY_MS);
    } else {
      showResults(search);
    }
  }

  function sorted(results, sort) {
    const copy = [...results];
    if (sort === 'duration') copy.sort((a, b) => a.legs[0].minutes - b.legs[0].minutes || a.price - b.price);
    else if (sort === 'depart') copy.sort((a, b) => minutesOf(a.legs[0].depart) - minutesOf(b.legs[0].depart) || a.price - b.price);
    return copy;
  }

  function minutesOf(clock) {
    const [, hh, mm, ap] = clock.match(/(\d+):(\d+) (am|pm)/);
    return ((Number(hh) % 12) + (ap === 'pm' ? 12 : 0)) * 60 + Number(mm);
  }

  function showResults(search) {
    const results = sorted(S.search(search), search.sort);
    const progress = $('#progress');
    progress.classList.remove('busy');
    progress.textContent = results.length ? `${results.length} results, prices per person including taxes and fees` : 'No flights found for this search.';
    const list = $('#results-list');
    list.replaceChildren(...results.map((r, i) => card(r, i, search)));
    list.removeAttribute('aria-busy');
  }

  function legRow(l, which) {
    const stops = S.stopsText(l);
    return h('li', { class: `hJSA-item leg ${which}`, 'data-leg': which },
      h('div', { class: 'c5iUd-leg-carrier', 'aria-hidden': 'true' }, l.number.split(' ')[0]),
      h('div', { class: 'VY2U' },
        h('div', { class: 'vmXl vmXl-mod-variant-large times' },
          h('span', { class: 'depart-time' }, l.depart), h('span', { class: 'dash' }, ' – '), h('span', { class: 'arrive-time' }, l.arrive),
          l.plusDays ? ' ' : null,
          l.plusDays ? h('sup', { class: 'VY2U-adendum', title: `Arrives ${l.plusDays} day${l.plusDays > 1 ? 's' : ''} later` }, `+${l.plusDays}`) : null),
        h('div', { class: 'c_cgF c_cgF-mod-variant-default flight-number' }, l.number)),
      h('div', { class: 'JWEO' },
        h('div', { class: `vmXl JWEO-stops-text stops ${l.stops ? 'has-stops' : 'nonstop'}` }, stops),
        h('div', { class: 'c_cgF layovers' }, l.via.length ? l.via.join(', ') : '')),
      h('div', { class: 'xdW8' },
        h('div', { class: 'vmXl duration' }, S.duration(l.minutes)),
        h('div', { class: 'c_cgF route' }, `${l.from}–${l.to}`)));
  }

  function card(r, i, search) {
    const out = r.legs[0];
    const label = `${r.airline}, departs ${out.depart}, ${S.stopsText(out)}, ${S.duration(out.minutes)}, $${r.price}`;
    const select = h('button', {
      type: 'button', class: 'Iqt3 select-button', 'aria-label': `Select ${r.airline} flight departing ${out.depart}, $${r.price} per person`,
      onclick: () => {
        location.assign(`review.html?${S.queryFromSearch(search)}&resultid=${r.id}`);
      },
    }, 'Select');
    return h('div', { class: 'nrc6', 'data-resultid': r.id, role: 'listitem', 'aria-label': `Result ${i + 1}: ${label}` },
      h('div', { class: 'nrc6-content-section' },
        h('div', { class: 'J0g6-operator-text airline' }, r.airline),
        h('ol', { class: 'hJSA-list' }, legRow(out, 'outbound'), r.legs[1] ? legRow(r.legs[1], 'return') : null)),
      h('div', { class: 'nrc6-price-section' },
        h('div', { class: 'f8F1-price-text price' }, `$${r.price.toLocaleString('en-US')}`),
        h('div', { class: 'f8F1-multiple-ptc-total-price total' }, search.adults > 1 ? `$${r.total.toLocaleString('en-US')} total` : 'per person'),
        h('div', { class: 'DOum-name cabin' }, r.cabin),
        select));
  }

  // ------------------------------------------------------------------------------- wiring

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const search = readForm();
    if (!search) return;
    history.pushState({ search }, '', `?${S.queryFromSearch(search)}`);
    runSearch(search, { animate: true });
  });

  for (const tab of document.querySelectorAll('.sort-tabs [role=tab]')) {
    tab.addEventListener('click', () => {
      if (!current) return;
      const search = { ...current, sort: tab.dataset.sort };
      history.replaceState({ search }, '', `?${S.queryFromSearch(search)}`);
      runSearch(search, { animate: false });
    });
  }

  function fillForm(search) {
    origin.set(search.origin);
    destination.set(search.destination);
    form.elements.depart.value = search.depart;
    form.elements.return.value = search.return;
    form.elements.adults.value = String(search.adults);
    form.elements.cabin.value = search.cabin;
  }

  function fromUrl() {
    const search = S.searchFromQuery(location.search);
    clearTimeout(searchTimer);
    if (S.BY_CODE[search.origin] && S.BY_CODE[search.destination] && search.depart) {
      fillForm(search);
      runSearch(search, { animate: true });
    } else {
      current = null;
      document.body.classList.remove('has-results');
      $('#hero').hidden = false;
      $('#promo').hidden = false;
      $('#results').hidden = true;
      $('#results-list').replaceChildren();
      document.title = 'Skyscan: Search cheap flights';
    }
  }

  window.addEventListener('popstate', fromUrl);
  fromUrl();
})();
