// Starts a real plateau-server on 127.0.0.1 (a free port, a fresh data directory) and Debian's
// Chromium through playwright-core. Everything is bounded in time and stops by itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../..');
export const shots = resolve(here, '../screenshots');

export function serverBinary() {
  return process.env.PLATEAU_SERVER || join(root, 'build/server/plateau-server');
}

// The terminal client and bot runner built next to the server.
export function cliBinary() {
  return join(dirname(dirname(serverBinary())), 'clients/cli/plateau-cli');
}

// Two bots play a whole game of `game` on the server at `port` (random legal moves from
// `seed`); returns its room once both have seen the end. `beforeGuest(room)`, if given, is
// awaited between the table's creation and the second bot's arrival (the game starts then).
// Bounded: 60 s.
export async function botGame(port, game, seed = 1, beforeGuest = async () => {}) {
  // One bot; `onOutput` sees all it printed so far. Resolves when it exits cleanly.
  const run = (args, onOutput = () => {}) => new Promise((ok, fail) => {
    const p = spawn(cliBinary(), ['--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), 60000);
    p.stdout.on('data', (d) => { out += d; onOutput(out); });
    p.on('exit', (code) => { clearTimeout(timer); if (code === 0) ok(out); else fail(new Error(`bot exited ${code}: ${out}`)); });
  });
  let seen = null, roomSeen;
  const room = new Promise((ok) => { roomSeen = ok; });
  const host = run(['--name', 'Host', 'bot', '--game', game, '--seed', String(seed)], (out) => {
    const m = /^room (\S+)$/m.exec(out);
    if (m && !seen) roomSeen(seen = m[1]);
  });
  // A host that ends before it prints its room (or fails) ends the wait too.
  const id = await Promise.race([room, host.then(() => seen ?? Promise.reject(new Error('the host bot ended without a room')))]);
  await beforeGuest(id);
  const guest = run(['--name', 'Guest', 'bot', '--room', id, '--seed', String(seed + 1)]);
  await Promise.all([host, guest]);
  return id;
}

async function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
    s.on('error', fail);
  });
}

async function spawnServer(port, data, extra) {
  const proc = spawn(serverBinary(), ['--host', '127.0.0.1', '--port', String(port), '--data', data,
    '--log-level', 'warn', '--rate', '1000', '--grace', '0',
    // Every page comes from 127.0.0.1: the per-address and per-player limits are not tested here.
    '--creates-per-minute', '100000', '--new-players-per-minute', '100000', '--max-rooms-per-player', '100000',
    ...extra], { stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error('server did not start'); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return proc;
}

export async function startServer(extra = []) {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'plateau-e2e-'));
  let proc = await spawnServer(port, data, extra);
  const url = `http://127.0.0.1:${port}`;
  return {
    url, port, data,
    get proc() { return proc; },
    // kill -9, then the same binary on the same port and store.
    async crashAndRestart() {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
      proc = await spawnServer(port, data, extra);
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  mkdirSync(shots, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // English unless a context asks for another language (see `player`).
    args: ['--lang=en-US', '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
}

// Runs `body(server, browser)` on a fresh server (started with `extra` options) and browser,
// and stops both however it ends.
export async function withBrowser(body, extra = []) {
  const server = await startServer(extra);
  const browser = await launchBrowser();
  try {
    return await body(server, browser);
  } finally {
    await browser.close();
    await server.stop();
  }
}

export const pick = (list) => list[Math.floor(Math.random() * list.length)];

// The elements matching `sel` a person could click now: on screen once scrolled to, and not
// hidden behind another part of the drawing (a ghost at the back of a tower may be).
export async function clickable(page, sel = '[data-move]') {
  const ok = [];
  for (const h of await page.$$(sel)) {
    const free = await h.evaluate((e) => {
      e.scrollIntoView({ block: 'center', inline: 'center' });
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && (hit === e || e.contains(hit));
    });
    if (free) ok.push(h);
  }
  return ok;
}

// The games whose Rules panel a test's browser has seen already (it opens by itself, once, the
// first time a person sits at a game, over the table: most tests have other things to do).
const ALL_GAMES = ['quantik', 'kwinty', 'turris', 'quirky', 'on_top', 'ltiles'];

// A browser context whose client is called `name`. Its browser speaks `locale` (American English
// unless asked: the tests read the page's English words whatever the machine's LANG); with
// `rulesSeen: false` the Rules panel opens by itself at the first seat taken at a game, as for a
// new visitor.
export async function player(browser, name, viewport = { width: 1100, height: 800 }, { locale = 'en-US', rulesSeen = true } = {}) {
  const context = await browser.newContext({ viewport: viewport || { width: 1100, height: 800 }, locale });
  await context.addInitScript(([n, seen]) => {
    if (!localStorage.getItem('plateau.name')) localStorage.setItem('plateau.name', n);
    if (seen && !localStorage.getItem('plateau.rulesSeen')) localStorage.setItem('plateau.rulesSeen', JSON.stringify(seen));
  }, [name, rulesSeen ? ALL_GAMES : null]);
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  // The stack says whose code threw: the page's, or a test's predicate run in it.
  page.on('pageerror', (e) => { throw new Error(`${name}: page error: ${e.message}\n${e.stack}`); });
  // The server's Content-Security-Policy must never stop the client: a refusal fails the test.
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) throw new Error(`${name}: ${m.text()}`);
  });
  return { context, page, name };
}

export const state = (page) => page.evaluate(() => window.plateau.state);
export const version = (page) => page.evaluate(() => window.plateau.version);

// Waits until every page has reached `v` and drawn what it has.
export async function allAt(pages, v) {
  for (const p of pages) await p.waitForFunction((x) => window.plateau.version >= x && window.plateau.drawn === window.plateau.state, v);
}

// The ids of the games the server offers, in its order, as its `welcome` lists them to the
// lobby of `page`.
export async function offeredGames(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.plateau.games.length > 0);
  return page.evaluate(() => window.plateau.games.map((g) => g.id));
}

// Creates a table of `game` from the lobby of `page`; returns the room id once seated.
export async function createTable(page, url, game, options = {}) {
  await page.goto(url);
  await page.waitForFunction(() => window.plateau.games.length > 0);
  await page.selectOption('#game-select', game);
  for (const [k, v] of Object.entries(options)) await page.selectOption(`[data-option="${k}"]`, String(v));
  await page.click('#create');
  await page.waitForFunction(() => window.plateau.state && window.plateau.state.you !== null);
  return page.evaluate(() => window.plateau.room);
}

// Opens the invite link and takes a seat (the first free one, or `seat`).
export async function sitAt(page, url, room, seat = null) {
  await page.goto(`${url}/?room=${room}`);
  await page.waitForFunction(() => window.plateau.state !== null);
  const sel = seat === null ? '[data-sit]' : `[data-sit="${seat}"]`;
  await page.click(sel);
  await page.waitForFunction(() => window.plateau.state && window.plateau.state.you !== null);
}

export const PHONE = { width: 390, height: 844 };

// A table of `game` from the lobby: the first of `names` creates it, the others sit through the
// invite link (the second on a phone), and 'Eve' watches. Returns when every page has the state,
// having checked that the game has started and that Eve has no seat.
export async function openTable(browser, server, game, names, options = {}) {
  const seated = [];
  for (let i = 0; i < names.length; i++) seated.push(await player(browser, names[i], i === 1 ? PHONE : undefined));
  const eve = await player(browser, 'Eve');
  const room = await createTable(seated[0].page, server.url, game, options);
  await watch(eve.page, server.url, room);
  for (const p of seated.slice(1)) await sitAt(p.page, server.url, room);
  const pages = [...seated.map((p) => p.page), eve.page];
  await allAt(pages, await version(seated[seated.length - 1].page));
  const watched = await state(eve.page);
  assert.equal(watched.status, 'playing', 'the table is full, so the game has started');
  assert.equal(watched.you, null, 'the spectator has no seat');
  return { room, seated, eve, pages };
}

export async function watch(page, url, room) {
  await page.goto(`${url}/?room=${room}`);
  await page.waitForFunction(() => window.plateau.state !== null && window.plateau.drawn === window.plateau.state);
}

// Resolves once the page, at version `since` or later, offers moves and has drawn them.
export async function movesShown(page, since = 0) {
  await page.waitForFunction((x) => window.plateau.version >= x && window.plateau.state && window.plateau.state.legal_moves.length > 0
    && window.plateau.drawn === window.plateau.state, since);
}

// Resolves once the page shows version v: it has the state and has drawn it.
export async function drawnAt(page, v) {
  await page.waitForFunction((x) => window.plateau.version === x && window.plateau.drawn === window.plateau.state, v);
}

// What a page shows of its table. Quirky's flash of a scored triangle is set back by
// the time since it was scored, which differs between any two pages.
export const shown = (page) => page.evaluate(() => ['#room-title', '#seats', '#status', '#table', '#room-actions']
  .map((q) => [q, document.querySelector(q).innerHTML.replace(/animation-delay:-?\d+ms/g, '')]));

// Where two texts part, with some context: enough to see which element differs.
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: …${a.slice(Math.max(0, i - 60), i + 100)}… where the fresh page has …${b.slice(Math.max(0, i - 60), i + 100)}…`;
}

// Asserts that `page` shows what `fresh` (the `shown` of a page drawn from one whole state) does;
// `who` names it in a failure.
export async function assertSamePage(page, fresh, who) {
  const followed = await shown(page);
  for (let k = 0; k < fresh.length; k++) {
    assert.ok(followed[k][1] === fresh[k][1], `${who}: her ${fresh[k][0]} differs ${firstDifference(followed[k][1], fresh[k][1])}`);
  }
}

// One Quantik move by clicks on `page` (whose turn it is): a shape at random among those that
// can be placed, then a highlighted cell.
export async function clickQuantikMove(page) {
  const shapes = await page.$$('.q-shape:not([disabled])');
  assert.ok(shapes.length > 0, 'the mover has a playable shape');
  await pick(shapes).click();
  const cells = await page.$$('.q-cell[data-move]');
  assert.ok(cells.length > 0, 'legal cells are highlighted');
  await pick(cells).click();
}
