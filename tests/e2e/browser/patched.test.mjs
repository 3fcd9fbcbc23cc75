// The client builds its page from the state it patched: for every game, a spectator who has
// followed every patch of a whole game from before its first move shows, at the end, exactly
// the page a newcomer is shown from one whole state; so does one who arrived midway. Two bots
// (plateau-cli, random legal moves, seeded) play as fast as they can, so the patches come in
// quick succession, and each is rendered as it comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, watch, version, drawnAt, botGame, shown, assertSamePage, offeredGames } from './harness.mjs';

test('every game: a spectator\'s page, patched move by move, is the page a newcomer gets', { timeout: 600000 }, async (t) => {
  await withBrowser(async (server, browser) => {
    const [eve, mia, zed] = [await player(browser, 'Eve'), await player(browser, 'Mia'), await player(browser, 'Zed')];
    for (const [g, game] of (await offeredGames(eve.page, server.url)).entries()) {
      await t.test(game, async () => {
        // Eve watches from before the first move; Mia opens the room once some moves are made.
        let midway = null;
        const room = await botGame(server.port, game, 11 + g, async (id) => {
          await watch(eve.page, server.url, id);
          assert.equal(await version(eve.page), 1, 'Eve has the table before the second seat is taken');
          midway = eve.page.waitForFunction(() => window.plateau.version >= 6).then(() => watch(mia.page, server.url, id));
        });
        await midway;
        await watch(zed.page, server.url, room);
        const end = await version(zed.page);
        for (const p of [eve.page, mia.page]) await drawnAt(p, end);
        const fresh = await shown(zed.page);
        assert.match(fresh[2][1], /wins|Draw|Shared win/, 'the game is over');
        for (const [who, page, from] of [['Eve', eve.page, 'the start'], ['Mia', mia.page, 'midway']]) {
          await assertSamePage(page, fresh, `${who}, following from ${from} to version ${end}`);
        }
      });
    }
  });
});

// A page that falls behind (a tab waking up, a slow phone) gets its patches in a burst. The first
// that does not follow on makes it ask for the whole state; the rest of the burst, which that
// state holds, must not each ask again. With `flood`, the server allows 20 messages a second
// (bursts of 40) and the page sends 100 just before that ask, so it is refused: the page must
// ask again, once.
async function fallBehind(flood) {
  await withBrowser(async (server, browser) => {
    const [eve, zed] = [await player(browser, 'Eve'), await player(browser, 'Zed')];
    let syncs = 0;
    eve.page.on('websocket', (ws) => ws.on('framesent', (f) => { if (JSON.parse(f.payload).type === 'sync') syncs++; }));
    let before = 0;
    const room = await botGame(server.port, 'ltiles', 5, async (id) => {
      await watch(eve.page, server.url, id);
      before = syncs;
      // Eve's page forgets its last patch, then is too busy to read its socket for a while:
      // the whole game's patches queue up behind it.
      // With `flood`, her first sync goes right behind 100 other frames.
      await eve.page.evaluate((n) => {
        const ws = window.plateau.ws, send = ws.send.bind(ws);
        ws.send = (frame) => {
          if (JSON.parse(frame).type === 'sync') {
            for (let i = 0; i < n; i++) send('{"type":"junk"}');
            ws.send = send;
          }
          send(frame);
        };
        setTimeout(() => {
          window.plateau.version -= 1;
          for (const end = Date.now() + 1500; Date.now() < end;);
        }, 0);
      }, flood ? 100 : 0);
    });
    await watch(zed.page, server.url, room);
    const end = await version(zed.page);
    assert.ok(end > 30, `the bots played a whole game (version ${end})`);
    await drawnAt(eve.page, end);
    assert.equal(syncs - before, flood ? 2 : 1, `Eve asked for the whole state ${syncs - before} times`);
    await assertSamePage(eve.page, await shown(zed.page), `Eve, back from behind at version ${end}`);
  }, flood ? ['--rate', '20'] : []);
}

test('a page that falls behind asks for the whole state once, not once per patch', { timeout: 300000 }, () => fallBehind(false));
test('a page that falls behind while over the rate limit asks again when refused', { timeout: 300000 }, () => fallBehind(true));
