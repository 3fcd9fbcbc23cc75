// Two browsers play a whole game of Quantik by clicking, while a third watches.
// Halfway, Bob switches his page to French and back; at the end Eve reads the result, the panel
// and the Rules summary in French, then the summary in English again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, shots, clickQuantikMove } from './harness.mjs';
import { fr, englishLeft, panelText, frenchReasons, checkRulesRedrawn } from './i18n_check.mjs';

test('two players finish a Quantik game by clicks while a spectator sees the same board', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'quantik', ['Ada', 'Bob']);  // Bob is on a phone
    await ada.page.screenshot({ path: `${shots}/quantik-start.png` });

    let moves = 0, switched = false;
    for (;;) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === (await state(ada.page)).you ? ada.page : bob.page;
      const before = await version(mover);
      if (mover === bob.page && moves >= 2 && !switched) {
        // Bob switches to French on his turn: his panel is redrawn in place, then back to English.
        switched = true;
        await bob.page.selectOption('select.lang-picker', 'fr');
        await bob.page.waitForFunction((w) => document.querySelector('.q-board')?.getAttribute('aria-label') === w, fr['game.quantik.board']);
        const words = await panelText(bob.page);
        assert.match(words, /Posez votre (sphère|cylindre|cube|cône)/);
        assert.match(words, /\((foncées|claires)\)/);
        assert.match(words, /en réserve/);
        assert.deepEqual(englishLeft(words, 'game.quantik.'), [], 'no English left in the Quantik panel');
        await bob.page.screenshot({ path: `${shots}/quantik-fr-bob-phone.png`, fullPage: true });
        await bob.page.selectOption('select.lang-picker', 'en');
        await bob.page.waitForFunction(() => document.querySelector('.q-board')?.getAttribute('aria-label') === 'Quantik board');
        assert.match(await panelText(bob.page), /Place your/);
      }
      await clickQuantikMove(mover);
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
    // The round's seed, committed to at its start, is revealed and checked by every page.
    assert.ok(final.fairness.seed && final.fairness.salt, 'the seed and salt are revealed at the end');
    for (const p of [ada.page, bob.page, eve.page]) {
      assert.match(await p.textContent('#fairness'), /^Draws verified/);
      assert.equal(await p.getAttribute('#fairness', 'data-verified'), 'true');
    }
    // The page's own SHA-256 (used where SubtleCrypto is missing) is the standard one, and a
    // revealed seed that does not open the commitment is called out.
    const check = await eve.page.evaluate(async (f) => {
      const m = await import('/fairness.js');
      return {
        abc: m.sha256Hex(new TextEncoder().encode('abc')),
        tampered: m.verifyFairness({ ...f, seed: String(BigInt(f.seed) + 1n) }),
        text: m.fairnessText({ ...f, salt: '0'.repeat(32) }),
      };
    }, final.fairness);
    assert.equal(check.abc, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(check.tampered, false);
    assert.match(check.text, /NOT verified/);
    await ada.page.screenshot({ path: `${shots}/quantik-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/quantik-end-bob-phone.png`, fullPage: true });
    await eve.page.screenshot({ path: `${shots}/quantik-end-spectator.png` });

    // In French: the panel, the reason of the result, and the Rules summary.
    await eve.page.selectOption('select.lang-picker', 'fr');
    await eve.page.waitForFunction((w) => document.querySelector('.q-board')?.getAttribute('aria-label') === w, fr['game.quantik.board']);
    const words = await panelText(eve.page);
    assert.deepEqual(englishLeft(words, 'game.quantik.'), [], 'no English left in the Quantik panel');
    // The module's French wording of each outcome, seats named Ada and Bob.
    const reasons = await frenchReasons(eve.page, 'quantik', {
      row: { code: 'quantik.line', args: { line: 'row' }, winners: [0] },
      column: { code: 'quantik.line', args: { line: 'column' }, winners: [1] },
      region: { code: 'quantik.line', args: { line: 'region' }, winners: [0] },
      stuck: { code: 'quantik.no_move', args: {}, winners: [1] },
      other: { code: 'kwinty.five', args: {}, winners: [0] },
    });
    assert.equal(reasons.row, 'quatre formes différentes dans une ligne');
    assert.equal(reasons.column, 'quatre formes différentes dans une colonne');
    assert.equal(reasons.region, 'quatre formes différentes dans une région');
    assert.equal(reasons.stuck, 'Ada ne peut poser aucune pièce');
    assert.equal(reasons.other, null, 'another game\'s code is left to the app');
    // The Rules summary in French, then redrawn in English.
    await checkRulesRedrawn(eve.page, 'quantik', { figures: 2, frKeys: ['rules.quantik.forbidden', 'rules.first.any'], enKeys: ['rules.quantik.forbidden', 'rules.first.any'] });
  });
});
