// Two browsers play a whole game of Quantik by clicking, while a third watches.
// Halfway, Bob switches his page to French and back; at the end Eve reads the result, the panel
// and the Rules summary in French, then the summary in English again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { withBrowser, openTable, state, version, allAt, shots, root } from './harness.mjs';

const en = JSON.parse(readFileSync(`${root}/clients/web/lang/en.json`, 'utf8'));
const fr = JSON.parse(readFileSync(`${root}/clients/web/lang/fr.json`, 'utf8'));

// The English words of our keys (those French words otherwise), cut at their {values}: none may
// show once the page is in French.
const englishOf = (prefix) => [...new Set(Object.keys(en).filter((k) => k.startsWith(prefix) && en[k] !== fr[k])
  .flatMap((k) => en[k].split(/\{\w+\}/).map((x) => x.trim()).filter((x) => x.length >= 5 && /\p{L}{3}/u.test(x))))];
const escape = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const englishLeft = (words, prefix) => englishOf(prefix).filter((f) => new RegExp(`(^|[^\\p{L}])${escape(f)}([^\\p{L}]|$)`, 'u').test(words));
// Everything the game's panel shows: its text, and its labels and tooltips.
const panelWords = (page) => page.evaluate(() => {
  const table = document.querySelector('#table');
  return [table.textContent, ...[...table.querySelectorAll('[aria-label], [title]')]
    .flatMap((e) => [e.getAttribute('aria-label'), e.getAttribute('title')])].filter(Boolean).join('\n');
});

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
        const words = await panelWords(bob.page);
        assert.match(words, /Posez votre (sphère|cylindre|cube|cône)/);
        assert.match(words, /\((foncées|claires)\)/);
        assert.match(words, /en réserve/);
        assert.deepEqual(englishLeft(words, 'game.quantik.'), [], 'no English left in the Quantik panel');
        await bob.page.screenshot({ path: `${shots}/quantik-fr-bob-phone.png`, fullPage: true });
        await bob.page.selectOption('select.lang-picker', 'en');
        await bob.page.waitForFunction(() => document.querySelector('.q-board')?.getAttribute('aria-label') === 'Quantik board');
        assert.match(await panelWords(bob.page), /Place your/);
      }
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
    const words = await panelWords(eve.page);
    assert.deepEqual(englishLeft(words, 'game.quantik.'), [], 'no English left in the Quantik panel');
    const reasons = await eve.page.evaluate(async () => {
      const m = (await import('/games/quantik.js')).default;
      const st = window.plateau.state;
      const name = (i) => st.seats[i].name;
      return {
        real: st.outcome.code ? m.reason(st.outcome, { name }) : null,
        status: document.querySelector('#status').textContent,
        row: m.reason({ code: 'quantik.line', args: { line: 'row' }, winners: [0] }, { name }),
        column: m.reason({ code: 'quantik.line', args: { line: 'column' }, winners: [1] }, { name }),
        region: m.reason({ code: 'quantik.line', args: { line: 'region' }, winners: [0] }, { name }),
        stuck: m.reason({ code: 'quantik.no_move', args: {}, winners: [1] }, { name: (i) => ['Ada', 'Bob'][i] }),
        other: m.reason({ code: 'kwinty.five', args: {} , winners: [0] }, { name }),
      };
    });
    assert.equal(reasons.row, 'quatre formes différentes dans une ligne');
    assert.equal(reasons.column, 'quatre formes différentes dans une colonne');
    assert.equal(reasons.region, 'quatre formes différentes dans une région');
    assert.equal(reasons.stuck, 'Ada ne peut poser aucune pièce');
    assert.equal(reasons.other, null, 'another game\'s code is left to the app');
    console.log(`# quantik: outcome code ${final.outcome.code ?? 'absent'}; French reason: ${reasons.real}`);
    if (final.outcome.code) {
      assert.ok(reasons.real && reasons.status.includes(reasons.real), `the result line gives the French reason: ${reasons.status}`);
    }
    await eve.page.evaluate(() => import('/rules.js').then((m) => m.openRules('quantik')));
    await eve.page.waitForFunction((w) => document.querySelector('#rules-dialog .rules-body h3')?.textContent === w, fr['rules.quantik.goal_title']);
    assert.ok(await eve.page.locator('#rules-dialog .rules-body figure svg').count() >= 2, 'the summary is illustrated');
    const frRules = await eve.page.textContent('#rules-dialog .rules-body');
    assert.ok(frRules.includes(fr['rules.quantik.forbidden']) && frRules.includes(fr['rules.quantik.first_any']));
    await eve.page.screenshot({ path: `${shots}/rules-quantik-fr.png` });
    await eve.page.evaluate(() => import('/i18n.js').then((m) => m.setLanguage('en')));
    await eve.page.waitForFunction(() => document.querySelector('#rules-dialog .rules-body h3')?.textContent === 'Goal');
    const enRules = await eve.page.textContent('#rules-dialog .rules-body');
    assert.ok(enRules.includes(en['rules.quantik.forbidden']) && enRules.includes(en['rules.quantik.first_any']));
    assert.ok(await eve.page.locator('#rules-dialog .rules-body figure svg').count() >= 2);
    await eve.page.screenshot({ path: `${shots}/rules-quantik-en.png` });
  });
});
