// Three browsers play a whole 3-player game of Quirky by clicking (one on a phone), while a fourth
// watches. The server draws every piece; the pages only show the draws and send clicks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, clickable, shots, movesShown } from './harness.mjs';
import { assertNoEnglishIn, openRulesPanel, shootRules, watchFinishedInFrench } from './i18n_check.mjs';

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

// ---------- French and English ----------

test('Quirky in French: the panel, the result line and the Rules panel', { timeout: 240000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve } = await openTable(browser, server, 'quirky', ['Ada', 'Bob'], { players: 2 });
    const ada = seated[0].page;
    await ada.waitForSelector('.qk-players h3');
    assert.equal(await ada.textContent('.qk-players h3'), 'Players · colours · scores');
    // (a) A switch redraws the panel in French, in place.
    await ada.selectOption('select.lang-picker', 'fr');
    await ada.waitForFunction(() => document.querySelector('.qk-players h3')?.textContent === 'Joueurs · couleurs · points');
    assert.equal(await ada.textContent('.qk-log h3'), 'Journal de la partie');
    assert.match(await ada.textContent('.qk-bag h3'), /^Dans le sac · \d+ restantes$/);
    assert.match(await ada.textContent('.qk-drawn .qk-who'), /^(Vous avez pioché|Bob a pioché)$/);
    assert.match(await ada.textContent('.qk-drawn .qk-what'), /^Un (marqueur (vert|jaune|rouge)|Quirk (bleu|noir|violet))/);
    assert.match(await ada.textContent('.qk-neutral, .qk-seat.neutral'), /Neutre.*le rouge bloque et ne marque pour personne/);
    assert.match(await ada.getAttribute('.qk-board', 'aria-label'), /^Plateau de Quirky, 28 cases$/);
    await assertNoEnglishIn(ada, ['game.quirky.'], 'Quirky table');
    // A move played in French is logged in French.
    const st = await state(ada);
    const mover = st.to_move === st.you ? ada : seated[1].page;
    if (mover !== ada) await mover.selectOption('select.lang-picker', 'fr');
    const before = await version(mover);
    await movesShown(mover, before);
    await mover.locator('.qk-point[data-move]').first().click();
    await ada.waitForFunction((v) => window.plateau.version > v && window.plateau.drawn === window.plateau.state, before);
    assert.match(await ada.textContent('.qk-log li'), /(a posé un marqueur|Quirk (bleu|noir) de|a pioché)/);
    await assertNoEnglishIn(ada, ['game.quirky.'], 'Quirky table after a move');
    await ada.screenshot({ path: `${shots}/quirky-fr.png` });
    // And back to English.
    await ada.selectOption('select.lang-picker', 'en');
    await ada.waitForFunction(() => document.querySelector('.qk-log h3')?.textContent === 'Game log');

    // (b) A finished game's result line gives the reason in French.
    const { fan, over } = await watchFinishedInFrench(browser, server, 'quirky', 4);
    assert.equal(over.outcome.code, 'quirky.bag_empty');
    const points = Math.max(...over.outcome.scores);
    const worded = over.outcome.args.sharing > 1
      ? `le sac est vide\u00a0: ${over.outcome.args.sharing} joueurs se partagent la victoire avec ${points} point${points > 1 ? 's' : ''}`
      : `le sac est vide\u00a0: le meilleur score est de ${points} point${points > 1 ? 's' : ''}`;
    assert.ok((await fan.page.textContent('#status')).includes(worded), `the French reason: ${await fan.page.textContent('#status')}`);
    assert.match(await fan.page.textContent('.qk-drawn .qk-who'), /^Partie terminée\u00a0: le sac est vide$/);
    await assertNoEnglishIn(fan.page, ['game.quirky.', 'reason.quirky.'], 'finished Quirky table');
    // Every code and form, worded by the module itself; another game's code is not its own.
    const words = await fan.page.evaluate(() => import('/games/quirky.js').then(({ default: m }) => [
      m.reason({ code: 'quirky.bag_empty', args: { points: 12, sharing: 1 } }),
      m.reason({ code: 'quirky.bag_empty', args: { points: 9, sharing: 2 } }),
      m.reason({ code: 'quirky.bag_empty', args: { points: 1, sharing: 1 } }),
      m.reason({ code: 'ltiles.draw', args: { best: 3 } }),
      m.reason({ reason: 'old' }),
    ]));
    assert.deepEqual(words, ['le sac est vide\u00a0: le meilleur score est de 12 points',
      'le sac est vide\u00a0: 2 joueurs se partagent la victoire avec 9 points',
      'le sac est vide\u00a0: le meilleur score est de 1 point', null, null]);

    // (c) The Rules panel, illustrated, in both languages.
    const frText = await openRulesPanel(fan.page, 'quirky', 'fr');
    assert.match(frText, /But du jeu.*Matériel.*Tour de jeu.*Quirk violet.*Pointage.*Fin de la partie.*Options/s);
    assert.ok(await fan.page.locator('.rules-body figure svg').count() >= 2, 'illustrated');
    assert.ok(!frText.includes('Score the most points'), 'no English left');
    await shootRules(fan.page, `${shots}/rules-quirky-fr.png`);
    const enText = await openRulesPanel(fan.page, 'quirky', 'en');
    assert.match(enText, /Goal.*Material.*A turn.*Purple Quirk.*Scoring.*End of the game.*Options/s);
    await shootRules(fan.page, `${shots}/rules-quirky-en.png`);
    // At a table the panel explains the table's own options.
    await eve.page.evaluate(() => import('/rules.js').then((m) => m.openRules('quirky', { players: 2, first: 'random', triangles: 'aligned', purple_quirks: false })));
    await eve.page.waitForFunction(() => document.querySelector('.rules-body .rules-options') !== null);
    const opts = await eve.page.textContent('.rules-body .rules-options');
    assert.match(opts, /aligned: only triangles/);
    assert.match(opts, /removed, for a less random game/);
    assert.ok(!opts.includes('tilted ones included'), 'only the table\'s value is explained');
  });
});
