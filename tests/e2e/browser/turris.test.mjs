// Two browsers play a whole game of Turris by clicking, while a third watches.
import { test } from 'node:test';
import { readdirSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, clickable, shots, movesShown } from './harness.mjs';

test('two players finish a Turris game by clicks while a spectator sees the same tower', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    for (const f of readdirSync(shots)) if (/^turris-.*\.png$/.test(f)) rmSync(`${shots}/${f}`);  // no stale pictures
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'turris', ['Ada', 'Bob']);  // Bob is on a phone
    const adaSeat = (await state(ada.page)).you;
    // The table is drawn: both players' cards, the tower, the plan and the five views.
    for (const p of pages) {
      assert.equal(await p.locator('.tu-player').count(), 2);
      assert.equal(await p.locator('.tu-face').count(), 5);
      await p.waitForSelector('svg.tu-iso');
    }
    assert.equal(await eve.page.locator('[data-move], [data-choice="v"]').count(), 0, 'a spectator has no controls');
    await ada.page.screenshot({ path: `${shots}/turris-start.png` });

    let moves = 0, removals = 0, bonuses = 0, isoClicks = 0, bonusShot = false, removeShot = false;
    for (;;) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === adaSeat ? ada.page : bob.page;
      const before = await version(mover);
      await movesShown(mover);
      if (st.board.phase === 'bonus') {
        bonuses++;
        const who = mover === ada.page ? 'ada' : 'bob-phone';
        if (!bonusShot) {
          bonusShot = true;
          await mover.screenshot({ path: `${shots}/turris-bonus-${who}.png`, fullPage: true });
        }
        if (!removeShot && (await state(mover)).legal_moves.some((m) => m.startsWith('remove:'))) {
          removeShot = true;  // a bonus that may remove opens on "Remove", the candidates outlined in red
          assert.ok(await mover.locator('.tu-iso .tu-rm[data-move], .tu-plan [data-move^="remove:"]').count() > 0);
          await mover.screenshot({ path: `${shots}/turris-remove-${who}.png`, fullPage: true });
        }
      }
      // Now and then turn the tower; often switch between vertical, horizontal (and remove).
      if (Math.random() < 0.15) await mover.click(`[data-choice="${pick(['rot-left', 'rot-right'])}"]`);
      const choices = await mover.$$('[data-choice]:not([disabled]):not([data-choice^="rot"])');
      if (choices.length && Math.random() < 0.6) await pick(choices).click();
      const candidates = await clickable(mover);
      assert.ok(candidates.length > 0, 'the mover has a highlighted candidate');
      const chosen = pick(candidates);
      const move = await chosen.getAttribute('data-move');
      assert.ok((await state(mover)).legal_moves.includes(move), `${move} is a legal move`);
      if (await chosen.evaluate((e) => !!e.closest('.tu-iso'))) isoClicks++;
      if (move.startsWith('remove:')) removals++;
      await chosen.click();
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 400, 'the game ends within 400 moves');
      if (moves === 24) {
        await eve.page.screenshot({ path: `${shots}/turris-spectator-midgame.png` });
        assert.equal(await eve.page.locator('[data-move], [data-choice="v"]').count(), 0, 'a spectator has no controls');
      }
    }
    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0);
    assert.deepEqual(final.board.supply, [0, 0], 'every block is placed');
    assert.equal(final.board.phase, 'over');
    for (const p of [bob.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(s.board, final.board, 'everyone sees the same final tower');
      assert.deepEqual(s.outcome, final.outcome);
    }
    // The spectator's screen shows the same tower, plan and scored views as the players'.
    const drawn = async (p) => ({
      cubes: (await p.$$eval('.tu-iso [data-cell]', (cs) => cs.map((c) => `${c.dataset.cell}:${c.dataset.seat}:${c.dataset.block}`))).sort(),
      plan: (await p.$$eval('.tu-plan [data-col]', (cs) => cs.map((c) => c.getAttribute('aria-label')))).sort(),
      faces: await p.$$eval('[data-sq]', (cs) => cs.map((c) => c.dataset.sq)),
      scores: await p.$$eval('[data-score]', (cs) => cs.map((c) => c.dataset.score)),
    });
    const seen = await drawn(eve.page);
    assert.deepEqual(seen, await drawn(ada.page));
    assert.deepEqual(seen, await drawn(bob.page));
    const cells = final.board.levels.flat(2).filter((id) => id !== null).length;
    assert.equal(seen.cubes.length, cells, 'every filled cell is drawn');
    assert.deepEqual(seen.scores.map(Number), final.board.score);
    assert.match(await eve.page.textContent('#status'), /wins|Draw/);
    await ada.page.screenshot({ path: `${shots}/turris-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/turris-end-bob-phone.png`, fullPage: true });
    await eve.page.screenshot({ path: `${shots}/turris-end-spectator.png` });
    console.log(`turris: ${moves} moves, ${bonuses} bonus steps, ${removals} removals, ${isoClicks} clicks on the isometric view; ${final.outcome.reason}`);
  });
});
