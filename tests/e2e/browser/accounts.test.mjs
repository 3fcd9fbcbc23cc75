// Accounts in a real browser (issue 46): a guest at a table registers and keeps the table; the
// account signs in on a second browser and finds it there; a wrong password is refused with
// its reason; the devices list signs the other device out, which drops back to a guest.
// In French too (issue 48): the dialog's refusals, the devices, the profile, the leaderboard and
// the chat's quick phrases, each reader reading them in their own language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withBrowser, player, createTable, shots, root } from './harness.mjs';

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

// ---------- in French (issue 48) ----------
const langFile = (code) => JSON.parse(readFileSync(join(root, 'clients/web/lang', `${code}.json`), 'utf8'));
const EN = langFile('en');
const FR = langFile('fr');
// The words of accounts, chat, profiles, leaderboard and fairness whose English is not their
// French: the pieces between the {values}, long enough to mean something.
const MINE = /^(account\.(?!form\.)|chat\.|profile\.|leaderboard\.|fair\.|games\.)/;
const ENGLISH = [...new Set(Object.keys(EN).filter((k) => MINE.test(k) && EN[k] !== FR[k])
  .flatMap((k) => EN[k].split(/\{\w+\}/).map((x) => x.trim()).filter((x) => x.length >= 4)))];

// No English of those words is visible in `selector` (its innerText: hidden parts do not count).
async function assertNoEnglish(page, selector) {
  const text = await page.locator(selector).innerText();
  const left = ENGLISH.filter((w) => text.includes(w));
  assert.deepEqual(left, [], `English left in ${selector}: ${text}`);
}

// The harness's player, in a browser that prefers `locale`.
const playerIn = (browser, name, locale) => player(browser, name, undefined, { locale });

// Switches the page's language with the header's picker and waits for the new words.
async function switchTo(page, code) {
  await page.selectOption('select.lang-picker', code);
  await page.waitForFunction((c) => document.documentElement.lang === c, code);
}

const text = (page, sel) => page.locator(sel).first().textContent();
const NBSP = '\u00a0';

test('in French: register, a wrong password, the devices, a quick phrase, the profile and the leaderboard', { timeout: 240000 }, async () => {
  await withBrowser(async (server, browser) => {
    // A French browser: the page speaks French from the start.
    const lea = await playerIn(browser, 'Léa invitée', 'fr-FR');
    await lea.page.goto(server.url);
    await lea.page.waitForFunction(() => window.plateau.games.length > 0 && document.documentElement.lang === 'fr');
    // The leaderboard nobody is on yet says what a place takes.
    await lea.page.selectOption('#board-game', 'quantik');
    await lea.page.waitForFunction(() => /^Personne pour/.test(document.querySelector('#no-board').textContent));
    assert.equal(await text(lea.page, '#no-board'),
      `Personne pour l’instant${NBSP}: pour figurer ici, il faut 1 partie classée, dont la dernière il y a moins de 90 jours.`);

    // Register; two passwords that differ are refused in French first.
    await lea.page.click('#register');
    const form = lea.page.locator('#register-form');
    await form.locator('[name=name]').fill('Léa');
    await form.locator('[name=password]').fill('correct horse');
    await form.locator('[name=confirm]').fill('correct house');
    await form.locator('button[type=submit]').click();
    await lea.page.waitForFunction(() => document.querySelector('#account-error').dataset.code === 'account/passwords_differ');
    assert.equal(await text(lea.page, '#account-error'), 'Les deux mots de passe sont différents.');
    await form.locator('[name=confirm]').fill('correct horse');
    await form.locator('button[type=submit]').click();
    await signedInAs(lea.page, 'Léa');
    assert.equal(await lea.page.getAttribute('#account-name', 'title'), `Connecté en tant que Léa${NBSP}: votre profil`);

    // Another French browser: a wrong password says why, in French; a name taken too.
    const phone = await playerIn(browser, 'quelqu’un', 'fr-FR');
    await phone.page.goto(server.url);
    await phone.page.waitForFunction(() => window.plateau.games.length > 0);
    await phone.page.click('#sign-in');
    const login = phone.page.locator('#login-form');
    await login.locator('[name=name]').fill('Léa');
    await login.locator('[name=password]').fill('wrong horse');
    await login.locator('button[type=submit]').click();
    await phone.page.waitForFunction(() => document.querySelector('#account-error').dataset.code === 'account/wrong_password');
    assert.equal(await text(phone.page, '#account-error'), 'Le nom ou le mot de passe est incorrect.');
    // The error is worded again when the language changes, in place.
    await switchTo(phone.page, 'en');
    assert.equal(await text(phone.page, '#account-error'), 'The name or the password is wrong.');
    await switchTo(phone.page, 'fr');
    assert.equal(await text(phone.page, '#account-error'), 'Le nom ou le mot de passe est incorrect.');
    await login.locator('[name=password]').fill('correct horse');
    await login.locator('button[type=submit]').click();
    await signedInAs(phone.page, 'Léa');

    // Léa's devices, in French; the device's name is what the browser that signed in called itself.
    await lea.page.click('#account-menu');
    await lea.page.waitForFunction(() => document.querySelectorAll('#devices li').length === 2);
    const devices = await lea.page.locator('#devices').innerText();
    assert.match(devices, /cet appareil/);
    assert.match(devices, /depuis le \d{1,2} \S+ \d{4}/);
    assert.match(devices, /Chrome sous Linux/);
    assert.equal(await lea.page.locator('#devices li button').textContent(), 'Déconnecter');
    await assertNoEnglish(lea.page, '#devices');
    // In English, in place: the same list, other words.
    await switchTo(lea.page, 'en');
    await lea.page.waitForFunction(() => /this device/.test(document.querySelector('#devices').textContent));
    assert.equal(await lea.page.locator('#devices li button').textContent(), 'Sign out');
    assert.match(await lea.page.locator('#devices').innerText(), /since \S+ \d{1,2}, \d{4}/);
    await switchTo(lea.page, 'fr');
    await lea.page.waitForFunction(() => /cet appareil/.test(document.querySelector('#devices').textContent));
    await lea.page.click('#account-close');

    // A rated table between Léa, who reads French, and Bob, who reads English.
    const bob = await playerIn(browser, 'bob', 'en-US');
    await register(bob.page, server.url, 'Bob');
    await lea.page.selectOption('#game-select', 'quantik');
    await lea.page.selectOption('[data-option="first"]', '0');
    await lea.page.check('#rated');
    await lea.page.click('#create');
    await lea.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 0 && window.plateau.state.rated === true);
    const room = await lea.page.evaluate(() => window.plateau.room);
    await bob.page.goto(`${server.url}/?room=${room}`);
    await bob.page.waitForFunction(() => window.plateau.state !== null);
    await bob.page.click('[data-sit]');
    await bob.page.waitForFunction(() => window.plateau.state && window.plateau.state.you === 1 && window.plateau.state.status === 'playing');
    // The phrases travel as codes: each reads them in their own language.
    assert.equal(await text(lea.page, '#chat-phrases [data-phrase="good_game"]'), 'Belle partie');
    assert.equal(await text(bob.page, '#chat-phrases [data-phrase="good_game"]'), 'Good game');
    await bob.page.click('#chat-phrases [data-phrase="good_game"]');
    await lea.page.waitForFunction(() => window.plateau.state.chat.length === 1);
    await lea.page.click('#chat-phrases [data-phrase="thanks"]');
    const lines = (page, n) => page.waitForFunction((k) => document.querySelectorAll('#chat-lines li').length === k, n);
    await lines(lea.page, 2);
    await lines(bob.page, 2);
    const said = (page) => page.locator('#chat-lines li').allTextContents();
    assert.deepEqual(await said(lea.page), [`Bob${NBSP}: Belle partiemasquer`, `Léa${NBSP}: Merci${NBSP}!`]);
    assert.deepEqual(await said(bob.page), ['Bob: Good game', 'Léa: Thanks!mute']);
    assert.equal(await text(lea.page, '#chat-title'), 'Discussion des joueurs');
    assert.equal(await text(bob.page, '#chat-title'), 'Players’ chat');
    assert.equal(await lea.page.getAttribute('#chat-lines .chat-mute', 'title'), 'Masquer les messages de Bob dans ce navigateur');
    await assertNoEnglish(lea.page, '#chat');
    await lea.page.locator('#chat').screenshot({ path: `${shots}/chat-fr.png` });
    // Switching to English redraws the lines in place; the table stays as it is.
    const v = await lea.page.evaluate(() => { window.notReloaded = true; return window.plateau.version; });
    await switchTo(lea.page, 'en');
    await lea.page.waitForFunction(() => document.querySelector('#chat-title').textContent === 'Players’ chat');
    assert.deepEqual(await said(lea.page), ['Bob: Good gamemute', 'Léa: Thanks!']);
    assert.equal(await text(lea.page, '#chat-phrases [data-phrase="hello"]'), 'Hello!');
    assert.ok(await lea.page.evaluate((x) => window.notReloaded === true && window.plateau.version === x, v), 'no reload');
    await switchTo(lea.page, 'fr');
    await lea.page.waitForFunction(() => document.querySelector('#chat-title').textContent === 'Discussion des joueurs');

    for (let i = 0; i < 16; ++i) {
      if (await lea.page.evaluate(() => window.plateau.state.status === 'over')) break;
      await playOneMove([lea.page, bob.page]);
    }
    assert.ok(await lea.page.evaluate(() => window.plateau.state.outcome), 'the game ended');
    // The draws' line, verified, in each reader's language.
    await lea.page.waitForFunction(() => document.querySelector('#fairness').dataset.verified === 'true');
    await bob.page.waitForFunction(() => document.querySelector('#fairness').dataset.verified === 'true');
    assert.match(await text(lea.page, '#fairness'), new RegExp(`^Tirages vérifiés${NBSP}: la graine \\d+ et le sel ouvrent l’empreinte [0-9a-f]{16}…$`));
    assert.match(await text(bob.page, '#fairness'), /^Draws verified: seed \d+ and salt open the commitment [0-9a-f]{16}…$/);

    // Léa's profile, in French: dates, counts, the chart, the finished game and its replay.
    await lea.page.goto(`${server.url}/?profile=${encodeURIComponent('Léa')}`);
    await lea.page.waitForFunction(() => document.querySelector('.rating-card[data-game="quantik"]') !== null);
    const profile = await lea.page.locator('#profile').innerText();
    assert.match(profile, /Membre depuis le \d{1,2} \S+ \d{4}/);
    assert.match(profile, /1 partie classée · [01] victoire · 0 nulle · [01] défaite/);
    assert.match(profile, /Évolution de la cote/);
    assert.match(profile, /Parties terminées/);
    assert.match(profile, /Parties classées, de la plus ancienne à la plus récente/);
    assert.equal(await text(lea.page, `#profile-games tr[data-history="${room}"] .rated-tag`), 'classée');
    assert.equal(await text(lea.page, `#profile-games tr[data-history="${room}"] a.small-button`), 'Revoir');
    assert.equal(await lea.page.getAttribute('.rating-chart', 'aria-label'), 'Cote après chaque partie classée');
    const tips = await lea.page.locator('.rating-chart .dot title').allTextContents();
    assert.equal(tips.length, 2);
    assert.equal(tips[0], `Départ${NBSP}: 1500`);
    assert.match(tips[1], new RegExp(`^\\d{1,2} \\S+ \\d{4}${NBSP}: \\d+ \\([+-]\\d+\\)$`));
    await assertNoEnglish(lea.page, '#profile');
    await lea.page.screenshot({ path: `${shots}/profile-fr.png` });
    // In English in place, then back: the page is not fetched again.
    await lea.page.evaluate(() => { window.notReloaded = true; });
    await switchTo(lea.page, 'en');
    await lea.page.waitForFunction(() => /Member since/.test(document.querySelector('#profile').innerText));
    assert.match(await lea.page.locator('#profile').innerText(), /1 rated · [01] won · 0 drawn · [01] lost/);
    await switchTo(lea.page, 'fr');
    await lea.page.waitForFunction(() => /Membre depuis le/.test(document.querySelector('#profile').innerText));
    assert.ok(await lea.page.evaluate(() => window.notReloaded === true), 'no reload');

    // Nobody's profile says so in French.
    await lea.page.goto(`${server.url}/?profile=Personne`);
    await lea.page.waitForFunction(() => document.querySelector('#profile-body .error') !== null);
    assert.equal(await text(lea.page, '#profile-body .error'), 'Aucun compte ne porte ce nom.');

    // The leaderboard, in French, has both; its numbers are plain.
    await lea.page.goto(server.url);
    await lea.page.selectOption('#board-game', 'quantik');
    await lea.page.waitForFunction(() => document.querySelectorAll('#board tr').length === 2);
    for (const cell of await lea.page.locator('#board td:nth-child(3)').allTextContents()) assert.match(cell, /^\d{3,4}$/);
    await assertNoEnglish(lea.page, '#board');
    await lea.page.locator('.board-panel').screenshot({ path: `${shots}/leaderboard-fr.png` });
  }, ['--password-memory-kib', '8192', '--password-ops', '1', '--leaderboard-min-games', '1']);
});
