// Two browsers play a whole game of Turris by clicking, while a third watches.
// On his second turn Bob switches his page to French and back; at the end Eve reads the result,
// the panel and the Rules summary in French, then the summary in English again.
import { test } from 'node:test';
import { readdirSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, clickable, shots, movesShown } from './harness.mjs';
import { fr, englishLeft, panelText, frenchReasons, checkRulesRedrawn } from './i18n_check.mjs';

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

    let switched = false;
    let moves = 0, removals = 0, bonuses = 0, isoClicks = 0, bonusShot = false, removeShot = false;
    for (;;) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === adaSeat ? ada.page : bob.page;
      const before = await version(mover);
      await movesShown(mover);
      if (mover === bob.page && moves >= 2 && !switched && st.board.phase !== 'bonus' && !(await state(bob.page)).legal_moves.includes('pass')) {
        // Bob switches to French on his turn: his panel is redrawn in place, then back to English.
        switched = true;
        await bob.page.selectOption('select.lang-picker', 'fr');
        await bob.page.waitForFunction((w) => document.querySelector('.tu-plancard h4')?.textContent === w, fr['game.turris.plan_title']);
        const words = await panelText(bob.page);
        assert.match(words, /Tour — faces [A-D] et [A-D] devant/);
        assert.match(words, /Faces évaluées/);
        assert.match(words, /Toit/);
        assert.match(words, /Cliquez sur /);
        assert.match(words, /Poser un pion (vertical|horizontal)/);
        assert.deepEqual(englishLeft(words, 'game.turris.'), [], 'no English left in the Turris panel');
        await bob.page.screenshot({ path: `${shots}/turris-fr-bob-phone.png`, fullPage: true });
        await bob.page.selectOption('select.lang-picker', 'en');
        await bob.page.waitForFunction(() => document.querySelector('.tu-plancard h4')?.textContent === 'From above');
        assert.match(await panelText(bob.page), /Scored views/);
      }
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

    // In French: the panel, the reason of the result, and the Rules summary.
    await eve.page.selectOption('select.lang-picker', 'fr');
    await eve.page.waitForFunction((w) => document.querySelector('.tu-plancard h4')?.textContent === w, fr['game.turris.plan_title']);
    const words = await panelText(eve.page);
    assert.match(words, /Partie terminée/);
    assert.deepEqual(englishLeft(words, 'game.turris.'), [], 'no English left in the Turris panel');
    // The module's French wording of each outcome, seats named Ada and Bob.
    const reasons = await frenchReasons(eve.page, 'turris', {
      full: { code: 'turris.faces', args: { ended: 'full', white: 40, black: 37 }, winners: [0] },
      draw: { code: 'turris.faces', args: { ended: 'full', white: 39, black: 39 }, winners: [] },
      stuck: { code: 'turris.faces', args: { ended: 'stuck', white: 20, black: 30 }, winners: [1] },
      other: { code: 'kwinty.fours', args: { ended: 'full', white: 1, black: 0 }, winners: [0] },
    });
    assert.equal(reasons.full, 'tous les pions sont posés\u00a0; faces et toit\u00a0: Blanc 40, Noir 37');
    assert.equal(reasons.draw, 'tous les pions sont posés\u00a0; faces et toit\u00a0: Blanc 39, Noir 39 (ex-aequo)');
    assert.equal(reasons.stuck, 'aucun joueur ne peut plus poser\u00a0; faces et toit\u00a0: Blanc 20, Noir 30');
    assert.equal(reasons.other, null, 'another game\'s code is left to the app');
    await eve.page.screenshot({ path: `${shots}/turris-end-spectator-fr.png` });
    // The Rules summary in French, then redrawn in English.
    await checkRulesRedrawn(eve.page, 'turris', { figures: 3, frKeys: ['rules.turris.bonus', 'rules.turris.chain_on', 'rules.turris.chain_off'], enKeys: ['rules.turris.bonus', 'rules.turris.scoring'] });
    console.log(`turris: ${moves} moves, ${bonuses} bonus steps, ${removals} removals, ${isoClicks} clicks on the isometric view; ${final.outcome.reason}`);
  });
});
