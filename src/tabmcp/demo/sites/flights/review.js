// Skyscan's review page: the chosen fare (found again from the search in the URL and its
// resultid), its price breakdown, and a traveler form that holds the trip.
'use strict';

(() => {
  const S = SKYSCAN;
  const $ = (selector, root = document) => root.querySelector(selector);

  const search = S.searchFromQuery(location.search);
  const id = new URLSearchParams(location.search).get('resultid') || '';
  const fare = S.search(search).find((r) => r.id === id);
  const trip = $('#trip');
  $('#back-to-results').href = `./?${S.queryFromSearch(search)}`;

  if (!fare) {
    trip.append(h('p', { class: 'form-error', role: 'alert' }, 'This fare is no longer available. Go back to the results and choose another flight.'));
    return;
  }

  const money = (n) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const from = S.BY_CODE[search.origin];
  const to = S.BY_CODE[search.destination];
  document.title = `Review your trip to ${to.city} | Skyscan`;

  function legSection(leg, title, date) {
    const a = S.BY_CODE[leg.from];
    const b = S.BY_CODE[leg.to];
    return h('section', { class: 'leg-summary', 'aria-label': title },
      h('h2', {}, `${title}: ${a.city} to ${b.city}`),
      h('p', { class: 'leg-date' }, S.shortDate(date)),
      h('p', { class: 'leg-times' }, `${leg.depart} ${a.code} → ${leg.arrive}${leg.plusDays ? ` (+${leg.plusDays})` : ''} ${b.code}`),
      h('p', { class: 'leg-detail' }, `${fare.airline} ${leg.number} · ${S.stopsText(leg)}${leg.via.length ? ` via ${leg.via.join(', ')}` : ''} · ${S.duration(leg.minutes)} · ${fare.cabin}`));
  }

  const taxes = Math.round(fare.price * 0.12 * 100) / 100;
  const base = fare.price - taxes;
  trip.append(...[
    h('p', { class: 'trip-route' }, `${from.city} (${from.code}) to ${to.city} (${to.code}) · ${search.return ? 'Round-trip' : 'One-way'} · ${search.adults} traveler${search.adults > 1 ? 's' : ''}`),
    legSection(fare.legs[0], 'Departing flight', search.depart),
    fare.legs[1] ? legSection(fare.legs[1], 'Returning flight', search.return) : null,
    h('section', { class: 'price-summary', 'aria-label': 'Price summary' },
      h('h2', {}, 'Price summary'),
      h('dl', {},
        h('dt', {}, `Traveler${search.adults > 1 ? 's' : ''}: ${search.adults} adult${search.adults > 1 ? 's' : ''}`), h('dd', {}, `${money(fare.price)} each`),
        h('dt', {}, 'Flight'), h('dd', {}, money(base * search.adults)),
        h('dt', {}, 'Taxes and fees'), h('dd', {}, money(taxes * search.adults)),
        h('dt', { class: 'total' }, 'Trip total'), h('dd', { class: 'total', id: 'trip-total' }, money(fare.total)))),
  ].filter(Boolean));

  const form = h('form', { id: 'traveler-form', 'aria-label': 'Traveler details', novalidate: true },
    h('h2', {}, 'Who is traveling?'),
    h('p', { class: 'hint' }, 'Names must match the government-issued ID of the first traveler.'),
    h('div', { class: 'field' }, h('label', { for: 'first-name' }, 'First name'), h('input', { id: 'first-name', name: 'firstName', required: true, autocomplete: 'given-name' })),
    h('div', { class: 'field' }, h('label', { for: 'last-name' }, 'Last name'), h('input', { id: 'last-name', name: 'lastName', required: true, autocomplete: 'family-name' })),
    h('div', { class: 'field' }, h('label', { for: 'email' }, 'Email for the confirmation'), h('input', { id: 'email', name: 'email', type: 'email', required: true, autocomplete: 'email' })),
    h('button', { type: 'submit', class: 'search-button wide' }, 'Hold this trip'));
  const status = h('p', { id: 'hold-status', role: 'status', class: 'status' });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const missing = [...form.elements].filter((el) => el.required && !el.value.trim());
    if (missing.length) {
      status.textContent = `Please fill in: ${missing.map((el) => form.querySelector(`label[for="${el.id}"]`).textContent).join(', ')}.`;
      return;
    }
    if (!form.elements.email.checkValidity()) {
      status.textContent = 'Please enter a valid email address.';
      return;
    }
    const code = `SK${(S.hash(id + form.elements.lastName.value.toUpperCase()) % 46656 * 1000 + 7).toString(36).toUpperCase().slice(0, 5)}`;
    form.hidden = true;
    status.textContent = `Your trip is on hold for 24 hours, ${form.elements.firstName.value.trim()}. Confirmation code: ${code}. We sent the details to ${form.elements.email.value.trim()}.`;
  });
  trip.append(form, status);
})();
