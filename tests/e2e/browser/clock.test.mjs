// Clocks in a real browser: a 1+0 Quantik table chosen in the lobby's create panel, one move by
// Ada, then Bob (on a phone) lets his minute run out. Both players and a spectator see his clock
// go down, then the game lost on time; the lobby lists the table as "1+0". And "Your tables"
// puts the correspondence games waiting for the player's move first, the soonest due on top.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, state, version, allAt, sitAt, watch, shots, PHONE } from './harness.mjs';

// The page has drawn a state of the round over.
// Shown over; false, not an exception, while a reloaded page has no state yet (both null).
const over = () => {
  const s = window.plateau.state;
  return s !== null && window.plateau.drawn === s && s.status === 'over';
};

// A clock's text in seconds: "1:00", "0:59", "0:09.4", "1:02:03".
function seconds(text) {
  assert.match(text, /^\d+(:\d\d){1,2}(\.\d)?$/, `a live clock reads m:ss: "${text}"`);
  return text.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
}
const clockOf = (page, seat) => page.textContent(`[data-clock-time="${seat}"]`);

// The `create` messages a page sends.
function createsOf(page) {
  const sent = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => {
    try {
      const m = JSON.parse(f.payload);
      if (m.type === 'create') sent.push(m);
    } catch { /* not JSON */ }
  }));
  return sent;
}

// From the lobby of `page`: a table of `game` with the time control labelled `control` (and
// `options`); returns its room once the page sits there.
async function createTimed(page, url, game, control, options = {}) {
  await page.goto(url);
  await page.waitForFunction(() => window.plateau.games.length > 0);
  await page.selectOption('#game-select', game);
  for (const [k, v] of Object.entries(options)) await page.selectOption(`[data-option="${k}"]`, String(v));
  await page.selectOption('#time-control', { label: control });
  await page.click('#create');
  await page.waitForFunction(() => window.plateau.state && window.plateau.state.you !== null);
  return page.evaluate(() => window.plateau.room);
}

test('a 1+0 game: Bob lets his minute run out, and every page shows the loss on time', { timeout: 150000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'Ada');
    const bob = await player(browser, 'Bob', PHONE);
    const eve = await player(browser, 'Eve');
    const creates = createsOf(ada.page);

    // A 3-player On Top table may have a clock too: a bot plays on for a player whose time runs
    // out.
    await ada.page.goto(server.url);
    await ada.page.waitForFunction(() => window.plateau.games.length > 0);
    assert.equal(await ada.page.inputValue('#time-control'), '', 'no clock unless chosen');
    await ada.page.selectOption('#game-select', 'on_top');
    await ada.page.selectOption('[data-option="players"]', '3');
    assert.equal(await ada.page.isDisabled('#time-control'), false, 'a clock for three players');

    const room = await createTimed(ada.page, server.url, 'quantik', '1+0', { first: 0 });
    const live = { kind: 'live', base_ms: 60000, increment_ms: 0 };
    assert.equal(creates.length, 1);
    assert.deepEqual(creates[0].clock, live, 'the create sent names the 1+0 clock');
    assert.deepEqual((await state(ada.page)).clock.control, live, 'and the table has it');
    await ada.page.locator('[data-clock="1"]').waitFor();
    assert.equal(await clockOf(ada.page, 0), '1:00', 'a full minute before the game starts');

    // The lobby lists the table with its time control.
    await eve.page.goto(server.url);
    await eve.page.waitForFunction((r) => {
      const tc = document.querySelector(`#rooms [data-room="${r}"] .time-control`);
      return tc && tc.textContent === '1+0';
    }, room);
    await eve.page.screenshot({ path: `${shots}/clock-lobby.png` });

    await watch(eve.page, server.url, room);
    await sitAt(bob.page, server.url, room);
    const pages = [ada.page, bob.page, eve.page];
    await allAt(pages, await version(bob.page));
    assert.equal((await state(eve.page)).status, 'playing');
    // Bob wants a beep when his clock passes 10 s; the choice is remembered.
    assert.equal(await eve.page.isVisible('#clock-sound'), false, 'a spectator has no clock of their own');
    await bob.page.check('#clock-sound');
    assert.equal(await bob.page.evaluate(() => localStorage.getItem('plateau.clockSound')), '1');

    assert.equal(await ada.page.locator('#takeback').count(), 0, 'no takebacks with a clock');
    // Ada's clock runs; she moves by clicks.
    await ada.page.locator('[data-clock="0"].running').waitFor();
    const before = await version(ada.page);
    await ada.page.locator('.q-shape:not([disabled])').first().click();
    const cells = ada.page.locator('.q-cell[data-move]');
    await cells.first().waitFor();
    await cells.nth(Math.floor((await cells.count()) / 2)).click();
    await allAt(pages, before + 1);

    // Now Bob's runs, on every page, and goes down.
    for (const p of pages) await p.locator('[data-clock="1"].running').waitFor();
    const first = [];
    for (const p of pages) first.push(seconds(await clockOf(p, 1)));
    await new Promise((r) => setTimeout(r, 1500));  // to see it tick
    const second = [];
    for (const p of pages) second.push(seconds(await clockOf(p, 1)));
    await ada.page.screenshot({ path: `${shots}/clock-running.png` });
    await bob.page.screenshot({ path: `${shots}/clock-running-phone.png`, fullPage: true });
    for (let i = 0; i < pages.length; i++) {
      assert.ok(first[i] <= 60 && first[i] > 10, `Bob's clock started from a minute: ${first[i]}`);
      assert.ok(second[i] < first[i] && second[i] > first[i] - 6, `Bob's clock goes down on page ${i}: ${first[i]} then ${second[i]}`);
      assert.ok(Math.abs(second[i] - second[0]) <= 3, `the pages agree: ${second.join(', ')}`);
    }
    const adaLeft = seconds(await clockOf(eve.page, 0));
    assert.ok(adaLeft <= 60 && adaLeft > 30, `Ada's clock stopped when she moved: ${adaLeft}`);
    assert.equal(await eve.page.locator('[data-clock="0"].running').count(), 0);

    // Under 20 s his clock turns red.
    await bob.page.locator('[data-clock="1"].running.low').waitFor({ timeout: 60000 });
    assert.ok(seconds(await clockOf(bob.page, 1)) <= 20, "red under 20 s (shown rounded up)");
    await bob.page.screenshot({ path: `${shots}/clock-low-phone.png`, fullPage: true });

    // The flag falls, without anyone's message.
    for (const p of pages) await p.waitForFunction(over, null, { timeout: 100000 });
    const st = await state(eve.page);
    assert.equal(st.outcome.end, 'flagged');
    assert.equal(st.outcome.seat, 1);
    assert.deepEqual(st.outcome.winners, [0]);
    assert.equal(st.clock.running, null, 'no clock runs once over');
    assert.match(await ada.page.textContent('#status'), /^You win! \(Bob ran out of time\)/);
    assert.match(await bob.page.textContent('#status'), /^Ada wins \(you ran out of time\)/);
    assert.match(await eve.page.textContent('#status'), /^Ada wins \(Bob ran out of time\)/);
    for (const p of pages) {
      assert.equal(await clockOf(p, 1), '0:00', "Bob's clock shows his time gone");
      assert.equal(await p.locator('[data-clock="1"].flagged').count(), 1);
      assert.equal(await p.locator('.clock.running').count(), 0);
      assert.equal(seconds(await clockOf(p, 0)), adaLeft, "Ada's clock stands where it stopped");
    }
    assert.equal(await bob.page.evaluate(() => window.plateau.beeps), 1, 'one beep as his clock passed 10 s');
    assert.equal(await ada.page.evaluate(() => window.plateau.beeps), 0, 'none for Ada, whose clock never ran low');
    // The phone shows both clocks side by side, the page no wider than the screen.
    const layout = await bob.page.evaluate(() => {
      const [a, b] = [...document.querySelectorAll('#clocks .clock')].map((c) => c.getBoundingClientRect());
      return { same: Math.abs(a.top - b.top) < 2, right: b.right, width: document.documentElement.scrollWidth };
    });
    assert.ok(layout.same && layout.right <= PHONE.width && layout.width <= PHONE.width, JSON.stringify(layout));
    await ada.page.screenshot({ path: `${shots}/clock-flagged.png` });
    await bob.page.screenshot({ path: `${shots}/clock-flagged-phone.png`, fullPage: true });
    await eve.page.screenshot({ path: `${shots}/clock-flagged-spectator.png` });

    // A fresh page of Bob's shows the same, his sound still on.
    await bob.page.reload();
    await bob.page.waitForFunction(over);
    assert.equal(await clockOf(bob.page, 1), '0:00');
    assert.equal(await bob.page.isChecked('#clock-sound'), true, 'the sound choice is remembered');

    // The replay's last step shows the clocks as the game ended.
    await ada.page.click('#open-replay');
    await ada.page.waitForSelector('#replay:not([hidden]) #replay-clocks:not([hidden]) [data-clock-time="1"]');
    assert.equal(await ada.page.textContent('#replay-clocks [data-clock-time="1"]'), '0:00');
    assert.equal(seconds(await ada.page.textContent('#replay-clocks [data-clock-time="0"]')), adaLeft);
    await ada.page.screenshot({ path: `${shots}/clock-replay.png` });
  });
});

test('Your tables: correspondence games waiting for my move come first, the soonest due on top', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'Ada');
    const bob = await player(browser, 'Bob');
    // Ada to move at each: a 1-day table, then a 7-day one, then one without a clock (the most
    // recent, so the server lists it first).
    const rooms = [];
    for (const control of ['1 day a move', '7 days a move', 'None (casual)']) {
      const room = await createTimed(ada.page, server.url, 'quantik', control, { first: 0 });
      await sitAt(bob.page, server.url, room);
      rooms.push(room);
    }
    await ada.page.click('#leave');
    await ada.page.waitForFunction((n) => document.querySelectorAll('#mine [data-mine]').length === n, rooms.length);
    const lines = await ada.page.$$eval('#mine [data-mine]', (rs) => rs.map((r) => [r.dataset.mine, r.textContent]));
    assert.deepEqual(lines.map(([r]) => r), rooms, 'the 1-day game first, then the 7-day one, then the rest');
    assert.match(lines[0][1], /1 day.*your turn · (1d|23h \d+m) left/);
    assert.match(lines[1][1], /7 days.*your turn · (7d|6d 23h) left/);
    assert.doesNotMatch(lines[2][1], /left/);
    // Bob, whose turn it is nowhere, sees their time left too.
    await bob.page.click('#leave');
    await bob.page.waitForFunction(() => document.querySelectorAll('#mine [data-mine]').length === 3);
    assert.match(await bob.page.textContent(`[data-mine="${rooms[0]}"]`), /their turn · (1d|23h \d+m) left/);
    await ada.page.screenshot({ path: `${shots}/clock-your-tables.png` });

    // "Play the computer" takes the time control chosen too.
    await ada.page.selectOption('#game-select', 'quantik');
    await ada.page.selectOption('#time-control', { label: '3+2' });
    await ada.page.click('#play-computer');
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.status === 'playing'
      && window.plateau.drawn === window.plateau.state);
    assert.deepEqual((await state(ada.page)).clock.control, { kind: 'live', base_ms: 180000, increment_ms: 2000 });
    await ada.page.locator('#clocks [data-clock="1"]').waitFor();
  });
});
