// Skyscan's data: airports and a deterministic fare generator (same search, same results, on the
// results page and on the review page alike). Shared by skyscan.js and review.js; plain script.
'use strict';

const SKYSCAN = (() => {
  // code, city, region, country, airport name, lat, lon, UTC offset (hours, no DST)
  const AIRPORT_ROWS = [
    ['SFO', 'San Francisco', 'CA', 'United States', 'San Francisco International', 37.62, -122.38, -8],
    ['OAK', 'Oakland', 'CA', 'United States', 'Oakland International', 37.71, -122.22, -8],
    ['SJC', 'San Jose', 'CA', 'United States', 'Norman Y. Mineta San José International', 37.36, -121.93, -8],
    ['LAX', 'Los Angeles', 'CA', 'United States', 'Los Angeles International', 33.94, -118.41, -8],
    ['SAN', 'San Diego', 'CA', 'United States', 'San Diego International', 32.73, -117.19, -8],
    ['SEA', 'Seattle', 'WA', 'United States', 'Seattle-Tacoma International', 47.45, -122.31, -8],
    ['PDX', 'Portland', 'OR', 'United States', 'Portland International', 45.59, -122.6, -8],
    ['LAS', 'Las Vegas', 'NV', 'United States', 'Harry Reid International', 36.08, -115.15, -8],
    ['DEN', 'Denver', 'CO', 'United States', 'Denver International', 39.86, -104.67, -7],
    ['DFW', 'Dallas', 'TX', 'United States', 'Dallas/Fort Worth International', 32.9, -97.04, -6],
    ['AUS', 'Austin', 'TX', 'United States', 'Austin-Bergstrom International', 30.19, -97.67, -6],
    ['ORD', 'Chicago', 'IL', 'United States', "O'Hare International", 41.98, -87.9, -6],
    ['ATL', 'Atlanta', 'GA', 'United States', 'Hartsfield-Jackson Atlanta International', 33.64, -84.43, -5],
    ['MIA', 'Miami', 'FL', 'United States', 'Miami International', 25.79, -80.29, -5],
    ['BOS', 'Boston', 'MA', 'United States', 'Logan International', 42.37, -71.02, -5],
    ['JFK', 'New York', 'NY', 'United States', 'John F. Kennedy International', 40.64, -73.78, -5],
    ['LGA', 'New York', 'NY', 'United States', 'LaGuardia', 40.78, -73.87, -5],
    ['EWR', 'Newark', 'NJ', 'United States', 'Newark Liberty International', 40.69, -74.17, -5],
    ['IAD', 'Washington', 'DC', 'United States', 'Washington Dulles International', 38.95, -77.46, -5],
    ['HNL', 'Honolulu', 'HI', 'United States', 'Daniel K. Inouye International', 21.32, -157.92, -10],
    ['YYZ', 'Toronto', 'ON', 'Canada', 'Toronto Pearson International', 43.68, -79.63, -5],
    ['YVR', 'Vancouver', 'BC', 'Canada', 'Vancouver International', 49.19, -123.18, -8],
    ['MEX', 'Mexico City', '', 'Mexico', 'Benito Juárez International', 19.44, -99.07, -6],
    ['LHR', 'London', '', 'United Kingdom', 'Heathrow', 51.47, -0.45, 0],
    ['LGW', 'London', '', 'United Kingdom', 'Gatwick', 51.15, -0.19, 0],
    ['DUB', 'Dublin', '', 'Ireland', 'Dublin', 53.43, -6.25, 0],
    ['CDG', 'Paris', '', 'France', 'Charles de Gaulle', 49.01, 2.55, 1],
    ['AMS', 'Amsterdam', '', 'Netherlands', 'Schiphol', 52.31, 4.76, 1],
    ['FRA', 'Frankfurt', '', 'Germany', 'Frankfurt am Main', 50.04, 8.56, 1],
    ['MAD', 'Madrid', '', 'Spain', 'Adolfo Suárez Madrid-Barajas', 40.47, -3.57, 1],
    ['BCN', 'Barcelona', '', 'Spain', 'Josep Tarradellas Barcelona-El Prat', 41.3, 2.08, 1],
    ['FCO', 'Rome', '', 'Italy', 'Leonardo da Vinci-Fiumicino', 41.8, 12.25, 1],
    ['HND', 'Tokyo', '', 'Japan', 'Haneda', 35.55, 139.78, 9],
    ['NRT', 'Tokyo', '', 'Japan', 'Narita International', 35.77, 140.39, 9],
    ['SIN', 'Singapore', '', 'Singapore', 'Changi', 1.36, 103.99, 8],
    ['SYD', 'Sydney', 'NSW', 'Australia', 'Kingsford Smith', -33.94, 151.18, 10],
  ];
  const AIRPORTS = AIRPORT_ROWS.map(([code, city, region, country, name, lat, lon, tz]) => ({ code, city, region, country, name, lat, lon, tz }));
  const BY_CODE = Object.fromEntries(AIRPORTS.map((a) => [a.code, a]));
  const NORTH_AMERICA = new Set(['United States', 'Canada', 'Mexico']);
  const ASIA_PACIFIC = new Set(['Japan', 'Singapore', 'Australia']);

  const AIRLINES = {
    'United Airlines': { code: 'UA', hubs: ['ORD', 'DEN', 'IAD', 'EWR'] },
    Delta: { code: 'DL', hubs: ['ATL', 'SEA', 'JFK'] },
    'American Airlines': { code: 'AA', hubs: ['DFW', 'ORD', 'MIA'] },
    'Alaska Airlines': { code: 'AS', hubs: ['SEA', 'PDX'] },
    JetBlue: { code: 'B6', hubs: ['BOS', 'JFK'] },
    Southwest: { code: 'WN', hubs: ['LAS', 'DEN', 'AUS'] },
    'Air Canada': { code: 'AC', hubs: ['YYZ', 'YVR'] },
    'British Airways': { code: 'BA', hubs: ['LHR'] },
    'Virgin Atlantic': { code: 'VS', hubs: ['LHR'] },
    Lufthansa: { code: 'LH', hubs: ['FRA'] },
    'Air France': { code: 'AF', hubs: ['CDG'] },
    KLM: { code: 'KL', hubs: ['AMS'] },
    'Aer Lingus': { code: 'EI', hubs: ['DUB'] },
    Iberia: { code: 'IB', hubs: ['MAD'] },
    'ITA Airways': { code: 'AZ', hubs: ['FCO'] },
    Vueling: { code: 'VY', hubs: ['BCN'] },
    ANA: { code: 'NH', hubs: ['HND'] },
    'Japan Airlines': { code: 'JL', hubs: ['NRT', 'HND'] },
    'Singapore Airlines': { code: 'SQ', hubs: ['SIN'] },
    Qantas: { code: 'QF', hubs: ['SYD'] },
  };
  const DOMESTIC = ['United Airlines', 'Delta', 'American Airlines', 'Alaska Airlines', 'JetBlue', 'Southwest'];
  const ATLANTIC = ['British Airways', 'Virgin Atlantic', 'Lufthansa', 'Air France', 'KLM', 'Aer Lingus', 'United Airlines', 'Delta', 'American Airlines'];
  const EUROPE = ['Lufthansa', 'Air France', 'KLM', 'British Airways', 'Iberia', 'Aer Lingus', 'ITA Airways', 'Vueling'];
  const PACIFIC = ['ANA', 'Japan Airlines', 'Singapore Airlines', 'Qantas', 'United Airlines', 'Delta', 'Air Canada'];

  const CABINS = { economy: ['Economy', 1], premium: ['Premium Economy', 1.65], business: ['Business', 3.9], first: ['First', 6.2] };

  // ------------------------------------------------------------------------------- suggestions

  function describe(a) {
    return `${a.city}${a.region ? `, ${a.region}` : ''}, ${a.country}`;
  }

  /** Airports for what the user typed: the code itself first, then cities, then airport names. */
  function suggest(text, limit = 6) {
    const q = text.trim().toLowerCase().replace(/\s*\([a-z]{3}\)\s*$/, (m) => ` ${m.trim().slice(1, 4)}`);
    if (!q) return [];
    const codeIn = (q.match(/\b([a-z]{3})$/) || [])[1];
    const scored = [];
    for (const a of AIRPORTS) {
      const code = a.code.toLowerCase();
      const city = a.city.toLowerCase();
      let score = 0;
      if (code === q || (codeIn && code === codeIn && q.startsWith(city))) score = 100;
      else if (city === q) score = 90;
      else if (city.startsWith(q)) score = 80;
      else if (code.startsWith(q)) score = 70;
      else if (`${city} ${a.name.toLowerCase()} ${a.country.toLowerCase()}`.includes(q)) score = 50;
      if (score) scored.push([score, a]);
    }
    scored.sort((x, y) => y[0] - x[0] || AIRPORTS.indexOf(x[1]) - AIRPORTS.indexOf(y[1])); // the main airport first
    return scored.slice(0, limit).map(([, a]) => a);
  }

  // ------------------------------------------------------------------------------- fares

  function hash(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i += 1) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return h >>> 0;
  }

  function random(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function distanceKm(a, b) {
    const rad = Math.PI / 180;
    const dLat = (b.lat - a.lat) * rad;
    const dLon = (b.lon - a.lon) * rad;
    const s = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
    return 2 * 6371 * Math.asin(Math.sqrt(s));
  }

  function carriersFor(a, b) {
    const na = (x) => NORTH_AMERICA.has(x.country);
    const ap = (x) => ASIA_PACIFIC.has(x.country);
    if (na(a) && na(b)) return DOMESTIC;
    if (!na(a) && !na(b) && !ap(a) && !ap(b)) return EUROPE;
    if (ap(a) || ap(b)) return PACIFIC;
    return ATLANTIC;
  }

  function clock(minutes) {
    const m = ((minutes % 1440) + 1440) % 1440;
    const h = Math.floor(m / 60);
    return `${h % 12 || 12}:${String(m % 60).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}`;
  }

  const duration = (minutes) => `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;

  function leg(rand, airline, from, to) {
    const km = distanceKm(from, to);
    const wanted = km < 900 ? (rand() < 0.8 ? 0 : 1) : rand() < 0.45 ? 0 : rand() < 0.8 ? 1 : 2;
    let hubs = AIRLINES[airline].hubs.filter((h) => h !== from.code && h !== to.code);
    if (!hubs.length) hubs = ['ORD', 'ATL', 'FRA'].filter((h) => h !== from.code && h !== to.code);
    const start = Math.floor(rand() * hubs.length);
    const via = Array.from({ length: Math.min(wanted, hubs.length) }, (_, i) => hubs[(start + i) % hubs.length]);
    const stops = via.length;
    const air = Math.round((km * (1 + 0.09 * stops)) / 13 + 35); // ~780 km/h plus taxi and climb
    const layovers = Array.from({ length: stops }, () => 50 + Math.round(rand() * 36) * 5);
    const minutes = air + layovers.reduce((x, y) => x + y, 0);
    const depart = 6 * 60 + Math.round(rand() * 190) * 5; // 6:00 am to 9:50 pm
    const arriveLocal = depart + minutes + Math.round((to.tz - from.tz) * 60);
    const days = Math.floor(arriveLocal / 1440);
    return {
      from: from.code, to: to.code, stops, via, minutes,
      depart: clock(depart), arrive: clock(arriveLocal), plusDays: days,
      number: `${AIRLINES[airline].code} ${100 + Math.floor(rand() * 2800)}`,
    };
  }

  /**
   * The fares for one search: always the same for the same search. `search` = {origin, destination,
   * depart, return, adults, cabin}; results come cheapest first.
   */
  function search(search) {
    const from = BY_CODE[search.origin];
    const to = BY_CODE[search.destination];
    if (!from || !to) return [];
    const key = [search.origin, search.destination, search.depart, search.return || '', search.cabin].join('|');
    const rand = random(hash(key));
    const carriers = carriersFor(from, to);
    const [cabinName, cabinFactor] = CABINS[search.cabin] || CABINS.economy;
    const km = distanceKm(from, to);
    const results = [];
    for (let i = 0; i < 8; i += 1) {
      const airline = carriers[Math.floor(rand() * carriers.length)];
      const out = leg(rand, airline, from, to);
      const back = search.return ? leg(rand, airline, to, from) : null;
      const stopsFactor = 1 + 0.14 * (1 - out.stops) - (back ? 0.05 * back.stops : 0);
      const base = (55 + km * 0.085) * stopsFactor * (0.82 + rand() * 0.4) * cabinFactor * (back ? 1.85 : 1);
      const price = Math.max(39, Math.round(base));
      results.push({
        id: (hash(`${key}#${i}`).toString(16) + hash(`${i}#${key}`).toString(16)).padStart(16, '0').slice(0, 16),
        airline, cabin: cabinName, price, total: price * Number(search.adults || 1), legs: back ? [out, back] : [out],
      });
    }
    results.sort((a, b) => a.price - b.price || a.id.localeCompare(b.id));
    return results;
  }

  function stopsText(l) {
    return l.stops === 0 ? 'nonstop' : `${l.stops} stop${l.stops > 1 ? 's' : ''}`;
  }

  /** {origin, destination, depart, return, adults, cabin, sort} from a URL's query. */
  function searchFromQuery(query) {
    const q = new URLSearchParams(query);
    const adults = Math.min(9, Math.max(1, Number.parseInt(q.get('adults') || '1', 10) || 1));
    return {
      origin: (q.get('origin') || '').toUpperCase(), destination: (q.get('destination') || '').toUpperCase(),
      depart: q.get('depart') || '', return: q.get('return') || '', adults,
      cabin: CABINS[q.get('cabin')] ? q.get('cabin') : 'economy', sort: q.get('sort') || 'price',
    };
  }

  function queryFromSearch(s) {
    const q = new URLSearchParams({ origin: s.origin, destination: s.destination, depart: s.depart });
    if (s.return) q.set('return', s.return);
    q.set('adults', String(s.adults));
    q.set('cabin', s.cabin);
    if (s.sort && s.sort !== 'price') q.set('sort', s.sort);
    return q.toString();
  }

  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

  function shortDate(iso) {
    const [y, m, d] = iso.split('-').map(Number);
    const date = new Date(Date.UTC(y, m - 1, d));
    return `${DAYS[date.getUTCDay()]}, ${MONTHS[m - 1]} ${d}`;
  }

  return { AIRPORTS, BY_CODE, CABINS, describe, suggest, search, stopsText, duration, searchFromQuery, queryFromSearch, shortDate, hash };
})();
