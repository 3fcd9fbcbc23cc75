// Plateau's browser client: a thin view of the server's state. It keeps one WebSocket, says
// hello with the token it was given before (so a reload puts the player back at their table),
// applies patches in version order, and asks for a full state on any gap.
import { applyPatch } from './patch.js';
import { el, svg } from './dom.js';
import { fairnessText, verifyFairness } from './fairness.js';
import { initAccount, onSignedOut, onWelcome } from './account.js';
import { fillBoardGames, initPlayers, renderLeaderboard, showProfile } from './players.js';
import { PHRASES, hideChat, initChat, renderChat } from './chat.js';
import { hasKey, language, languagePicker, onLanguage, preferredLanguage, setLanguage, t, tn } from './i18n.js';
import { openRulesOnce, rulesButton, setGameTitles } from './rules.js';
import { controlBadge, controlOf, controlText, controlTitle } from './time_control.js';
import { initTournaments, onTournamentMessage, showTournament } from './tournaments.js';  // issue 48

const $ = (sel) => document.querySelector(sel);

const SEAT_COLOURS = ['#c8553d', '#2a7ab0', '#e0a526', '#6a9a3b'];

const app = {
  ws: null,
  backoff: 500,
  player: null,
  games: [],
  room: null,          // id of the room on screen
  state: null,         // its state, as the server sees it for us
  drawn: null,         // the state the page shows (drawing waits for its game's module)
  version: 0,
  seat: null,          // our seat there, or null when watching
  crowd: 0,
  modules: {},
  nextId: 1,
  pending: new Map(),  // id -> callback for a reply
  roomsTimer: null,
  roomsFrom: 0,        // where the lobby's page of tables starts
  resyncing: null,     // the room whose whole state we asked for after a gap
  resyncRetry: null,   // timer to ask again when that request was refused
  created: loadCreated(),  // rooms this player created (it may seat bots there before sitting)
  botLevel: 'normal',  // the level last chosen at a table's "Add a bot"
  noBots: false,       // the server said it runs no bots
  offset: 0,           // the server's clock minus ours, in ms, from the last `full` that said
  clockTimer: null,    // ticks the running clock on screen, only while one runs
  goneTimer: null,     // ticks the countdown to a claim against a player who is away
  ownLeft: null,       // our own running clock's time at the last tick (for the 10 s sound)
  beeps: 0,            // how many times the 10 s sound was played (for tests)
  conn: 'connecting',  // the connection's state, as #conn shows it
  lastRooms: null,     // the last `rooms` the lobby drew (to redraw it in another language)
  history: [],         // the finished games the lobby lists
  rulesFor: null,      // the room where the Rules panel was last offered on sitting down
};
window.plateau = app;  // for tests and the curious

// ---------- connection ----------
function connect() {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const ws = new WebSocket(url);
  app.ws = ws;
  setConn('connecting');
  ws.onopen = () => {
    app.backoff = 500;
    const hello = { type: 'hello', name: myName(), token: localStorage.getItem('plateau.token') || undefined };
    // Back at our own table with its state on screen: the server sends only what we missed.
    if (app.room && app.state && app.state.you !== null) hello.resume = { [app.room]: app.version };
    send(hello);
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = () => {
    if (app.ws !== ws) return;
    setConn('offline');
    // Jittered exponential backoff, so a restarted server is not hit by every client at once.
    const delay = app.backoff * (0.5 + Math.random());
    app.backoff = Math.min(app.backoff * 2, 10000);
    setTimeout(connect, delay);
  };
}

// Asks once for the whole state of the room on screen, when its patches cannot be applied.
// Patches that come before the answer are dropped, since it holds them: a burst of them after
// a gap (a tab waking up, a slow phone) asks once, not once per patch.
function resync() {
  if (app.resyncing === app.room) return;
  const room = app.room;
  const done = () => { if (app.resyncing === room) app.resyncing = null; return false; };
  app.resyncing = room;
  if (!send({ type: 'sync', room }, done)) done();
}

function send(msg, onReply) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return false;
  if (onReply) {
    msg.id = app.nextId++;
    app.pending.set(msg.id, onReply);
  }
  app.ws.send(JSON.stringify(msg));
  return true;
}

const CONN_KEYS = { connecting: 'conn.connecting', online: 'conn.online', offline: 'conn.reconnecting' };
function setConn(state) {
  app.conn = state;
  const c = $('#conn');
  c.dataset.state = state;
  c.dataset.i18n = CONN_KEYS[state];
  c.textContent = t(CONN_KEYS[state]);
}

function myName() {
  let name = localStorage.getItem('plateau.name');
  if (!name) {
    name = t('app.default_name', { n: Math.floor(100 + Math.random() * 900) });
    localStorage.setItem('plateau.name', name);
  }
  return name;
}

// ---------- messages ----------
function onMessage(msg) {
  if (msg.id !== undefined && app.pending.has(msg.id)) {
    const cb = app.pending.get(msg.id);
    app.pending.delete(msg.id);
    if (cb(msg) === true) return;  // handled
  }
  switch (msg.type) {
    case 'welcome':
      app.resyncing = null;  // an answer the old socket never got will not come
      app.player = msg.player;
      app.games = msg.games;
      setGameTitles(app.games);
      if (typeof msg.bots === 'boolean') {
        app.noBots = !msg.bots;
        $('#computer').hidden = app.noBots;
      }
      localStorage.setItem('plateau.token', msg.token);
      if (typeof msg.name === 'string' && msg.account) localStorage.setItem('plateau.name', msg.name);
      onWelcome(msg);
      setConn('online');
      fillGames();
      fillBoardGames(app.games);
      if (!$('#lobby').hidden) renderLeaderboard();
      if (reconnected(msg.tables || [])) break;
      route();
      break;
    case 'joined':
      if (msg.room === app.room) app.seat = msg.seat;
      break;
    case 'full':
      if (msg.room !== app.room) return;
      // Every full says the server's time: our clocks and countdowns show what the server's say.
      if (typeof msg.server_time === 'number') app.offset = msg.server_time - Date.now();
      app.state = msg.state;
      app.version = msg.version;
      app.seat = msg.state.you;
      renderRoom();
      break;
    case 'patch':
      if (msg.room !== app.room || !app.state) return;
      if (msg.version <= app.version || app.resyncing === app.room) return;
      if (msg.version !== app.version + 1) { resync(); return; }
      try {
        app.state = applyPatch(app.state, msg.ops);
        app.version = msg.version;
        renderRoom();
      } catch {
        resync();
      }
      break;
    case 'crowd':
      if (msg.room === app.room) { app.crowd = msg.spectators; renderCrowd(); }
      break;
    case 'rooms':
      renderRooms(msg);
      break;
    case 'created':
      rememberCreated(msg.room);
      openRoom(msg.room, true);
      break;
    case 'announce':
      showAnnounce(msg.message);
      break;
    case 'tournament':        // tournaments.js (issue 48): a registration's answer;
    case 'tournament_table':  // a round gave this player a table
      onTournamentMessage(msg);
      break;
    case 'error':
      if (msg.code === 'account/signed_out') { onSignedOut(); break; }
      showError(msg);
      break;
  }
}

// ---------- routing ----------
function route() {
  const params = new URLSearchParams(location.search);
  const room = params.get('room');
  const replay = params.get('replay');
  $('#profile').hidden = true;
  const profile = params.get('profile');
  const tournament = params.get('tournament');  // a tournament's page (tournaments.js, issue 48)
  if (profile || tournament) {
    if (app.room) send({ type: 'leave', room: app.room });
    app.room = null;
    app.state = null;
    clearInterval(app.roomsTimer);
    if (profile) showProfile(profile);
    else showTournament(tournament);
  } else if (replay) openReplay(replay, Number(params.get('round') || 1));
  else if (room) openRoom(room, false);
  else showLobby();
}

function showLobby() {
  if (app.room) send({ type: 'leave', room: app.room });
  app.room = null;
  app.state = null;
  renderClocks(null);
  renderGone(null);
  $('#room').hidden = true;
  $('#replay').hidden = true;
  $('#profile').hidden = true;
  $('#lobby').hidden = false;
  hideChat();
  renderLeaderboard();
  document.title = 'Plateau';
  askRooms();
  loadHistory();
  clearInterval(app.roomsTimer);
  // A tab nobody looks at does not poll: a busy server has many lobbies left open.
  app.roomsTimer = setInterval(() => { if (!app.room && !document.hidden) askRooms(); }, 4000);
}

// A new connection while a room's state is on screen: the page keeps it until the server's
// answer replaces it (no "Loading…" flash). If we sit there, the hello has put us back;
// otherwise we watch it again, naming our version. Either way the room sends what we missed
// since that version, or the whole state. Returns false when there is no such room on screen.
function reconnected(tables) {
  if (!app.room || !app.state || new URLSearchParams(location.search).get('room') !== app.room) return false;
  if (!tables.some((t) => t.room === app.room)) openRoom(app.room, false, true);
  return true;
}

// Opens a room: if we sit there the server has already rebound us (hello does that), and a
// sync returns our state; otherwise we watch, and may take a free seat. `sitDown` joins as a
// player: a free seat, or our own seat again (on a connection that said hello before we sat).
// With `keep`, the page shows the room's last state until the new one comes, and a spectator's
// join names its version, so that the room may send only the patches since.
function openRoom(id, sitDown, keep = false, seat = null, onJoined = null) {
  clearInterval(app.roomsTimer);
  app.room = id;
  if (!keep) {
    app.state = null;
    app.seat = null;
    app.crowd = 0;
    $('#table').replaceChildren(el('p', { class: 'muted' }, t('app.loading')));
    renderClocks(null);
    renderGone(null);
  }
  if (new URLSearchParams(location.search).get('room') !== id) history.pushState({}, '', `/?room=${encodeURIComponent(id)}`);
  $('#lobby').hidden = true;
  $('#replay').hidden = true;
  $('#profile').hidden = true;
  $('#room').hidden = false;
  if (sitDown) { join(seat, onJoined); return; }
  send({ type: 'sync', room: id }, (reply) => {
    if (reply.type === 'error' && reply.code === 'room/not_in_room') {
      const msg = { type: 'join', room: id, as: 'spectator' };
      if (keep && app.room === id && app.state && app.state.you === null) msg.version = app.version;
      send(msg);
      return true;
    }
    return false;
  });
}

// `onJoined`, if given, is called with the `joined` that answers (not with an error, which is
// shown as ever).
function join(seat, onJoined = null) {
  const go = () => {
    const msg = { type: 'join', room: app.room, as: 'player' };
    if (seat !== null) msg.seat = seat;
    send(msg, onJoined ? (reply) => { if (reply.type === 'joined') onJoined(reply); return false; } : undefined);
  };
  // A spectator leaves the audience before sitting down.
  if (app.state && app.state.you === null && app.seat === null) {
    send({ type: 'leave', room: app.room }, () => { go(); return true; });
  } else go();
}

// ---------- lobby ----------
function gameName(id) {
  const g = app.games.find((g) => g.id === id);
  return g ? g.name : id;
}

function fillGames(keepOptions = false) {
  const sel = $('#game-select');
  const keep = sel.value;
  sel.replaceChildren(...app.games.map((g) => el('option', { value: g.id }, g.name)));
  if (keep) sel.value = keep;
  const filter = $('#rooms-game');
  const shown = filter.value;
  filter.replaceChildren(el('option', { value: '' }, t('lobby.all_games')), ...app.games.map((g) => el('option', { value: g.id }, g.name)));
  filter.value = shown;
  renderOptions(keepOptions);
}

// `keep`: the options shown keep the values chosen (a redraw in another language).
function renderOptions(keep = false) {
  const g = app.games.find((g) => g.id === $('#game-select').value);
  const box = $('#options');
  const chosen = keep ? readOptions() : {};
  box.replaceChildren();
  if (!g) return;
  for (const o of g.options) {
    let input;
    const label = optionLabel(g.id, o);
    if (o.type === 'bool') {
      input = el('input', { type: 'checkbox', 'data-option': o.name });
      input.checked = o.name in chosen ? !!chosen[o.name] : !!o.default;
      box.append(el('label', { class: 'inline', title: label }, input, ' ', label));
      continue;
    }
    if (o.type === 'choice') {
      input = el('select', { 'data-option': o.name }, o.choices.map((c) => el('option', { value: c }, choiceLabel(g.id, o.name, c))));
      input.value = o.default;
    } else if (o.name === 'players' || (o.type === 'int' && o.max - o.min <= 10)) {
      const values = [];
      for (let v = o.min; v <= o.max; v++) values.push(v);
      input = el('select', { 'data-option': o.name, 'data-int': '1' }, values.map((v) => el('option', { value: v }, v)));
      input.value = o.default;
    } else {
      input = el('input', { type: 'number', min: o.min, max: o.max, value: o.default, 'data-option': o.name, 'data-int': '1' });
    }
    if (o.name in chosen) input.value = String(chosen[o.name]);
    box.append(el('label', { title: label }, capital(label), ' ', input));
  }
  renderComputer();
}

// An option's words: `first` and `players` are every game's; the others are the game's own
// (option.<game>.<name>, option.<game>.<name>.<choice>). An option the client has no words for
// shows the server's label.
// i18n-keys: option.*
function optionLabel(game, o) {
  const key = o.name === 'first' || o.name === 'players' ? `option.${o.name}` : `option.${game}.${o.name}`;
  return hasKey(key) ? t(key) : o.label;
}

function choiceLabel(game, name, c) {
  if (name === 'first') return c === 'random' ? t('option.first.random') : t('option.first.seat', { n: Number(c) + 1 });
  const key = `option.${game}.${name}.${c}`;
  return hasKey(key) ? t(key) : c.replace(/_/g, ' ');
}
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function readOptions() {
  const options = {};
  for (const input of document.querySelectorAll('#options [data-option]')) {
    const name = input.dataset.option;
    if (input.type === 'checkbox') options[name] = input.checked;
    else if (input.dataset.int) options[name] = Number(input.value);
    else options[name] = input.value;
  }
  return options;
}

// "Ada · Bob", each name isolated (<bdi>) so that one written right to left keeps its place.
function nameList(names) {
  return names.flatMap((n, i) => [i ? ' · ' : '', el('bdi', {}, n)]);
}

// A table's seats as the lobby lists them: each name (— for a free seat), a bot's with its level.
function seatList(seats) {
  return seats.flatMap((s, i) => s.bot
    ? [i ? ' ' : '', el('span', { class: 'bot-seat' }, i ? '· ' : '', el('bdi', {}, s.name), botTag(s.bot))]
    : [i ? ' · ' : '', el('bdi', {}, s.name || '—')]);
}

// The lobby shows a page of the public tables (the server puts those with a seat to take
// first), of every game or of one.
const ROOMS_PAGE = 25;

function askRooms() {
  const msg = { type: 'rooms', limit: ROOMS_PAGE, offset: app.roomsFrom || 0 };
  if ($('#rooms-game').value) msg.game = $('#rooms-game').value;
  send(msg);
}

// A table's status as the lobby lists it: waiting, playing or over, and which game of the match.
// i18n-keys: lobby.status.*
function roomStatus(status, round) {
  const word = hasKey(`lobby.status.${status}`) ? t(`lobby.status.${status}`) : status;
  return round > 1 ? t('lobby.status_round', { status: word, round }) : word;
}

function renderRooms(msg) {
  app.lastRooms = msg;
  const { rooms, total = rooms.length, offset = 0, mine = [] } = msg;
  renderMine(mine);
  if (rooms.length === 0 && total > 0) {  // the page emptied since: show the last one
    app.roomsFrom = Math.floor((total - 1) / ROOMS_PAGE) * ROOMS_PAGE;
    askRooms();
    return;
  }
  app.roomsFrom = offset;
  const body = $('#rooms');
  const seated = new Set(mine.map((r) => r.room));
  body.replaceChildren(...rooms.map((r) => {
    const players = seatList(r.seats);
    const free = r.seats.some((s) => !s.name);
    const mine = seated.has(r.room);  // our own table is opened, not joined again
    return el('tr', { 'data-room': r.room },
      el('td', {}, gameName(r.game), controlBadge(r.clock), r.rated ? el('span', { class: 'tag rated-tag' }, t('table.rated')) : ''),
      el('td', {}, ...players),
      el('td', {}, roomStatus(r.status, r.round)),
      el('td', {}, r.spectators),
      el('td', { class: 'actions' },
        free && !mine ? el('button', { class: 'small primary', onclick: () => openRoom(r.room, true) }, t('lobby.join')) : '',
        el('button', { class: 'small', onclick: () => openRoom(r.room, mine) }, mine || r.status === 'waiting' ? t('lobby.open') : t('lobby.watch'))));
  }));
  const none = $('#no-rooms');
  none.hidden = rooms.length > 0;
  none.dataset.i18n = $('#rooms-game').value ? 'lobby.no_rooms_game' : 'lobby.no_rooms';
  none.textContent = t(none.dataset.i18n);
  $('#rooms-pager').hidden = total <= rooms.length;
  $('#rooms-range').textContent = t('lobby.range', { from: offset + 1, to: offset + rooms.length, total });
  $('#rooms-prev').disabled = offset === 0;
  $('#rooms-next').disabled = offset + rooms.length >= total;
}

// The tables where we sit (private ones too), the one waiting for our move marked: the way back
// to a game from the lobby, on any tab or after the page was closed. Correspondence games
// waiting for our move come first, the one whose time runs out soonest at the top; the rest keep
// the server's order (the most recently active first). A correspondence game in play says how
// long the seat to move has left (its `deadline`, in the server's time).
function renderMine(mine) {
  $('#mine-panel').hidden = mine.length === 0;
  const urgent = (r) => r.your_turn && r.clock && r.clock.kind === 'correspondence' && typeof r.deadline === 'number';
  const sorted = mine.map((r, i) => [r, i]).sort(([a, i], [b, j]) =>
    urgent(a) !== urgent(b) ? (urgent(a) ? -1 : 1) : urgent(a) && a.deadline !== b.deadline ? a.deadline - b.deadline : i - j);
  $('#mine').replaceChildren(...sorted.map(([r]) => {
    const status = r.your_turn ? t('lobby.your_turn') : r.status === 'playing' ? t('lobby.their_turn') : null;
    const left = r.status === 'playing' && r.clock && r.clock.kind === 'correspondence' && typeof r.deadline === 'number'
      ? el('span', { class: 'time-left', 'data-deadline': r.deadline }, ' · ', t('lobby.time_left', { time: clockText(r.clock, r.deadline - serverNow()) })) : '';
    return el('tr', { 'data-mine': r.room, 'data-turn': r.your_turn ? 'mine' : '' },
      el('td', {}, gameName(r.game), controlBadge(r.clock), r.private ? el('span', { class: 'muted' }, ' ', t('lobby.private')) : ''),
      el('td', {}, ...seatList(r.seats)),
      el('td', {}, status === null ? roomStatus(r.status, r.round) : r.round > 1 ? t('lobby.status_round', { status, round: r.round }) : status, left),
      el('td', { class: 'actions' },
        el('button', { class: `small${r.your_turn ? ' primary' : ''}`, onclick: () => openRoom(r.room, true) }, t('lobby.back_to_table'))));
  }));
}

// ---------- room ----------
async function moduleFor(game) {
  if (!(game in app.modules)) {
    try {
      app.modules[game] = (await import(`/games/${game}.js`)).default;
    } catch {
      app.modules[game] = null;
    }
  }
  return app.modules[game];
}

// Who left the round in play (a game of three or four): their departure, or undefined.
const departureOf = (st, seat) => (st.left || []).find((d) => d.seat === seat);
const hasLeft = (st, seat) => departureOf(st, seat) !== undefined;

const seatLabel = (i) => t('seat.n', { n: i + 1 });

function seatName(i) {
  const s = app.state && app.state.seats[i];
  return s && s.name ? s.name : seatLabel(i);
}

// "Ada and Bob", in the page's language.
const list = (items) => new Intl.ListFormat(language(), { type: 'conjunction' }).format(items.map(String));

// A player leaving a round, worded: "Bob resigned", "you ran out of time" (to the one it was).
// i18n-keys: reason.ended.*
function departureText(end, seat, name, you = null) {
  const mine = you !== null && you !== undefined && seat === you;
  const key = `reason.ended.${end}${mine ? '_you' : ''}`;
  return hasKey(key) ? t(key, { name: name(seat) }) : end;
}

// Why a round ended, in the page's language. Ended by people (a resignation, a clock, a player
// gone, an agreed draw, everyone else gone): worded here. Ended by the rules: the game's module
// words its code (`reason(outcome, {name})`); a round finished before codes existed, or a code the
// module does not know, shows the server's sentence. `name(seat)` names a seat; `you` is our seat.
function reasonText(o, mod, name, you = null) {
  if (!o) return '';
  const code = typeof o.code === 'string' ? o.code : '';
  const left = Array.isArray(o.left) ? o.left : [];
  const gone = () => list(left.map((d) => departureText(d.end, d.seat, name, you)));
  if (code === 'ended.draw_agreed' || (!code && o.end === 'agreed_draw')) return t('reason.ended.draw_agreed');
  if (code === 'ended.last_standing' || (!code.startsWith('ended.') && o.end && left.length)) {
    return t('reason.ended.last_standing', { left: gone() });
  }
  if (code.startsWith('ended.') || o.end) {
    const end = code.startsWith('ended.') ? code.slice('ended.'.length) : o.end;
    const seat = o.args && typeof o.args.seat === 'number' ? o.args.seat : o.seat;
    return typeof seat === 'number' && hasKey(`reason.ended.${end}`) ? departureText(end, seat, name, you) : o.reason;
  }
  let text = null;
  if (code && mod && typeof mod.reason === 'function') {
    try { text = mod.reason(o, { name }); } catch { text = null; }
  }
  // The server's sentence already says who left.
  if (typeof text !== 'string' || !text) return o.reason;
  return left.length ? t('result.reason_left', { reason: text, left: gone() }) : text;
}

// The result line: who won, why, and the scores.
function resultLine(st, mod) {
  const o = st.outcome;
  const who = o.winners.length === 0 ? t('result.draw')
    : o.winners.length === 1 ? (o.winners[0] === st.you ? t('result.you_win') : t('result.wins', { name: seatName(o.winners[0]) }))
    : t('result.shared', { names: list(o.winners.map(seatName)) });
  const reason = reasonText(o, mod, seatName, st.you);
  const scores = o.scores && o.scores.length ? o.scores.map((s, i) => t('result.score', { name: seatName(i), score: s })).join(', ') : '';
  return scores ? t('result.line_scores', { who, reason, scores }) : t('result.line', { who, reason });
}

const myTurn = (st) => st.status === 'playing' && st.you !== null && st.to_move === st.you && !hasLeft(st, st.you);

function statusText(st, mod) {
  if (st.status === 'waiting') {
    const free = st.seats.filter((s) => !s.name).length;
    const bots = !app.noBots && (st.you !== null || app.created.has(app.room));
    return bots ? tn('table.waiting_bots', free) : tn('table.waiting', free);
  }
  if (st.status === 'over') return resultLine(st, mod);
  if (st.you !== null && hasLeft(st, st.you)) return t('table.you_left', { name: seatName(st.to_move) });
  if (st.to_move === st.you && st.you !== null) return t('table.your_turn');
  return t('table.turn_of', { name: seatName(st.to_move) });
}

async function renderRoom() {
  const st = app.state;
  if (!st) return;
  const mod = await moduleFor(st.game);
  if (st !== app.state) return;  // a newer state arrived while the module loaded
  // A table may colour seats by what they hold in its game (Quirky's colours change hands).
  const seatColour = (i) => (mod && mod.seatColour && mod.seatColour(st, i)) || SEAT_COLOURS[i % SEAT_COLOURS.length];
  const game = app.games.find((g) => g.id === st.game);
  const title = game ? game.name : st.game;
  $('#room-title').textContent = st.round > 1 ? t('table.title_round', { game: title, round: st.round }) : title;
  if (st.rated) $('#room-title').append(' ', el('span', { class: 'tag rated-tag' }, t('table.rated')));
  renderChat(app.room, st, myName());
  document.title = `${myTurn(st) ? '● ' : ''}${title} · Plateau`;
  // Bots sit at a table still waiting for players, seated by a player there or its creator.
  const botsHere = st.status === 'waiting' && !app.noBots && (st.you !== null || app.created.has(app.room));
  $('#seats').replaceChildren(...st.seats.map((s, i) => el('div', {
    class: `seat${st.to_move === i ? ' to-move' : ''}${st.you === i ? ' me' : ''}${!s.name && botsHere ? ' free' : ''}`,
    'data-seat': i,
    style: `--seat:${seatColour(i)}`,
  },
  el('span', { class: `dot ${s.name ? (s.connected ? 'on' : 'off') : 'empty'}`, title: s.name ? (s.connected ? t('seat.connected') : t('seat.away')) : t('seat.free') }),
  el('span', { class: 'seat-name' }, s.name || t('seat.free_seat')),
  s.bot ? botTag(s.bot) : '',
  // Who may seat a bot may send it away again while the table waits.
  s.bot && botsHere ? el('button', { class: 'small', 'data-remove-bot': i, title: t('bot.remove_title'),
    onclick: () => send({ type: 'remove_bot', room: app.room, seat: i }) }, t('bot.remove')) : '',
  st.you === i ? el('span', { class: 'tag' }, t('seat.you')) : '',
  // Who left the round: marked, with the easy bot that plays their seat while it goes on.
  departureOf(st, i) ? [leftTag(departureOf(st, i), seatName),
    st.status === 'playing' ? botTag('easy') : ''] : '',
  !s.name && st.you === null ? el('button', { class: 'small primary', 'data-sit': i, onclick: () => join(i) }, t('seat.sit')) : '',
  !s.name && botsHere ? addBotControl(i) : '')));
  renderClocks(st, seatColour);
  renderGone(st);
  const status = $('#status');
  status.textContent = statusText(st, mod);
  status.dataset.turn = st.status === 'playing' && st.to_move === st.you && st.you !== null ? 'mine' : '';
  const actions = $('#room-actions');
  actions.replaceChildren();
  if (st.status === 'over' && st.you !== null) {
    const asked = st.rematch.includes(st.you);
    actions.append(el('button', { class: 'primary', id: 'rematch', disabled: asked, onclick: () => send({ type: 'rematch', room: app.room }) },
      asked ? t('table.waiting_others') : t('table.rematch')));
  }
  if (st.status === 'playing' && st.you !== null && !hasLeft(st, st.you)) actions.append(...endingControls(st));
  if (st.rematch.length && st.status === 'over') actions.append(el('span', { class: 'muted' }, ' ', t('table.rematch_asked', { names: list(st.rematch.map(seatName)) })));
  if (st.status === 'over') {
    const q = `room=${encodeURIComponent(app.room)}&round=${st.round}`;
    actions.append(
      el('a', { class: 'small-button', id: 'open-replay', href: `/?replay=${encodeURIComponent(app.room)}&round=${st.round}` }, t('replay.open')),
      el('a', { class: 'small-button', href: `/api/export?${q}`, download: '' }, t('replay.export')));
  }
  const fair = $('#fairness');
  fair.textContent = fairnessText(st.fairness);
  fair.dataset.verified = String(verifyFairness(st.fairness));
  renderCrowd();
  const table = $('#table');
  const ctx = {
    you: st.you,
    seatName,
    seatColour,
    play: (move) => send({ type: 'move', room: app.room, version: app.version, move }),
    el,
  };
  if (mod) mod.render(table, st, ctx);
  else genericTable(table, st, ctx);
  app.drawn = st;
  // The first time this browser sits at this game, its rules open by themselves (once).
  if (st.you !== null && app.rulesFor !== app.room) {
    app.rulesFor = app.room;
    openRulesOnce(st.game, st.options);
  }
}

// The "left" mark of a player who left the round, saying how.
function leftTag(d, name) {
  return el('span', { class: 'tag left-tag', 'data-left': d.end, title: departureText(d.end, d.seat, name) }, t('seat.left'));
}

// Resign, draw and takeback, for a player still in a game in play (draws at two seats;
// takebacks at casual tables of games that neither draw nor hide). Resigning, offering a draw
// and asking for a takeback ask once more before they are sent (a slip of the finger must not
// end a game); answering an offer
// is one click.
function endingControls(st) {
  const confirming = app.confirming && app.confirming.room === app.room && app.confirming.round === st.round
    ? app.confirming.what : null;
  const ask = (what) => () => { app.confirming = what && { what, room: app.room, round: st.round }; renderRoom(); };
  const act = (msg) => () => { app.confirming = null; send({ ...msg, room: app.room }); renderRoom(); };
  const two = st.seats.length === 2;
  if (confirming) {
    const questions = {
      resign: two ? t('table.confirm.resign') : t('table.confirm.resign_many'),
      draw: t('table.confirm.draw'),
      takeback: t('table.confirm.takeback'),
    };
    const msgs = {
      resign: { type: 'resign' },
      draw: { type: 'draw', action: 'offer' },
      takeback: { type: 'takeback', action: 'offer' },
    };
    return [el('span', { class: 'confirm-text' }, questions[confirming]),
      el('button', { class: confirming === 'resign' ? 'danger' : 'primary', id: `confirm-${confirming}`, onclick: act(msgs[confirming]) }, t('table.yes')),
      el('button', { id: 'confirm-cancel', onclick: ask(null) }, t('table.no'))];
  }
  const out = [];
  const offer = st.offer;
  const name = (seat) => (st.seats[seat] && st.seats[seat].name) || seatLabel(seat);
  if (offer && offer.kind === 'takeback') {
    if (offer.by === st.you) out.push(el('button', { id: 'takeback', disabled: true }, t('table.takeback_asked')));
    else if (offer.accepted.includes(st.you)) out.push(el('span', { class: 'offer-text' }, tn('table.takeback_waiting', offer.moves)));
    else {
      out.push(el('span', { class: 'offer-text' }, tn('table.takeback_offer', offer.moves, { name: name(offer.by) })),
        el('button', { class: 'primary', id: 'takeback-accept', onclick: act({ type: 'takeback', action: 'accept' }) }, t('table.takeback_accept')),
        el('button', { id: 'takeback-decline', onclick: act({ type: 'takeback', action: 'decline' }) }, t('table.decline')));
    }
  } else if (offer && offer.kind === 'draw' && offer.by !== st.you) {
    out.push(el('span', { class: 'offer-text' }, t('table.draw_offer', { name: name(offer.by) })),
      el('button', { class: 'primary', id: 'draw-accept', onclick: act({ type: 'draw', action: 'accept' }) }, t('table.draw_accept')),
      el('button', { id: 'draw-decline', onclick: act({ type: 'draw', action: 'decline' }) }, t('table.decline')));
  } else if (offer && offer.kind === 'draw') {
    out.push(el('button', { id: 'draw-offer', disabled: true }, t('table.draw_offered')));
  }
  if (!offer) {
    // Draws at two seats; takebacks at casual tables of games where a move draws or hides nothing.
    if (two) out.push(el('button', { id: 'draw-offer', onclick: ask('draw') }, t('table.offer_draw')));
    const game = app.games.find((g) => g.id === st.game);
    if (game && game.takeback && !st.clock) out.push(el('button', { id: 'takeback', onclick: ask('takeback') }, t('table.takeback')));
  }
  out.push(el('button', { class: 'danger', id: 'resign', onclick: ask('resign') }, t('table.resign')));
  return out;
}

// Any game is playable before it has a table of its own: its legal moves as buttons.
function genericTable(table, st, ctx) {
  table.replaceChildren(
    el('div', { class: 'generic-moves' }, st.legal_moves.map((m) => el('button', { class: 'small', 'data-move': m, onclick: () => ctx.play(m) }, m))),
    el('pre', { class: 'generic-board' }, JSON.stringify(st.board, null, 1)));
}

function renderCrowd() {
  $('#crowd').textContent = app.crowd ? tn('table.watching', app.crowd) : '';
}

// An error's words: the page's own for a code it knows (room/not_found: error.room.not_found),
// else the server's message.
// i18n-keys: error.*
function errorText(code, message) {
  const key = typeof code === 'string' && code ? `error.${code.replace(/\//g, '.')}` : '';
  return key && /^[a-z0-9_.]+$/.test(key) && hasKey(key) ? t(key) : (message || code || '');
}

let errorTimer = null;
let errorShown = null;  // the error on screen: [its box, the message], to word it again on a switch
const errorLine = (msg) => (msg.code ? t('app.error', { message: errorText(msg.code, msg.message), code: msg.code }) : errorText(msg.code, msg.message));
function showError(msg) {
  // The lobby has its own box (a table that could not be created); a room shows it under the table.
  const box = $('#lobby').hidden ? $('#error') : $('#lobby-error');
  box.textContent = errorLine(msg);
  errorShown = [box, msg];
  box.hidden = false;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { $('#error').hidden = true; $('#lobby-error').hidden = true; }, 5000);
  if (msg.code === 'bot/unavailable' && !app.noBots) {  // this server runs no bots: offer none
    app.noBots = true;
    $('#computer').hidden = true;
    if (app.state) renderRoom();
  }
  if (msg.code === 'move/stale_version' && app.room) resync();
  // A refused message has no id: if it was our sync, its answer will not come. Ask again in a
  // second, once however many were refused.
  if (msg.code === 'proto/rate_limited' && app.resyncing && !app.resyncRetry) {
    const room = app.resyncing;
    app.resyncRetry = setTimeout(() => {
      app.resyncRetry = null;
      if (app.resyncing === room) { app.resyncing = null; resync(); }
    }, 1000);
  }
  if (msg.code === 'room/not_found' && app.room) {
    $('#table').replaceChildren(el('p', {}, t('table.not_found')));
  }
}

function showAnnounce(text) {
  const a = $('#announce');
  a.textContent = text;
  a.hidden = false;
  setTimeout(() => { a.hidden = true; }, 15000);
}

// ---------- clocks ----------
// The server alone keeps time; the page shows it. A state's `clock` has each seat's time left
// (`left_ms`) and the seat whose clock runs (`running`) since `since`, in the server's time: the
// running seat has left_ms[running] - (server now - since). The server's now is our Date.now()
// plus the offset measured at the last `full` (`server_time`), so every page shows the same.
const serverNow = () => Date.now() + app.offset;
const DAY = 86400000, HOUR = 3600000, MINUTE = 60000;

// The "Time control" choice of the create form: null for none, else the `clock` to send. Any
// table may have one: at three or four seats, an easy bot plays on for a player whose time runs
// out.
const readClock = () => controlOf($('#time-control').value);

// What a seat has left now: its time as it stood at `since` if its clock runs; none for the
// seat whose flag fell.
function clockLeft(st, seat, now) {
  const c = st.clock;
  if (st.outcome && st.outcome.end === 'flagged' && st.outcome.seat === seat) return 0;
  const left = c.left_ms[seat];
  return c.running === seat && st.status === 'playing' ? Math.max(0, left - Math.max(0, now - c.since)) : left;
}

// Live: m:ss, or h:mm:ss, with tenths under 10 s; correspondence: "2d 4h", "5h 12m", "3m 20s".
// Rounded up: a clock reads zero only once its time is gone.
function clockText(control, ms) {
  ms = Math.max(0, ms);
  const pad = (n) => String(n).padStart(2, '0');
  if (control.kind === 'correspondence') {
    const minutes = Math.ceil(ms / MINUTE);
    const d = (n) => t('clock.unit.d', { n }), h = (n) => t('clock.unit.h', { n });
    const m = (n) => t('clock.unit.m', { n }), s = (n) => t('clock.unit.s', { n });
    if (minutes >= 24 * 60) {
      const hours = Math.ceil(ms / HOUR);
      return hours % 24 ? `${d(Math.floor(hours / 24))} ${h(hours % 24)}` : d(hours / 24);
    }
    if (minutes >= 60) return `${h(Math.floor(minutes / 60))} ${m(minutes % 60)}`;
    const seconds = Math.ceil(ms / 1000);
    return seconds >= 60 ? `${m(Math.floor(seconds / 60))} ${s(seconds % 60)}` : s(seconds);
  }
  if (ms === 0) return '0:00';
  const tenths = Math.ceil(ms / 100);
  if (tenths < 100) return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

// When a clock shows red. Live: under 20 s, whatever the base (what matters is whether a few
// more moves fit; 10% of a 1+0 game would be 6 s, of a 15+10 one a minute and a half).
// Correspondence: under 10% of the move's time (2.4 h of a day, 7.2 h of three days).
function clockLow(control, ms) {
  return control.kind === 'correspondence' ? ms < control.days * DAY / 10 : ms < 20000;
}

// One seat's clock face: its colour, its name and its time (set by tickFaces).
function clockFace(seat, name, colour) {
  return el('div', { class: 'clock', 'data-clock': seat, style: `--seat:${colour}` },
    el('bdi', { class: 'clock-name' }, name),
    el('span', { class: 'clock-time', 'data-clock-time': seat }));
}

// Sets each face of `box` to its seat's time at `now`: running, low and flagged ones marked.
// Touches the page only where it changed.
function tickFaces(box, st, now) {
  const flagged = st.outcome && st.outcome.end === 'flagged' ? st.outcome.seat : null;
  for (const face of box.querySelectorAll('[data-clock]')) {
    const seat = Number(face.dataset.clock);
    const ms = clockLeft(st, seat, now);
    const text = clockText(st.clock.control, ms);
    const time = face.querySelector('.clock-time');
    if (time.textContent !== text) time.textContent = text;
    face.classList.toggle('running', st.status === 'playing' && st.clock.running === seat);
    face.classList.toggle('low', ms > 0 && clockLow(st.clock.control, ms));
    face.classList.toggle('flagged', flagged === seat);
  }
}

// The room's clocks, outside #seats and #status: their text changes with every tick, and a page
// that followed a game must show the same seats and status as one just opened. Called with the
// state at each change (null: no room on screen); ticks only while a clock runs.
function renderClocks(st, seatColour = (i) => SEAT_COLOURS[i % SEAT_COLOURS.length]) {
  const bar = $('#clock-bar');
  const clock = st && st.clock;
  bar.hidden = !clock;
  if (!clock) {
    $('#clocks').replaceChildren();
    stopClocks();
    return;
  }
  const box = $('#clocks');
  box.replaceChildren(...clock.left_ms.map((_, i) => {
    const face = clockFace(i, st.seats[i] && st.seats[i].name ? st.seats[i].name : seatLabel(i), seatColour(i));
    if (st.you === i) face.classList.add('me');
    return face;
  }));
  box.title = controlTitle(clock.control);
  box.dataset.control = controlText(clock.control);
  // The sound is for a player's own live clock.
  $('#clock-sound-label').hidden = st.you === null || clock.control.kind !== 'live';
  tickClocks();
  if (st.status === 'playing' && clock.running !== null) {
    if (!app.clockTimer) app.clockTimer = setInterval(tickClocks, 100);
  } else stopClocks();
}

// The player to move is away (`state.gone`): a countdown to when the other may claim the win,
// then the button. Outside #status and #room-actions, since it ticks; ticks only while shown.
function renderGone(st) {
  const box = $('#gone');
  const gone = st && st.status === 'playing' ? st.gone : null;
  clearInterval(app.goneTimer);
  app.goneTimer = null;
  box.hidden = !gone;
  if (!gone) {
    box.replaceChildren();
    return;
  }
  const name = (st.seats[gone.seat] && st.seats[gone.seat].name) || seatLabel(gone.seat);
  const mine = st.you !== null && st.you !== gone.seat && !hasLeft(st, st.you);
  // Of two seats the other wins; of three or four the gone player is dropped and play goes on.
  const what = st.seats.length === 2 ? 'win' : 'drop';
  const text = el('span', { class: 'gone-text' });
  const claim = el('button', { class: 'primary small', id: 'claim', hidden: true,
    onclick: () => send({ type: 'claim', room: app.room }) }, what === 'win' ? t('table.gone.claim_win') : t('table.gone.drop', { name }));
  box.replaceChildren(text, claim);
  // i18n-keys: table.gone.*
  const tick = () => {
    const left = Math.max(0, gone.claim_at - serverNow());
    if (left > 0) {
      text.textContent = t(`table.gone.${mine ? 'you' : 'anyone'}_${what}_in`, { name, n: Math.ceil(left / 1000) });
    } else {
      text.textContent = mine ? t('table.gone.too_long', { name }) : t(`table.gone.too_long_anyone_${what}`, { name });
      claim.hidden = !mine;
      clearInterval(app.goneTimer);
      app.goneTimer = null;
    }
  };
  tick();
  if (!claim.hidden || gone.claim_at <= serverNow()) return;
  app.goneTimer = setInterval(tick, 250);
}

function stopClocks() {
  clearInterval(app.clockTimer);
  app.clockTimer = null;
  app.ownLeft = null;
}

function tickClocks() {
  const st = app.state;
  if (!st || !st.clock || $('#room').hidden) { stopClocks(); return; }
  tickFaces($('#clocks'), st, serverNow());
  // Our own live clock passing 10 s: one beep (and a buzz), if the player asked for it.
  const own = st.status === 'playing' && st.you !== null && st.clock.running === st.you && st.clock.control.kind === 'live'
    ? clockLeft(st, st.you, serverNow()) : null;
  if (own !== null && app.ownLeft !== null && app.ownLeft >= 10000 && own < 10000 && soundOn()) beep();
  app.ownLeft = own;
}

const soundOn = () => { try { return localStorage.getItem('plateau.clockSound') === '1'; } catch { return false; } };

let audio = null;
function unlockAudio() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  try {
    audio = audio || new Ctx();
    if (audio.state === 'suspended') audio.resume().catch(() => {});
  } catch { audio = null; }
  return audio;
}

// A short beep of 880 Hz, and a buzz on a phone.
function beep() {
  app.beeps++;
  const ctx = unlockAudio();
  if (ctx) {
    try {
      const t = ctx.currentTime, osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.25, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.2);
    } catch { /* no sound here */ }
  }
  try { if (navigator.vibrate) navigator.vibrate(200); } catch { /* no vibration here */ }
}

// ---------- bots ----------
const BOT_LEVELS = ['easy', 'normal', 'hard'];
const ORDINALS = ['lobby.order.first', 'lobby.order.second', 'lobby.order.third', 'lobby.order.fourth'];

// The rooms this player created, kept across reloads (the last 50): its creator may seat bots
// at a table before sitting there. The server decides; this only chooses what to offer.
function loadCreated() {
  try { return new Set(JSON.parse(localStorage.getItem('plateau.created') || '[]')); } catch { return new Set(); }
}

function rememberCreated(room) {
  const list = [...app.created].filter((r) => r !== room).concat(room).slice(-50);
  app.created = new Set(list);
  try { localStorage.setItem('plateau.created', JSON.stringify(list)); } catch { /* private mode */ }
}

// A robot's head, drawn (an emoji is missing from many systems' fonts).
function botIcon() {
  return svg('svg', { class: 'icon', viewBox: '0 0 16 16', 'aria-hidden': 'true' },
    svg('rect', { x: '7.3', y: '1.5', width: '1.4', height: '3' }),
    svg('circle', { cx: '8', cy: '1.8', r: '1.3' }),
    svg('rect', { x: '2.5', y: '4.5', width: '11', height: '9', rx: '2.5' }),
    svg('circle', { class: 'eye', cx: '5.8', cy: '8.5', r: '1.3' }),
    svg('circle', { class: 'eye', cx: '10.2', cy: '8.5', r: '1.3' }),
    svg('rect', { class: 'eye', x: '5.5', y: '11', width: '5', height: '1' }));
}

// A bot's level, worded (easy, normal, hard).
const levelName = (level) => (hasKey(`bot.${level}`) ? t(`bot.${level}`) : level);

// The badge of a bot's seat: its level.
function botTag(level) {
  return el('span', { class: 'bot-tag', 'data-bot': level, title: t('bot.tag_title', { level: levelName(level) }) }, botIcon(), ` ${levelName(level)}`);
}

// "Add a bot" at a free seat: a level (the last one chosen, normal at first) and the button.
function addBotControl(seat) {
  const level = el('select', {
    class: 'bot-level', 'data-bot-level': seat, 'aria-label': t('bot.level_at', { n: seat + 1 }),
    onchange: (e) => { app.botLevel = e.target.value; },
  }, BOT_LEVELS.map((l) => el('option', { value: l }, levelName(l))));
  level.value = app.botLevel;
  return el('span', { class: 'add-bot' }, level,
    el('button', { type: 'button', class: 'small', 'data-add-bot': seat, onclick: (e) => addBot(seat, level.value, e.currentTarget) }, t('bot.add')));
}

// Seats a bot; the room's patch then shows it. A refusal is shown as any error is.
function addBot(seat, level, button) {
  app.botLevel = level;
  const sent = send({ type: 'add_bot', room: app.room, seat, level }, (reply) => {
    if (reply.type === 'error' && button.isConnected) button.disabled = false;
    return reply.type !== 'error';  // an error goes on to showError
  });
  if (sent) button.disabled = true;  // until the answer, or the patch that redraws the seat
}

// "Play the computer": a table of the game and options chosen in the form, the player at seat 0
// and a bot of the chosen level at every other seat (create, join, then one add_bot a seat).
// Who starts is the game's `first` option, from "You play first / second / … / at random".
function playComputer() {
  const game = app.games.find((g) => g.id === $('#game-select').value);
  if (!game) return;
  const options = readOptions();
  const seats = computerSeats(game, options);
  const level = $('#cpu-level').value;
  const order = $('#cpu-order').value;
  // Turns go round by seat: the player at seat 0 plays k-th when seat (seats - k) % seats starts.
  if (game.options.some((o) => o.name === 'first')) options.first = order === 'random' ? 'random' : String((seats - Number(order)) % seats);
  const msg = { type: 'create', game: game.id, options, private: $('#private').checked, spectator_delay: Number($('#delay').value) || 0 };
  const clock = readClock();
  if (clock) msg.clock = clock;
  const sent = send(msg, (reply) => {
    $('#play-computer').disabled = false;
    if (reply.type !== 'created') return false;  // an error, shown as ever
    rememberCreated(reply.room);
    openRoom(reply.room, true, false, 0, () => addBots(reply.room, seats, level, 1));
    return true;
  });
  if (!sent) return;
  // One table a click, even a double one; a reply that never comes (the connection dropped)
  // does not keep the button off.
  $('#play-computer').disabled = true;
  setTimeout(() => { $('#play-computer').disabled = false; }, 5000);
}

// Seats bots from `seat` to the last, one after the other; the first refusal stops it (and is
// shown: the table waits, and its free seats offer "Add a bot").
function addBots(room, seats, level, seat) {
  if (seat >= seats || app.room !== room) return;
  send({ type: 'add_bot', room, seat, level }, (reply) => {
    if (reply.type === 'error') return false;
    addBots(room, seats, level, seat + 1);
    return true;
  });
}

function computerSeats(game, options) {
  return Number(options.players ?? (game.seats ? game.seats[0] : 2)) || 2;
}

// The "You play" choice follows the seats of the form's game and options.
function renderComputer() {
  const game = app.games.find((g) => g.id === $('#game-select').value);
  if (!game) return;
  const seats = computerSeats(game, readOptions());
  const order = $('#cpu-order');
  const keep = order.value;
  order.replaceChildren(...ORDINALS.slice(0, seats).map((w, i) => el('option', { value: i }, t(w))), el('option', { value: 'random' }, t('lobby.order.random')));
  order.value = keep === 'random' || Number(keep) < seats ? keep : '0';
  if (!order.value) order.value = '0';
  $('#cpu-order-label').hidden = !game.options.some((o) => o.name === 'first');
}

// ---------- history and replays ----------
function resultText(result, players) {
  if (!result) return '';
  const name = (i) => players[i] || seatLabel(i);
  if (result.winners.length === 0) return t('result.draw');
  return tn('result.won', result.winners.length, { names: list(result.winners.map(name)) });
}

async function loadHistory() {
  let games = [];
  try {
    const r = await fetch('/api/history?limit=30');
    if (r.ok) games = (await r.json()).games;
  } catch { /* the server keeps no history */ }
  app.history = games;
  renderHistory();
}

function renderHistory() {
  const games = app.history;
  $('#history').replaceChildren(...games.map((g) => el('tr', { 'data-history': g.room },
    el('td', {}, gameName(g.game), g.imported ? el('span', { class: 'muted' }, ' ', t('lobby.imported')) : ''),
    el('td', {}, ...nameList(g.players)),
    el('td', {}, resultText(g.result, g.players)),
    el('td', { class: 'actions' },
      el('a', { class: 'small-button', href: `/?replay=${encodeURIComponent(g.room)}&round=${g.round}` }, t('replay.open')),
      ' ',
      el('a', { class: 'small-button', href: `/api/export?room=${encodeURIComponent(g.room)}&round=${g.round}`, download: '' }, t('replay.export'))))));
  $('#no-history').hidden = games.length > 0;
}

const replay = { frames: [], record: null, at: 0 };

async function openReplay(room, round) {
  clearInterval(app.roomsTimer);
  if (app.room) send({ type: 'leave', room: app.room });
  app.room = null;
  $('#lobby').hidden = true;
  $('#room').hidden = true;
  $('#profile').hidden = true;
  $('#replay').hidden = false;
  replay.record = null;
  $('#replay-table').replaceChildren(el('p', { class: 'muted' }, t('app.loading')));
  const r = await fetch(`/api/replay?room=${encodeURIComponent(room)}&round=${round}`);
  const body = await r.json().catch(() => ({}));
  if (!r.ok || !body.record) {
    $('#replay-table').replaceChildren(el('p', {}, errorText(body.code, body.error) || t('replay.cannot')));
    return;
  }
  replay.frames = body.frames;
  replay.record = body.record;
  replay.at = body.frames.length - 1;
  $('#replay-title').textContent = t('replay.title', { game: gameName(body.record.game) });
  $('#replay-export').href = `/api/export?room=${encodeURIComponent(room)}&round=${round}`;
  $('#rp-slider').max = String(body.frames.length - 1);
  showFrame();
}

async function showFrame() {
  const { frames, record } = replay;
  const at = replay.at;
  const st = frames[at];
  $('#rp-slider').value = String(at);
  // The round's chat as it stood at this step: every line said before the next move.
  const said = (record.chat || []).filter((m) => m.move <= at);
  $('#replay-chat').hidden = !(record.chat || []).length;
  $('#replay-chat-lines').replaceChildren(...said.map((m) => el('li', { 'data-channel': m.channel },
    el('span', { class: 'chat-name seat-name' }, m.name), m.channel === 'spectators' ? el('span', { class: 'muted' }, ' ', t('replay.watching')) : '', ': ',
    m.deleted ? el('em', { class: 'muted' }, t('replay.deleted')) : m.phrase ? (PHRASES[m.phrase] || m.phrase) : m.text)));
  const mod = await moduleFor(record.game);
  if (at !== replay.at) return;
  const name = (i) => record.players[i] || seatLabel(i);
  // Each seat as the table showed it: a bot's level, and who had left the game by this step.
  $('#replay-seats').replaceChildren(...record.players.map((p, i) => el('div', {
    class: `seat${st.to_move === i ? ' to-move' : ''}`,
    'data-seat': i,
    style: `--seat:${(mod && mod.seatColour && mod.seatColour(st, i)) || SEAT_COLOURS[i % SEAT_COLOURS.length]}`,
  }, el('span', { class: 'seat-name' }, p || seatLabel(i)),
  record.bots && record.bots[i] ? botTag(record.bots[i]) : '',
  departureOf(st, i) ? leftTag(departureOf(st, i), name) : '')));
  const clocks = $('#replay-clocks');
  clocks.hidden = !st.clock;
  if (st.clock) {
    clocks.replaceChildren(...st.clock.left_ms.map((_, i) => clockFace(i, name(i),
      (mod && mod.seatColour && mod.seatColour(st, i)) || SEAT_COLOURS[i % SEAT_COLOURS.length])));
    tickFaces(clocks, st, 0);
  }
  const m = at > 0 ? record.moves[at - 1] : null;
  const total = record.moves.length;
  $('#rp-caption').textContent = at === 0 ? tn('replay.start', total)
    : at === frames.length - 1 && st.outcome
      ? t('replay.move_end', { at, total, name: name(m.seat), move: m.move,
        result: resultText(st.outcome, record.players), reason: reasonText(st.outcome, mod, name) })
      : t('replay.move', { at, total, name: name(m.seat), move: m.move });
  for (const b of ['first', 'prev']) $(`#rp-${b}`).disabled = at === 0;
  for (const b of ['next', 'last']) $(`#rp-${b}`).disabled = at === frames.length - 1;
  const seatColour = (i) => (mod && mod.seatColour && mod.seatColour(st, i)) || SEAT_COLOURS[i % SEAT_COLOURS.length];
  const ctx = { you: null, seatName: name, seatColour, play: () => {}, el };
  const table = $('#replay-table');
  if (mod) mod.render(table, st, ctx);
  else genericTable(table, st, ctx);
}

function step(to) {
  if (!replay.record) return;  // still loading
  replay.at = Math.max(0, Math.min(replay.frames.length - 1, to));
  showFrame();
}

async function importGame(file) {
  const text = await file.text();
  // Importing is for the server's host: it needs the admin token, kept for this tab only.
  let token = sessionStorage.getItem('plateau.admin');
  if (!token) token = prompt(t('lobby.import_token')) || '';
  if (!token) return;
  const r = await fetch('/api/import', {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: text,
  });
  if (r.ok) sessionStorage.setItem('plateau.admin', token);
  else if (r.status === 401) sessionStorage.removeItem('plateau.admin');
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { alert(t('lobby.import_refused', { error: errorText(body.code, body.error) || r.status })); return; }
  history.pushState({}, '', `/?replay=${encodeURIComponent(body.room)}&round=${body.round}`);
  openReplay(body.room, body.round);
}

// ---------- language ----------
// After a change of language (the static page is worded again by then): what is on screen is
// drawn again from what the page holds, by the same code as ever. The connection, the room's
// state and version, the replay's step and the form's choices all stay as they were.
function redraw() {
  setConn(app.conn);
  if (errorShown && !errorShown[0].hidden) errorShown[0].textContent = errorLine(errorShown[1]);
  if (app.games.length) fillGames(true);
  if (!$('#lobby').hidden) {
    if (app.lastRooms) renderRooms(app.lastRooms);
    renderHistory();
    renderLeaderboard();
  }
  if (!$('#room').hidden) {
    renderCrowd();
    if (app.state) renderRoom();
  }
  if (!$('#replay').hidden && replay.record) {
    $('#replay-title').textContent = t('replay.title', { game: gameName(replay.record.game) });
    showFrame();
  }
  const profile = new URLSearchParams(location.search).get('profile');
  if (!$('#profile').hidden && profile) showProfile(profile);
}

// ---------- wiring ----------
async function init() {
  // The words come first, so that nothing is ever drawn in a language and then in another.
  try { await setLanguage(preferredLanguage(), { remember: false }); } catch { /* English keys show */ }
  $('.account-bar').after(languagePicker());
  onLanguage(redraw);
  // The Rules panel: beside the game of the "New table" form, and at the table's head.
  const lobbyRules = rulesButton(() => $('#game-select').value);
  lobbyRules.id = 'lobby-rules';
  $('#game-pick').append(lobbyRules);
  const tableRules = rulesButton(() => app.state && app.state.game, () => app.state && app.state.options);
  tableRules.id = 'table-rules';
  $('#room .room-tools').prepend(tableRules);
  $('#name').value = myName();
  $('#name-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const n = $('#name').value.trim();
    if (!n) return;
    localStorage.setItem('plateau.name', n);
    send({ type: 'hello', name: n, token: localStorage.getItem('plateau.token') || undefined });
    $('#name').blur();
  });
  $('#name').addEventListener('change', () => $('#name-form').requestSubmit());
  $('#game-select').addEventListener('change', renderOptions);
  $('#options').addEventListener('change', () => renderComputer());
  $('#play-computer').addEventListener('click', playComputer);
  $('#create-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const msg = {
      type: 'create', game: $('#game-select').value, options: readOptions(),
      private: $('#private').checked, spectator_delay: Number($('#delay').value) || 0,
    };
    const clock = readClock();
    if (clock) msg.clock = clock;
    if ($('#rated').checked && !$('#rated-label').hidden) msg.rated = true;
    send(msg);
  });
  const sound = $('#clock-sound');
  sound.checked = soundOn();
  sound.addEventListener('change', () => {
    try { localStorage.setItem('plateau.clockSound', sound.checked ? '1' : '0'); } catch { /* private mode */ }
    if (sound.checked) unlockAudio();  // a click may start sound; a clock running low may not
  });
  // Browsers let a page make sound only once someone has touched it: any touch will do.
  document.addEventListener('pointerdown', () => { if (soundOn()) unlockAudio(); }, { capture: true });
  $('#refresh').addEventListener('click', () => { askRooms(); loadHistory(); });
  $('#rooms-game').addEventListener('change', () => { app.roomsFrom = 0; askRooms(); });
  $('#rooms-prev').addEventListener('click', () => { app.roomsFrom = Math.max(0, app.roomsFrom - ROOMS_PAGE); askRooms(); });
  $('#rooms-next').addEventListener('click', () => { app.roomsFrom += ROOMS_PAGE; askRooms(); });
  document.addEventListener('visibilitychange', () => { if (!document.hidden && !app.room && !$('#lobby').hidden) askRooms(); });
  $('#import').addEventListener('change', (e) => { if (e.target.files[0]) importGame(e.target.files[0]); e.target.value = ''; });
  $('#rp-first').addEventListener('click', () => step(0));
  $('#rp-prev').addEventListener('click', () => step(replay.at - 1));
  $('#rp-next').addEventListener('click', () => step(replay.at + 1));
  $('#rp-last').addEventListener('click', () => step(replay.frames.length - 1));
  $('#rp-slider').addEventListener('input', (e) => step(Number(e.target.value)));
  $('#replay-back').addEventListener('click', () => { history.pushState({}, '', '/'); showLobby(); });
  document.addEventListener('keydown', (e) => {
    if ($('#replay').hidden || e.target.tagName === 'INPUT') return;
    if (e.key === 'ArrowLeft') step(replay.at - 1);
    if (e.key === 'ArrowRight') step(replay.at + 1);
  });
  $('#leave').addEventListener('click', () => { history.pushState({}, '', '/'); showLobby(); });
  $('#copy-link').addEventListener('click', async () => {
    const link = `${location.origin}/?room=${encodeURIComponent(app.room)}`;
    const button = $('#copy-link');
    const say = (key) => { button.dataset.i18n = key; button.textContent = t(key); };
    try { await navigator.clipboard.writeText(link); say('table.link_copied'); }
    catch { prompt(t('table.invite_link'), link); }
    setTimeout(() => say('table.copy_link'), 2000);
  });
  document.querySelector('.brand').addEventListener('click', (e) => { e.preventDefault(); history.pushState({}, '', '/'); showLobby(); });
  window.addEventListener('popstate', route);
  initPlayers({ gameName, resultText, showLobby });
  initChat(send);
  initTournaments({ send, showLobby, openRoom, route });  // tournaments.js (issue 48)
  // A player's name opens their profile without leaving the page.
  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[data-profile]');
    if (!a || !a.dataset.profile || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    history.pushState({}, '', `/?profile=${encodeURIComponent(a.dataset.profile)}`);
    route();
  });
  // Signed in (or out): the new token's hello puts the player back at their tables.
  initAccount((name) => {
    if (name) $('#name').value = name;
    send({ type: 'hello', name: myName(), token: localStorage.getItem('plateau.token') || undefined });
  });
  connect();
}

init();
