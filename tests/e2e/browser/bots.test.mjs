// Bots at the table, in a real browser: "Play the computer" from the lobby, a whole Quantik game
// by clicks against a bot that answers by itself; and "Add a bot" at a free seat of a waiting
// On Top table, the last seat then taken by a second person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, state, movesShown, shots, PHONE } from './harness.mjs';

// Bots think 50 ms at most: the test waits on the state, never on a clock.
const FAST_BOTS = ['--bot-think-ms', '50'];

// The `error` messages a page receives, from the first socket it opens on.
function errorsOf(page) {
  const errors = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    try {
      const m = JSON.parse(f.payload);
      if (m.type === 'error') errors.push(`${m.code}: ${m.message}`);
    } catch { /* not JSON */ }
  }));
  return errors;
}

test('Play the computer: a whole Quantik game by clicks, the bot answering each move', { timeout: 180000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { page } = await player(browser, 'Ada');
    const errors = errorsOf(page);
    await page.goto(server.url);
    await page.waitForFunction(() => window.plateau.games.length > 0);
    await page.selectOption('#game-select', 'quantik');
    assert.equal(await page.inputValue('#cpu-level'), 'normal', 'normal is the level chosen at first');
    assert.deepEqual(await page.locator('#cpu-order option').allTextContents(), ['first', 'second', 'at random']);
    await page.selectOption('#cpu-order', '0');  // Ada plays first
    await page.screenshot({ path: `${shots}/bots-lobby.png` });

    await page.locator('#play-computer').click();
    await page.waitForFunction(() => window.plateau.state && window.plateau.state.status === 'playing'
      && window.plateau.drawn === window.plateau.state);
    const room = await page.evaluate(() => window.plateau.room);
    const st0 = await state(page);
    assert.equal(st0.you, 0, 'the person sits at seat 0');
    assert.equal(st0.to_move, 0, 'and plays first');
    assert.equal(st0.seats[1].bot, 'normal', 'a normal bot sits at seat 1');
    assert.equal(st0.seats[1].name, 'Normal bot');
    await page.locator('.seat[data-seat="1"] .bot-tag[data-bot="normal"]').waitFor();
    assert.match(await page.locator('.seat[data-seat="1"]').textContent(), /Normal bot.*normal/);
    assert.equal(await page.locator('.seat[data-seat="0"] .bot-tag').count(), 0, 'the person wears no bot badge');
    assert.equal(await page.locator('[data-add-bot]').count(), 0, 'no "Add a bot" once the game has started');

    const pieces = (st, seat) => st.board.cells.flat().filter((c) => c && c.seat === seat).length;
    let turns = 0;
    for (;;) {
      const st = await state(page);
      if (st.status !== 'playing') break;
      // Each time it is Ada's turn again, the bot has placed exactly as many pieces as she has.
      assert.equal(st.to_move, 0, "the bot has answered: Ada's turn again");
      assert.equal(pieces(st, 0), turns);
      assert.equal(pieces(st, 1), turns, 'the bot moved once after each of her moves');
      await movesShown(page);
      // Locators, not element handles: a redraw between finding and clicking is harmless.
      await page.locator('.q-shape:not([disabled])').first().click();
      const cells = page.locator('.q-cell[data-move]');
      await cells.first().waitFor();
      await cells.nth(Math.floor((await cells.count()) / 2)).click();
      turns++;
      assert.ok(turns <= 8, 'a person places at most 8 pieces in Quantik');
      // Her piece shows; then the bot's (it moves by itself), unless her move ended the game.
      await page.waitForFunction((n) => {
        const s = window.plateau.state;
        if (!s) return false;
        const cs = s.board.cells.flat();
        const hers = cs.filter((c) => c && c.seat === 0).length, its = cs.filter((c) => c && c.seat === 1).length;
        return window.plateau.drawn === s && hers === n
          && (s.status === 'over' || (its === n && s.to_move === 0 && s.legal_moves.length > 0));
      }, turns);
      if (turns === 2) await page.screenshot({ path: `${shots}/bots-midgame.png` });
    }

    const final = await state(page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0, 'the outcome has its reason');
    assert.equal(final.outcome.winners.length, 1, 'Quantik has no draws');
    assert.match(await page.textContent('#status'), final.outcome.winners[0] === 0 ? /^You win!/ : /^Normal bot wins/);
    // The stored record: the person and the bot took turns, the person first.
    const replay = await (await fetch(`${server.url}/api/replay?room=${room}&round=1`)).json();
    assert.deepEqual(replay.record.moves.map((m) => m.seat), replay.record.moves.map((_, i) => i % 2), 'the moves alternate');
    assert.ok(replay.record.moves.length >= 2 * turns - 1);
    assert.deepEqual(replay.record.bots, [null, 'normal'], 'the record says which seat a bot played');
    // Its replay shows the bot's seat with its level.
    await page.goto(`${server.url}/?replay=${room}&round=1`);
    await page.locator('#replay-seats .seat[data-seat="1"] .bot-tag[data-bot="normal"]').waitFor();
    assert.equal(await page.locator('#replay-seats .seat[data-seat="0"] .bot-tag').count(), 0);
    await page.goto(`${server.url}/?room=${room}`);
    await page.waitForFunction(() => window.plateau.state && window.plateau.drawn === window.plateau.state);
    assert.deepEqual(errors, [], 'no error came');
    assert.equal(await page.locator('#error').isHidden(), true, 'no error is shown');
    await page.screenshot({ path: `${shots}/bots-end.png` });

    // The lobby lists the table with the bot's level.
    await page.locator('#leave').click();
    await page.locator(`#rooms [data-room="${room}"] .bot-tag[data-bot="normal"]`).waitFor({ timeout: 30000 });
    assert.deepEqual(errors, [], 'no error came');
  }, FAST_BOTS);
});

test('Add a bot at a waiting On Top table, then a second person fills it and the game starts', { timeout: 180000 }, async () => {
  await withBrowser(async (server, browser) => {
    // Ada, who creates the table, is on a phone.
    const ada = await player(browser, 'Ada', PHONE);
    const bob = await player(browser, 'Bob');
    const errors = errorsOf(ada.page);
    await ada.page.goto(server.url);
    await ada.page.waitForFunction(() => window.plateau.games.length > 0);
    await ada.page.selectOption('#game-select', 'on_top');
    await ada.page.selectOption('[data-option="players"]', '3');
    assert.deepEqual(await ada.page.locator('#cpu-order option').allTextContents(), ['first', 'second', 'third', 'at random'],
      '"You play" follows the seats chosen');
    await ada.page.locator('#create').click();
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0
      && window.plateau.drawn === window.plateau.state);
    const room = await ada.page.evaluate(() => window.plateau.room);

    // Each free seat offers a bot, normal at first.
    for (const seat of [1, 2]) await ada.page.locator(`[data-add-bot="${seat}"]`).waitFor();
    assert.equal(await ada.page.inputValue('[data-bot-level="1"]'), 'normal');
    assert.match(await ada.page.textContent('#status'), /add a bot/);
    await ada.page.screenshot({ path: `${shots}/bots-add-phone.png`, fullPage: true });
    // A bot seated by mistake is sent away again while the table waits.
    await ada.page.locator('[data-add-bot="2"]').click();
    await ada.page.locator('.seat[data-seat="2"] .bot-tag[data-bot="normal"]').waitFor();
    await ada.page.locator('[data-remove-bot="2"]').click();
    await ada.page.locator('[data-add-bot="2"]').waitFor();
    assert.equal(await ada.page.locator('.seat[data-seat="2"] .bot-tag').count(), 0, 'seat 2 is free again');
    await ada.page.locator('[data-bot-level="1"]').selectOption('easy');
    await ada.page.locator('[data-add-bot="1"]').click();
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.seats[1].bot === 'easy'
      && window.plateau.drawn === window.plateau.state);
    await ada.page.locator('.seat[data-seat="1"] .bot-tag[data-bot="easy"]').waitFor();
    assert.equal(await ada.page.locator('[data-add-bot="1"]').count(), 0, 'the seat is taken');
    assert.equal(await ada.page.locator('[data-add-bot="2"]').count(), 1, 'the last seat still offers a bot');
    assert.equal((await state(ada.page)).status, 'waiting');

    // Bob follows the invite link: neither seated nor the creator, he is offered no bot, and one
    // he asks for all the same is refused, the refusal shown as errors are.
    await bob.page.goto(`${server.url}/?room=${room}`);
    await bob.page.waitForFunction(() => window.plateau.state && window.plateau.drawn === window.plateau.state);
    await bob.page.locator('[data-sit="2"]').waitFor();
    assert.equal(await bob.page.locator('[data-add-bot]').count(), 0, 'a spectator is offered no bot');
    assert.equal(await bob.page.locator('[data-remove-bot]').count(), 0, 'nor may he send one away');
    await bob.page.locator('.seat[data-seat="1"] .bot-tag[data-bot="easy"]').waitFor();
    await bob.page.evaluate(() => window.plateau.ws.send(JSON.stringify({ type: 'add_bot', room: window.plateau.room, seat: 2 })));
    await bob.page.locator('#error:not([hidden])').waitFor();
    assert.match(await bob.page.textContent('#error'), /bot\/not_allowed/);

    // He takes the last seat: the game starts, the bot's seat wearing its level on both pages.
    await bob.page.locator('[data-sit="2"]').click();
    for (const p of [ada.page, bob.page]) {
      await p.waitForFunction(() => window.plateau.state && window.plateau.state.status !== 'waiting'
        && window.plateau.drawn === window.plateau.state);
      await p.locator('.seat[data-seat="1"] .bot-tag[data-bot="easy"]').waitFor();
      assert.match(await p.locator('.seat[data-seat="1"]').textContent(), /Easy bot/);
      assert.equal(await p.locator('[data-add-bot]').count(), 0, 'no "Add a bot" once the game has started');
    }
    const st = await state(bob.page);
    assert.equal(st.you, 2);
    assert.deepEqual(st.seats.map((s) => s.bot ?? null), [null, 'easy', null]);
    assert.deepEqual(st.seats.map((s) => s.name), ['Ada', 'Easy bot', 'Bob']);
    assert.deepEqual(errors, [], 'Ada saw no error');
    await ada.page.screenshot({ path: `${shots}/bots-on_top-phone.png`, fullPage: true });
    await bob.page.screenshot({ path: `${shots}/bots-on_top.png` });
  }, FAST_BOTS);
});
