// The interface in French and English, in a real browser: a French browser opens the lobby in
// French; a choice of language is remembered; switching at a table redraws it in place (same
// table, same version, same WebSocket); a game's end, a server's error and the replay read in
// French; and no English is left on a French lobby or table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withBrowser, player, createTable, sitAt, watch, botGame, allAt, version, state, shots, root } from './harness.mjs';

const lang = (code) => JSON.parse(readFileSync(join(root, 'clients/web/lang', `${code}.json`), 'utf8'));
const en = lang('en'), fr = lang('fr');
const FR = { locale: 'fr-FR' };

// The texts of a language file, as exact texts and patterns: a value with {placeholders} becomes
// a pattern when its fixed words are enough to tell (at least four letters of them). With
// `unlike`, only the values that differ from that language's.
function texts(words, unlike = null) {
  const exact = [], patterns = [];
  for (const [key, text] of Object.entries(words)) {
    if (unlike && unlike[key] === text) continue;
    if (!/\{\w+\}/.test(text)) { exact.push([key, text.trim()]); continue; }
    const fixed = text.replace(/\{\w+\}/g, '');
    if ((fixed.match(/[A-Za-z]/g) || []).length < 4) continue;
    const source = text.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('.+');
    patterns.push([key, new RegExp(`^${source.trim()}$`)]);
  }
  return { exact, patterns };
}
// The key whose text `text` is, exactly or by its pattern, or undefined.
const match = ({ exact, patterns }, text) => (exact.find(([, e]) => e === text) || patterns.find(([, re]) => re.test(text)) || [])[0];

// The visible texts of the page (text nodes, and the placeholder, aria-label and title of
// visible elements), each with where it is; the options of a <select> count as visible.
const visibleTexts = (page) => page.evaluate(() => {
  const out = [];
  const shown = (e) => e && (e.closest('select') ? e.closest('select').checkVisibility() : e.checkVisibility());
  const where = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const parent = n.parentElement;
    if (!text || !parent || ['SCRIPT', 'STYLE'].includes(parent.tagName) || !shown(parent)) continue;
    out.push([where(parent), text]);
  }
  for (const e of document.body.querySelectorAll('[placeholder], [aria-label], [title]')) {
    if (!shown(e)) continue;
    for (const a of ['placeholder', 'aria-label', 'title']) if (e.getAttribute(a)) out.push([`${where(e)}[${a}]`, e.getAttribute(a).trim()]);
  }
  return out;
});

// Fails on a visible text that is one of English's (whose French differs) and none of French's
// (a French "place 2" is not the English "place {n}").
async function assertNoEnglish(page, what) {
  const english = texts(en, fr), french = texts(fr);
  const found = [];
  for (const [where, text] of await visibleTexts(page)) {
    const key = match(english, text);
    if (key && !match(french, text)) found.push(`${where}: "${text}" (${key})`);
  }
  assert.deepEqual(found, [], `English left on the French ${what}`);
}

const onlineIn = (page, code) => page.waitForFunction((c) => document.documentElement.lang === c
  && document.querySelector('#conn').dataset.state === 'online' && window.plateau.games.length > 0, code);

test('a French browser: the lobby in French, the choice remembered, a switch at a table redraws it in place', { timeout: 180000 }, async () => {
  await withBrowser(async (server, browser) => {
    // (a) The browser prefers French: the lobby opens in French.
    const ada = await player(browser, 'Ada', undefined, FR);
    await ada.page.goto(server.url);
    await onlineIn(ada.page, 'fr');
    assert.equal(await ada.page.getAttribute('html', 'lang'), 'fr');
    assert.equal(await ada.page.textContent('#conn'), 'en ligne');
    assert.equal(await ada.page.textContent('#create'), 'Créer la table');
    assert.equal(await ada.page.textContent('#play-computer'), "Jouer contre l’ordinateur");
    assert.equal(await ada.page.textContent('.lobby h2[data-i18n="lobby.new_table"]'), 'Nouvelle table');
    assert.equal(await ada.page.textContent('#no-history'), fr['lobby.no_history']);
    assert.equal(await ada.page.textContent('#time-control option[value=""]'), 'Aucune (partie amicale)');
    assert.equal(await ada.page.inputValue('select.lang-picker'), 'fr');
    assert.equal(await ada.page.$eval('select.lang-picker', (s) => s.selectedOptions[0].textContent), 'Français');
    // The generic options of a game, worded by the client.
    await ada.page.selectOption('#game-select', 'quantik');
    assert.match(await ada.page.textContent('#options'), /Qui commence/);
    assert.deepEqual(await ada.page.$$eval('[data-option="first"] option', (os) => os.map((o) => o.textContent)),
      ['tiré au sort', 'place 1', 'place 2']);
    await ada.page.screenshot({ path: `${shots}/lobby-fr.png`, fullPage: true });
    await assertNoEnglish(ada.page, 'lobby');

    // (b) English chosen: it stays after a reload, whatever the browser prefers.
    await ada.page.selectOption('select.lang-picker', 'en');
    await ada.page.waitForFunction(() => document.documentElement.lang === 'en');
    assert.equal(await ada.page.textContent('#create'), 'Create table');
    assert.equal(await ada.page.textContent('#conn'), 'online');
    await ada.page.reload();
    await onlineIn(ada.page, 'en');
    assert.equal(await ada.page.textContent('#create'), 'Create table');
    assert.equal(await ada.page.inputValue('select.lang-picker'), 'en');

    // At a table, in English, the game started: back to French redraws it in place.
    const room = await createTable(ada.page, server.url, 'quantik', { first: 0 });
    const bob = await player(browser, 'Bob');
    await sitAt(bob.page, server.url, room);
    await allAt([ada.page, bob.page], await version(bob.page));
    assert.equal(await ada.page.textContent('#status'), 'Your turn');
    const before = await ada.page.evaluate(() => {
      window.socketBefore = window.plateau.ws;
      return { room: window.plateau.room, version: window.plateau.version };
    });
    await ada.page.selectOption('select.lang-picker', 'fr');
    await ada.page.waitForFunction(() => document.querySelector('#status').textContent === 'À vous de jouer');
    const after = await ada.page.evaluate(() => ({
      room: window.plateau.room, version: window.plateau.version, sameSocket: window.plateau.ws === window.socketBefore,
      open: window.plateau.ws.readyState === WebSocket.OPEN, drawn: window.plateau.drawn === window.plateau.state,
    }));
    assert.deepEqual(after, { ...before, sameSocket: true, open: true, drawn: true }, 'the same table, version and socket');
    assert.equal(await ada.page.textContent('#leave'), "Retour à l’accueil");
    assert.equal(await ada.page.textContent('#resign'), 'Abandonner');
    assert.equal(await ada.page.textContent('#draw-offer'), 'Proposer un match nul');
    assert.equal(await ada.page.textContent('.seat[data-seat="0"] .tag'), 'vous');
    assert.equal(await ada.page.textContent('#conn'), 'en ligne');
    assert.equal(await ada.page.textContent('#table-rules'), fr['rules.button']);
    await ada.page.screenshot({ path: `${shots}/table-fr.png` });
    await assertNoEnglish(ada.page, 'table');
    // Bob, in English all along, reads his page in English.
    assert.equal(await bob.page.textContent('#status'), "Ada's turn");

    // Her lobby in French, her table among hers; and back to it.
    await ada.page.click('#leave');
    await ada.page.waitForSelector(`#mine-panel:not([hidden]) [data-mine="${room}"][data-turn="mine"]`);
    await ada.page.waitForSelector(`#rooms [data-room="${room}"]`);
    assert.match(await ada.page.textContent(`[data-mine="${room}"]`), /à vous de jouer.*Retour à la table/);
    assert.match(await ada.page.textContent(`#rooms [data-room="${room}"]`), /en cours.*Ouvrir/);
    await assertNoEnglish(ada.page, 'lobby with tables');
    await ada.page.click(`[data-mine="${room}"] button`);
    await ada.page.waitForFunction((v) => window.plateau.state && window.plateau.state.you === 0 && window.plateau.version >= v
      && window.plateau.drawn === window.plateau.state, before.version);
    assert.equal(await ada.page.textContent('#status'), 'À vous de jouer');

    // (c) An error of the server, in French: a move out of turn.
    const moved = await ada.page.evaluate(() => {
      window.plateau.ws.send(JSON.stringify({
        type: 'move', room: window.plateau.room, version: window.plateau.version, move: window.plateau.state.legal_moves[0] }));
      return window.plateau.version + 1;
    });
    await allAt([ada.page, bob.page], moved);
    await ada.page.waitForFunction(() => window.plateau.state.to_move === 1 && window.plateau.drawn === window.plateau.state);
    await ada.page.evaluate(() => window.plateau.ws.send(JSON.stringify({
      type: 'move', room: window.plateau.room, version: window.plateau.version, move: 'nowhere' })));
    await ada.page.locator('#error:not([hidden])').waitFor();
    const error = await ada.page.textContent('#error');
    const code = /\(([a-z_]+\/[a-z_]+)\)$/.exec(error)?.[1];
    assert.ok(code, `the error names its code: ${error}`);
    assert.equal(error, `${fr[`error.${code.replace('/', '.')}`]} (${code})`, 'the error is worded in French');
    assert.equal(await ada.page.textContent('#status'), 'Au tour de Bob');

    // Bob resigns: Ada reads the end in French, Bob in English.
    await bob.page.locator('#resign').click();
    await bob.page.locator('#confirm-resign').click();
    for (const p of [ada.page, bob.page]) {
      await p.waitForFunction(() => window.plateau.state && window.plateau.state.status === 'over' && window.plateau.drawn === window.plateau.state);
    }
    assert.equal(await ada.page.textContent('#status'), 'Vous avez gagné\u00a0! (Bob a abandonné)');
    assert.equal(await bob.page.textContent('#status'), 'Ada wins (you resigned)');
    assert.equal(await ada.page.textContent('#rematch'), 'Revanche');
    assert.equal(await ada.page.textContent('#open-replay'), 'Revoir');
  });
});

test('a whole game ends with a French result line, and replays in French', { timeout: 180000 }, async () => {
  await withBrowser(async (server, browser) => {
    const eve = await player(browser, 'Eve', undefined, FR);
    const room = await botGame(server.port, 'quantik', 3);
    await watch(eve.page, server.url, room);
    const st = await state(eve.page);
    assert.equal(st.status, 'over');
    const names = st.seats.map((s) => s.name);
    const status = await eve.page.textContent('#status');
    const winner = names[st.outcome.winners[0]];
    assert.ok(status.startsWith(`${winner} gagne (`), `the result line in French: ${status}`);
    assert.ok(!status.includes(' wins'), status);
    assert.equal(await eve.page.textContent('#crowd'), '1 spectateur');
    await assertNoEnglish(eve.page, 'finished table');

    // (d) The replay viewer.
    await eve.page.click('#open-replay');
    await eve.page.waitForSelector('#replay:not([hidden]) .q-board');
    const moves = (await (await fetch(`${server.url}/api/replay?room=${room}`)).json()).record.moves.length;
    assert.equal(await eve.page.textContent('#replay-title'), 'Revoir\u00a0: Quantik');
    const caption = await eve.page.textContent('#rp-caption');
    assert.match(caption, new RegExp(`^Coup ${moves} sur ${moves}\u00a0: (Host|Guest) a joué .+ — ${winner} a gagné \\(`));
    await eve.page.click('#rp-first');
    assert.equal(await eve.page.textContent('#rp-caption'), `Début — ${moves} coups`);
    await eve.page.click('#rp-next');
    assert.match(await eve.page.textContent('#rp-caption'), new RegExp(`^Coup 1 sur ${moves}\u00a0: (Host|Guest) a joué `));
    assert.equal(await eve.page.getAttribute('#rp-next', 'aria-label'), 'coup suivant');
    // A switch keeps the step, and words it in the other language.
    await eve.page.selectOption('select.lang-picker', 'en');
    await eve.page.waitForFunction(() => /^Move 1 of /.test(document.querySelector('#rp-caption').textContent));
    await eve.page.selectOption('select.lang-picker', 'fr');
    await eve.page.waitForFunction(() => /^Coup 1 sur /.test(document.querySelector('#rp-caption').textContent));
    await eve.page.click('#rp-last');
    assert.match(await eve.page.textContent('#rp-caption'), new RegExp(`^Coup ${moves} sur ${moves}\u00a0: `));
    await eve.page.screenshot({ path: `${shots}/replay-fr.png` });
    await assertNoEnglish(eve.page, 'replay');
    // The lobby lists the finished game in French.
    await eve.page.click('#replay-back');
    await eve.page.waitForSelector(`[data-history="${room}"]`);
    assert.match(await eve.page.textContent(`[data-history="${room}"]`), new RegExp(`${winner} a gagné.*Revoir.*Exporter`));
    await assertNoEnglish(eve.page, 'lobby with a finished game');
  });
});

// The Rules panel: it opens by itself the first time a person sits at a game, once, with the
// table's options explained; later the Rules buttons of the lobby and of the table open it.
test('the Rules panel opens once at a first seat, then from the lobby and the table', { timeout: 120000 }, async () => {
  await withBrowser(async (server, browser) => {
    const ada = await player(browser, 'Ada', undefined, { locale: 'fr-FR', rulesSeen: false });
    const rulesOpen = () => ada.page.evaluate(() => document.querySelector('#rules-dialog')?.open === true);
    const title = () => ada.page.textContent('#rules-title');
    await createTable(ada.page, server.url, 'quantik', { first: '1' });
    await ada.page.waitForFunction(() => document.querySelector('#rules-dialog')?.open
      && document.querySelector('.rules-body figure svg') !== null);
    assert.equal(await title(), 'Quantik\u00a0: les règles');
    assert.ok(await ada.page.evaluate(() => document.querySelector('.rules-body').lang === 'fr'));
    assert.deepEqual(await ada.page.evaluate(() => JSON.parse(localStorage.getItem('plateau.rulesSeen'))), ['quantik']);
    await ada.page.screenshot({ path: `${shots}/rules-first-seat-fr.png` });
    await ada.page.click('#rules-dialog .close');
    assert.equal(await rulesOpen(), false);
    // A second table of the same game: the panel stays shut.
    await ada.page.click('#leave');
    await createTable(ada.page, server.url, 'quantik');
    await ada.page.waitForTimeout(500);
    assert.equal(await rulesOpen(), false, 'once per game and browser');
    // The table's button opens it, with that table's options.
    await ada.page.click('#table-rules');
    await ada.page.waitForFunction(() => document.querySelector('#rules-dialog')?.open);
    assert.equal(await title(), 'Quantik\u00a0: les règles');
    await ada.page.keyboard.press('Escape');
    await ada.page.waitForFunction(() => !document.querySelector('#rules-dialog').open);
    // The lobby's button opens the game chosen in the "New table" form; a switch of language
    // redraws the open panel in place.
    await ada.page.click('#leave');
    await ada.page.waitForSelector('#lobby:not([hidden])');
    await ada.page.selectOption('#game-select', 'turris');
    await ada.page.click('#lobby-rules');
    await ada.page.waitForFunction(() => document.querySelector('#rules-dialog')?.open);
    assert.equal(await title(), 'Turris\u00a0: les règles');
    await ada.page.selectOption('select.lang-picker', 'en');
    await ada.page.waitForFunction(() => document.querySelector('#rules-title').textContent === 'Turris: the rules'
      && document.querySelector('.rules-body').lang === 'en');
    assert.equal(await rulesOpen(), true, 'still open after the switch');
  });
});
