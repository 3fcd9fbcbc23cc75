// Two browsers play whole games of L-Tiles by clicking, while a third watches: a standard game
// (the shuffled piles), then a game of variant 1 (each player first orders their pile by clicks).
import { test } from 'node:test';
import { readdirSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, shots, movesShown } from './harness.mjs';
import { assertNoEnglishIn, openRulesPanel, shootRules, watchFinishedInFrench } from './i18n_check.mjs';

// The ghosts a person could click now: their corner square is on screen and on top.
function clickableGhosts(page) {
  return page.evaluate(() => {
    document.querySelector('.lt-svg').scrollIntoView({ block: 'center' });
    const out = [];
    for (const g of document.querySelectorAll('.lt-ghost[data-move]')) {
      const hit = g.querySelector('.lt-hit');
      const r = hit.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (e === hit) out.push(g.dataset.move);
    }
    return out;
  });
}

// What the plan shows: every visible square with its level and colour, and the scores.
async function drawn(page) {
  if (await page.locator('.lt-svg[data-view="iso"]').count()) await page.click('[data-choice="view"]');
  return {
    cells: (await page.$$eval('.lt-svg .lt-cell', (cs) => cs.map((c) => c.getAttribute('aria-label')))).sort(),
    scores: await page.$$eval('[data-score]', (cs) => cs.map((c) => c.textContent)),
    best: await page.$$eval('[data-best]', (cs) => cs.map((c) => c.dataset.best)),
  };
}

async function playWholeGame(variant, options) {
  const name = `ltiles${variant === 'standard' ? '' : '-' + variant}`;
  await withBrowser(async (server, browser) => {
    const mine = new RegExp(`^${name}-(start|setup|early|spectator|midgame|end)`);
    for (const f of readdirSync(shots)) if (mine.test(f)) rmSync(`${shots}/${f}`);  // no stale pictures
    const { seated: [ada, bob], eve, pages } = await openTable(browser, server, 'ltiles', ['Ada', 'Bob'], options);  // Bob is on a phone
    const start = await state(eve.page);
    assert.equal(start.board.variant, variant);
    const adaSeat = (await state(ada.page)).you;
    for (const p of pages) {
      // the table, or in variant 1 the ordering screen in its place
      await p.waitForSelector(variant === 'ordered' ? '.lt-setup' : 'svg.lt-svg');
      assert.equal(await p.locator('.lt-player').count(), 2, 'both players are shown');
    }
    assert.equal(await eve.page.locator('[data-move], [data-choice^="rot"], [data-choice^="kind"]').count(), 0, 'a spectator has no controls');
    await ada.page.screenshot({ path: `${shots}/${name}-start.png` });

    // ----- variant 1: each player orders their pile, by clicks -----
    let picks = 0;
    if (variant === 'ordered') {
      assert.equal(start.board.phase, 'setup');
      let shot = { ada: false, bob: false };
      for (;;) {
        const st = await state(ada.page);
        if (st.board.phase !== 'setup') break;
        const mover = st.to_move === adaSeat ? ada.page : bob.page;
        const who = mover === ada.page ? 'ada' : 'bob';
        await movesShown(mover);
        assert.equal(await eve.page.locator('[data-move]').count(), 0, 'a spectator has no controls');
        const buttons = await mover.$$('.lt-setup [data-move^="pile "]');
        assert.ok(buttons.length > 0, 'the kinds still to order are offered');
        const moverSeat = (await state(mover)).you;
        const ordered = (await state(mover)).board.piles[moverSeat].order.length;
        assert.equal(await mover.locator('.lt-order figure.done').count(), ordered, 'the order so far is shown');
        if (!shot[who] && ordered >= 6) {
          shot[who] = true;
          await mover.screenshot({ path: `${shots}/${name}-setup-${who === 'ada' ? 'ada' : 'bob-phone'}.png`, fullPage: who === 'bob' });
        }
        const before = await version(mover);
        const chosen = pick(buttons);
        assert.ok((await state(mover)).legal_moves.includes(await chosen.getAttribute('data-move')));
        await chosen.click();
        await allAt(pages, before + 1);
        picks++;
        assert.ok(picks <= 40, 'ordering takes at most 40 picks');
      }
      // Nobody else sees a pile's order; its owner does.
      const fin = await state(ada.page);
      assert.equal(fin.board.piles[adaSeat].order.length, 20, 'Ada sees her whole pile');
      assert.equal(fin.board.piles[1 - adaSeat].order, null, 'but not Bob\'s');
      assert.equal((await state(eve.page)).board.piles.every((p) => p.order === null), true, 'nor does the spectator');
      for (const p of pages) await p.waitForSelector('svg.lt-svg');
      assert.ok(await ada.page.locator('.lt-next .lt-icon').count() > 0, 'Ada sees her next tiles');
    }

    // ----- the game itself, by clicks -----
    let moves = 0, stacks = 0, isoMoves = 0, turns = 0;
    for (;;) {
      const st = await state(ada.page);
      if (st.status !== 'playing') break;
      const mover = st.to_move === adaSeat ? ada.page : bob.page;
      await movesShown(mover);
      const before = await version(mover);
      // Turn the tile now and then (a button or an orientation), filter the spots, switch views.
      if (Math.random() < 0.35) { await mover.click(`[data-choice="${pick(['rot-cw', 'rot-ccw', 'rot-cw'])}"]`); turns++; }
      if (Math.random() < 0.15) {
        const o = await mover.$$('[data-choice^="rot:"]:not([disabled])');
        if (o.length) { await pick(o).click(); turns++; }
      }
      if (Math.random() < 0.3) {
        const f = await mover.$$('[data-choice^="show:"]:not([disabled])');
        if (f.length) await pick(f).click();
      }
      if (moves === 12 || moves === 25 || (moves > 2 && Math.random() < 0.06)) await mover.click('[data-choice="view"]');
      const isoNow = (await mover.locator('.lt-svg[data-view="iso"]').count()) > 0;
      if (moves === 14) {
        // zoom and pan, then fit again: the candidates stay reachable
        // The pointer must land on the board: scroll it into the window first (the piles of a
        // variant can push it below the fold, where a mouse at its centre touches nothing).
        await mover.locator('.lt-svg').scrollIntoViewIfNeeded();
        const box = await mover.locator('.lt-svg').boundingBox();
        const vb0 = await mover.getAttribute('.lt-svg', 'viewBox');
        // the middle of the part of the board inside the window
        const vp = mover.viewportSize();
        const cx = (Math.max(box.x, 0) + Math.min(box.x + box.width, vp.width)) / 2;
        const cy = (Math.max(box.y, 0) + Math.min(box.y + box.height, vp.height)) / 2;
        await mover.mouse.move(cx, cy);
        await mover.mouse.wheel(0, -300);
        await mover.mouse.down();
        await mover.mouse.move(cx + 60, cy + 30, { steps: 4 });
        await mover.mouse.up();
        // Input events reach the page asynchronously: wait for the new viewBox rather than read it once.
        const moved = await mover.waitForFunction(
          (vb) => document.querySelector('.lt-svg')?.getAttribute('viewBox') !== vb, vb0, { timeout: 10_000 })
          .then(() => true, () => false);
        assert.ok(moved, `the wheel and a drag move the camera (viewBox still ${vb0})`);
        assert.equal(await version(mover), before, 'a drag plays nothing');
        await mover.click('[data-choice="zoom-in"]');
        await mover.click('[data-choice="fit"]');
      }
      const candidates = await clickableGhosts(mover);
      assert.ok(candidates.length > 0, 'the mover has ghosts to click');
      const legalNow = (await state(mover)).legal_moves;
      const kind = await mover.getAttribute('.lt-big', 'data-kind');
      const r = Number(await mover.getAttribute('.lt-big', 'data-rot'));
      for (const m of candidates) {
        assert.ok(legalNow.includes(m), `${m} is legal`);
        assert.ok(m.startsWith(kind + '@') && m.endsWith(',' + r), `${m} is a ghost of ${kind} turned ${r}`);
      }
      // prefer stacking a little, as a person would, so the table grows upwards too
      const stackable = await mover.$$eval('.lt-ghost.stack[data-move]', (gs) => gs.map((g) => g.dataset.move));
      const onTop = candidates.filter((m) => stackable.includes(m));
      const move = onTop.length && Math.random() < 0.5 ? pick(onTop) : pick(candidates);
      if (stackable.includes(move)) stacks++;
      if (isoNow) isoMoves++;
      await mover.click(`.lt-ghost[data-move="${move}"] .lt-hit`);
      await allAt(pages, before + 1);
      moves++;
      const after = await state(eve.page);
      assert.equal(after.board.last.move, move, 'the spectator sees the move just played');
      assert.ok(moves <= 40, 'a game is 40 tiles');
      if (moves === 1) await bob.page.screenshot({ path: `${shots}/${name}-early-bob-phone.png`, fullPage: true });
      if (moves === 20) {
        await eve.page.screenshot({ path: `${shots}/${name}-spectator-midgame.png` });
        assert.equal(await eve.page.locator('[data-move], [data-choice^="rot"]').count(), 0, 'a spectator has no controls');
      }
      if (moves === 27) {
        const p = (await state(ada.page)).to_move === adaSeat ? ada.page : bob.page;
        await p.screenshot({ path: `${shots}/${name}-midgame-${p === ada.page ? 'ada' : 'bob-phone'}.png`, fullPage: p === bob.page });
        if (!(await p.locator('.lt-svg[data-view="iso"]').count())) await p.click('[data-choice="view"]');
        await p.screenshot({ path: `${shots}/${name}-midgame-iso-${p === ada.page ? 'ada' : 'bob-phone'}.png`, fullPage: p === bob.page });
      }
    }
    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.equal(moves, 40, 'all 40 tiles were placed');
    assert.equal(final.board.placed, 40);
    assert.equal(final.board.phase, 'over');
    assert.ok(final.outcome.reason.length > 0);
    // Apart from `order` (a pile's order, shown only to its owner), every viewer gets the same view.
    const common = (board) => ({ ...board, piles: board.piles.map((p) => ({ ...p, order: null })) });
    assert.deepEqual((await state(eve.page)).board, common(final.board), 'the spectator sees no order');
    for (const p of [bob.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(common(s.board), common(final.board), 'everyone sees the same final table');
      assert.deepEqual(s.outcome, final.outcome);
    }
    // The spectator's screen shows the same squares, levels and scores as the players'.
    const seen = await drawn(eve.page);
    assert.deepEqual(seen, await drawn(ada.page));
    assert.deepEqual(seen, await drawn(bob.page));
    assert.equal(seen.cells.length, Object.keys(final.board.squares).length, 'every square is drawn');
    assert.deepEqual(seen.scores.map(Number), final.outcome.scores);
    assert.match(await eve.page.textContent('#status'), /wins|Draw/);
    await ada.page.screenshot({ path: `${shots}/${name}-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/${name}-end-bob-phone.png`, fullPage: true });
    await eve.page.click('[data-choice="view"]');
    await eve.page.screenshot({ path: `${shots}/${name}-end-spectator-iso.png` });
    await eve.page.click('[data-choice="view"]');
    await eve.page.screenshot({ path: `${shots}/${name}-end-spectator.png` });
    console.log(`${name}: ${picks} ordering picks, ${moves} tiles (${stacks} stacked, ${isoMoves} placed in the isometric view, ${turns} turns); ${final.outcome.reason}; scores ${final.outcome.scores.join(':')}`);
  });
}

test('two players finish a standard L-Tiles game by clicks while a spectator sees the same table', { timeout: 300000 }, async () => {
  await playWholeGame('standard');
});

test('variant 1: both players order their piles by clicks, then finish the game', { timeout: 300000 }, async () => {
  await playWholeGame('ordered', { variant: 'ordered' });
});

// ---------- French and English ----------

test('L-Tiles in French: the panel, the result line and the Rules panel', { timeout: 240000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve } = await openTable(browser, server, 'ltiles', ['Ada', 'Bob']);
    const ada = seated[0].page;
    await ada.waitForSelector('svg.lt-svg');
    const st = await state(ada);
    const mover = st.to_move === st.you ? ada : seated[1].page;
    const waiter = mover === ada ? seated[1].page : ada;
    await movesShown(mover);
    assert.equal(await mover.textContent('.lt-play h4'), 'Your tile');
    // (a) A switch redraws the panel in French, in place.
    for (const p of [mover, waiter]) await p.selectOption('select.lang-picker', 'fr');
    await mover.waitForFunction(() => document.querySelector('.lt-play h4')?.textContent === 'Votre tuile');
    assert.equal(await mover.textContent('[data-choice="fit"]'), 'Tout voir');
    assert.equal(await mover.textContent('[data-choice="view"]'), 'Vue en perspective');
    assert.match(await mover.textContent('.lt-count'), /^0 \/ 40 posées · glissez pour déplacer, molette pour zoomer$/);
    assert.match(await mover.textContent('.lt-seg'), /Tous \d+.*Table \d+.*Par-dessus \d+/);
    assert.match(await mover.textContent('.lt-legend'), /rouge.*vert.*neutre.*niveaux.*meilleure zone.*dernière tuile/);
    assert.match(await mover.textContent('.lt-player[data-player="0"] h3'), /^Rouge /);
    assert.match(await waiter.textContent('.lt-play .lt-wait'), /^(Rouge|Vert) · (Ada|Bob) pose sa tuile[RGN]{3}\u00a0: coin /);
    assert.match(await mover.getAttribute('.lt-ghost', 'aria-label'), /^poser [RGN]{3}, coin en \(-?\d+,-?\d+\), branche A [→↓←↑] — posée sur la table$/);
    await assertNoEnglishIn(mover, ['game.ltiles.'], 'L-Tiles table of the player to move');
    await assertNoEnglishIn(waiter, ['game.ltiles.'], 'L-Tiles table');
    // A tile placed in French.
    const before = await version(mover);
    await mover.locator('.lt-ghost[data-move]').first().dispatchEvent('click');
    await waiter.waitForFunction((v) => window.plateau.version > v && window.plateau.drawn === window.plateau.state, before);
    assert.match(await waiter.textContent('[data-lastmove]'), /^Dernier coup\u00a0: (Rouge|Vert) [RGN]{3}@/);
    await assertNoEnglishIn(waiter, ['game.ltiles.'], 'L-Tiles table after a move');
    await waiter.screenshot({ path: `${shots}/ltiles-fr.png` });
    await waiter.selectOption('select.lang-picker', 'en');
    await waiter.waitForFunction(() => document.querySelector('[data-choice="fit"]')?.textContent === 'Fit');

    // (b) A finished game's result line gives the reason in French.
    const { fan, over } = await watchFinishedInFrench(browser, server, 'ltiles', 3);
    assert.match(over.outcome.code, /^ltiles\.(best_zone|tie_break|draw)$/);
    const worded = await fan.page.evaluate((o) => import('/games/ltiles.js').then((m) => m.default.reason(o, { name: (i) => ['Host', 'Guest'][i] })), over.outcome);
    assert.match(worded, /(gagne avec une meilleure zone|gagne grâce à sa zone|match nul)/, worded);
    assert.ok((await fan.page.textContent('#status')).includes(worded), `the French reason in ${await fan.page.textContent('#status')}`);
    assert.equal(await fan.page.textContent('.lt-panel .lt-reason'), `${worded}.`);
    await assertNoEnglishIn(fan.page, ['game.ltiles.', 'reason.ltiles.'], 'finished L-Tiles table');
    // Every code, worded by the module itself.
    const words = await fan.page.evaluate(() => import('/games/ltiles.js').then(({ default: m }) => {
      const name = (i) => ['Ada', 'Bob'][i];
      return [
        m.reason({ code: 'ltiles.draw', args: { best: 6 } }, { name }),
        m.reason({ code: 'ltiles.best_zone', args: { seat: 1, score: 24, area: 8, height: 3, other: 18 } }, { name }),
        m.reason({ code: 'ltiles.tie_break', args: { seat: 0, best: 12, rank: 2, score: 9, other: 6 } }, { name }),
        m.reason({ code: 'on_top.points', args: {} }, { name }),
      ];
    }));
    assert.deepEqual(words, [
      'toutes les zones sont à égalité (meilleures zones\u00a0: 6 chacune)\u00a0: match nul',
      "Bob (vert) gagne avec une meilleure zone de 24 (8 carrés, jusqu’au niveau 3) contre 18",
      'meilleures zones à égalité (12)\u00a0; Ada (rouge) gagne grâce à sa zone n° 2\u00a0: 9 contre 6',
      null,
    ]);

    // (c) The Rules panel, illustrated, in both languages.
    const frText = await openRulesPanel(fan.page, 'ltiles', 'fr');
    assert.match(frText, /But du jeu.*Matériel.*Tour de jeu.*Élargir.*Empiler.*Fin de la partie et décompte.*4 × 2 = 8.*Options/s);
    assert.ok(await fan.page.locator('.rules-body figure svg').count() >= 3, 'illustrated');
    assert.ok(!frText.includes('best zone'), 'no English left');
    await shootRules(fan.page, `${shots}/rules-ltiles-fr.png`);
    const enText = await openRulesPanel(fan.page, 'ltiles', 'en');
    assert.match(enText, /Goal.*Material.*A turn.*Spread.*Stack.*End of the game and scoring.*4 × 2 = 8.*Options/s);
    await shootRules(fan.page, `${shots}/rules-ltiles-en.png`);
    // At a table the panel explains the table's own options.
    await eve.page.evaluate(() => import('/rules.js').then((m) => m.openRules('ltiles', { first: '1', variant: 'hand' })));
    await eve.page.waitForFunction(() => document.querySelector('.rules-body .rules-options') !== null);
    const opts = await eve.page.textContent('.rules-body .rules-options');
    assert.match(opts, /Who starts: the player in seat 2 \(green\)\..*variant 3: a face-up hand of 3/s);
    assert.ok(!opts.includes('variant 1'), 'only the table\'s value is explained');
  });
});
