// Three browsers play a whole 3-player game of Quirky by clicking (one on a phone), while a fourth
// watches. The server draws every piece; the pages only show the draws and send clicks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, clickable, shots, movesShown } from './harness.mjs';

// What the board shows: every point with its drawn stack, the scores panel and the bag panel.
const screen = (page) => page.evaluate(() => ({
  points: [...document.querySelectorAll('.qk-point')].map((g) => `${g.dataset.point}=${g.dataset.stack}`),
  scores: [...document.querySelectorAll('[data-seat-score]')].map((d) => `${d.dataset.colour}:${d.querySelector('.qk-pts').textContent}`),
  bag: [...document.querySelectorAll('[data-bag]')].map((d) => `${d.dataset.bag}:${d.textContent}`),
  drawn: document.querySelector('.qk-drawn')?.dataset.drawn,
}));

test('three players finish a Quirky game by clicks while a spectator sees the same board', { timeout: 375000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve, pages } = await openTable(browser, server, 'quirky', ['Ada', 'Bob', 'Cy'], { players: 3 });
    const [ada, bob, cy] = seated;  // Bob is on a phone
    const st0 = await state(eve.page);
    assert.equal(st0.seats.length, 3);
    assert.deepEqual(st0.board.seats.map((x) => x.colour).sort(), ['green', 'red', 'yellow']);
    assert.equal(st0.board.neutral, null, 'with 3 players no colour is neutral');
    const bySeat = new Map();
    for (const p of seated) bySeat.set((await state(p.page)).you, p);
    assert.equal(bySeat.size, 3, 'three different seats');
    for (const p of pages) {
      await p.waitForSelector('svg.qk-board');
      assert.equal(await p.locator('.qk-point').count(), 28, 'the 28 points of the default board');
      assert.equal(await p.locator('[data-seat-score]').count(), 3);
      assert.equal(await p.locator('[data-bag]').count(), 6);
    }
    assert.equal(await eve.page.locator('[data-move], .qk-point[data-choice]').count(), 0, 'a spectator has no controls');
    await ada.page.screenshot({ path: `${shots}/quirky-start.png` });

    let moves = 0, blues = 0, blacks = 0, scoredMoves = 0, passes = 0;
    const shot = new Set();
    for (;;) {
      const st = await state(eve.page);
      if (st.status !== 'playing') break;
      const mover = bySeat.get(st.to_move);
      const mp = mover.page;
      const before = await version(mp);
      await movesShown(mp, before);
      const mst = await state(mp);
      const drawn = mst.board.drawn;
      assert.equal(drawn.seat, mst.you, 'the drawn piece is the mover\'s');
      assert.equal(await mp.getAttribute('.qk-drawn', 'data-drawn'), drawn.piece, 'the drawn piece is shown');
      // Other seats see the same drawn piece, without controls.
      for (const o of seated) if (o !== mover) assert.equal(await o.page.locator('[data-move]').count(), 0, 'only the mover has moves');
      if (drawn.piece === 'blue') {
        blues++;
        // Choose a source top (one alone comes chosen; sometimes switch), then one of its
        // highlighted empty neighbours.
        const others = await clickable(mp, '.qk-point[data-choice]:not(.picked)');
        const picked = await mp.locator('.qk-point.picked').count();
        if (!picked || (others.length && Math.random() < 0.4)) {
          assert.ok(others.length > 0, 'blue: sources are offered');
          await pick(others).click();
        }
        assert.equal(await mp.locator('.qk-point.picked').count(), 1, 'one source is chosen');
        const from = await mp.getAttribute('.qk-point.picked', 'data-point');
        const targets = await clickable(mp, '.qk-point[data-move]');
        for (const t of targets) assert.ok((await t.getAttribute('data-move')).startsWith(`${from}-`), 'targets belong to the chosen source');
        if (!shot.has('blue')) {
          shot.add('blue');
          await mp.screenshot({ path: `${shots}/quirky-blue-${mover.name.toLowerCase()}.png`, fullPage: true });
        }
      } else if (drawn.piece === 'black') {
        blacks++;
        if (!shot.has('black')) {
          shot.add('black');
          await mp.screenshot({ path: `${shots}/quirky-black-${mover.name.toLowerCase()}.png`, fullPage: true });
        }
      }
      const candidates = await clickable(mp, '.qk-point[data-move]');
      assert.ok(candidates.length > 0, 'the mover has a highlighted candidate');
      const chosen = pick(candidates);
      const move = await chosen.getAttribute('data-move');
      assert.ok(mst.legal_moves.includes(move), `${move} is a legal move`);
      await chosen.click();
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 60, 'a game of Quirky has at most 54 draws plus the 3 markers black Quirks return');
      const after = await state(eve.page);
      assert.equal(after.board.last.move, move, 'the spectator sees the move just played');
      if (after.board.last.scored.length) {
        scoredMoves++;
        await eve.page.waitForSelector('.qk-flash');
        if (!shot.has('scored')) {
          shot.add('scored');
          await eve.page.screenshot({ path: `${shots}/quirky-spectator-scored.png` });
        }
      }
      const lastIdx = after.board.log.findLastIndex((e) => e.move !== null);
      if (after.board.log.slice(lastIdx + 1).some((e) => e.event === 'colours_passed')) {
        await eve.page.waitForSelector('[data-news="colours_passed"]');
        passes++;
        if (!shot.has('purple')) {
          shot.add('purple');
          await eve.page.screenshot({ path: `${shots}/quirky-spectator-purple.png` });
        }
      }
      if (moves === 20) await eve.page.screenshot({ path: `${shots}/quirky-spectator-midgame.png` });
      if (moves === 24) await bob.page.screenshot({ path: `${shots}/quirky-midgame-bob-phone.png`, fullPage: true });
    }
    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0);
    assert.ok(final.outcome.winners.length >= 1, 'someone wins (or shares the win)');
    assert.deepEqual(final.outcome.scores, final.board.seats.map((x) => x.score));
    assert.equal(final.board.drawn, null);
    assert.equal(Object.values(final.board.bag).reduce((a, b) => a + b, 0), 0, 'the bag is empty');
    for (const p of [bob.page, cy.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(s.board, final.board, 'everyone sees the same final board');
      assert.deepEqual(s.outcome, final.outcome);
    }
    // The spectator's screen shows the same stacks, scores and bag as each player's.
    const seen = await screen(eve.page);
    for (const p of seated) assert.deepEqual(await screen(p.page), seen);
    assert.deepEqual(seen.points, final.board.points.map((p) => `${p.id}=${p.stack.join(',')}`));
    assert.deepEqual(seen.scores, final.board.seats.map((x) => `${x.colour}:${x.score}`));
    assert.match(await eve.page.textContent('#status'), /wins|Shared win/);
    assert.equal(await eve.page.locator('.qk-log li').count(), Math.min(30, final.board.log.length));
    console.log(`# quirky: ${moves} moves (${blues} blue, ${blacks} black), ${scoredMoves} scoring, ${passes} colour passes; scores ${final.outcome.scores.join('-')}`);
    for (const p of pages) await p.evaluate(() => window.scrollTo(0, 0));
    await ada.page.screenshot({ path: `${shots}/quirky-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/quirky-end-bob-phone.png`, fullPage: true });
    await cy.page.screenshot({ path: `${shots}/quirky-end-cy.png` });
    await eve.page.screenshot({ path: `${shots}/quirky-end-spectator.png` });
  });
});
