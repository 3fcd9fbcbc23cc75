// The two language files against each other and against the client's code, without a browser:
// every key is in both languages, no text is empty, both texts of a key take the same {values},
// every key the code asks for exists, and every key is used somewhere.
//
// A key counts as used when it appears whole in a client file ('lobby.title', data-i18n="…",
// "title:lobby.title"), or as the key of a tn() (which reads key.one and key.other). Keys made at run time (an
// error's code, a game's reason) are declared where they are made, with a comment naming their
// prefix:  // i18n-keys: error.*
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'clients', 'web');
const en = JSON.parse(readFileSync(join(web, 'lang', 'en.json'), 'utf8'));
const fr = JSON.parse(readFileSync(join(web, 'lang', 'fr.json'), 'utf8'));

function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) { if (name !== 'lang') out.push(...sources(path)); }
    else if (/\.(js|mjs|html)$/.test(name)) out.push({ path, text: readFileSync(path, 'utf8') });
  }
  return out;
}
const files = sources(web);
const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('both languages have the same keys, none empty, with the same {values}', () => {
  const onlyEn = Object.keys(en).filter((k) => !(k in fr));
  const onlyFr = Object.keys(fr).filter((k) => !(k in en));
  assert.deepEqual(onlyEn, [], `keys missing in fr.json: ${onlyEn.join(', ')}`);
  assert.deepEqual(onlyFr, [], `keys missing in en.json: ${onlyFr.join(', ')}`);
  for (const k of Object.keys(en)) {
    assert.ok(typeof en[k] === 'string' && en[k].trim(), `en.json: ${k} is empty`);
    assert.ok(typeof fr[k] === 'string' && fr[k].trim(), `fr.json: ${k} is empty`);
    assert.deepEqual(placeholders(fr[k]), placeholders(en[k]), `${k}: French and English take other {values}`);
  }
});

test('every key the code asks for exists', () => {
  const missing = [];
  for (const { path, text } of files) {
    const asked = [
      ...[...text.matchAll(/\bt\(\s*(['"])([a-z0-9_.]+)\1/g)].map((m) => m[2]),
      ...[...text.matchAll(/\btn\(\s*(['"])([a-z0-9_.]+)\1/g)].flatMap((m) => [`${m[2]}.one`, `${m[2]}.other`]),
      ...[...text.matchAll(/data-i18n="([a-z0-9_]+(?:\.[a-z0-9_]+)+)"/g)].map((m) => m[1]),
      ...[...text.matchAll(/data-i18n-attr="([^"]+)"/g)].flatMap((m) =>
        m[1].split(';').map((p) => p.split(':')[1]?.trim()).filter((k) => /^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(k || ''))),
    ];
    for (const k of asked) if (!(k in en)) missing.push(`${k} (${path.slice(web.length + 1)})`);
  }
  assert.deepEqual([...new Set(missing)], [], 'keys asked for but in no language file');
});

test('every key is used', () => {
  const all = files.map((f) => f.text).join('\n');
  const quoted = new Set(all.match(/[a-z0-9_]+(?:\.[a-z0-9_]+)+/g));
  for (const m of all.matchAll(/\btn\(\s*(['"])([a-z0-9_.]+)\1/g)) { quoted.add(`${m[2]}.one`); quoted.add(`${m[2]}.other`); }
  const prefixes = [...all.matchAll(/i18n-keys:\s*([a-z0-9_.]+)\.\*/g)].map((m) => `${m[1]}.`);
  const unused = Object.keys(en).filter((k) => !quoted.has(k) && !prefixes.some((p) => k.startsWith(p)));
  assert.deepEqual(unused, [], 'keys in the language files that no code uses');
});
