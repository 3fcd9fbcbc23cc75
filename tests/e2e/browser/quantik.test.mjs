// Two browsers play a whole game of Quantik by clicking, while a third watches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, shots } from './harness.mjs';

test('two players finish a Quantik game by clicks while a spectator sees the same board', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'quantik', ['Ada', 'Bob']);  // Bob is on a phone
    await ada.page.screenshot({ path: `${shots}/quantik-start.png` });

    let moves = 0;
    for (;;) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === (await state(ada.page)).you ? ada.page : bob.page;
      const before = await version(mover);
      // Pick a shape at random among those that can be placed, then a highlighted cell.
      const shapes = await mover.$$('.q-shape:not([disabled])');
      assert.ok(shapes.length > 0, 'the mover has a playable shape');
      await shapes[Math.floor(Math.random() * shapes.length)].click();
      const cells = await mover.$$('.q-cell[data-move]');
      assert.ok(cells.length > 0, 'legal cells are highlighted');
      await cells[Math.floor(Math.random() * cells.length)].click();
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 16, 'a game of Quantik has at most 16 moves');
      if (moves === 3) await eve.page.screenshot({ path: `${shots}/quantik-spectator-midgame.png` });
    }
    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0);
    assert.equal(final.outcome.winners.length, 1, 'Quantik has no draws');
    for (const p of [bob.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(s.board, final.board, 'everyone sees the same final board');
      assert.deepEqual(s.outcome, final.outcome);
    }
    // The spectator's screen shows the same pieces as the players'.
    const labels = (p) => p.$$eval('.q-cell', (cs) => cs.map((c) => c.getAttribute('aria-label')));
    assert.deepEqual(await labels(eve.page), await labels(ada.page));
    assert.match(await eve.page.textContent('#status'), /wins/);
    await ada.page.screenshot({ path: `${shots}/quantik-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/quantik-end-bob-phone.png`, fullPage: true });
    await eve.page.screenshot({ path: `${shots}/quantik-end-spectator.png` });
  });
});
