// Two browsers play a whole game of Kwinty by clicking, while a third watches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, shots, movesShown } from './harness.mjs';

test('two players finish a Kwinty game by clicks while a spectator sees the same wall', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'kwinty', ['Ada', 'Bob']);  // Bob is on a phone
    const seatOf = new Map([[(await state(ada.page)).you, ada.page], [(await state(bob.page)).you, bob.page]]);
    assert.equal(seatOf.size, 2, 'Ada and Bob sit at different seats');
    // The spectator has no controls, even when the table shows moves to the players.
    assert.equal(await eve.page.locator('[data-move], [data-choice]').count(), 0);
    await ada.page.screenshot({ path: `${shots}/kwinty-start.png` });

    let moves = 0, passes = 0;
    const choosingShot = new Set();  // one screenshot of the ghost blocks on each device
    for (;;) {
      const st = await state(eve.page);
      if (st.status !== 'playing') break;
      const mover = seatOf.get(st.to_move);
      await movesShown(mover);
      const before = await version(mover);
      const legal = (await state(mover)).legal_moves;
      if (legal.length === 1 && legal[0] === 'pass') {
        // The only move is a pass: a button, and no ghost block.
        assert.equal(await mover.locator('.kw-ghost').count(), 0);
        await mover.click('[data-move="pass"]');
        passes++;
      } else {
        // Choose lying or standing at random among the open orientations, then a ghost block.
        const choices = await mover.$$('[data-choice]:not([disabled])');
        assert.ok(choices.length > 0, 'the mover has an orientation to choose');
        const choice = pick(choices);
        const o = await choice.getAttribute('data-choice');
        await choice.click();
        await mover.waitForSelector(`[data-choice="${o}"][aria-pressed="true"]`);
        const ghosts = await mover.$$('.kw-ghost[data-move]');
        const shown = await Promise.all(ghosts.map((g) => g.getAttribute('data-move')));
        // Exactly the legal moves of that orientation are offered.
        assert.deepEqual(shown.sort(), legal.filter((m) => m.startsWith(`${o}@`)).sort());
        const device = mover === bob.page ? 'phone' : 'laptop';
        if (moves >= 2 && !choosingShot.has(device)) {
          choosingShot.add(device);
          await mover.screenshot({ path: `${shots}/kwinty-choosing-${device}.png`, fullPage: device === 'phone' });
        }
        await pick(ghosts).click();
      }
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 90, 'a game of Kwinty ends within 40 blocks and their passes');
      // A game may end after 5 moves: the mid-game picture is taken after move 4, then again after 10.
      if (moves === 4 || moves === 10) await eve.page.screenshot({ path: `${shots}/kwinty-spectator-midgame.png` });
    }

    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0);
    for (const p of [bob.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(s.board, final.board, 'everyone sees the same final wall');
      assert.deepEqual(s.outcome, final.outcome);
    }
    const b = final.board;
    assert.equal(b.blocks.length, 40 - b.blocks_left[0] - b.blocks_left[1]);
    // The spectator's screen draws the same blocks and the same highlighted lines as the players'.
    const drawn = (p) => p.$$eval('[data-block]', (bs) => bs.map((e) => e.getAttribute('aria-label')));
    const lines = (p) => p.$$eval('[data-line]', (ls) => ls.map((e) => `${e.dataset.line}:${e.dataset.cells}`));
    const left = (p) => p.$$eval('[data-left]', (ls) => ls.map((e) => e.dataset.left));
    const eveBlocks = await drawn(eve.page);
    assert.equal(eveBlocks.length, b.blocks.length);
    for (const p of [ada.page, bob.page]) {
      assert.deepEqual(await drawn(p), eveBlocks);
      assert.deepEqual(await lines(p), await lines(eve.page));
      assert.deepEqual(await left(p), await left(eve.page));
    }
    // The end is highlighted: the line(s) of five, or the counted lines of four.
    const eveLines = await lines(eve.page);
    if (b.win_lines.length) {
      assert.equal(final.outcome.winners.length, 1);
      assert.equal(eveLines.filter((l) => l.startsWith('five:')).length, b.win_lines.length);
      assert.match(await eve.page.textContent('#status'), /wins/);
    } else {
      assert.deepEqual(final.outcome.scores, b.fours_count);
      assert.equal(eveLines.length, b.fours_count[0] + b.fours_count[1]);
      assert.match(await eve.page.textContent('#status'), /wins|Draw/);
    }
    assert.equal(await eve.page.locator('[data-move], [data-choice]').count(), 0, 'nothing to click once over');
    console.log(`# kwinty: ${moves} moves (${passes} passes), ${b.blocks.length} blocks; ${final.outcome.reason}`);
    await ada.page.screenshot({ path: `${shots}/kwinty-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/kwinty-end-bob-phone.png`, fullPage: true });
    await eve.page.screenshot({ path: `${shots}/kwinty-end-spectator.png` });
  });
});
