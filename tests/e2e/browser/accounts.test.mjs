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
