// Tournaments in the browser (issue 48): the lobby's list of tournaments (and, for an organiser,
// the form that creates one), and a tournament's page at /?tournament=ID: its players, its
// standings with the tie-breaks of its format, its rounds and tables, Register / Withdraw while it
// takes players, Start now / Cancel for an organiser, and the person's own table with a big
// "Play your game". When a round gives the person a table, a notice says so wherever they are.
//
// The server decides everything (pairings, points, forfeits); this page reads
// /api/tournaments, /api/tournament?id=… and the WebSocket's `tournament` and `tournament_table`,
// and words them in the page's language. app.js routes /?tournament=ID here (showTournament) and
// forwards those two messages (onTournamentMessage); the rest this module watches for itself:
// the lobby being shown or left, another section taking the page's place.
import { el } from './dom.js';
import { hasKey, language, onLanguage, t, tn } from './i18n.js';
import { controlBadge, controlOf, controlTitle } from './time_control.js';

const $ = (sel) => document.querySelector(sel);
const SECTIONS = ['#lobby', '#room', '#replay', '#profile'];
const LIST_EVERY = 15000;     // the lobby's list, while the lobby is on screen
const RUNNING_EVERY = 3000;   // a running tournament's page
const WAITING_EVERY = 15000;  // a page still taking players (new players, a start)

const hooks = { send: () => false, route: () => {}, openRoom: () => {}, showLobby: () => {} };

const tour = {
  list: null,            // the lobby's last list (empty: none, or a server without tournaments)
  listTimer: null,
  listAsked: 0,
  me: null,              // GET /api/accounts/me of the signed-in account, or null
  meFor: null,           // the token `me` was asked with ('' for a guest)
  form: null,            // the create form's choices, kept across redraws
  formError: null,       // the server's refusal of the form, worded again on a switch
  formNode: null,        // the form as drawn (a list refresh keeps it, with its focus)
  id: null,              // the tournament on screen, or null
  data: null,            // its last answer
  error: null,           // its last refusal ({code}) when there is no answer to show
  asked: 0,
  pageTimer: null,
  tickTimer: null,
  registered: new Map(), // tournament -> registered, as the WebSocket last said
  pageError: null,       // a refused Register, Start or Cancel: {code, message}
  busy: false,           // a Register / Withdraw waits for its answer
  confirmCancel: false,  // "Cancel the tournament?" asked
  notice: null,          // {tournament, round, room}: the person's new table
  startAsked: false,     // the countdown reached the start and the page asked again
};
window.plateauTournaments = tour;  // for tests

// ---------- small things ----------
const plateau = () => window.plateau || {};
const games = () => plateau().games || [];
const myPlayer = () => plateau().player || null;
const token = () => localStorage.getItem('plateau.token') || '';
const signedIn = () => !!(window.plateauAccount && window.plateauAccount.name);
const serverNow = () => Date.now() + (plateau().offset || 0);
// The host's admin token, when this tab has given it (app.js keeps it for imports).
const adminToken = () => { try { return sessionStorage.getItem('plateau.admin') || ''; } catch { return ''; } };
const organiser = () => !!adminToken() || !!(tour.me && tour.me.organiser);

// Numbers in the page's language: halves as decimals ("2.5", "2,5"), everywhere the same.
const num = (x) => new Intl.NumberFormat(language(), { maximumFractionDigits: 2 }).format(Number(x) || 0);
const dateTime = (ms) => new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
const gameName = (id) => { const g = games().find((x) => x.id === id); return g ? g.name : id; };

export const tournamentHref = (id) => `/?tournament=${encodeURIComponent(id)}`;
const roomHref = (room) => `/?room=${encodeURIComponent(room)}`;
// A tournament's game is the first round of its own room: its replay is that room's round 1.
const replayHref = (room) => `/?replay=${encodeURIComponent(room)}&round=1`;

function navigate(href) {
  history.pushState({}, '', href);
  hooks.route();
}

async function api(path, { body, auth = false } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (auth) headers.Authorization = `Bearer ${adminToken() || token()}`;
  let r;
  try {
    r = await fetch(path, { method: body === undefined ? 'GET' : 'POST', headers, cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { ok: false, status: 0, body: { code: 'network' } };
  }
  let json = {};
  try { json = await r.json(); } catch { /* an empty or odd answer */ }
  return { ok: r.ok, status: r.status, body: json || {} };
}

// A refusal in the page's language: tournament/closed is tournament.error.closed; the server's
// own message follows a bad request (it says which field), and stands in for a code unknown here.
// i18n-keys: tournament.error.*
function errorText(body) {
  const b = body || {};
  const code = typeof b.code === 'string' ? b.code : '';
  const key = `tournament.error.${code.replace(/^tournament\//, '').replace(/[^a-z0-9_]/g, '_')}`;
  const known = !!code && hasKey(key);
  const text = known ? t(key) : t('tournament.error.unknown');
  const message = typeof b.message === 'string' && b.message ? b.message : typeof b.error === 'string' ? b.error : '';
  return message && (!known || code === 'tournament/bad_request') ? t('tournament.error.detail', { text, message }) : text;
}

// i18n-keys: tournament.format.*
function formatName(format, twice) {
  const key = format === 'round_robin' && twice ? 'tournament.format.round_robin_twice' : `tournament.format.${format}`;
  return hasKey(key) ? t(key) : String(format);
}

// i18n-keys: tournament.status.*
const statusName = (s) => (hasKey(`tournament.status.${s}`) ? t(`tournament.status.${s}`) : String(s));

// i18n-keys: tournament.table_status.*
const tableStatus = (s) => (hasKey(`tournament.table_status.${s}`) ? t(`tournament.table_status.${s}`) : String(s));

// The time to a start: "9:58", "2:04:10", "3 days 2:04:10".
function countdownText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  const pad = (n) => String(n).padStart(2, '0');
  const clock = h || d ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
  return d ? tn('tournament.days_and', d, { time: clock }) : clock;
}

// ---------- the lobby's panel ----------
const panel = () => $('#tournaments-panel');

async function loadList() {
  const asked = ++tour.listAsked;
  const res = await api('/api/tournaments');
  if (asked !== tour.listAsked) return;
  // A server without tournaments (404) lists none: the panel stays hidden but for organisers.
  tour.list = res.ok && Array.isArray(res.body.tournaments) ? res.body.tournaments : [];
  renderList();
}

// The organiser's rights, asked once a sign-in (and again when the account changes).
async function checkMe() {
  const key = signedIn() ? token() : '';
  if (key === tour.meFor) return;
  tour.meFor = key;
  if (!key) {
    tour.me = null;
    renderPanel();
    return;
  }
  const res = await api('/api/accounts/me', { auth: true });
  if (tour.meFor !== key) return;
  tour.me = res.ok ? res.body : null;
  renderPanel();
  if (tour.id) renderPage();
}

function lobbyShown() {
  checkMe();
  if (tour.listTimer) return;
  loadList();
  tour.listTimer = setInterval(() => { if (!document.hidden) { loadList(); checkMe(); } }, LIST_EVERY);
}

function lobbyHidden() {
  clearInterval(tour.listTimer);
  tour.listTimer = null;
}

function listRow(x) {
  const when = x.status === 'running' ? t('tournament.round_of', { round: num(x.round), rounds: num(x.rounds) })
    : typeof x.starts === 'number' ? dateTime(x.starts) : '';
  return el('tr', { 'data-tournament': x.id, 'data-status': x.status },
    el('td', {}, el('a', { class: 't-link', href: tournamentHref(x.id), 'data-nav': '' }, el('bdi', {}, x.name))),
    el('td', {}, gameName(x.game)),
    el('td', {}, formatName(x.format, x.twice)),
    el('td', { class: 't-status' }, statusName(x.status)),
    el('td', { class: 't-when' }, when),
    el('td', { class: 't-count' }, tn('tournament.players_count', Number(x.players) || 0, { n: num(x.players) })));
}

// The list (and whether the panel shows at all), from what was last fetched.
function renderList() {
  const p = panel();
  if (!p) return;
  if (!p.firstChild) { renderPanel(); return; }
  const list = tour.list || [];
  p.hidden = list.length === 0 && !organiser();
  const body = p.querySelector('#tournament-list');
  body.replaceChildren(...list.map(listRow));
  p.querySelector('.t-list').hidden = list.length === 0;
  p.querySelector('#no-tournaments').hidden = list.length > 0;
}

function renderPanel() {
  const p = panel();
  if (!p) return;
  const head = (key) => el('th', {}, t(key));
  p.replaceChildren(
    el('h2', {}, el('span', {}, t('tournament.lobby.title'))),
    el('div', { class: 't-scroll' }, el('table', { class: 'rooms t-list' },
      el('thead', {}, el('tr', {}, head('tournament.col.name'), head('tournament.col.game'), head('tournament.col.format'),
        head('tournament.col.status'), head('tournament.col.when'), head('tournament.col.players'))),
      el('tbody', { id: 'tournament-list' }))),
    el('p', { id: 'no-tournaments', class: 'muted', hidden: true }, t('tournament.lobby.none')));
  const form = organiser() ? createForm() : null;
  if (form) p.append(form);
  renderList();
}

// ---------- the organiser's form ----------
// A moment as <input type=datetime-local> shows it, in this browser's time zone.
function localInput(ms) {
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function defaultForm() {
  return { open: false, name: '', game: games()[0] ? games()[0].id : '', options: {}, format: '', rounds: 5, twice: false,
    starts: localInput(Date.now() + 10 * 60000), no_show: 10, clock: '', accounts_only: false };
}

// An option's words, as the "New table" form says them (option.<game>.<name>, or the server's
// label for one the client has no words for).
// i18n-keys: option.*
function optionLabel(game, o) {
  const key = o.name === 'first' || o.name === 'players' ? `option.${o.name}` : `option.${game}.${o.name}`;
  return hasKey(key) ? t(key) : o.label || o.name;
}

function choiceLabel(game, name, c) {
  if (name === 'first') return c === 'random' ? t('option.first.random') : t('option.first.seat', { n: Number(c) + 1 });
  const key = `option.${game}.${name}.${c}`;
  return hasKey(key) ? t(key) : String(c).replace(/_/g, ' ');
}
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function optionValue(o) {
  const f = tour.form;
  return o.name in f.options ? f.options[o.name] : o.default;
}

// How many sit at each table: the game's `players` option, else its fewest seats.
function seatsOf(game) {
  const players = game.options.find((o) => o.name === 'players');
  if (players) return Number(optionValue(players)) || 2;
  return game.seats ? Number(game.seats[0]) || 2 : 2;
}

// Two seats: Swiss or round robin; three or four: tables seated by score.
const formatsFor = (seats) => (seats === 2 ? ['swiss', 'round_robin'] : ['seated']);

function optionInput(game, o) {
  const label = optionLabel(game.id, o);
  const value = optionValue(o);
  if (o.type === 'bool') {
    const input = el('input', { type: 'checkbox', 'data-t-option': o.name });
    input.checked = !!value;
    return el('label', { class: 'inline', title: label }, input, ' ', label);
  }
  let input;
  if (o.type === 'choice') {
    input = el('select', { 'data-t-option': o.name }, o.choices.map((c) => el('option', { value: c }, choiceLabel(game.id, o.name, c))));
  } else if (o.name === 'players' || (o.type === 'int' && o.max - o.min <= 10)) {
    const values = [];
    for (let v = o.min; v <= o.max; v++) values.push(v);
    input = el('select', { 'data-t-option': o.name, 'data-int': '1' }, values.map((v) => el('option', { value: v }, num(v))));
  } else {
    input = el('input', { type: 'number', min: o.min, max: o.max, 'data-t-option': o.name, 'data-int': '1' });
  }
  input.value = String(value);
  return el('label', { title: label }, capital(label), ' ', input);
}

// The form's fields into tour.form.
function readForm() {
  const form = $('#tournament-create');
  const f = tour.form;
  if (!form || !f) return;
  f.name = form.elements.name.value;
  f.game = form.elements.game.value;
  f.format = form.elements.format.value;
  f.rounds = form.elements.rounds.value;
  f.twice = form.elements.twice.checked;
  f.starts = form.elements.starts.value;
  f.no_show = form.elements.no_show.value;
  f.accounts_only = form.elements.accounts_only.checked;
  f.clock = form.elements.clock ? form.elements.clock.value : '';
  const options = {};
  for (const input of form.querySelectorAll('[data-t-option]')) {
    const name = input.dataset.tOption;
    options[name] = input.type === 'checkbox' ? input.checked : input.dataset.int ? Number(input.value) : input.value;
  }
  f.options = options;
}

function createForm() {
  if (!tour.form) tour.form = defaultForm();
  const f = tour.form;
  const game = games().find((g) => g.id === f.game) || games()[0];
  if (!game) return null;
  f.game = game.id;
  const formats = formatsFor(seatsOf(game));
  if (!formats.includes(f.format)) f.format = formats[0];
  const field = (key, input, attrs = {}) => el('label', attrs, el('span', {}, t(key)), ' ', input);
  const name = el('input', { name: 'name', maxlength: 80, required: true, autocomplete: 'off' });
  name.value = f.name;
  const gameSelect = el('select', { name: 'game' }, games().map((g) => el('option', { value: g.id }, g.name)));
  gameSelect.value = game.id;
  const format = el('select', { name: 'format' }, formats.map((x) => el('option', { value: x }, formatName(x, false))));
  format.value = f.format;
  const rounds = el('input', { type: 'number', name: 'rounds', min: 1, max: 50, required: true });
  rounds.value = String(f.rounds);
  const twice = el('input', { type: 'checkbox', name: 'twice' });
  twice.checked = !!f.twice;
  const starts = el('input', { type: 'datetime-local', name: 'starts', required: true });
  starts.value = f.starts;
  const noShow = el('input', { type: 'number', name: 'no_show', min: 1, max: 1440, required: true });
  noShow.value = String(f.no_show);
  const accountsOnly = el('input', { type: 'checkbox', name: 'accounts_only' });
  accountsOnly.checked = !!f.accounts_only;
  // The tables' own time-control choices (clocks are for games of two), in the page's words.
  const clock = seatsOf(game) === 2 && $('#time-control') ? $('#time-control').cloneNode(true) : null;
  if (clock) {
    clock.removeAttribute('id');
    clock.name = 'clock';
    clock.value = f.clock || '';
  } else {
    f.clock = '';
  }
  const form = el('form', {
    id: 'tournament-create', class: 'create-form t-create-form', autocomplete: 'off',
    oninput: readForm,
    // A game, its number of players or a format changes what the form offers: drawn again.
    onchange: (e) => {
      readForm();
      const n = e.target.name || (e.target.dataset && e.target.dataset.tOption);
      if (n === 'game') f.options = {};
      if (['game', 'format', 'players'].includes(n)) redrawForm();
    },
    onsubmit: create,
  },
  field('tournament.create.name', name),
  field('tournament.col.game', gameSelect),
  el('div', { class: 't-options' }, game.options.map((o) => optionInput(game, o))),
  field('tournament.col.format', format),
  field('tournament.create.rounds', rounds, { hidden: f.format === 'round_robin' }),
  el('label', { class: 'inline', hidden: f.format !== 'round_robin' }, twice, ' ', t('tournament.create.twice')),
  clock ? field('option.common.time_control', clock) : null,
  field('tournament.create.starts', starts),
  field('tournament.create.no_show', noShow),
  el('label', { class: 'inline' }, accountsOnly, ' ', t('tournament.create.accounts_only')),
  el('button', { type: 'submit', class: 'primary', id: 'tournament-create-submit' }, t('tournament.create.submit')),
  tour.formError ? el('div', { class: 'error', role: 'alert', id: 'tournament-create-error' }, errorText(tour.formError)) : null);
  const details = el('details', { class: 't-create', open: f.open, ontoggle: (e) => { f.open = e.currentTarget.open; } },
    el('summary', {}, t('tournament.create.title')), form);
  tour.formNode = details;
  return details;
}

function redrawForm() {
  const old = tour.formNode;
  if (!old || !old.isConnected) { renderPanel(); return; }
  const form = createForm();
  if (form) old.replaceWith(form); else old.remove();
}

async function create(e) {
  e.preventDefault();
  readForm();
  const f = tour.form;
  const game = games().find((g) => g.id === f.game);
  if (!game) return;
  const body = {
    name: f.name.trim(),
    game: f.game,
    options: { ...f.options },
    format: f.format,
    rounds: Number(f.rounds) || 0,
    twice: f.format === 'round_robin' && !!f.twice,
    starts: new Date(f.starts).getTime(),
    no_show_minutes: Number(f.no_show) || 0,
    accounts_only: !!f.accounts_only,
  };
  const clock = controlOf(f.clock);
  if (clock) body.clock = clock;
  const button = $('#tournament-create-submit');
  if (button) button.disabled = true;
  const res = await api('/api/tournaments/create', { body, auth: true });
  if (button) button.disabled = false;
  if (!res.ok || !res.body.id) {
    tour.formError = res.ok ? {} : res.body;
    redrawForm();
    return;
  }
  tour.formError = null;
  tour.form = defaultForm();
  renderPanel();
  navigate(tournamentHref(res.body.id));
}

// ---------- the tournament's page ----------
export function showTournament(id) {
  for (const s of SECTIONS) { const e = $(s); if (e) e.hidden = true; }
  const page = $('#tournament');
  page.hidden = false;
  if (tour.id !== id) {
    Object.assign(tour, { data: null, error: null, pageError: null, confirmCancel: false, busy: false });
  }
  tour.id = id;
  document.title = 'Plateau';
  window.scrollTo(0, 0);
  renderPage();
  loadPage();
  checkMe();
}

// Another section took the page's place: no more asking.
function leavePage() {
  $('#tournament').hidden = true;
  tour.id = null;
  tour.asked++;
  clearTimeout(tour.pageTimer);
  clearInterval(tour.tickTimer);
  tour.pageTimer = tour.tickTimer = null;
}

const onPage = () => tour.id !== null && !$('#tournament').hidden;

async function loadPage() {
  const id = tour.id;
  if (id === null) return;
  const asked = ++tour.asked;
  clearTimeout(tour.pageTimer);
  const res = await api(`/api/tournament?id=${encodeURIComponent(id)}`);
  if (asked !== tour.asked || tour.id !== id || !onPage()) return;
  if (res.ok) {
    tour.data = res.body;
    tour.error = null;
    // What the WebSocket said holds until the list agrees with it.
    if (tour.registered.has(id) && inPlayers(res.body) === tour.registered.get(id)) tour.registered.delete(id);
  } else if (res.status === 404 || !tour.data) {
    tour.data = null;
    tour.error = res.body;
  }
  renderPage();
  schedule();
}

function schedule() {
  clearTimeout(tour.pageTimer);
  const d = tour.data;
  const every = d && d.status === 'running' ? RUNNING_EVERY : d && d.status === 'registering' ? WAITING_EVERY : 0;
  if (!every) return;
  tour.pageTimer = setTimeout(() => {
    if (!onPage()) return;
    if (document.hidden) schedule();
    else loadPage();
  }, every);
}

// The rounds drawn so far, and how many are planned. The wire's first draft named both `rounds`;
// the server says `rounds_played` for the list (an older answer's array `rounds` is read too).
const roundsPlayed = (d) => (Array.isArray(d.rounds_played) ? d.rounds_played : Array.isArray(d.rounds) ? d.rounds : []);
const roundsPlanned = (d) => (typeof d.rounds === 'number' ? d.rounds : 0);

const inPlayers = (d) => !!myPlayer() && (d.players || []).some((p) => p.player === myPlayer());

function registered(d) {
  return tour.registered.has(d.id) ? tour.registered.get(d.id) : inPlayers(d);
}

// The person's table in the round being played, with their seat, or null.
function myTable(d) {
  if (!d || d.status !== 'running' || !myPlayer()) return null;
  const round = roundsPlayed(d).find((r) => r.round === d.round);
  if (!round) return null;
  for (const table of round.tables || []) {
    const seat = (table.seats || []).findIndex((s) => s.player === myPlayer());
    if (seat >= 0) return { table, seat };
  }
  return null;
}

function play(room, seat) {
  tour.notice = null;
  renderNotice();
  hooks.openRoom(room, true, false, seat);
}

function register(action) {
  const id = tour.id;
  tour.pageError = null;
  const sent = hooks.send({ type: 'tournament', action, tournament: id }, (reply) => {
    tour.busy = false;
    if (reply.type === 'tournament') {
      tour.registered.set(reply.tournament || id, !!reply.registered);
      if (tour.id === id) loadPage();
    } else if (reply.type === 'error') {
      tour.pageError = { code: reply.code, message: reply.message };
    }
    if (tour.id === id) renderPage();
    return true;
  });
  if (!sent) {
    tour.pageError = { code: 'network' };
  } else {
    tour.busy = true;
    // An answer that never comes (the connection dropped) does not keep the button off.
    setTimeout(() => { if (tour.busy) { tour.busy = false; renderPage(); } }, 10000);
  }
  renderPage();
}

async function organise(what, extra = {}) {
  const id = tour.id;
  tour.pageError = null;
  tour.confirmCancel = false;
  const res = await api(`/api/tournaments/${what}`, { body: { id, ...extra }, auth: true });
  if (tour.id !== id) return;
  if (!res.ok) tour.pageError = res.body;
  renderPage();
  loadPage();
}

// The countdown to the start, kept ticking while the page waits for it.
function tick() {
  const d = tour.data;
  const box = $('#tournament-countdown');
  if (!d || !box || d.status !== 'registering') { clearInterval(tour.tickTimer); tour.tickTimer = null; return; }
  const left = d.starts - serverNow();
  const text = left > 0 ? t('tournament.starts_in', { time: countdownText(left) }) : t('tournament.starting');
  if (box.textContent !== text) box.textContent = text;
  if (left <= 0 && !tour.startAsked) {  // the server starts it now: ask how it went
    tour.startAsked = true;
    setTimeout(loadPage, 1500);
  }
}

function info(d) {
  const row = (key, ...value) => [el('dt', {}, t(key)), el('dd', {}, ...value)];
  const rounds = d.format === 'round_robin' ? '' : [' · ', tn('tournament.rounds_count', roundsPlanned(d), { n: num(roundsPlanned(d)) })];
  return el('dl', { class: 't-info' },
    row('tournament.col.game', gameName(d.game)),
    row('tournament.col.format', formatName(d.format, d.twice), rounds),
    d.clock ? row('option.common.time_control', controlBadge(d.clock), ' ', controlTitle(d.clock)) : [],
    row('tournament.col.status', el('span', { id: 'tournament-status' }, statusName(d.status)),
      d.status === 'running' ? [' · ', t('tournament.round_of', { round: num(d.round), rounds: num(roundsPlanned(d)) })] : '',
      d.note ? [' · ', noteText(d.note)] : ''),
    row('tournament.info.starts', dateTime(d.starts),
      d.status === 'registering' ? [' · ', el('strong', { id: 'tournament-countdown', class: 't-countdown' })] : ''),
    d.organiser ? row('tournament.info.organiser', el('bdi', {}, d.organiser)) : [],
    d.accounts_only ? row('tournament.info.entry', t('tournament.info.accounts_only')) : [],
    row('tournament.info.no_show', tn('tournament.minutes', Number(d.no_show_minutes) || 0, { n: num(d.no_show_minutes) })));
}

function actions(d) {
  const out = [];
  if (d.status === 'registering') {
    const mine = registered(d);
    out.push(mine
      ? el('button', { type: 'button', id: 'tournament-withdraw', disabled: tour.busy, onclick: () => register('withdraw') }, t('tournament.withdraw'))
      : el('button', { type: 'button', class: 'primary', id: 'tournament-register', disabled: tour.busy, onclick: () => register('register') }, t('tournament.register')));
    if (mine) out.push(el('span', { class: 'ok', id: 'tournament-registered' }, t('tournament.registered')));
    if (mayRun(d)) {
      if (tour.confirmCancel) {
        out.push(el('span', { class: 'confirm-text' }, t('tournament.cancel_confirm')),
          el('button', { type: 'button', class: 'danger', id: 'tournament-cancel-yes', onclick: () => organise('cancel') }, t('tournament.yes')),
          el('button', { type: 'button', id: 'tournament-cancel-no', onclick: () => { tour.confirmCancel = false; renderPage(); } }, t('tournament.no')));
      } else {
        out.push(el('button', { type: 'button', class: 'secondary', id: 'tournament-start', onclick: () => organise('start') }, t('tournament.start_now')),
          el('button', { type: 'button', class: 'danger', id: 'tournament-cancel', onclick: () => { tour.confirmCancel = true; renderPage(); } }, t('tournament.cancel')));
      }
    }
  }
  if (!out.length && !tour.pageError) return null;
  return el('div', { class: 't-actions' }, ...out,
    tour.pageError ? el('div', { class: 'error', role: 'alert', id: 'tournament-error' }, errorText(tour.pageError)) : null);
}

// Start now and Cancel: for the host (admin token), or the organiser account that created it.
function mayRun(d) {
  if (adminToken()) return true;
  return organiser() && (!d.organiser || !tour.me.name || d.organiser === tour.me.name);
}

// Why a tournament ended early, as the server says it (not_enough_players, no_pairing).
// i18n-keys: tournament.note.*
const noteText = (note) => (hasKey(`tournament.note.${note}`) ? t(`tournament.note.${note}`) : String(note));

// The tie-breaks of a format, in the order they break ties.
const TIEBREAKS = { swiss: ['buchholz', 'sonneborn_berger'], seated: ['buchholz', 'sonneborn_berger'], round_robin: ['head_to_head', 'sonneborn_berger'] };

function standings(d) {
  const rows = [...(d.standings || [])].sort((a, b) => a.rank - b.rank);
  if (!rows.length) return null;
  const breaks = TIEBREAKS[d.format] || TIEBREAKS.swiss;
  // i18n-keys: tournament.tiebreak.*
  const th = (key, title, attrs = {}) => el('th', { title: title ? t(title) : false, ...attrs }, t(key));
  return el('div', { class: 'panel t-standings-panel' },
    el('h3', {}, t('tournament.standings')),
    el('div', { class: 't-scroll' }, el('table', { class: 'rooms t-standings', id: 'tournament-standings' },
      el('thead', {}, el('tr', {},
        el('th', { class: 'num' }, '#'),
        th('tournament.col.player'),
        th('tournament.col.score', null, { class: 'num', 'data-col': 'score' }),
        ...breaks.map((b) => th(`tournament.tiebreak.${b}`, `tournament.tiebreak.${b}_title`, { class: 'num', 'data-col': b })),
        th('tournament.col.wdl', 'tournament.col.wdl_title', { class: 'num', 'data-col': 'wdl' }),
        th('tournament.col.games', null, { class: 'num', 'data-col': 'games' }))),
      el('tbody', {}, rows.map((r) => el('tr', { 'data-player': r.player, class: r.player === myPlayer() ? 'me' : false },
        el('td', { class: 'num' }, num(r.rank)),
        el('td', {}, el('bdi', { class: 'seat-name' }, r.name), r.player === myPlayer() ? el('span', { class: 'tag' }, t('tournament.you')) : ''),
        el('td', { class: 'num t-score', 'data-col': 'score' }, num(r.score)),
        ...breaks.map((b) => el('td', { class: 'num', 'data-col': b }, num(r[b]))),
        el('td', { class: 'num', 'data-col': 'wdl' }, `${num(r.wins)}/${num(r.draws)}/${num(r.losses)}`),
        el('td', { class: 'num', 'data-col': 'games' }, num(r.games))))))));
}

function tableCard(table, index, current, big = false) {
  const seat = (table.seats || []).findIndex((s) => s.player === myPlayer());
  const mine = seat >= 0 && current;
  const open = mine && table.status !== 'over';
  const forfeits = table.forfeit || [];
  const link = open
    ? el('a', { class: `t-play${big ? ' big' : ''}`, href: roomHref(table.room), id: big ? 'tournament-play' : false,
      onclick: (e) => { if (e.ctrlKey || e.metaKey || e.shiftKey) return; e.preventDefault(); play(table.room, seat); } }, t('tournament.play'))
    : el('a', { class: 'small-button t-room', href: roomHref(table.room), 'data-nav': '' }, t(table.status === 'over' ? 'tournament.open' : 'tournament.watch'));
  return el('div', { class: `t-table${mine ? ' mine' : ''}`, 'data-room': table.room, 'data-status': table.status },
    el('div', { class: 't-table-head' },
      el('span', { class: 't-table-n' }, t('tournament.table_n', { n: num(index + 1) })),
      el('span', { class: 't-table-status muted' }, tableStatus(table.status))),
    el('ol', { class: 't-seats' }, (table.seats || []).map((s, k) => el('li', { 'data-player': s.player, class: s.player === myPlayer() ? 'me' : false },
      el('bdi', { class: 'seat-name' }, s.name),
      s.player === myPlayer() ? el('span', { class: 'tag' }, t('tournament.you')) : '',
      forfeits[k] ? el('span', { class: 'tag t-forfeit', title: t('tournament.forfeit_title') }, t('tournament.forfeit')) : '',
      table.points ? el('span', { class: 't-points' }, num(table.points[k])) : ''))),
    el('div', { class: 't-table-actions' }, link,
      table.status === 'over' && !forfeits.some(Boolean)
        ? el('a', { class: 'small-button t-replay', href: replayHref(table.room), 'data-nav': '' }, t('tournament.replay')) : ''));
}

function roundSection(r, d) {
  const current = d.status === 'running' && r.round === d.round;
  return el('section', { class: `t-round${current ? ' current' : ''}`, 'data-round': r.round },
    el('h3', {}, t('tournament.round_n', { n: num(r.round) }), current ? el('span', { class: 'tag t-now' }, t('tournament.now')) : ''),
    el('div', { class: 't-tables' }, (r.tables || []).map((table, i) => tableCard(table, i, current))),
    (r.byes || []).length ? el('ul', { class: 't-byes' }, r.byes.map((b) => el('li', { 'data-player': b.player, class: 't-bye' },
      el('bdi', { class: 'seat-name' }, b.name), ' — ',
      tn('tournament.bye', Number(b.points) || 0, { n: num(b.points) })))) : null);
}

function playersList(d) {
  const players = [...(d.players || [])].sort((a, b) => (a.seed ?? 0) - (b.seed ?? 0));
  return el('div', { class: 'panel t-players-panel' },
    el('h3', {}, t('tournament.players_heading', { n: num(players.length) })),
    players.length
      ? el('ol', { class: 't-players', id: 'tournament-players' }, players.map((p) => el('li', { 'data-player': p.player },
        el('bdi', { class: 'seat-name' }, p.name), p.player === myPlayer() ? el('span', { class: 'tag' }, t('tournament.you')) : '',
        // Before the start, who runs the event may take a player off the list.
        d.status === 'registering' && mayRun(d)
          ? el('button', { type: 'button', class: 'link t-remove', 'data-remove': p.player, title: t('tournament.remove_title', { name: p.name }),
            onclick: () => organise('remove', { player: p.player }) }, t('tournament.remove'))
          : '')))
      : el('p', { class: 'muted' }, t('tournament.players_none')));
}

function renderPage() {
  const root = $('#tournament');
  if (!root || root.hidden || tour.id === null) return;
  const d = tour.data;
  const head = el('div', { class: 'room-head' },
    el('h2', { id: 'tournament-title' }, d ? el('bdi', {}, d.name) : t('tournament.lobby.title')),
    el('div', { class: 'room-tools' },
      el('button', { type: 'button', class: 'small', id: 'tournament-back', onclick: () => { history.pushState({}, '', '/'); hooks.showLobby(); } },
        t('tournament.back'))));
  if (!d) {
    root.replaceChildren(head, tour.error
      ? el('p', { class: 'error', id: 'tournament-error' }, errorText(tour.error))
      : el('p', { class: 'muted' }, t('tournament.loading')));
    return;
  }
  document.title = `${d.name} — Plateau`;
  const own = myTable(d);
  const rounds = [...roundsPlayed(d)].sort((a, b) => b.round - a.round);
  // (replaceChildren would write a null as "null": the parts left out are filtered.)
  root.replaceChildren(...[head,
    info(d),
    actions(d),
    own && own.table.status !== 'over'
      ? el('div', { class: 'panel t-yours' }, el('h3', {}, t('tournament.your_game', { n: num(d.round) })), tableCard(own.table,
        roundsPlayed(d).find((r) => r.round === d.round).tables.indexOf(own.table), true, true))
      : null,
    standings(d),
    rounds.length ? el('div', { class: 't-rounds' }, el('h3', {}, t('tournament.rounds')), rounds.map((r) => roundSection(r, d))) : null,
    playersList(d)].filter(Boolean));
  clearInterval(tour.tickTimer);
  tour.tickTimer = null;
  if (d.status === 'registering') {
    tour.startAsked = d.starts <= serverNow() && tour.startAsked;
    tick();
    tour.tickTimer = setInterval(tick, 1000);
  }
}

// ---------- the notice of a new table ----------
function renderNotice() {
  const box = $('#tournament-notice');
  if (!box) return;
  const n = tour.notice;
  box.hidden = !n;
  if (!n) { box.replaceChildren(); return; }
  box.replaceChildren(
    el('span', { class: 't-notice-text' }, t('tournament.notice', { n: num(n.round) })), ' ',
    el('a', { class: 't-play', href: roomHref(n.room), id: 'tournament-notice-play',
      onclick: (e) => { e.preventDefault(); playNotice(n); } }, t('tournament.notice_play')), ' ',
    el('button', { type: 'button', class: 'small link t-notice-close', 'aria-label': t('tournament.notice_close'), title: t('tournament.notice_close'),
      onclick: () => { tour.notice = null; renderNotice(); } }, '×'));
}

// The notice's Play: our seat there (each is kept for its player) from the tournament's answer.
async function playNotice(n) {
  let seat = tour.data && tour.data.id === n.tournament ? seatIn(n.room) : null;
  if (seat === null) {
    const res = await api(`/api/tournament?id=${encodeURIComponent(n.tournament)}`);
    if (res.ok) seat = seatIn(n.room, res.body);
  }
  play(n.room, seat);
}

// Our seat at `room`, from a tournament's answer (the one on screen unless given).
function seatIn(room, data = tour.data) {
  for (const r of data ? roundsPlayed(data) : []) {
    for (const table of r.tables || []) {
      if (table.room !== room) continue;
      const seat = (table.seats || []).findIndex((s) => s.player === myPlayer());
      return seat >= 0 ? seat : null;
    }
  }
  return null;
}

// `tournament` (an answer to Register / Withdraw, or the server's word) and `tournament_table`
// (a round gave this player a table), as app.js forwards them.
export function onTournamentMessage(msg) {
  if (msg.type === 'tournament' && msg.tournament !== undefined && typeof msg.registered === 'boolean') {
    tour.registered.set(msg.tournament, msg.registered);
    if (tour.id === msg.tournament) renderPage();
  } else if (msg.type === 'tournament_table') {
    if (plateau().room !== msg.room) {
      tour.notice = { tournament: msg.tournament, round: msg.round, room: msg.room };
      renderNotice();
    }
    if (onPage() && tour.id === msg.tournament) loadPage();
  }
}

// ---------- wiring ----------
// What the page shows changed: the lobby came or went, another section took the tournament's
// place, the person signed in or out, or opened the table the notice offered.
function sync() {
  const lobby = $('#lobby');
  if (lobby && !lobby.hidden) lobbyShown(); else lobbyHidden();
  const page = $('#tournament');
  if (page && !page.hidden && SECTIONS.some((s) => $(s) && !$(s).hidden)) leavePage();
  if (tour.notice && plateau().room === tour.notice.room) { tour.notice = null; renderNotice(); }
  if (lobby && !lobby.hidden) checkMe();
}

export function initTournaments({ send, showLobby, openRoom, route } = {}) {
  Object.assign(hooks, Object.fromEntries(Object.entries({ send, showLobby, openRoom, route }).filter(([, f]) => typeof f === 'function')));
  const notice = el('div', { id: 'tournament-notice', class: 'tournament-notice', role: 'status', 'aria-live': 'polite', hidden: true });
  const announce = $('#announce');
  if (announce) announce.after(notice); else document.body.prepend(notice);
  const observer = new MutationObserver(sync);
  for (const s of [...SECTIONS, '#account-name']) {
    const e = $(s);
    if (e) observer.observe(e, { attributes: true, attributeFilter: ['hidden'] });
  }
  // The page's own links (a tournament, a table, a replay) move without reloading the page.
  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[data-nav]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    if (!a.closest('#tournaments-panel, #tournament')) return;
    e.preventDefault();
    navigate(a.getAttribute('href'));
  });
  // A new language: the panel, the form (with its choices), the page and the notice again.
  onLanguage(() => {
    readForm();
    renderPanel();
    renderPage();
    renderNotice();
  });
  sync();
}
