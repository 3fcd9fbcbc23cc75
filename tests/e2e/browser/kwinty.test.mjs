// Two browsers play a whole game of Kwinty by clicking, while a third watches.
// On his second turn Bob switches his page to French and back; at the end Eve reads the result,
// the panel and the Rules summary in French, then the summary in English again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, shots, movesShown } from './harness.mjs';
import { en, fr, englishLeft, panelText, frenchReasons, checkRulesRedrawn } from './i18n_check.mjs';

test('two players finish a Kwinty game by clicks while a spectator sees the same wall', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'kwinty', ['Ada', 'Bob']);  // Bob is on a phone
    const seatOf = new Map([[(await state(ada.page)).you, ada.page], [(await state(bob.page)).you, bob.page]]);
    assert.equal(seatOf.size, 2, 'Ada and Bob sit at different seats');
    // The spectator has no controls, even when the table shows moves to the players.
    assert.equal(await eve.page.locator('[data-move], [data-choice]').count(), 0);
    await ada.page.screenshot({ path: `${shots}/kwinty-start.png` });

    let moves = 0, passes = 0, switched = false;
    const choosingShot = new Set();  // one screenshot of the ghost blocks on each device
    for (;;) {
      const st = await state(eve.page);
      if (st.status !== 'playing') break;
      const mover = seatOf.get(st.to_move);
      await movesShown(mover);
      const before = await version(mover);
      const legal = (await state(mover)).legal_moves;
      if (mover === bob.page && moves >= 2 && !switched && !(legal.length === 1 && legal[0] === 'pass')) {
        // Bob switches to French on his turn: his panel is redrawn in place, then back to English.
        switched = true;
        await bob.page.selectOption('select.lang-picker', 'fr');
        await bob.page.waitForFunction((w) => document.querySelector('[data-choice="L"]')?.textContent.includes(w), fr['game.kwinty.lying']);
        const words = await panelText(bob.page);
        assert.match(words, /Cliquez sur un contour en pointillés pour poser votre pion (blanc|noir)/);
        assert.match(words, /joue les pions (blancs|noirs)/);
        assert.match(words, /pions? restants?/);
        assert.match(words, /Lignes de 4/);
        assert.match(words, /Mur de Kwinty : \d+ pions? posés?/);
        assert.deepEqual(englishLeft(words, 'game.kwinty.'), [], 'no English left in the Kwinty panel');
        await bob.page.screenshot({ path: `${shots}/kwinty-fr-bob-phone.png`, fullPage: true });
        await bob.page.selectOption('select.lang-picker', 'en');
        await bob.page.waitForFunction(() => document.querySelector('[data-choice="L"]')?.textContent.includes('Lying'));
        assert.match(await panelText(bob.page), /Click a dashed outline/);
      }
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

    // In French: the panel, the reason of the result, and the Rules summary.
    await eve.page.selectOption('select.lang-picker', 'fr');
    await eve.page.waitForFunction((w) => document.querySelector('.kw-board')?.getAttribute('aria-label').startsWith(w), 'Mur de Kwinty');
    const words = await panelText(eve.page);
    assert.match(words, /Lignes de 4/);
    assert.deepEqual(englishLeft(words, 'game.kwinty.'), [], 'no English left in the Kwinty panel');
    // The module's French wording of each outcome, seats named Ada and Bob.
    const reasons = await frenchReasons(eve.page, 'kwinty', {
      five: { code: 'kwinty.five', args: { seat: 1, length: 6, direction: 'rising' }, winners: [1] },
      across: { code: 'kwinty.five', args: { seat: 0, length: 5, direction: 'horizontal' }, winners: [0] },
      full: { code: 'kwinty.fours', args: { ended: 'full', white: 2, black: 1 }, winners: [0] },
      draw: { code: 'kwinty.fours', args: { ended: 'stuck', white: 1, black: 1 }, winners: [] },
      other: { code: 'quantik.no_move', args: {}, winners: [0] },
    });
    assert.equal(reasons.five, 'Bob a aligné 6 carrés en diagonale montante');
    assert.equal(reasons.across, 'Ada a aligné 5 carrés horizontalement');
    assert.equal(reasons.full, 'les 40 pions sont posés sans alignement de 5\u00a0; lignes de 4\u00a0: Blanc 2, Noir 1');
    assert.equal(reasons.draw, 'aucun joueur ne peut plus poser de pion\u00a0; lignes de 4\u00a0: Blanc 1, Noir 1 (ex-aequo)');
    assert.equal(reasons.other, null, 'another game\'s code is left to the app');
    // The Rules summary in French, then redrawn in English.
    await checkRulesRedrawn(eve.page, 'kwinty', { figures: 2, frKeys: ['rules.kwinty.rule_c', 'rules.kwinty.strict_on', 'rules.kwinty.strict_off'], enKeys: ['rules.kwinty.rule_c', 'rules.kwinty.strict_off'] });
    // At a table, only the table's own choice of each option is explained.
    await eve.page.evaluate(() => import('/rules.js').then((m) => m.openRules('kwinty', { first: '1', strict: true })));
    await eve.page.waitForFunction((w) => document.querySelector('#rules-dialog .rules-body')?.textContent.includes(w), en['rules.first.seat'].replace('{n}', '2'));
    const chosen = await eve.page.textContent('#rules-dialog .rules-body');
    assert.ok(chosen.includes(en['rules.kwinty.strict_on']) && !chosen.includes(en['rules.kwinty.strict_off']));
  });
});
