// Three browsers play a whole 3-player game of On Top by clicking (one on a phone), while a fourth
// watches. Each turn: click a highlighted place, turn the tile a random number of times, confirm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, allAt, pick, shots, movesShown } from './harness.mjs';
import { assertNoEnglishIn, openRulesPanel, shootRules, watchFinishedInFrench } from './i18n_check.mjs';

// What a page draws: every cell, every tower, every colour's points and pawns, the track markers.
const screen = (page) => page.evaluate(() => ({
  cells: [...document.querySelectorAll('.ot-cell')].map((g) => g.getAttribute('aria-label')),
  towers: [...document.querySelectorAll('.ot-point')].map((g) => `${g.dataset.point}=${g.dataset.tower}`),
  colours: [...document.querySelectorAll('.ot-colour')].map((d) => `${d.dataset.colour}:${d.dataset.seat}:${d.dataset.pawns}:${d.dataset.score}`),
  markers: [...document.querySelectorAll('[data-marker]')].map((g) => `${g.dataset.marker}=${g.dataset.score}`),
  scored: [...document.querySelectorAll('[data-scored]')].map((g) => g.dataset.scored),
  last: document.querySelector('[data-last-move]')?.dataset.lastMove ?? null,
}));

test('three players finish an On Top game by clicks while a spectator sees the same board', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve, pages } = await openTable(browser, server, 'on_top', ['Ada', 'Bob', 'Cy'], { players: 3 });
    const [ada, bob, cy] = seated;  // Bob is on a phone
    const st0 = await state(eve.page);
    assert.deepEqual(st0.board.seats.map((x) => x.colour), ['blue', 'yellow', 'red'], 'seats take blue, yellow, red');
    assert.equal(st0.board.colours[3].seat, null, 'white is neutral with 3 players');
    const bySeat = new Map();
    for (const p of seated) bySeat.set((await state(p.page)).you, p);
    assert.equal(bySeat.size, 3, 'three different seats');
    for (const p of pages) {
      await p.waitForSelector('svg.ot-board');
      assert.equal(await p.locator('.ot-cell').count(), 78, 'the 78 triangles of the board');
      assert.equal(await p.locator('.ot-point').count(), 51, 'its 51 intersections');
      assert.equal(await p.locator('.ot-cell[data-kind="start"]').count(), 2, 'two black start triangles');
      assert.equal(await p.locator('.ot-golden line').count(), st0.board.geometry.golden_edges.length, 'the golden border');
      assert.equal(await p.locator('.ot-colour').count(), 4);
      assert.equal(await p.locator('.ot-colour[data-seat="neutral"]').count(), 1, 'one neutral colour');
      assert.equal(await p.locator('[data-marker]').count(), 3, 'three markers on the score track');
      assert.equal(await p.getAttribute('.ot-drawn', 'data-drawn'), st0.board.drawn.sixths.join(','), 'the drawn tile is shown');
    }
    // The seat pills wear the game's colours.
    const pill = (i) => ada.page.$eval(`.seat[data-seat="${i}"]`, (e) => getComputedStyle(e).getPropertyValue('--seat').trim());
    assert.equal(await pill(0), '#2f6fd6');
    assert.equal(await pill(2), '#d8473a');
    assert.equal(await eve.page.locator('[data-move], [data-choice], [data-place]').count(), 0, 'a spectator has no controls');
    await ada.page.screenshot({ path: `${shots}/on_top-start.png` });

    let moves = 0, scoredMoves = 0, pawnsPlaced = 0, turned = 0, midShot = false, phoneShot = false;
    for (;;) {
      const st = await state(eve.page);
      if (st.status !== 'playing') break;
      const mover = bySeat.get(st.to_move);
      const mp = mover.page;
      const before = await version(mp);
      await movesShown(mp, before);
      const legal = new Set((await state(mp)).legal_moves);
      // Nobody else has controls.
      for (const p of pages) if (p !== mp) assert.equal(await p.locator('[data-move], [data-place]').count(), 0, 'only the mover has controls');
      assert.equal(await mp.locator('[data-move]').count(), 0, 'nothing to confirm before a place is chosen');

      // 1. a place: every highlighted place stands for legal moves on its two cells.
      const places = await mp.$$('[data-place]');
      assert.ok(places.length > 0, 'candidate places are highlighted');
      const place = pick(places);
      const [a, b] = (await place.getAttribute('data-place')).split('|');
      assert.ok(legal.has(`${a}-${b}`) || legal.has(`${b}-${a}`), 'a highlighted place is legal');
      await place.click();
      // 2. turn it a random number of times: the orientations are the legal moves on those cells.
      const seen = new Set([await mp.getAttribute('.ot-confirm', 'data-move')]);
      const turns = Math.floor(Math.random() * 3);
      for (let t = 0; t < turns; t++) {
        const turn = mp.locator('.ot-turn[data-choice]');
        if (await turn.isDisabled()) break;
        await turn.click();
        seen.add(await mp.getAttribute('.ot-confirm', 'data-move'));
        turned++;
      }
      for (const m of seen) {
        assert.ok(legal.has(m), `the confirm button carries a legal move (${m})`);
        assert.ok(m === `${a}-${b}` || m === `${b}-${a}`, 'the turns stay on the chosen cells');
      }
      if (!phoneShot && mp === bob.page) {
        await bob.page.screenshot({ path: `${shots}/on_top-choosing-phone.png`, fullPage: true });
        phoneShot = true;
      }
      // 3. confirm: the ghost's sixths must be where the server puts them.
      const move = await mp.getAttribute('.ot-confirm', 'data-move');
      const ghost = await mp.$$eval('[data-ghost]', (gs) => gs.map((g) => `${g.dataset.cell}=${g.dataset.corners}`));
      assert.equal(ghost.length, 2, 'the tile is previewed on its two cells');
      await mp.click(`.ot-confirm[data-move="${move}"]`);
      await allAt(pages, before + 1);
      moves++;
      assert.ok(moves <= 34, 'at most 34 tiles are placed');
      const after = await state(eve.page);
      assert.equal(after.board.last.move, move, 'the clicked move was played');
      const placed = await eve.page.$$eval('.ot-cell[data-kind="tile"]', (gs) => Object.fromEntries(gs.map((g) => [g.dataset.cell, g.dataset.corners])));
      for (const g of ghost) {
        const [cell, corners] = g.split('=');
        assert.equal(placed[cell], corners, `the preview of ${cell} matches the placed tile`);
      }
      const scored = after.board.last.scored;
      assert.equal(await eve.page.locator('[data-scored]').count(), scored.length, 'the completed circles are highlighted');
      assert.equal(await eve.page.locator('[data-scored-caption]').count(), scored.length, 'with a caption each');
      const placedNow = scored.reduce((n, r) => n + r.placed.length, 0);
      if (placedNow > 0) scoredMoves++;
      pawnsPlaced += placedNow;
      if (!midShot && ((placedNow > 1 && moves >= 6) || moves === 16)) {
        await eve.page.screenshot({ path: `${shots}/on_top-spectator-midgame.png` });
        midShot = true;
      }
    }
    const final = await state(ada.page);
    assert.equal(final.status, 'over');
    assert.ok(final.outcome.reason.length > 0);
    assert.ok(final.outcome.winners.length >= 1);
    assert.ok(scoredMoves > 0 && pawnsPlaced > 0, 'some circles were scored');
    for (const p of [bob.page, cy.page, eve.page]) {
      const s = await state(p);
      assert.deepEqual(s.board, final.board, 'everyone sees the same final board');
      assert.deepEqual(s.outcome, final.outcome);
    }
    // The spectator's screen draws the same cells, towers, pawns, scores and highlights.
    const seen = await screen(eve.page);
    assert.equal(seen.towers.length, 51);
    for (const p of [ada.page, bob.page, cy.page]) assert.deepEqual(await screen(p), seen);
    assert.ok(seen.towers.some((t) => /=\w+/.test(t) && !t.endsWith('=open')), 'towers are drawn');
    assert.equal(await eve.page.locator('[data-move], [data-choice], [data-place]').count(), 0);
    assert.match(await eve.page.textContent('#status'), /wins|win/);
    // The game-over panel names the winning colours.
    const colourOf = (seat) => final.board.seats[seat].colour.replace(/^./, (c) => c.toUpperCase());
    const winners = final.outcome.winners.map(colourOf);
    assert.equal(await eve.page.textContent('[data-result]'),
      winners.length === 1 ? `${winners[0]} wins` : `${winners.slice(0, -1).join(', ')} and ${winners.at(-1)} share the win`);
    console.log(`# ${moves} tiles placed, ${turned} turns, ${pawnsPlaced} pawns in ${scoredMoves} scoring placements: ${final.outcome.reason}`);
    await ada.page.screenshot({ path: `${shots}/on_top-end-ada.png` });
    await bob.page.screenshot({ path: `${shots}/on_top-end-bob-phone.png`, fullPage: true });
    await cy.page.screenshot({ path: `${shots}/on_top-end-cy.png` });
    await eve.page.screenshot({ path: `${shots}/on_top-end-spectator.png` });
  });
});

// A shared win (two players placing their last pawns in one placement, or equal points and pawns
// left) cannot be forced through the server, whose tiles come from a secret seed: the On Top
// table's own code draws a finished board with two winners in a spectator's real page, and says
// who shares the win by colour, with the outcome's reason under it.
test('a shared On Top win names both winning colours', { timeout: 300000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { eve } = await openTable(browser, server, 'on_top', ['Ada', 'Bob'], { players: 2 });
    const shown = await eve.page.evaluate(async () => {
      const mod = (await import('/games/on_top.js')).default;
      const { el } = await import('/dom.js');
      const st = structuredClone(window.plateau.state);
      const result = {
        winners: [0, 1], scores: [0, 0],
        reason: 'blue and yellow placed their last pawns in the same placement and share the win',
      };
      Object.assign(st, { status: 'over', to_move: null, legal_moves: [], outcome: result });
      Object.assign(st.board, { drawn: null, to_move: null, result });
      const box = document.createElement('div');
      document.body.append(box);
      mod.render(box, st, { you: null, seatName: (i) => ['Ada', 'Bob'][i], seatColour: () => '#888', play: () => {}, el });
      const out = {
        line: box.querySelector('[data-result]')?.textContent ?? null,
        panel: box.querySelector('.ot-what')?.textContent ?? '',
        tagged: [...box.querySelectorAll('.ot-colour')].filter((d) => d.textContent.includes('wins')).map((d) => d.dataset.colour),
      };
      box.remove();
      return out;
    });
    assert.equal(shown.line, 'Blue and Yellow share the win');
    assert.match(shown.panel, /Blue and yellow placed their last pawns in the same placement and share the win\./);
    assert.deepEqual(shown.tagged, ['blue', 'yellow'], 'both colours wear the "wins" tag');
  });
});

// ---------- French and English ----------

test('On Top in French: the panel, the result line and the Rules panel', { timeout: 240000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve } = await openTable(browser, server, 'on_top', ['Ada', 'Bob'], { players: 2 });
    const ada = seated[0].page;
    await ada.waitForSelector('.ot-players h3');
    assert.equal(await ada.textContent('.ot-players h3'), 'Colours · points · pawns left');
    // (a) A switch redraws the panel in French, in place; a place chosen stays chosen.
    const st = await state(ada);
    const mover = st.to_move === st.you ? ada : seated[1].page;
    await movesShown(mover);
    await mover.locator('[data-place]').first().click();
    await mover.waitForSelector('.ot-confirm');
    for (const p of new Set([ada, mover])) await p.selectOption('select.lang-picker', 'fr');
    await ada.waitForFunction(() => document.querySelector('.ot-players h3')?.textContent === 'Couleurs · points · pions restants');
    assert.equal(await ada.textContent('.ot-trackbox h3'), 'Piste de score');
    assert.equal(await ada.textContent('.ot-last h3'), 'Dernière pose');
    assert.match(await ada.textContent('.ot-last'), /Aucune tuile posée pour l’instant/);
    assert.match(await ada.textContent('.ot-drawn'), /\d+ tuiles face cachée · 8 triangles noirs en réserve/);
    assert.match(await ada.textContent('.ot-colour[data-colour="red"]'), /^Rouge\s*neutre/);
    assert.match(await mover.textContent('.ot-confirm'), /^Poser [a-f]\d+-[a-f]\d+$/);
    assert.equal(await mover.textContent('.ot-cancel'), 'Annuler');
    assert.match(await mover.textContent('.ot-drawn'), /Moitié A sur [a-f]\d+, moitié B sur [a-f]\d+\. Orientation 1 sur \d ici\./);
    await assertNoEnglishIn(ada, ['game.on_top.'], 'On Top table');
    await assertNoEnglishIn(mover, ['game.on_top.'], 'On Top table of the player to move');
    // The tile placed, the last placement is told in French.
    const before = await version(mover);
    await mover.locator('.ot-confirm').click();
    await ada.waitForFunction((v) => window.plateau.version > v && window.plateau.drawn === window.plateau.state, before);
    assert.match(await ada.textContent('.ot-last .ot-head'), /^(Ada|Bob) a posé [a-f]\d+-[a-f]\d+\./);
    await assertNoEnglishIn(ada, ['game.on_top.'], 'On Top table after a placement');
    await ada.screenshot({ path: `${shots}/on_top-fr.png` });
    await ada.selectOption('select.lang-picker', 'en');
    await ada.waitForFunction(() => document.querySelector('.ot-last h3')?.textContent === 'Last placement');

    // (b) A finished game's result line gives the reason in French.
    const { fan, over } = await watchFinishedInFrench(browser, server, 'on_top', 2);
    assert.match(over.outcome.code, /^on_top\.(points|last_pawn)$/);
    const worded = await fan.page.evaluate((o) => import('/games/on_top.js').then((m) => m.default.reason(o, { name: (i) => ['Host', 'Guest'][i] })), over.outcome);
    assert.match(worded, /(le plus de points gagne|dernier pion|derniers pions)/, worded);
    assert.ok((await fan.page.textContent('#status')).includes(worded), `the French reason in ${await fan.page.textContent('#status')}`);
    assert.equal(await fan.page.textContent('.ot-drawn h3'), 'Partie terminée');
    assert.match(await fan.page.textContent('.ot-drawn [data-reason]'), /\.$/);
    assert.ok((await fan.page.textContent('.ot-drawn [data-reason]')).toLowerCase().includes(worded.toLowerCase()), 'the panel gives the reason too');
    await assertNoEnglishIn(fan.page, ['game.on_top.', 'reason.on_top.'], 'finished On Top table');
    // Every code and form, worded by the module itself.
    const words = await fan.page.evaluate(() => import('/games/on_top.js').then(({ default: m }) => {
      const name = (i) => ['Ada', 'Bob', 'Cy', 'Dan'][i];
      return [
        m.reason({ code: 'on_top.last_pawn', args: { seats: [1], how: 'alone' } }, { name }),
        m.reason({ code: 'on_top.last_pawn', args: { seats: [0, 2], how: 'team' } }, { name }),
        m.reason({ code: 'on_top.last_pawn', args: { seats: [0, 1], how: 'shared' } }, { name }),
        m.reason({ code: 'on_top.last_pawn', args: { seats: [0, 1], how: 'both_teams' } }, { name }),
        m.reason({ code: 'on_top.points', args: { ended: 'tiles_out', neutrals: [], penalty: true, tie: 'none' } }, { name }),
        m.reason({ code: 'on_top.points', args: { ended: 'no_room', neutrals: [], penalty: true, tie: 'fewest_pawns' } }, { name }),
        m.reason({ code: 'on_top.points', args: { ended: 'neutrals_out', neutrals: [2, 3], penalty: false, tie: 'shared' } }, { name }),
        m.reason({ code: 'quirky.bag_empty', args: { points: 3, sharing: 1 } }, { name }),
      ];
    }));
    assert.deepEqual(words, [
      'Bob (jaune) a posé son dernier pion et gagne aussitôt',
      'Ada (bleu) et Cy (rouge) ont posé leurs derniers pions lors de la même pose\u00a0: leur équipe gagne',
      'Ada (bleu) et Bob (jaune) ont posé leurs derniers pions lors de la même pose et se partagent la victoire',
      'Ada (bleu) et Bob (jaune) ont posé leurs derniers pions lors de la même pose\u00a0: les deux équipes se partagent la victoire',
      "il n’y a plus de tuiles\u00a0: chaque pion inutilisé coûte 1 point\u00a0; le plus de points gagne",
      "il n’y a plus de place pour une tuile\u00a0: chaque pion inutilisé coûte 1 point\u00a0; le plus de points gagne (égalité de points\u00a0: le moins de pions restants gagne)",
      'les pions neutres (rouge et blanc) sont épuisés\u00a0; le plus de points gagne (victoire partagée\u00a0: mêmes points et mêmes pions restants)',
      null,
    ]);

    // (c) The Rules panel, illustrated, in both languages.
    const frText = await openRulesPanel(fan.page, 'on_top', 'fr');
    assert.match(frText, /Principe.*Matériel.*Tour de jeu.*Cercles et tours.*bordure jaune d’or.*Fin de la partie.*Options/s);
    assert.ok(await fan.page.locator('.rules-body figure svg').count() >= 3, 'illustrated');
    assert.ok(!frText.includes('the majority colour'), 'no English left');
    await shootRules(fan.page, `${shots}/rules-on_top-fr.png`);
    const enText = await openRulesPanel(fan.page, 'on_top', 'en');
    assert.match(enText, /Goal.*Material.*A turn.*Circles and towers.*golden border.*End of the game.*Options/s);
    await shootRules(fan.page, `${shots}/rules-on_top-en.png`);
    // At a table the panel explains the table's own options.
    await eve.page.evaluate(() => import('/rules.js').then((m) => m.openRules('on_top', { players: 4, first: '2', teams: true, start: 'random', start_triangles: 4 })));
    await eve.page.waitForFunction(() => document.querySelector('.rules-body .rules-options') !== null);
    const opts = await eve.page.textContent('.rules-body .rules-options');
    assert.match(opts, /4 players;.*Who starts: the player in seat 3\..*4 players in two teams.*cells drawn at random.*4 black start triangles/s);
    assert.ok(!opts.includes('the two red cells'), 'only the table\'s value is explained');
  });
});
