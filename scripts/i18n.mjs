#!/usr/bin/env node
// Adds, changes or removes interface texts in both language files at once, so that French and
// English never drift apart:
//   node scripts/i18n.mjs add KEY "English text" "Texte français"
//   node scripts/i18n.mjs rm KEY
//   node scripts/i18n.mjs import FILE.json   ({"KEY": ["English", "Français"], ...})
// Keys are kept sorted; a lock makes concurrent runs safe. The check of missing and unused keys
// is tests/e2e/browser/i18n_keys.test.mjs.
import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'web', 'lang');
const files = { en: join(dir, 'en.json'), fr: join(dir, 'fr.json') };
const lock = join(dir, '.lock');

function withLock(f) {
  for (let i = 0; ; ++i) {
    try { mkdirSync(lock); break; } catch (e) {
      if (e.code !== 'EEXIST' || i > 500) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try { return f(); } finally { rmdirSync(lock); }
}

function read(code) {
  try { return JSON.parse(readFileSync(files[code], 'utf8')); } catch (e) {
    if (e.code === 'ENOENT') return {};
    throw e;
  }
}

function write(code, map) {
  const sorted = Object.fromEntries(Object.keys(map).sort().map((k) => [k, map[k]]));
  writeFileSync(`${files[code]}.tmp`, `${JSON.stringify(sorted, null, 1)}\n`);
  renameSync(`${files[code]}.tmp`, files[code]);
}

const [cmd, ...args] = process.argv.slice(2);
const KEY = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

withLock(() => {
  const en = read('en'), fr = read('fr');
  const put = (key, e, f) => {
    if (!KEY.test(key)) throw new Error(`bad key "${key}": lower-case words joined by dots`);
    if (typeof e !== 'string' || typeof f !== 'string' || !e || !f)
      throw new Error(`${key}: both texts are needed`);
    en[key] = e;
    fr[key] = f;
  };
  if (cmd === 'add' && args.length === 3) {
    put(...args);
  } else if (cmd === 'rm' && args.length >= 1) {
    for (const k of args) { delete en[k]; delete fr[k]; }
  } else if (cmd === 'import' && args.length === 1) {
    for (const [k, [e, f]] of Object.entries(JSON.parse(readFileSync(args[0], 'utf8')))) put(k, e, f);
  } else {
    console.error('usage: i18n.mjs add KEY EN FR | rm KEY... | import FILE.json');
    process.exit(2);
  }
  write('en', en);
  write('fr', fr);
});
