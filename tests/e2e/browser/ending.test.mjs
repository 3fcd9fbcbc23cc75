// Ending a game by hand, in a real browser: a draw offered, declined, then a resignation after a
// second thought; and a draw offered and accepted. Both players and a spectator see every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openTable, state, version, shots } from './harness.mjs';

// Resolve once the page has drawn a state with that offer (a seat, or null for none), or that
// is over (and ended so, if `end` is given). Functions, not strings: the page's
// Content-Security-Policy refuses to evaluate a string.
const offerShown = (page, by) => page.waitForFunction((b) => {
  const s = window.plateau.state;
  return s && window.plateau.drawn === s && (b === null ? s.offer === null : s.offer !== null && s.offer.by === b);
}, by);
const overShown = (page, end = null) => page.waitForFunction((e) => {
  const s = window.plateau.state;
  return s && window.plateau.drawn === s && s.status === 'over' && (e === null || s.outcome.end === e);
}, end);

test('A draw offered and declined, then a resignation confirmed, seen by both players and a spectator', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve, pages } = await openTable(browser, server, 'quantik', ['Ada', 'Bob']);
    const [ada, bob] = seated.map((p) => p.page);
    assert.equal(await eve.page.locator('#resign').count(), 0, 'a spectator cannot resign');

    await ada.locator('#draw-offer').click();
    await ada.locator('#confirm-draw').click();
    for (const p of pages) await offerShown(p, 0);
    assert.equal(await ada.locator('#draw-offer').isDisabled(), true, 'her offer stands');
    await bob.locator('#draw-accept').waitFor();
    assert.match(await bob.textContent('#room-actions'), /Ada offers a draw/);
    await bob.screenshot({ path: `${shots}/ending-offer-phone.png`, fullPage: true });
    await bob.locator('#draw-decline').click();
    for (const p of pages) await offerShown(p, null);

    // A second thought: "No" sends nothing.
    await bob.locator('#resign').click();
    assert.match(await bob.textContent('#room-actions'), /Resign this game\?/);
    await bob.locator('#confirm-cancel').click();
    await bob.locator('#resign').waitFor();
    assert.equal((await state(bob)).status, 'playing');
    await bob.locator('#resign').click();
    await bob.locator('#confirm-resign').click();
    for (const p of pages) await overShown(p);
    const st = await state(eve.page);
    assert.deepEqual(st.outcome.winners, [0]);
    assert.equal(st.outcome.end, 'resigned');
    assert.match(await ada.textContent('#status'), /^You win! \(Bob resigned\)/);
    assert.match(await eve.page.textContent('#status'), /^Ada wins \(Bob resigned\)/);
    assert.equal(await bob.locator('#resign').count(), 0, 'nothing to resign once over');
    await bob.locator('#rematch').waitFor();
    await eve.page.screenshot({ path: `${shots}/ending-resigned.png` });
  });
});

test('A draw offered and accepted ends the game drawn', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, pages } = await openTable(browser, server, 'kwinty', ['Ada', 'Bob']);
    const [ada, bob] = seated.map((p) => p.page);
    await bob.locator('#draw-offer').click();
    await bob.locator('#confirm-draw').click();
    await ada.locator('#draw-accept').click();
    for (const p of pages) await overShown(p, 'agreed_draw');
    for (const p of pages) assert.match(await p.textContent('#status'), /^Draw \(draw agreed\)/);
    await ada.screenshot({ path: `${shots}/ending-drawn.png` });
  });
});

test('The player to move leaves: a countdown, then the other claims the win', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve } = await openTable(browser, server, 'quantik', ['Ada', 'Bob']);
    const [ada, bob] = seated;
    const st = await state(ada.page);
    // Whoever is to move closes their page; the other waits out the gone time, then claims.
    const [mover, other] = st.to_move === 0 ? [ada, bob] : [bob, ada];
    await mover.context.close();
    await other.page.locator('#gone:not([hidden])').waitFor({ timeout: 30000 });
    assert.match(await other.page.textContent('#gone'), new RegExp(`${mover.name} is away: you may claim the win in \\d+ s`));
    assert.match(await eve.page.textContent('#gone'), /a player may claim the win in \d+ s/);
    await other.page.screenshot({ path: `${shots}/ending-gone.png` });
    await other.page.locator('#claim').click({ timeout: 30000 });
    for (const p of [other.page, eve.page]) await overShown(p);
    const over = await state(eve.page);
    assert.equal(over.outcome.end, 'abandoned');
    assert.match(await other.page.textContent('#status'), new RegExp(`^You win! \\(${mover.name} left the game\\)`));
    assert.equal(await other.page.locator('#gone').isHidden(), true);
  }, ['--gone-seconds', '10', '--grace', '1']);
});

// A game of three goes on when a player resigns: their seat is marked as left and an easy bot
// plays it; they see the game with nothing to do, and the others play on.
test('In a game of three, who resigns leaves and an easy bot plays their seat', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve, pages } = await openTable(browser, server, 'quirky', ['Ada', 'Bob', 'Cid'], { players: 3 });
    const cid = seated[2].page;
    assert.equal(await cid.locator('#draw-offer').count(), 0, 'no draws in a game of three');
    assert.equal(await cid.locator('#takeback').count(), 0, 'no takebacks in a game that draws from a bag');
    await cid.locator('#resign').click();
    assert.match(await cid.textContent('#room-actions'), /A bot plays your seat to the end, and you rank last/);
    await cid.locator('#confirm-resign').click();
    const leftShown = (page) => page.waitForFunction(() => {
      const s = window.plateau.state;
      return s && window.plateau.drawn === s && s.left.length === 1;
    });
    for (const p of pages) await leftShown(p);
    const st = await state(eve.page);
    assert.equal(st.status, 'playing', 'the others play on');
    assert.deepEqual([st.left[0].seat, st.left[0].end, st.left[0].reason], [2, 'resigned', 'Cid resigned']);
    for (const p of pages) {
      await p.locator('.seat[data-seat="2"] .left-tag[data-left="resigned"]').waitFor();
      await p.locator('.seat[data-seat="2"] .bot-tag[data-bot="easy"]').waitFor();
    }
    assert.match(await cid.textContent('#status'), /^You left this game: an easy bot plays your seat/);
    assert.equal(await cid.locator('#resign').count(), 0, 'nothing more to resign');
    // The game goes on past Cid's seat: Ada and Bob move (by message), the bot when its turn
    // comes.
    for (let i = 0; i < 12; i++) {
      const now = await state(eve.page);
      // The bot may have played already (it is quick): its move stands until the next one.
      if (now.board.last && now.board.last.seat === 2) break;
      if (now.to_move === 2) {
        await eve.page.waitForFunction(() => {
          const s = window.plateau.state;
          return s && s.board.last && s.board.last.seat === 2 && window.plateau.drawn === s;
        });
        break;
      }
      const before = await version(eve.page);
      const mover = seated[now.to_move].page;
      await mover.waitForFunction((v) => window.plateau.version >= v && window.plateau.state
        && window.plateau.state.legal_moves.length > 0, before);
      await mover.evaluate(() => window.plateau.ws.send(JSON.stringify({
        type: 'move', room: window.plateau.room, version: window.plateau.version, move: window.plateau.state.legal_moves[0] })));
      await eve.page.waitForFunction((v) => window.plateau.version > v, before);
    }
    assert.equal((await state(eve.page)).board.last.seat, 2, "the bot played Cid's seat");
    await eve.page.screenshot({ path: `${shots}/ending-left-three.png` });
  });
});

// A casual Quantik table: Ada asks to take her move back, Bob agrees, and every page shows the
// board as it was; a table with a clock, or a game that draws from a bag, offers no takeback.
test('A takeback asked and accepted puts the board back for everyone', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const { seated, eve, pages } = await openTable(browser, server, 'quantik', ['Ada', 'Bob'], { first: '0' });
    const [ada, bob] = seated.map((p) => p.page);
    const empty = (await state(eve.page)).board;
    await ada.locator('.q-shape:not([disabled])').first().click();
    const cells = ada.locator('.q-cell[data-move]');
    await cells.first().waitFor();
    const before = await version(ada);
    await cells.first().click();
    for (const p of pages) await p.waitForFunction((v) => window.plateau.version > v && window.plateau.drawn === window.plateau.state, before);
    assert.notDeepEqual((await state(eve.page)).board, empty, 'her piece is on the board');

    await ada.locator('#takeback').click();
    assert.match(await ada.textContent('#room-actions'), /Ask to take back your last move\?/);
    await ada.locator('#confirm-takeback').click();
    await bob.locator('#takeback-accept').waitFor();
    assert.match(await bob.textContent('#room-actions'), /Ada asks to take back 1 move/);
    assert.equal(await ada.locator('#takeback').isDisabled(), true, 'hers stands');
    await bob.screenshot({ path: `${shots}/ending-takeback-phone.png`, fullPage: true });
    await bob.locator('#takeback-accept').click();
    for (const p of pages) {
      await p.waitForFunction(() => {
        const s = window.plateau.state;
        return s && window.plateau.drawn === s && s.offer === null && s.to_move === 0 && s.board.last === null;
      });
    }
    assert.deepEqual((await state(eve.page)).board, empty, 'the board as it was');
    assert.equal((await state(ada)).legal_moves.length, 64, 'Ada plays again');
    assert.match(await ada.textContent('#status'), /^Your turn/);
  });
});
