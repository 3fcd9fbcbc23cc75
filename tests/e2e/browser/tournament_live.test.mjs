// A whole small tournament against the real server (issue 48), seen by two real browsers, one in
// French and one in English: the host creates a round robin of Quantik (and a Swiss left taking
// players) over HTTP with the admin token; Léa (fr-FR) and Bob (en-US) find it in the lobby's
// Tournaments panel, open its page and register by clicking; the host starts it; the notice and
// the "Play your game" button come without a reload and take each to their reserved seat; they
// play the game to its end by clicking; back on the tournament's page the event is finished,
// the winner first with 1 point, in each one's language, and the table's replay opens.
//
// Nothing here is mocked: the server's HTTP API, its WebSocket and its rounds are the real ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { withBrowser, player, state, version, allAt, shots, clickQuantikMove } from './harness.mjs';
import { LOCALES, num, plural, word } from './i18n_check.mjs';


const ADMIN = randomBytes(24).toString('hex');
const DAY = 24 * 3600 * 1000;

const texts = (page, sel) => page.locator(sel).allTextContents();
const attrs = (page, sel, attr) => page.locator(sel).evaluateAll((es, a) => es.map((e) => e.getAttribute(a)), attr);

// The host's calls: over HTTP, from the test (127.0.0.1), with the admin token.
async function host(server, path, body) {
  const r = await fetch(`${server.url}${path}`, {
    method: 'POST', headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body), signal: AbortSignal.timeout(10000),
  });
  const json = await r.json();
  assert.ok(r.ok, `${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}
const detail = async (server, id) => (await fetch(`${server.url}/api/tournament?id=${id}`, { signal: AbortSignal.timeout(10000) })).json();

// The tournament on screen once the page has its answer (with that `status`, if given).
const pageData = (page, id, status = null) => page.waitForFunction(([x, s]) => {
  const d = window.plateauTournaments.data;
  return !!d && d.id === x && !document.querySelector('#tournament').hidden && (s === null || d.status === s);
}, [id, status]);

// Opens the lobby of a player's page and waits for the Tournaments panel to list `count`.
async function lobbyWith(page, url, count) {
  await page.goto(url);
  await page.waitForFunction(() => window.plateau.games.length > 0 && window.plateau.player
    && document.querySelector('#conn').dataset.state === 'online');
  await page.waitForFunction((n) => document.querySelectorAll('#tournaments-panel:not([hidden]) #tournament-list tr').length === n, count);
}

// The lobby's panel, in the page's language: its title, its columns, the two events.
async function checkLobby(page, code, rr, swiss) {
  assert.equal(await page.evaluate(() => document.documentElement.lang), code);
  assert.equal(await page.locator('#tournaments-panel h2').textContent(), word(code, 'tournament.lobby.title'));
  assert.deepEqual(await texts(page, '#tournaments-panel thead th'), ['name', 'game', 'format', 'status', 'when', 'players']
    .map((k) => word(code, `tournament.col.${k}`)));
  // Newest first: the Swiss starts later.
  assert.deepEqual(await attrs(page, '#tournament-list tr', 'data-tournament'), [swiss, rr]);
  const cells = (id) => texts(page, `#tournament-list tr[data-tournament="${id}"] td`);
  const rrCells = await cells(rr);
  assert.deepEqual([rrCells[0], rrCells[1], rrCells[2], rrCells[3]],
    ['Club Round Robin', 'Quantik', word(code, 'tournament.format.round_robin'), word(code, 'tournament.status.registering')]);
  const swissCells = await cells(swiss);
  assert.deepEqual([swissCells[0], swissCells[2], swissCells[3], swissCells[5]],
    ['Winter Swiss', word(code, 'tournament.format.swiss'), word(code, 'tournament.status.registering'), plural(code, 'tournament.players_count', 0)]);
  assert.ok(!/\bnull\b|undefined|NaN/.test(await page.locator('#tournaments-panel').innerText()), 'no stray value in the panel');
}

// Opens an event's page by its link in the lobby (no reload) and registers by clicking.
async function openAndRegister(page, code, id) {
  await page.click(`#tournament-list tr[data-tournament="${id}"] a`);
  await pageData(page, id);
  assert.equal(await page.locator('#tournament-title').textContent(), 'Club Round Robin');
  assert.equal(await page.locator('#tournament-status').textContent(), word(code, 'tournament.status.registering'));
  assert.equal(await page.locator('#tournament-register').textContent(), word(code, 'tournament.register'));
  await page.click('#tournament-register');
  await page.locator('#tournament-registered').waitFor();
  assert.equal(await page.locator('#tournament-registered').textContent(), word(code, 'tournament.registered'));
  assert.equal(await page.locator('#tournament-start').count(), 0, 'a player is no organiser');
}

test('a round robin of Quantik from the lobby to its standings, in French and in English, against the real server', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    // 1. The host's two events: the round robin, and a 3-round Swiss left taking players.
    const now = Date.now();
    const { id: rr } = await host(server, '/api/tournaments/create', {
      name: 'Club Round Robin', game: 'quantik', options: {}, format: 'round_robin', twice: false, starts: now + 30 * DAY, no_show_minutes: 10,
    });
    const { id: swiss } = await host(server, '/api/tournaments/create', {
      name: 'Winter Swiss', game: 'quantik', options: {}, format: 'swiss', rounds: 3, starts: now + 60 * DAY, no_show_minutes: 10,
    });
    assert.notEqual(rr, swiss);
    // Without the token: refused, and nothing starts. (The server answers 401 admin/unauthorized,
    // where the wire's notes say 403 tournament/forbidden: either is a refusal here.)
    const refused = await fetch(`${server.url}/api/tournaments/start`, { method: 'POST', body: JSON.stringify({ id: rr }), signal: AbortSignal.timeout(10000) });
    assert.ok([401, 403].includes(refused.status), `refused: ${refused.status}`);
    assert.match((await refused.json()).code, /^(admin\/unauthorized|tournament\/forbidden)$/);
    assert.equal((await detail(server, rr)).status, 'registering');

    // 2. Léa in French, Bob in English: the lobby's panel, the page, Register.
    const lea = await player(browser, 'Léa', undefined, { locale: LOCALES.fr });
    const bob = await player(browser, 'Bob', undefined, { locale: LOCALES.en });
    const people = [[lea, 'fr'], [bob, 'en']];
    for (const [p, code] of people) {
      await lobbyWith(p.page, server.url, 2);
      await checkLobby(p.page, code, rr, swiss);
    }
    await lea.page.screenshot({ path: `${shots}/tournament-live-lobby-fr.png`, fullPage: true });
    const ids = {};
    for (const [p] of people) ids[p.name] = await p.page.evaluate(() => window.plateau.player);
    assert.notEqual(ids['Léa'], ids.Bob);
    for (const [p, code] of people) await openAndRegister(p.page, code, rr);
    const registered = await detail(server, rr);
    assert.deepEqual(registered.players.map((x) => x.player).sort(), [ids['Léa'], ids.Bob].sort());
    assert.deepEqual(registered.players.map((x) => x.name).sort(), ['Bob', 'Léa']);
    // Both pages show both players (Léa's by its own refresh, every 15 s while it takes players).
    for (const [p, code] of people) {
      await p.page.waitForFunction(() => document.querySelectorAll('#tournament-players li').length === 2, null, { timeout: 25000 });
      assert.deepEqual((await texts(p.page, '#tournament-players .seat-name')).sort(), ['Bob', 'Léa']);
      assert.equal(await p.page.locator('.t-players-panel h3').textContent(), word(code, 'tournament.players_heading', { n: num(code, 2) }));
      assert.deepEqual(await attrs(p.page, '#tournament-players li:has(.tag)', 'data-player'), [ids[p.name]]);
      assert.equal(await p.page.locator(`#tournament-players li[data-player="${ids[p.name]}"]`).textContent(), `${p.name}${word(code, 'tournament.you')}`);
    }
    // Nothing reloads these pages from here on: a mark left in each must still be there.
    for (const [p] of people) await p.page.evaluate(() => { window.samePage = true; });

    // 3. The host starts it: the notice and "Play your game" come by themselves.
    const started = await host(server, '/api/tournaments/start', { id: rr });
    assert.deepEqual(started, { id: rr, status: 'running' });
    const running = await detail(server, rr);
    assert.equal(running.round, 1);
    assert.equal(running.rounds, 1, 'two players meet once');
    assert.equal(running.rounds_played.length, 1);
    const table = running.rounds_played[0].tables[0];
    assert.equal(running.rounds_played[0].tables.length, 1);
    const room = table.room;
    assert.ok(room, 'the table has its room');
    const reserved = Object.fromEntries(table.seats.map((s, i) => [s.player, i]));
    for (const [p, code] of people) {
      await p.page.locator('#tournament-notice:not([hidden])').waitFor();
      assert.equal(await p.page.locator('#tournament-notice .t-notice-text').textContent(), word(code, 'tournament.notice', { n: num(code, 1) }));
      assert.equal(await p.page.locator('#tournament-notice-play').textContent(), word(code, 'tournament.notice_play'));
      await pageData(p.page, rr, 'running');
      await p.page.locator('#tournament-play').waitFor();
      assert.equal(await p.page.locator('#tournament-play').textContent(), word(code, 'tournament.play'));
      assert.equal(await p.page.locator('#tournament-play').getAttribute('href'), `/?room=${room}`);
      assert.equal(await p.page.locator('#tournament-status').textContent(), word(code, 'tournament.status.running'));
      assert.equal(await p.page.locator('.t-yours h3').textContent(), word(code, 'tournament.your_game', { n: num(code, 1) }));
      assert.equal(await p.page.evaluate(() => window.samePage), true, 'no reload');
    }
    // Léa takes the notice's Play, Bob the page's big button: each lands at their own seat.
    await lea.page.click('#tournament-notice-play');
    await bob.page.click('#tournament-play');
    const pages = [lea.page, bob.page];
    for (const [p] of people) {
      await p.page.waitForFunction((r) => window.plateau.room === r && window.plateau.state && window.plateau.state.you !== null
        && new URLSearchParams(location.search).get('room') === r, room);
    }
    for (const page of pages) await page.waitForFunction(() => window.plateau.state.status === 'playing' && window.plateau.drawn === window.plateau.state);
    await allAt(pages, Math.max(await version(lea.page), await version(bob.page)));
    const seats = {};
    for (const [p] of people) {
      seats[p.name] = await p.page.evaluate(() => window.plateau.seat);
      assert.equal(seats[p.name], reserved[ids[p.name]], `${p.name} sits at the seat the round gave her`);
      assert.equal(await p.page.evaluate(() => window.samePage), true, 'still no reload');
      assert.ok(await p.page.locator('#tournament-notice').isHidden(), 'the notice goes once at the table');
    }
    assert.notEqual(seats['Léa'], seats.Bob);
    const st0 = await state(lea.page);
    assert.equal(st0.status, 'playing');
    assert.deepEqual(st0.seats.map((s) => s.name), table.seats.map((s) => s.name));

    // 4. The game, by clicks: a random shape among those playable, then a highlighted cell.
    let moves = 0;
    for (;;) {
      const st = await state(lea.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === seats['Léa'] ? lea.page : bob.page;
      // Its turn on its own page, drawn with the moves it offers; then one move from there.
      await mover.waitForFunction(() => window.plateau.drawn === window.plateau.state && window.plateau.state.status === 'playing'
        && window.plateau.state.to_move === window.plateau.state.you && window.plateau.state.legal_moves.length > 0);
      const before = await version(mover);
      await clickQuantikMove(mover);
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 16, 'a game of Quantik has at most 16 moves');
    }
    const final = await state(lea.page);
    assert.equal(final.status, 'over');
    assert.equal(final.outcome.winners.length, 1, 'Quantik has no draws');
    const winnerSeat = final.outcome.winners[0];
    const winner = table.seats[winnerSeat], loser = table.seats[1 - winnerSeat];
    console.log(`# tournament_live: ${moves} moves, ${winner.name} won`);

    // Back on the tournament's page: Léa by the lobby (its list says finished), Bob by Back.
    await lea.page.click('#leave');
    await lea.page.waitForFunction((id) => document.querySelector(`#tournaments-panel:not([hidden]) #tournament-list tr[data-tournament="${id}"]`)?.dataset.status === 'finished', rr);
    assert.equal(await lea.page.locator(`#tournament-list tr[data-tournament="${rr}"] .t-status`).textContent(), word('fr', 'tournament.status.finished'));
    assert.equal(await lea.page.locator(`#tournament-list tr[data-tournament="${rr}"] .t-count`).textContent(), plural('fr', 'tournament.players_count', 2));
    assert.equal(await lea.page.locator(`#tournament-list tr[data-tournament="${swiss}"]`).getAttribute('data-status'), 'registering');
    await lea.page.click(`#tournament-list tr[data-tournament="${rr}"] a`);
    await bob.page.goBack();
    for (const page of pages) await pageData(page, rr, 'finished');

    const over = await detail(server, rr);
    assert.equal(over.status, 'finished');
    assert.equal(over.players.length, 2);
    assert.equal(over.rounds, 1);
    assert.equal(over.rounds_played.length, 1);
    assert.deepEqual(over.rounds_played[0].tables[0].points, table.seats.map((_, i) => (i === winnerSeat ? 1 : 0)));
    assert.deepEqual(over.standings.map((s) => [s.player, s.rank, s.score]), [[winner.player, 1, 1], [loser.player, 2, 0]]);

    for (const [p, code] of people) {
      const { page } = p;
      assert.equal(await page.evaluate(() => window.samePage), true, 'the page was never reloaded');
      assert.equal(await page.evaluate(() => document.documentElement.lang), code);
      assert.equal(await page.locator('#tournament-status').textContent(), word(code, 'tournament.status.finished'));
      assert.equal(await page.locator('#tournament-play').count(), 0, 'nothing left to play');
      assert.equal(await page.locator('#tournament-register').count(), 0, 'no registering once it is over');
      // The standings: the round robin's columns in the page's language, the winner first with 1.
      assert.deepEqual(await texts(page, '#tournament-standings thead th'), ['#', word(code, 'tournament.col.player'), word(code, 'tournament.col.score'),
        word(code, 'tournament.tiebreak.head_to_head'), word(code, 'tournament.tiebreak.sonneborn_berger'), word(code, 'tournament.col.wdl'), word(code, 'tournament.col.games')]);
      assert.equal(await page.locator('.t-standings-panel h3').textContent(), word(code, 'tournament.standings'));
      assert.deepEqual(await attrs(page, '#tournament-standings tbody tr', 'data-player'), [winner.player, loser.player]);
      const first = await texts(page, '#tournament-standings tbody tr:first-child td');
      assert.deepEqual([first[0], first[2], first[5], first[6]], [num(code, 1), num(code, 1), `${num(code, 1)}/${num(code, 0)}/${num(code, 0)}`, num(code, 1)]);
      assert.equal(await page.locator('#tournament-standings tbody tr:first-child .seat-name').textContent(), winner.name);
      const second = await texts(page, '#tournament-standings tbody tr:nth-child(2) td');
      assert.deepEqual([second[0], second[2], second[5]], [num(code, 2), num(code, 0), `${num(code, 0)}/${num(code, 0)}/${num(code, 1)}`]);
      assert.equal(await page.locator('#tournament-standings tr.me').getAttribute('data-player'), ids[p.name]);
      // One round, its one table over, with the points and a replay.
      assert.deepEqual(await attrs(page, '.t-rounds .t-round', 'data-round'), ['1']);
      assert.equal(await page.locator('.t-round[data-round="1"] h3').textContent(), word(code, 'tournament.round_n', { n: num(code, 1) }));
      const card = page.locator(`.t-round[data-round="1"] .t-table[data-room="${room}"]`);
      assert.equal(await card.getAttribute('data-status'), 'over');
      assert.equal(await card.locator('.t-table-status').textContent(), word(code, 'tournament.table_status.over'));
      assert.deepEqual(await card.locator('.t-seats .seat-name').allTextContents(), table.seats.map((s) => s.name));
      assert.deepEqual(await card.locator('.t-points').allTextContents(), table.seats.map((_, i) => num(code, i === winnerSeat ? 1 : 0)));
      assert.equal(await card.locator('.t-forfeit').count(), 0);
      assert.equal(await card.locator('a.t-room').textContent(), word(code, 'tournament.open'));
      assert.equal(await card.locator('.t-replay').textContent(), word(code, 'tournament.replay'));
      assert.equal(await card.locator('.t-replay').getAttribute('href'), `/?replay=${room}&round=1`);
      assert.equal(await page.locator('.t-players-panel h3').textContent(), word(code, 'tournament.players_heading', { n: num(code, 2) }));
      assert.ok(!/\bnull\b|undefined|NaN/.test(await page.locator('#tournament').innerText()), 'no stray value on the page');
      await page.screenshot({ path: `${shots}/tournament-live-${code}.png`, fullPage: true });
    }

    // 5. The replay link opens the replay viewer on that game, at its last move.
    for (const [p, code] of people) {
      const { page } = p;
      await page.click(`.t-table[data-room="${room}"] .t-replay`);
      await page.waitForSelector('#replay:not([hidden]) .q-board');
      assert.equal(new URL(page.url()).searchParams.get('replay'), room);
      assert.ok(await page.locator('#tournament').isHidden());
      await page.waitForFunction(() => document.querySelector('#rp-caption')?.textContent.length > 0);
      const caption = await page.textContent('#rp-caption');
      const pattern = code === 'fr' ? `^Coup ${moves} sur ${moves}\u00a0: ` : `^Move ${moves} of ${moves}`;
      assert.match(caption, new RegExp(pattern), `${p.name}'s replay is the game's, at its end: ${caption}`);
      assert.equal(await page.evaluate(() => window.samePage), true, 'the replay opened in place');
    }
  }, ['--admin-token', ADMIN]);
});
