// Rooms that survive, in a real browser: a reload puts the player back with no click, a late
// spectator sees the current board, a kill -9 of the server is survived by reconnecting by
// itself, and a finished game replays forward and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, state, version, allAt, createTable, sitAt, watch, shots, botGame, shown, assertSamePage, movesShown, drawnAt, offeredGames } from './harness.mjs';

async function clickMove(page) {
  const before = await version(page);
  // Locators, not element handles: a patch that only changes who is connected still redraws the
  // table, and a handle taken before it is detached by the time it is clicked (CI saw it once).
  // A locator finds the button again in the new drawing; the chosen shape survives redraws.
  await page.locator('.q-shape:not([disabled])').first().click();
  const cells = page.locator('.q-cell[data-move]');
  await cells.first().waitFor();
  await cells.nth(Math.floor((await cells.count()) / 2)).click();
  return before + 1;
}

// Ada and Bob seated at a Quantik table, Ada to move.
async function adaAndBob(browser, server) {
  const ada = await player(browser, 'Ada');
  const bob = await player(browser, 'Bob');
  const room = await createTable(ada.page, server.url, 'quantik', { first: 0 });
  await sitAt(bob.page, server.url, room);
  return { ada, bob, room };
}

test('reload, late spectator, server crash and replay', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { ada, bob, room } = await adaAndBob(browser, server);
    await allAt([ada.page, bob.page], await version(bob.page));
    await allAt([ada.page, bob.page], await clickMove(ada.page));
    await allAt([ada.page, bob.page], await clickMove(bob.page));

    // A reload puts Ada back at her seat, her turn, with no click.
    const boardBefore = (await state(ada.page)).board;
    await ada.page.reload();
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0);
    assert.deepEqual((await state(ada.page)).board, boardBefore);
    assert.equal((await state(ada.page)).to_move, 0);
    // Her moves come with the state; a slow (sanitized) server may send a patch right after.
    const canPlay = await ada.page
      .waitForFunction(() => document.querySelectorAll('.q-cell[data-move]').length > 0, null, { timeout: 10000 })
      .then(() => true, () => false);
    assert.equal(canPlay, true, 'she can play at once');

    // A spectator arriving now sees the current board.
    const eve = await player(browser, 'Eve');
    await watch(eve.page, server.url, room);
    assert.deepEqual((await state(eve.page)).board, boardBefore);
    await eve.page.screenshot({ path: `${shots}/rooms-late-spectator.png` });

    // kill -9: every page reconnects by itself and the game goes on.
    await server.crashAndRestart();
    for (const p of [ada.page, bob.page, eve.page]) {
      await p.waitForFunction(() => document.querySelector('#conn').dataset.state === 'online', null, { timeout: 30000 });
      await p.waitForFunction((b) => window.plateau.state && JSON.stringify(window.plateau.state.board) === b, JSON.stringify(boardBefore));
    }
    assert.equal((await state(ada.page)).you, 0);
    assert.equal((await state(bob.page)).you, 1);
    await ada.page.screenshot({ path: `${shots}/rooms-after-crash.png` });

    // Finish the game by clicks.
    for (let i = 0; i < 16; i++) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const v = await clickMove(st.to_move === 0 ? ada.page : bob.page);
      await allAt([ada.page, bob.page, eve.page], v);
    }
    const final = await state(eve.page);
    assert.equal(final.status, 'over');

    // Replay it from the room, then step back to the start and forward to the end.
    await ada.page.click('#open-replay');
    await ada.page.waitForSelector('#replay:not([hidden]) .q-board');
    await ada.page.click('#rp-first');
    await ada.page.waitForFunction(() => document.querySelectorAll('#replay-table .q-board .q-piece').length === 0);
    assert.match(await ada.page.textContent('#rp-caption'), /Start/);
    await ada.page.click('#rp-next');
    await ada.page.waitForFunction(() => document.querySelectorAll('#replay-table .q-board .q-piece').length === 1);
    await ada.page.click('#rp-last');
    const labels = (p, sel) => p.$$eval(sel, (cs) => cs.map((c) => c.getAttribute('aria-label')));
    assert.deepEqual(await labels(ada.page, '#replay-table .q-cell'), await labels(eve.page, '#table .q-cell'));
    assert.match(await ada.page.textContent('#rp-caption'), /won/);
    await ada.page.screenshot({ path: `${shots}/rooms-replay.png` });

    // The lobby lists it among finished games.
    await ada.page.click('#replay-back');
    await ada.page.waitForSelector(`[data-history="${room}"]`);
    await ada.page.screenshot({ path: `${shots}/rooms-lobby-history.png` });
  });
});

// A dropped connection: each page keeps its table on screen and reconnects by itself; the
// player and the spectator get only the patches they missed, and neither page ever goes back
// to "Loading…".
test('a dropped connection: the player and the spectator get only what they missed, and no page goes blank', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { ada, bob, room } = await adaAndBob(browser, server);
    const eve = await player(browser, 'Eve');
    await watch(eve.page, server.url, room);
    await allAt([ada.page, bob.page, eve.page], await clickMove(ada.page));

    const received = new Map([[ada.page, []], [eve.page, []]]);  // frames on the new sockets
    for (const [p, frames] of received) {
      p.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(JSON.parse(f.payload).type)));
      await p.evaluate(() => {
        window.blanked = false;
        const table = document.querySelector('#table');
        new MutationObserver(() => { if (/Loading/.test(table.textContent)) window.blanked = true; })
          .observe(table, { childList: true, subtree: true, characterData: true });
        // The socket drops, and the page cannot reach the server again until the test says so.
        // Meanwhile it retries often (its backoff kept short), so it is back soon after.
        const Real = WebSocket;
        window.held = true;
        window.WebSocket = class extends Real {
          constructor(url, protocols) {
            if (window.held) window.plateau.backoff = 200;
            super(window.held ? url.replace(/\/ws$/, '/nowhere') : url, protocols);
          }
        };
        window.plateau.ws.close();
      });
      await p.waitForFunction(() => document.querySelector('#conn').dataset.state === 'offline');
    }
    // Bob moves while they are away; then they may reconnect.
    const v = await clickMove(bob.page);
    await allAt([bob.page], v);
    for (const p of received.keys()) await p.evaluate(() => { window.held = false; });
    await allAt([ada.page, eve.page], v);

    for (const [p, who] of [[ada.page, 'Ada, seated,'], [eve.page, 'Eve, watching,']]) {
      const got = received.get(p);
      assert.ok(got.includes('joined') && got.includes('patch') && !got.includes('full'),
        `${who} gets only the patches missed: ${got.join(' ')}`);
      assert.equal(await p.evaluate(() => window.blanked), false, 'the page kept its table');
    }

    // Each patched page is the one a new tab of the same person is drawn from one whole state.
    for (const [who, p, context] of [['Ada', ada.page, ada.context], ['Eve', eve.page, eve.context]]) {
      const tab = await context.newPage();
      await watch(tab, server.url, room);
      await drawnAt(p, await version(tab));
      await assertSamePage(p, await shown(tab), `${who}, patched after the drop`);
      await tab.close();
    }
    // Ada plays on from hers.
    await movesShown(ada.page, v);
    await allAt([ada.page, bob.page, eve.page], await clickMove(ada.page));
  });
});

test('the lobby shows its tables a page at a time, of every game or of one', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'Ada');
    await ada.page.goto(server.url);
    await ada.page.waitForFunction(() => window.plateau.games.length > 0);
    // 27 Quantik tables and 3 Kwinty ones, made over a socket of their own.
    await ada.page.evaluate(async () => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((ok) => { ws.onopen = ok; });
      await new Promise((ok) => {
        let created = 0;
        ws.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === 'welcome') for (let i = 0; i < 30; i++) ws.send(JSON.stringify({ type: 'create', game: i < 27 ? 'quantik' : 'kwinty' }));
          if (m.type === 'created' && ++created === 30) ok();
        };
        ws.send(JSON.stringify({ type: 'hello', name: 'Maker' }));
      });
      ws.close();
    });
    const rows = () => ada.page.$$eval('#rooms tr', (r) => r.length);
    await ada.page.click('#refresh');
    await ada.page.waitForFunction(() => document.querySelector('#rooms-range').textContent === '1–25 of 30');
    assert.equal(await rows(), 25);
    assert.equal(await ada.page.isDisabled('#rooms-prev'), true);
    await ada.page.click('#rooms-next');
    await ada.page.waitForFunction(() => document.querySelector('#rooms-range').textContent === '26–30 of 30');
    assert.equal(await rows(), 5);
    assert.equal(await ada.page.isDisabled('#rooms-next'), true);
    await ada.page.screenshot({ path: `${shots}/rooms-lobby-page-2.png` });

    // One game's tables: they fit on one page, so there is no pager.
    await ada.page.selectOption('#rooms-game', 'kwinty');
    await ada.page.waitForFunction(() => document.querySelectorAll('#rooms tr').length === 3);
    assert.deepEqual(await ada.page.$$eval('#rooms tr td:first-child', (c) => c.map((x) => x.textContent)), ['Kwinty', 'Kwinty', 'Kwinty']);
    assert.equal(await ada.page.isHidden('#rooms-pager'), true);
    await ada.page.selectOption('#rooms-game', 'turris');
    await ada.page.waitForFunction(() => document.querySelectorAll('#rooms tr').length === 0);
    assert.match(await ada.page.textContent('#no-rooms'), /No public tables of this game/);
    assert.equal(await ada.page.isVisible('#no-rooms'), true);
  });
});

test('the lobby leads a player back to their own tables, private ones too', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    // A public game, Ada to move, and a private one of Bob's where Ada sat through the link.
    const { ada, bob, room } = await adaAndBob(browser, server);
    await bob.page.click('#leave');
    await bob.page.waitForSelector('#lobby:not([hidden])');
    await bob.page.check('#private');
    await bob.page.selectOption('[data-option="first"]', '0');
    await bob.page.click('#create');
    await bob.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0);
    const secret = await bob.page.evaluate(() => window.plateau.room);
    await sitAt(ada.page, server.url, secret);
    await ada.page.click('#leave');  // the games have started: she keeps her seats

    // Both tables are hers in the lobby, the one waiting for her move marked, and the private
    // one, which the public list never shows.
    await ada.page.waitForSelector(`#mine-panel:not([hidden]) [data-mine="${secret}"]`);
    await ada.page.waitForSelector(`[data-mine="${room}"][data-turn="mine"]`);
    assert.match(await ada.page.textContent(`[data-mine="${room}"]`), /your turn/);
    assert.match(await ada.page.textContent(`[data-mine="${secret}"]`), /\(private\).*their turn/);
    assert.equal(await ada.page.locator(`#rooms [data-room="${secret}"]`).count(), 0);
    assert.equal(await ada.page.textContent(`#rooms [data-room="${room}"] .actions`), 'Open', 'her own table is opened, not joined');
    await ada.page.screenshot({ path: `${shots}/rooms-lobby-mine.png` });
    // Bob's turn is at the private table; Eve, who sits nowhere, has no such panel.
    await bob.page.click('#leave');
    await bob.page.waitForSelector(`[data-mine="${secret}"][data-turn="mine"]`);
    await bob.page.waitForSelector(`[data-mine="${room}"]:not([data-turn="mine"])`);
    const eve = await player(browser, 'Eve');
    await eve.page.goto(server.url);
    await eve.page.waitForSelector(`#rooms [data-room="${room}"]`);
    assert.equal(await eve.page.isHidden('#mine-panel'), true);

    // Back to the table, seated, her move to make.
    await ada.page.click(`[data-mine="${room}"] button`);
    await ada.page.waitForFunction((r) => window.plateau.room === r && window.plateau.state && window.plateau.state.you === 0, room);
    await ada.page.waitForSelector('.q-cell[data-move]');

    // A tab of Ada's that said hello before she sat at a third table still takes her to her
    // seat there, not to the audience.
    const tab = await ada.context.newPage();
    await tab.goto(server.url);
    await tab.waitForSelector(`[data-mine="${secret}"]`);
    const third = await createTable(bob.page, server.url, 'quantik');
    await sitAt(ada.page, server.url, third);
    await tab.click('#refresh');
    await tab.click(`[data-mine="${third}"] button`);
    await tab.waitForFunction((r) => window.plateau.room === r && window.plateau.state && window.plateau.state.you !== null, third);
    assert.equal(await tab.evaluate(() => window.plateau.state.seats[window.plateau.state.you].name), 'Ada');
  });
});

test('a finished game of every game replays in the browser, forward and back', { timeout: 450000 }, async () => {
  await withBrowser(async (server, browser) => {
    const watcher = await player(browser, 'Ada');
    const { page } = watcher;
    const games = await offeredGames(page, server.url);
    for (const game of games) {
      const room = await botGame(server.port, game, games.indexOf(game) + 7);
      const record = await (await fetch(`${server.url}/api/replay?room=${room}`)).json();
      const moves = record.record.moves.length;
      assert.ok(moves > 0, `${game}: the bots played`);
      await page.goto(`${server.url}/?replay=${room}`);
      await page.waitForSelector('#replay:not([hidden])');
      await page.waitForFunction(() => document.querySelector('#rp-caption').textContent !== '');
      const caption = () => page.textContent('#rp-caption');
      // Quirky's flash of a scored triangle is set back by the time since it was drawn, which
      // differs between two drawings of one step by a millisecond or so: not a difference.
      const drawn = () => page.$eval('#replay-table', (t) => t.innerHTML.replace(/animation-delay:-?\d+ms/g, ''));
      await page.click('#rp-first');
      assert.equal(await caption(), `Start — ${moves} moves`, game);
      const start = await drawn();
      // Forward through every move: each one is drawn, and the last ends with the result.
      let before = start;
      for (let i = 1; i <= moves; i++) {
        await page.click('#rp-next');
        assert.match(await caption(), new RegExp(`^Move ${i} of ${moves}: (Host|Guest) played `), `${game} move ${i}`);
        const now = await drawn();
        assert.notEqual(now, before, `${game}: move ${i} changes the drawing`);
        before = now;
      }
      assert.match(await caption(), /(won|Draw|draw)/, game);
      assert.equal(await page.isDisabled('#rp-next'), true, `${game}: no move after the last`);
      const end = before;
      // And back: one step, then to the start, then straight to the end.
      await page.click('#rp-prev');
      assert.match(await caption(), new RegExp(`^Move ${moves - 1} of ${moves}|^Start`), game);
      await page.click('#rp-first');
      assert.equal(await drawn(), start, `${game}: the start is drawn as before`);
      await page.click('#rp-last');
      assert.equal(await drawn(), end, `${game}: the end is drawn as before`);
      await page.screenshot({ path: `${shots}/replay-${game}.png` });
    }
  });
});
