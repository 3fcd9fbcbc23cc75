// Accounts in a real browser (issue 46): a guest at a table registers and keeps the table; the
// account signs in on a second browser and finds it there; a wrong password is refused with
// its reason; the devices list signs the other device out, which drops back to a guest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, player, createTable, shots } from './harness.mjs';

const signedInAs = (page, name) =>
  page.waitForFunction((n) => window.plateauAccount && window.plateauAccount.name === n, name);

test('register from a table, sign in elsewhere, sign the other device out', { timeout: 180000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'ada guest');
    const room = await createTable(ada.page, server.url, 'quantik', { first: 0 });
    const player1 = await ada.page.evaluate(() => window.plateau.player);

    // Register from the header; the guest's table comes along.
    await ada.page.click('#register');
    const form = ada.page.locator('#register-form');
    await form.locator('[name=name]').fill('Ada');
    await form.locator('[name=password]').fill('correct horse');
    await form.locator('[name=confirm]').fill('correct horse');
    await ada.page.screenshot({ path: `${shots}/accounts-register.png` });
    await form.locator('button[type=submit]').click();
    await signedInAs(ada.page, 'Ada');
    assert.equal(await ada.page.evaluate(() => window.plateau.player), player1, 'the same player');
    assert.equal(await ada.page.locator('#account-name').textContent(), 'Ada');
    assert.equal(await ada.page.locator('#sign-in').isHidden(), true);
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0);
    await ada.page.waitForFunction(() => window.plateau.state.seats[0].name === 'Ada');

    // Another browser: a wrong password says why; the right one finds the table.
    const phone = await player(browser, 'someone');
    await phone.page.goto(server.url);
    await phone.page.waitForFunction(() => window.plateau.games.length > 0);
    await phone.page.click('#sign-in');
    const login = phone.page.locator('#login-form');
    await login.locator('[name=name]').fill('ADA');
    await login.locator('[name=password]').fill('wrong horse');
    await login.locator('button[type=submit]').click();
    await phone.page.waitForFunction(() => document.querySelector('#account-error').dataset.code === 'account/wrong_password');
    await login.locator('[name=password]').fill('correct horse');
    await login.locator('button[type=submit]').click();
    await signedInAs(phone.page, 'Ada');
    assert.equal(await phone.page.evaluate(() => window.plateau.player), player1);
    // The lobby lists the table among hers.
    await phone.page.waitForFunction((r) => document.querySelector(`#mine tr[data-mine="${r}"]`) !== null, room);
    await phone.page.screenshot({ path: `${shots}/accounts-second-device.png` });

    // Ada's first browser lists both devices and signs the phone out.
    await ada.page.click('#account-menu');
    await ada.page.waitForFunction(() => document.querySelectorAll('#devices li').length === 2);
    await ada.page.screenshot({ path: `${shots}/accounts-devices.png` });
    await ada.page.locator('#devices li button').click();
    await ada.page.waitForFunction(() => document.querySelectorAll('#devices li').length === 1);
    // The phone is told at once, and is a guest again.
    await phone.page.waitForFunction(() => window.plateauAccount.name === null && !document.querySelector('#sign-in').hidden);
    await phone.page.waitForFunction((p) => window.plateau.player && window.plateau.player !== p, player1);
    // Ada is still signed in, across a reload.
    await ada.page.reload();
    await signedInAs(ada.page, 'Ada');
  }, ['--password-memory-kib', '8192', '--password-ops', '1']);
});

// Registers `name` from the header of a fresh page.
async function register(page, url, name) {
  await page.goto(url);
  await page.waitForFunction(() => window.plateau.games.length > 0);
  await page.click('#register');
  const form = page.locator('#register-form');
  await form.locator('[name=name]').fill(name);
  await form.locator('[name=password]').fill('correct horse');
  await form.locator('[name=confirm]').fill('correct horse');
  await form.locator('button[type=submit]').click();
  await signedInAs(page, name);
}

// One Quantik move by whoever's turn it is, by clicks: a shape, then a square.
async function playOneMove(pages) {
  const v = await pages[0].evaluate(() => window.plateau.version);
  for (const page of pages) {
    const mine = await page.evaluate(() => window.plateau.state.status === 'playing' && window.plateau.state.to_move === window.plateau.state.you);
    if (!mine) continue;
    await page.locator('.q-shape:not([disabled])').first().click();
    const cells = page.locator('.q-cell[data-move]');
    await cells.first().waitFor();
    await cells.nth(Math.floor(Math.random() * (await cells.count()))).click();
    break;
  }
  for (const page of pages) await page.waitForFunction((x) => window.plateau.version > x && window.plateau.drawn === window.plateau.state, v);
}

test('a rated game between two accounts moves both ratings, on the profiles and the leaderboard', { timeout: 240000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'ada');
    const bob = await player(browser, 'bob');
    await register(ada.page, server.url, 'Ada');
    await register(bob.page, server.url, 'Bob');
    // Ada creates a rated table; the box is there only for accounts.
    await ada.page.selectOption('#game-select', 'quantik');
    await ada.page.selectOption('[data-option="first"]', '0');
    await ada.page.check('#rated');
    await ada.page.click('#create');
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0 && window.plateau.state.rated === true);
    const room = await ada.page.evaluate(() => window.plateau.room);
    await bob.page.goto(`${server.url}/?room=${room}`);
    await bob.page.waitForFunction(() => window.plateau.state !== null);
    await bob.page.click('[data-sit]');
    await bob.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 1 && window.plateau.state.status === 'playing');
    // They chat; a guest watching chats with the spectators, unseen by the players.
    const eve = await player(browser, 'Eve');
    await eve.page.goto(`${server.url}/?room=${room}`);
    await eve.page.waitForFunction(() => window.plateau.state && window.plateau.state.status === 'playing');
    await ada.page.fill('#chat-input', 'good luck, Bob');
    await ada.page.press('#chat-input', 'Enter');
    await bob.page.click('#chat-phrases [data-phrase="thanks"]');
    await eve.page.fill('#chat-input', 'Bob, watch the corner');
    await eve.page.click('#chat-form button[type=submit]');
    const lines = (page, n) => page.waitForFunction((k) => document.querySelectorAll('#chat-lines li').length === k, n);
    await lines(ada.page, 2);
    await lines(bob.page, 2);
    await lines(eve.page, 1);
    assert.equal(await bob.page.locator('#chat-lines li').first().textContent(), 'Ada: good luck, Bobmute');
    assert.match(await ada.page.locator('#chat-lines li').nth(1).textContent(), /^Bob: Thanks!/);
    assert.ok(!(await ada.page.evaluate(() => JSON.stringify(window.plateau.state))).includes('corner'), 'a spectator reached a player');
    await ada.page.screenshot({ path: `${shots}/accounts-rated-table.png` });
    // kill -9: the chat was stored before it was shown, and comes back with the table.
    await server.crashAndRestart();
    for (const p of [ada.page, bob.page, eve.page])
      await p.waitForFunction(() => document.querySelector('#conn').dataset.state === 'online', null, { timeout: 30000 });
    await lines(ada.page, 2);
    await lines(bob.page, 2);
    await lines(eve.page, 1);
    await ada.page.waitForFunction(() => window.plateau.state && window.plateau.state.status === 'playing' && window.plateau.state.you === 0);
    for (let i = 0; i < 16; ++i) {
      if (await ada.page.evaluate(() => window.plateau.state.status === 'over')) break;
      await playOneMove([ada.page, bob.page]);
    }
    const outcome = await ada.page.evaluate(() => window.plateau.state.outcome);
    assert.ok(outcome, 'the game ended');
    const winner = outcome.winners.length === 1 ? (outcome.winners[0] === 0 ? 'Ada' : 'Bob') : null;
    // Over: the spectator reads the players' chat too; the players still only theirs.
    await lines(eve.page, 3);
    await eve.page.screenshot({ path: `${shots}/accounts-chat-spectator-after.png` });
    assert.equal(await ada.page.locator('#chat-lines li').count(), 2);
    // The replay shows the chat, both channels.
    await eve.page.goto(`${server.url}/?replay=${room}&round=1`);
    await eve.page.waitForFunction(() => !document.querySelector('#replay-chat').hidden);
    await eve.page.waitForFunction(() => document.querySelectorAll('#replay-chat-lines li').length === 3);

    // Both profiles show one rated game and a moved rating; the winner's went up.
    for (const [page, name] of [[ada.page, 'Ada'], [bob.page, 'Bob']]) {
      await page.goto(`${server.url}/?profile=${name}`);
      await page.waitForFunction(() => document.querySelector('.rating-card[data-game="quantik"]') !== null);
      const card = await page.locator('.rating-card[data-game="quantik"] .rating-value').textContent();
      const rating = Number.parseInt(card, 10);
      if (winner === name) assert.ok(rating > 1500, `${name} won: ${card}`);
      else if (winner) assert.ok(rating < 1500, `${name} lost: ${card}`);
      assert.equal(await page.locator('.rating-chart .dot').count(), 2, 'the start and one game');
      assert.ok(await page.locator(`#profile-games tr[data-history="${room}"]`).count() === 1);
      await page.screenshot({ path: `${shots}/accounts-profile-${name}.png` });
    }
    // The leaderboard lists both, the winner first.
    await ada.page.goto(server.url);
    await ada.page.selectOption('#board-game', 'quantik');
    await ada.page.waitForFunction(() => document.querySelectorAll('#board tr').length === 2);
    const first = await ada.page.locator('#board tr').first().getAttribute('data-board');
    if (winner) assert.equal(first, winner);
    await ada.page.locator('.board-panel').screenshot({ path: `${shots}/accounts-leaderboard.png` });
    // A name there opens the profile in place.
    await ada.page.locator('#board a[data-profile="Bob"]').click();
    await ada.page.waitForFunction(() => !document.querySelector('#profile').hidden && document.querySelector('#profile-name').textContent === 'Bob');
  }, ['--password-memory-kib', '8192', '--password-ops', '1', '--leaderboard-min-games', '1']);
});
