// Tournaments in a real browser (issue 48), in English and in French: the lobby's list, a
// tournament's page for each format (the standings in the server's order with the tie-break
// columns of the format, the rounds newest first with their tables, forfeits, byes, links to
// each room and replay), the person's own table highlighted with its "Play your game", the
// countdown before the start, Register / Withdraw over the WebSocket, the notice of a new table,
// a switch of language in place, and an organiser's form, Start now and Cancel.
//
// The tournaments' HTTP API is mocked (Playwright answers /api/tournament…, and
// /api/accounts/me for the organiser); the server and its WebSocket are real. A `tournament`
// message the page sends is caught before it leaves (the page's socket's send is wrapped), and
// the server's answers are handed to the page's socket as if they had come from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, shots } from './harness.mjs';
import { LOCALES, WORDS, num, plural, word } from './i18n_check.mjs';


const MINUTE = 60000;

// ---------- the server's answers ----------
const seat = (player, name) => ({ player, name });
const over = (room, seats, points, forfeit = seats.map(() => false)) => ({ room, seats, points, status: 'over', forfeit });
const row = (player, name, rank, score, buchholz, sb, h2h, w, d, l) => ({
  player, name, rank, score, buchholz, sonneborn_berger: sb, head_to_head: h2h, games: w + d + l, wins: w, draws: d, losses: l,
});

// The four tournaments, `me` (the page's player, called `myName`) playing in the running one.
// `rounds` is the number planned, `rounds_played` the rounds drawn so far (the server's names).
function fixtures(me, myName, now) {
  const ada = seat('p-ada', 'Ada'), bob = seat('p-bob', 'Bob'), cyd = seat('p-cyd', 'Cyd'), dan = seat('p-dan', 'Dan'), you = seat(me, myName);
  const players = (list) => list.map((p, i) => ({ ...p, seed: i + 1 }));
  const registering = {
    id: 't-reg', name: 'Autumn Swiss', game: 'quantik', options: { players: 2 }, format: 'swiss', seats: 2, rounds: 4, twice: false,
    status: 'registering', starts: now + 10 * MINUTE + 20000, no_show_minutes: 10, round: 0, organiser: 'Org',
    players: players([ada, bob, cyd]), standings: [], rounds_played: [],
  };
  // After two rounds of four: a bye each round (five players), a forfeit in round 2; round 3 is
  // being played, the page's player at table 1.
  const running = {
    id: 't-run', name: 'Winter Swiss', game: 'quantik', options: { players: 2 }, format: 'swiss', seats: 2, rounds: 4, twice: false,
    status: 'running', starts: now - 40 * MINUTE, no_show_minutes: 10, round: 3, organiser: 'Org',
    players: players([you, ada, bob, cyd, dan]),
    // Out of order on purpose: the page ranks by `rank`.
    standings: [
      row('p-ada', 'Ada', 4, 1, 3, 0.5, 0, 1, 0, 1),
      row('p-dan', 'Dan', 1, 1.5, 2.5, 1.25, 0, 0, 1, 0),
      row('p-bob', 'Bob', 5, 0.5, 2.5, 0.25, 0, 0, 1, 1),
      row(me, myName, 2, 1.5, 2.5, 1, 0, 1, 1, 0),
      row('p-cyd', 'Cyd', 3, 1.5, 0.5, 0.25, 0, 0, 1, 0),
    ],
    rounds_played: [
      { round: 1, tables: [over('R11', [you, ada], [1, 0]), over('R12', [bob, cyd], [0.5, 0.5])], byes: [{ ...dan, points: 1 }] },
      { round: 2, tables: [over('R21', [dan, you], [0.5, 0.5]), over('R22', [ada, bob], [1, 0], [false, true])], byes: [{ ...cyd, points: 1 }] },
      { round: 3, tables: [{ room: 'R31', seats: [ada, you], points: null, status: 'playing', forfeit: [false, false] },
        { room: 'R32', seats: [cyd, dan], points: null, status: 'waiting', forfeit: [false, false] }], byes: [{ ...bob, points: 1 }] },
    ],
  };
  // Finished, four players, three rounds; Bob and Cyd tie on points and the head-to-head
  // puts Cyd first.
  const rr = (n, a, b, pa, pb) => over(`RR${n}`, [a, b], [pa, pb]);
  const robin = {
    id: 't-rr', name: 'Spring Round Robin', game: 'quantik', options: { players: 2 }, format: 'round_robin', seats: 2, rounds: 3, twice: false,
    status: 'finished', starts: now - 3 * 24 * 60 * MINUTE, no_show_minutes: 10, round: 3, organiser: 'Org',
    players: players([ada, bob, cyd, dan]),
    standings: [
      row('p-ada', 'Ada', 1, 2.5, 0, 2.25, 0, 2, 1, 0),
      row('p-bob', 'Bob', 3, 1.5, 1, 1.25, 0, 1, 1, 1),
      row('p-cyd', 'Cyd', 2, 1.5, 1, 1.75, 1, 1, 1, 1),
      row('p-dan', 'Dan', 4, 0.5, 0, 0.5, 0, 0, 1, 2),
    ],
    rounds_played: [
      { round: 1, tables: [rr(11, ada, bob, 0.5, 0.5), rr(12, cyd, dan, 0.5, 0.5)], byes: [] },
      { round: 2, tables: [rr(21, ada, cyd, 1, 0), rr(22, bob, dan, 1, 0)], byes: [] },
      { round: 3, tables: [rr(31, ada, dan, 1, 0), rr(32, cyd, bob, 1, 0)], byes: [] },
    ],
  };
  // Three at each table of On Top, six players, two rounds.
  const eve = seat('p-eve', 'Eve'), fay = seat('p-fay', 'Fay');
  const seated = {
    id: 't-trio', name: 'Trio Cup', game: 'on_top', options: { players: 3 }, format: 'seated', seats: 3, rounds: 2, twice: false,
    status: 'finished', starts: now - 2 * 24 * 60 * MINUTE, no_show_minutes: 15, round: 2, organiser: 'Org',
    players: players([ada, bob, cyd, dan, eve, fay]),
    standings: [
      row('p-ada', 'Ada', 1, 4, 5, 3.5, 0, 2, 0, 0),
      row('p-dan', 'Dan', 2, 3, 6, 2.5, 0, 1, 0, 1),
      row('p-bob', 'Bob', 3, 2.5, 4.5, 1.75, 0, 0, 1, 1),
      row('p-eve', 'Eve', 4, 1.5, 5.5, 0.75, 0, 0, 1, 1),
      row('p-cyd', 'Cyd', 5, 1, 4, 0.5, 0, 0, 0, 2),
      row('p-fay', 'Fay', 6, 0, 5, 0, 0, 0, 0, 2),
    ],
    rounds_played: [
      { round: 1, tables: [over('S11', [ada, bob, cyd], [2, 1, 0]), over('S12', [dan, eve, fay], [1.5, 1.5, 0], [false, false, true])], byes: [] },
      { round: 2, tables: [over('S21', [ada, dan, eve], [2, 1, 0]), over('S22', [bob, cyd, fay], [1.5, 1, 0])], byes: [] },
    ],
  };
  return { 't-reg': registering, 't-run': running, 't-rr': robin, 't-trio': seated };
}

// The lobby's list: newest first.
function listOf(all) {
  return ['t-run', 't-reg', 't-trio', 't-rr'].map((id) => {
    const d = all[id];
    return { id, name: d.name, game: d.game, format: d.format, seats: d.seats, status: d.status, starts: d.starts,
      players: d.players.length, round: d.round, rounds: d.rounds };
  });
}

// Answers /api/tournament… for `context` from `state.all` (set once the page's player is known);
// returns every request, its body and its Authorization.
async function mockApi(context, state) {
  const calls = [];
  await context.route((url) => url.pathname.startsWith('/api/tournament'), async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    calls.push({ method: req.method(), path: url.pathname, id: url.searchParams.get('id'), body: req.postData(), auth: req.headers().authorization });
    const json = (status, body) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    // The list names no player: it is the same before the page's player is known.
    const all = state.all || fixtures('?', '?', state.now);
    if (url.pathname === '/api/tournaments') return json(200, { tournaments: listOf(all) });
    if (url.pathname === '/api/tournament') {
      const d = all[url.searchParams.get('id')];
      return d ? json(200, d) : json(404, { code: 'tournament/not_found' });
    }
    if (url.pathname === '/api/tournaments/create') return json(200, { id: 't-new' });
    if (['/api/tournaments/start', '/api/tournaments/cancel', '/api/tournaments/remove'].includes(url.pathname)) return json(200, {});
    return json(404, { code: 'tournament/not_found' });
  });
  return calls;
}

// A page of `code`'s language on the lobby, its API mocked with the page's player in the
// running tournament.
async function openLobby(browser, server, code, name) {
  const p = await player(browser, name, undefined, { locale: LOCALES[code] });
  const state = { all: null, now: Date.now() };
  const calls = await mockApi(p.context, state);
  await p.page.goto(server.url);
  await p.page.waitForFunction(() => window.plateau.games.length > 0 && window.plateau.player);
  const me = await p.page.evaluate(() => window.plateau.player);
  state.all = fixtures(me, name, state.now);
  return { ...p, state, calls, me };
}

const texts = (page, sel) => page.locator(sel).allTextContents();
const attrs = (page, sel, attr) => page.locator(sel).evaluateAll((es, a) => es.map((e) => e.getAttribute(a)), attr);

// Catches every `tournament` message the page sends (it never reaches the server).
const catchSent = (page) => page.evaluate(() => {
  const ws = window.plateau.ws;
  const send = ws.send.bind(ws);
  window.sentTournament = [];
  ws.send = (data) => {
    const m = JSON.parse(data);
    if (m.type === 'tournament') window.sentTournament.push(m);
    else send(data);
  };
});
// Hands the page a message as if its server had sent it.
const receive = (page, msg) => page.evaluate((m) => window.plateau.ws.onmessage({ data: JSON.stringify(m) }), msg);

// Moves to a tournament's page from the lobby, by its link (no reload).
async function openFromLobby(page, id) {
  if (await page.locator('#lobby').isHidden()) await page.click('#tournament-back');
  await page.click(`#tournament-list tr[data-tournament="${id}"] a`);
  await page.waitForFunction((x) => new URLSearchParams(location.search).get('tournament') === x
    && window.plateauTournaments.data && window.plateauTournaments.data.id === x && !document.querySelector('#tournament').hidden, id);
}

// Fails on a visible text (or title) under `root` that is one of English's tournament texts whose
// French differs: a French page has none left.
async function assertNoEnglish(page, root) {
  const english = Object.entries(WORDS.en)
    .filter(([k, v]) => k.startsWith('tournament.') && WORDS.fr[k] !== v && !/\{\w+\}/.test(v)).map(([, v]) => v);
  const found = await page.evaluate(([sel, words]) => {
    const out = [];
    const box = document.querySelector(sel);
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.checkVisibility() && words.includes(n.textContent.trim())) out.push(n.textContent.trim());
    }
    for (const e of box.querySelectorAll('[title], [aria-label]')) {
      for (const a of ['title', 'aria-label']) if (words.includes(e.getAttribute(a))) out.push(e.getAttribute(a));
    }
    return out;
  }, [root, english]);
  assert.deepEqual(found, [], `English left on a French page under ${root}`);
}

async function checkLobby(page, code, all) {
  await page.waitForFunction(() => document.querySelectorAll('#tournaments-panel:not([hidden]) #tournament-list tr').length === 4);
  assert.equal(await page.locator('#tournaments-panel h2').textContent(), word(code, 'tournament.lobby.title'));
  assert.deepEqual(await attrs(page, '#tournament-list tr', 'data-tournament'), ['t-run', 't-reg', 't-trio', 't-rr']);
  const cells = async (id) => texts(page, `#tournament-list tr[data-tournament="${id}"] td`);
  const when = (ms) => page.evaluate((x) => new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(x)), ms);
  assert.equal(await page.evaluate(() => document.documentElement.lang), code);
  assert.deepEqual(await cells('t-run'), ['Winter Swiss', 'Quantik', word(code, 'tournament.format.swiss'), word(code, 'tournament.status.running'),
    word(code, 'tournament.round_of', { round: num(code, 3), rounds: num(code, 4) }), plural(code, 'tournament.players_count', 5)]);
  assert.deepEqual(await cells('t-reg'), ['Autumn Swiss', 'Quantik', word(code, 'tournament.format.swiss'), word(code, 'tournament.status.registering'),
    await when(all['t-reg'].starts), plural(code, 'tournament.players_count', 3)]);
  assert.deepEqual((await cells('t-trio')).slice(2, 4), [word(code, 'tournament.format.seated'), word(code, 'tournament.status.finished')]);
  assert.deepEqual((await cells('t-rr')).slice(2, 4), [word(code, 'tournament.format.round_robin'), word(code, 'tournament.status.finished')]);
  assert.equal(await page.locator('#tournament-list tr[data-tournament="t-rr"] a').getAttribute('href'), '/?tournament=t-rr');
  assert.ok(!/\bnull\b|undefined|NaN/.test(await page.locator('#tournaments-panel').innerText()), 'no stray value in the panel');
  // A guest organises nothing: no form.
  assert.equal(await page.locator('#tournament-create').count(), 0);
}

// The standings' columns (after # and the name) and rows, as the page shows them.
const columns = (page) => attrs(page, '#tournament-standings thead th[data-col]', 'data-col');
const ranking = (page) => attrs(page, '#tournament-standings tbody tr', 'data-player');

async function checkRunningSwiss(page, code, me, name) {
  assert.equal(await page.locator('#tournament-title').textContent(), 'Winter Swiss');
  assert.deepEqual(await ranking(page), ['p-dan', me, 'p-cyd', 'p-ada', 'p-bob']);
  assert.ok(!/\bnull\b|undefined|NaN/.test(await page.locator('#tournament').innerText()), 'no stray value on the page');
  assert.deepEqual(await columns(page), ['score', 'buchholz', 'sonneborn_berger', 'wdl', 'games']);
  assert.deepEqual(await texts(page, '#tournament-standings thead th'), ['#', word(code, 'tournament.col.player'), word(code, 'tournament.col.score'),
    word(code, 'tournament.tiebreak.buchholz'), word(code, 'tournament.tiebreak.sonneborn_berger'), word(code, 'tournament.col.wdl'), word(code, 'tournament.col.games')]);
  // Halves in the page's language: 1.5 and 1.25 in English, 1,5 and 1,25 in French.
  assert.deepEqual(await texts(page, '#tournament-standings tbody tr:first-child td'),
    [num(code, 1), 'Dan', num(code, 1.5), num(code, 2.5), num(code, 1.25), `${num(code, 0)}/${num(code, 1)}/${num(code, 0)}`, num(code, 1)]);
  assert.equal(code === 'fr' ? '1,5' : '1.5', num(code, 1.5));
  assert.equal(await page.locator(`#tournament-standings tr[data-player="${me}"]`).getAttribute('class'), 'me');
  // The status says which round.
  assert.match(await page.locator('.t-info').textContent(), new RegExp(word(code, 'tournament.round_of', { round: 3, rounds: 4 })));
  // The rounds, newest first; byes; a forfeit (and no replay of a game never played).
  assert.deepEqual(await attrs(page, '.t-rounds .t-round', 'data-round'), ['3', '2', '1']);
  assert.equal(await page.locator('.t-round[data-round="3"] h3').textContent(), word(code, 'tournament.round_n', { n: 3 }) + word(code, 'tournament.now'));
  assert.equal(await page.locator('.t-round[data-round="1"] .t-bye[data-player="p-dan"]').textContent(), `Dan — ${plural(code, 'tournament.bye', 1)}`);
  assert.equal(await page.locator('.t-round[data-round="2"] .t-table[data-room="R22"] li[data-player="p-bob"] .t-forfeit').textContent(), word(code, 'tournament.forfeit'));
  assert.equal(await page.locator('.t-table[data-room="R22"] .t-replay').count(), 0);
  assert.deepEqual(await texts(page, '.t-table[data-room="R21"] .t-points'), [num(code, 0.5), num(code, 0.5)]);
  assert.equal(await page.locator('.t-table[data-room="R11"] .t-replay').getAttribute('href'), '/?replay=R11&round=1');
  assert.equal(await page.locator('.t-table[data-room="R11"] .t-replay').textContent(), word(code, 'tournament.replay'));
  assert.equal(await page.locator('.t-table[data-room="R32"] a.t-room').getAttribute('href'), '/?room=R32');
  assert.equal(await page.locator('.t-table[data-room="R32"] a.t-room').textContent(), word(code, 'tournament.watch'));
  assert.equal(await page.locator('.t-table[data-room="R32"] .t-table-status').textContent(), word(code, 'tournament.table_status.waiting'));
  // The person's own table: highlighted in its round, and at the top with the big button.
  assert.equal(await page.locator('.t-round[data-round="3"] .t-table.mine').getAttribute('data-room'), 'R31');
  assert.equal(await page.locator('.t-table.mine').count(), 2, 'the top one and the one in its round');
  assert.equal(await page.locator('.t-round[data-round="1"] .t-table.mine').count(), 0, 'only the round being played is highlighted');
  const playButton = page.locator('#tournament-play');
  assert.ok(await playButton.isVisible());
  assert.equal(await playButton.textContent(), word(code, 'tournament.play'));
  assert.equal(await playButton.getAttribute('href'), '/?room=R31');
  assert.equal(await page.locator('.t-yours h3').textContent(), word(code, 'tournament.your_game', { n: 3 }));
  assert.deepEqual(await texts(page, '.t-yours .t-seats li.me .seat-name'), [name]);
}

async function checkRoundRobin(page, code) {
  assert.deepEqual(await ranking(page), ['p-ada', 'p-cyd', 'p-bob', 'p-dan']);
  assert.deepEqual(await columns(page), ['score', 'head_to_head', 'sonneborn_berger', 'wdl', 'games']);
  assert.equal(await page.locator('#tournament-standings th[data-col="buchholz"]').count(), 0);
  assert.equal(await page.locator('#tournament-standings th[data-col="head_to_head"]').textContent(), word(code, 'tournament.tiebreak.head_to_head'));
  assert.equal(await page.locator('#tournament-standings th[data-col="head_to_head"]').getAttribute('title'), word(code, 'tournament.tiebreak.head_to_head_title'));
  assert.deepEqual(await texts(page, '#tournament-standings tr[data-player="p-cyd"] td'),
    [num(code, 2), 'Cyd', num(code, 1.5), num(code, 1), num(code, 1.75), `${num(code, 1)}/${num(code, 1)}/${num(code, 1)}`, num(code, 3)]);
  assert.equal(await page.locator('#tournament-status').textContent(), word(code, 'tournament.status.finished'));
  assert.equal(await page.locator('.t-table.mine').count(), 0);
  assert.equal(await page.locator('#tournament-play').count(), 0);
  assert.equal(await page.locator('#tournament-register').count(), 0, 'no registering once it is over');
  assert.equal(await page.locator('.t-table[data-room="RR32"] .t-replay').getAttribute('href'), '/?replay=RR32&round=1');
  assert.equal(await page.locator('.t-table[data-room="RR32"] a.t-room').textContent(), word(code, 'tournament.open'));
  assert.match(await page.locator('.t-info').textContent(), new RegExp(word(code, 'tournament.format.round_robin')));
}

async function checkSeated(page, code) {
  assert.deepEqual(await ranking(page), ['p-ada', 'p-dan', 'p-bob', 'p-eve', 'p-cyd', 'p-fay']);
  assert.deepEqual(await columns(page), ['score', 'buchholz', 'sonneborn_berger', 'wdl', 'games']);
  assert.equal(await page.locator('.t-table').count(), 4);
  for (const room of ['S11', 'S12', 'S21', 'S22']) assert.equal(await page.locator(`.t-table[data-room="${room}"] .t-seats li`).count(), 3);
  assert.deepEqual(await texts(page, '.t-table[data-room="S12"] .t-points'), [num(code, 1.5), num(code, 1.5), num(code, 0)]);
  assert.equal(await page.locator('.t-table[data-room="S12"] li[data-player="p-fay"] .t-forfeit').count(), 1);
  assert.equal(await page.locator('#tournament-standings tr[data-player="p-bob"] td[data-col="sonneborn_berger"]').textContent(), num(code, 1.75));
  assert.match(await page.locator('.t-info').textContent(), new RegExp(plural(code, 'tournament.rounds_count', 2)));
}

// The countdown, Register and Withdraw (the WebSocket's messages), a refusal worded.
async function checkRegistering(page, code) {
  const pattern = new RegExp(`^${word(code, 'tournament.starts_in', { time: '(\\d+):(\\d\\d)' })}$`);
  const left = async () => {
    const m = pattern.exec(await page.locator('#tournament-countdown').textContent());
    assert.ok(m, `the countdown reads "${await page.locator('#tournament-countdown').textContent()}"`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  const first = await left();
  // Ten minutes and twenty seconds after the page opened, less what the test took to get here.
  const expected = await page.evaluate(() => Math.ceil((window.plateauTournaments.data.starts - Date.now()) / 1000));
  assert.ok(Math.abs(first - expected) <= 2 && first > 8 * 60, `the countdown reads ${first} s, ${expected} s to go`);
  await page.waitForFunction((s) => !document.querySelector('#tournament-countdown').textContent.endsWith(s),
    (await page.locator('#tournament-countdown').textContent()).slice(-2));
  assert.ok(await left() < first, 'the countdown runs');
  assert.equal(await page.locator('#tournament-status').textContent(), word(code, 'tournament.status.registering'));
  assert.deepEqual(await attrs(page, '#tournament-players li', 'data-player'), ['p-ada', 'p-bob', 'p-cyd']);
  assert.equal(await page.locator('#tournament-start').count(), 0, 'a guest is no organiser');

  await catchSent(page);
  const sentCount = () => page.evaluate(() => window.sentTournament.length);
  assert.equal(await page.locator('#tournament-register').textContent(), word(code, 'tournament.register'));
  await page.click('#tournament-register');
  await page.waitForFunction(() => window.sentTournament.length === 1);
  const asked = await page.evaluate(() => window.sentTournament[0]);
  assert.equal(typeof asked.id, 'number');
  assert.deepEqual(asked, { type: 'tournament', action: 'register', tournament: 't-reg', id: asked.id });
  assert.ok(await page.locator('#tournament-register').isDisabled(), 'one click, one message');
  await receive(page, { type: 'tournament', tournament: 't-reg', registered: true, id: asked.id });
  await page.locator('#tournament-withdraw').waitFor();
  assert.equal(await page.locator('#tournament-withdraw').textContent(), word(code, 'tournament.withdraw'));
  assert.equal(await page.locator('#tournament-registered').textContent(), word(code, 'tournament.registered'));
  await page.click('#tournament-withdraw');
  await page.waitForFunction(() => window.sentTournament.length === 2);
  const withdraw = await page.evaluate(() => window.sentTournament[1]);
  assert.deepEqual(withdraw, { type: 'tournament', action: 'withdraw', tournament: 't-reg', id: withdraw.id });
  // Registration closed meanwhile: said in the page's language, and still registered.
  await receive(page, { type: 'error', code: 'tournament/closed', message: 'registration is over', id: withdraw.id });
  await page.locator('#tournament-error').waitFor();
  assert.equal(await page.locator('#tournament-error').textContent(), word(code, 'tournament.error.closed'));
  assert.ok(await page.locator('#tournament-withdraw').isEnabled());
  assert.equal(await sentCount(), 2);
}

test('the lobby list and every format\'s page, in English and in French', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    for (const [code, name] of [['en', 'Zed'], ['fr', 'Zoé']]) {
      const { page, context, me, state, calls } = await openLobby(browser, server, code, name);
      await checkLobby(page, code, state.all);
      if (code === 'fr') {
        await assertNoEnglish(page, '#tournaments-panel');
        await page.screenshot({ path: `${shots}/tournament-lobby-fr.png`, fullPage: true });
      }

      // The running Swiss, by its link: the same page, no reload.
      await page.evaluate(() => { window.samePage = true; });
      const ws = await page.evaluateHandle(() => window.plateau.ws);
      await openFromLobby(page, 't-run');
      assert.ok(await page.locator('#lobby').isHidden());
      assert.equal(await page.evaluate(() => window.samePage), true, 'moved without a reload');
      await checkRunningSwiss(page, code, me, name);
      if (code === 'fr') await assertNoEnglish(page, '#tournament');
      await page.screenshot({ path: `${shots}/tournament-${code}.png`, fullPage: true });

      // Refreshed every 3 s while it runs.
      const asked = () => calls.filter((c) => c.id === 't-run').length;
      const before = asked();
      await new Promise((r) => setTimeout(r, 3500));
      assert.ok(asked() > before, 'the page asked again');

      if (code === 'en') {
        // A switch of language redraws the page in place: same socket, same page.
        await page.selectOption('.lang-picker', 'fr');
        await page.waitForFunction((w) => document.querySelector('#tournament-play').textContent === w, WORDS.fr['tournament.play']);
        await checkRunningSwiss(page, 'fr', me, name);
        await assertNoEnglish(page, '#tournament');
        assert.equal(await page.evaluate((w) => window.plateau.ws === w && window.samePage, ws), true);
        await page.selectOption('.lang-picker', 'en');
        await page.waitForFunction((w) => document.querySelector('#tournament-play').textContent === w, WORDS.en['tournament.play']);
      }

      // A table's link opens its room (the real server has no such room: it says so); back
      // comes back to the tournament, which stops asking while away.
      await page.click('.t-table[data-room="R32"] a.t-room');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('room') === 'R32' && !document.querySelector('#room').hidden);
      assert.ok(await page.locator('#tournament').isHidden());
      const away = asked();
      await new Promise((r) => setTimeout(r, 3500));
      assert.equal(asked(), away, 'no asking while the page is away');
      await page.goBack();
      await page.waitForFunction(() => !document.querySelector('#tournament').hidden && document.querySelector('#tournament-play'));

      // The notice of a new table, in the lobby; its Play opens the room.
      await page.click('#tournament-back');
      await page.locator('#lobby').waitFor();
      await receive(page, { type: 'tournament_table', tournament: 't-run', round: 3, room: 'R31' });
      await page.locator('#tournament-notice').waitFor();
      assert.equal(await page.locator('#tournament-notice .t-notice-text').textContent(), word(code, 'tournament.notice', { n: num(code, 3) }));
      assert.equal(await page.locator('#tournament-notice-play').textContent(), word(code, 'tournament.notice_play'));
      // On the tournament's page the notice shows too, and the page asks at once.
      await openFromLobby(page, 't-run');
      const now = asked();
      await receive(page, { type: 'tournament_table', tournament: 't-run', round: 3, room: 'R31' });
      await page.waitForFunction(() => true);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(asked() > now, 'asked again on the notice');
      assert.ok(await page.locator('#tournament-notice').isVisible());
      await page.click('#tournament-notice-play');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('room') === 'R31' && !document.querySelector('#room').hidden);
      assert.ok(await page.locator('#tournament-notice').isHidden());
      assert.ok(await page.locator('#tournament').isHidden());

      // The other formats.
      await page.goto(`${server.url}/`);
      await page.waitForFunction(() => document.querySelectorAll('#tournament-list tr').length === 4);
      await openFromLobby(page, 't-rr');
      await checkRoundRobin(page, code);
      await openFromLobby(page, 't-trio');
      await checkSeated(page, code);
      await openFromLobby(page, 't-reg');
      await checkRegistering(page, code);
      if (code === 'fr') await assertNoEnglish(page, '#tournament');
      // A tournament that is not there.
      await page.goto(`${server.url}/?tournament=nope`);
      await page.locator('#tournament-error').waitFor();
      assert.equal(await page.locator('#tournament-error').textContent(), word(code, 'tournament.error.not_found'));
      await context.close();
    }
  });
});

// Registers `name` from the header of a page already open.
async function register(page, name) {
  await page.click('#register');
  const form = page.locator('#register-form');
  await form.locator('[name=name]').fill(name);
  await form.locator('[name=password]').fill('correct horse');
  await form.locator('[name=confirm]').fill('correct horse');
  await form.locator('button[type=submit]').click();
  await page.waitForFunction((n) => window.plateauAccount && window.plateauAccount.name === n, name);
}

test('an organiser creates a tournament, starts or cancels it, in English and in French', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    for (const [code, name] of [['en', 'Olga'], ['fr', 'Odile']]) {
      const { page, context, state, calls } = await openLobby(browser, server, code, name);
      const meAuth = [];
      await context.route((url) => url.pathname === '/api/accounts/me', (route) => {
        meAuth.push(route.request().headers().authorization);
        return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ name, organiser: true, sessions: [] }) });
      });
      await register(page, name);
      const token = await page.evaluate(() => localStorage.getItem('plateau.token'));
      await page.locator('#tournaments-panel details.t-create').waitFor();
      assert.equal(meAuth.at(-1), `Bearer ${token}`);
      assert.equal(await page.locator('.t-create summary').textContent(), word(code, 'tournament.create.title'));
      await page.click('.t-create summary');
      const form = page.locator('#tournament-create');
      const formats = () => attrs(page, '#tournament-create [name=format] option', 'value');
      // The start is in ten minutes unless chosen.
      const start = await form.locator('[name=starts]').inputValue();
      const inMinutes = await page.evaluate((v) => (new Date(v).getTime() - Date.now()) / 60000, start);
      assert.ok(inMinutes > 8.9 && inMinutes <= 10, `starts in ${inMinutes} minutes`);
      assert.equal(await form.locator('[name=no_show]').inputValue(), '10');
      // The formats follow the seats: On Top for three offers tables by score only.
      assert.ok(await form.locator('[name=clock]').isVisible(), 'a game of two may have a clock');
      await form.locator('[name=game]').selectOption('on_top');
      await form.locator('[data-t-option="players"]').selectOption('3');
      assert.deepEqual(await formats(), ['seated']);
      assert.equal(await form.locator('[name=clock]').count(), 0, 'clocks are for games of two');
      assert.deepEqual(await texts(page, '#tournament-create [name=format] option'), [word(code, 'tournament.format.seated')]);
      await form.locator('[data-t-option="players"]').selectOption('2');
      assert.deepEqual(await formats(), ['swiss', 'round_robin']);
      // Round robin: "twice" instead of a number of rounds.
      await form.locator('[name=game]').selectOption('quantik');
      await form.locator('[name=format]').selectOption('round_robin');
      assert.ok(await form.locator('[name=rounds]').isHidden());
      assert.ok(await form.locator('[name=twice]').isVisible());
      // A language switch keeps what was chosen.
      await form.locator('[name=name]').fill('Club night');
      const other = code === 'en' ? 'fr' : 'en';
      await page.selectOption('.lang-picker', other);
      await page.waitForFunction((w) => document.querySelector('.t-create summary').textContent === w, WORDS[other]['tournament.create.title']);
      await page.selectOption('.lang-picker', code);
      await page.waitForFunction((w) => document.querySelector('.t-create summary').textContent === w, WORDS[code]['tournament.create.title']);
      assert.equal(await page.locator('#tournament-create [name=name]').inputValue(), 'Club night');
      assert.equal(await page.locator('#tournament-create [name=format]').inputValue(), 'round_robin');
      await page.locator('#tournament-create [name=format]').selectOption('swiss');
      await page.locator('#tournament-create [name=rounds]').fill('4');
      await page.locator('#tournament-create [name=starts]').fill('2031-05-17T18:30');
      await page.locator('#tournament-create [name=no_show]').fill('7');
      await page.locator('#tournament-create [name=clock]').selectOption('live:3:2');
      await page.locator('#tournament-create [name=accounts_only]').check();
      if (code === 'fr') await page.screenshot({ path: `${shots}/tournament-create-fr.png`, fullPage: true });
      const starts = await page.evaluate(() => new Date('2031-05-17T18:30').getTime());
      const options = await page.evaluate(() => Object.fromEntries(window.plateau.games.find((g) => g.id === 'quantik').options.map((o) => [o.name, o.default])));
      state.all['t-new'] = { ...state.all['t-reg'], id: 't-new', name: 'Club night', organiser: name, players: [{ player: 'p-zoe', name: 'Zoé', seed: 1 }] };
      await page.click('#tournament-create-submit');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('tournament') === 't-new' && document.querySelector('#tournament-start'));
      const created = calls.find((c) => c.path === '/api/tournaments/create');
      assert.equal(created.method, 'POST');
      assert.equal(created.auth, `Bearer ${token}`);
      assert.deepEqual(JSON.parse(created.body), {
        name: 'Club night', game: 'quantik', options, format: 'swiss', rounds: 4, twice: false, starts, no_show_minutes: 7,
        clock: { kind: 'live', base_ms: 180000, increment_ms: 2000 }, accounts_only: true,
      });
      assert.equal(await page.locator('#tournament-title').textContent(), 'Club night');
      // Before the start, who runs the event may take a player off the list.
      await page.click('[data-remove="p-zoe"]');
      await page.waitForFunction(() => true);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(JSON.parse(calls.find((c) => c.path === '/api/tournaments/remove').body), { id: 't-new', player: 'p-zoe' });
      // Start now, and Cancel (asked once more).
      assert.equal(await page.locator('#tournament-start').textContent(), word(code, 'tournament.start_now'));
      await page.click('#tournament-start');
      await page.waitForFunction(() => true);
      await new Promise((r) => setTimeout(r, 300));
      const started = calls.find((c) => c.path === '/api/tournaments/start');
      assert.ok(started, 'Start now was asked');
      assert.deepEqual(JSON.parse(started.body), { id: 't-new' });
      assert.equal(started.auth, `Bearer ${token}`);
      await page.click('#tournament-cancel');
      assert.equal(await page.locator('.t-actions .confirm-text').textContent(), word(code, 'tournament.cancel_confirm'));
      assert.equal(calls.filter((c) => c.path === '/api/tournaments/cancel').length, 0, 'not before the second click');
      await page.click('#tournament-cancel-yes');
      await page.waitForFunction(() => !document.querySelector('#tournament-cancel-yes'));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(JSON.parse(calls.find((c) => c.path === '/api/tournaments/cancel').body), { id: 't-new' });
      await context.close();
    }
  }, ['--password-memory-kib', '8192', '--password-ops', '1']);
});
