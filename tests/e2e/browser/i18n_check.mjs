// The checks the game tests make of a page in French: that no English is left in a table's panel,
// a finished game watched in French, and the Rules panel in either language (photographed).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { botGame, player, root, shots, state, watch } from './harness.mjs';

// The client's two language files, to read a key's words in the tests.
export const en = JSON.parse(readFileSync(join(root, 'clients/web/lang/en.json'), 'utf8'));
export const fr = JSON.parse(readFileSync(join(root, 'clients/web/lang/fr.json'), 'utf8'));

// Each language's words, and the locale its pages are tested in.
export const WORDS = { en, fr };
export const LOCALES = { en: 'en-US', fr: 'fr-FR' };

// A text of a language file with its {values}, as the page says it.
export function word(code, key, vars = {}) {
  const text = WORDS[code][key];
  assert.ok(text, `no ${key} in ${code}.json`);
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}
// A number as the page writes it, and a text that depends on a count (key.one / key.other).
export const num = (code, x) => new Intl.NumberFormat(LOCALES[code], { maximumFractionDigits: 2 }).format(x);
export const plural = (code, key, n) => word(code, `${key}.${new Intl.PluralRules(code).select(n) === 'one' ? 'one' : 'other'}`, { n: num(code, n) });

const keysOf = (prefixes) => {
  const list = [prefixes].flat();
  return Object.keys(en).filter((k) => list.some((p) => k.startsWith(p)));
};
const escape = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// `piece` as whole words: where it begins or ends with a letter, no letter may touch it there.
const wholeWords = (piece) => new RegExp(`${/^\p{L}/u.test(piece) ? '(?<!\\p{L})' : ''}${escape(piece)}${/\p{L}$/u.test(piece) ? '(?!\\p{L})' : ''}`, 'u');

// The English pieces of the texts of the keys under `prefixes` (a prefix or a list) that French
// words otherwise: each text cut at its {values}, the pieces long enough to mean something (five
// characters with a word of three letters). A piece French writes the same way in one of these
// keys (": 1 point" in "\u00a0: 1 point") says nothing and is left out.
export function englishOf(prefixes) {
  const keys = keysOf(prefixes).filter((k) => en[k] !== fr[k]);
  const pieces = new Set(keys.flatMap((k) => en[k].split(/\{\w+\}/).map((x) => x.trim())
    .filter((x) => x.length >= 5 && /\p{L}{3}/u.test(x))));
  const french = keysOf(prefixes).map((k) => fr[k].replace(/\{\w+\}/g, '\n'));  // its words, not its {values}' names
  return [...pieces].filter((piece) => !french.some((v) => wholeWords(piece).test(v)));
}

// The English pieces of `prefixes`' texts (see englishOf) that `text` shows as whole words.
export const englishLeft = (text, prefixes) => englishOf(prefixes).filter((piece) => wholeWords(piece).test(text));

// Everything the table's panel says: its text (SVG titles included) and its labels and tooltips.
export const panelText = (page) => page.evaluate(() => {
  const box = document.querySelector('#table');
  return [box.textContent, ...[...box.querySelectorAll('[title], [aria-label]')]
    .flatMap((e) => [e.getAttribute('title'), e.getAttribute('aria-label')]).filter(Boolean)].join('\n');
});

// Fails, naming `what`, if the page's table panel shows any English piece of `prefixes`' texts.
export async function assertNoEnglishIn(page, prefixes, what) {
  assert.deepEqual(englishLeft(await panelText(page), prefixes), [], `English left in the French ${what}`);
}

// The Rules panel of `game`, opened as the app does, in the page's language `lang` (switched to
// first); returns its text once it is drawn with its pictures.
export async function openRulesPanel(page, game, lang) {
  await page.selectOption('select.lang-picker', lang);
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
  await page.evaluate((g) => import('/rules.js').then((m) => m.openRules(g)), game);
  await page.waitForFunction(() => document.querySelector('#rules-dialog')?.open
    && document.querySelector('.rules-body figure svg') !== null);
  return page.evaluate(() => document.querySelector('.rules-body').textContent);
}

// A screenshot of the whole Rules panel: the window made tall enough for it, for a moment.
export async function shootRules(page, path) {
  const size = page.viewportSize();
  await page.setViewportSize({ width: size.width, height: 3000 });
  await page.screenshot({ path });
  await page.setViewportSize(size);
}

// A game of `game` that bots play to its end (seed `seed`), then watched by Flo, whose browser
// asks for French; returns Flo ({page, …}) and the finished state.
export async function watchFinishedInFrench(browser, server, game, seed) {
  const room = await botGame(server.port, game, seed);
  const fan = await player(browser, 'Flo', undefined, { locale: 'fr-FR' });
  await watch(fan.page, server.url, room);
  const over = await state(fan.page);
  assert.equal(over.status, 'over');
  return { fan, over };
}

// The French wording, by the module games/<game>.js on `page` (in French), of each outcome in
// `cases` ({label: {code, args, winners}}) with its seats named Ada and Bob. Also checks that the
// result line of the page's finished table gives the wording of its own outcome, where that has
// a code (logged either way).
export async function frenchReasons(page, game, cases) {
  const out = await page.evaluate(async ([g, list]) => {
    const m = (await import(`/games/${g}.js`)).default;
    const st = window.plateau.state;
    const name = (i) => ['Ada', 'Bob'][i];
    return {
      code: st.outcome.code,
      real: st.outcome.code ? m.reason(st.outcome, { name: (i) => st.seats[i].name }) : null,
      status: document.querySelector('#status').textContent,
      worded: Object.fromEntries(Object.entries(list).map(([k, o]) => [k, m.reason(o, { name })])),
    };
  }, [game, cases]);
  console.log(`# ${game}: outcome code ${out.code ?? 'absent'}; French reason: ${out.real}`);
  if (out.code) assert.ok(out.real && out.status.includes(out.real), `the result line gives the French reason: ${out.status}`);
  return out.worded;
}

// The Rules panel of `game` opened on a page in French, then redrawn in place as the page turns
// to English: each time it starts with the game's goal, shows at least `figures` pictures and
// the texts of the keys `frKeys` (then `enKeys`); shots/rules-<game>-fr.png and -en.png.
export async function checkRulesRedrawn(page, game, { figures, frKeys, enKeys }) {
  const body = '#rules-dialog .rules-body';
  await page.evaluate((g) => import('/rules.js').then((m) => m.openRules(g)), game);
  for (const [lang, words, keys] of [['fr', fr, frKeys], ['en', en, enKeys]]) {
    if (lang === 'en') await page.evaluate(() => import('/i18n.js').then((m) => m.setLanguage('en')));
    await page.waitForFunction(([b, w]) => document.querySelector(`${b} h3`)?.textContent === w, [body, words[`rules.${game}.goal_title`]]);
    assert.ok(await page.locator(`${body} figure svg`).count() >= figures, `the ${lang} summary is illustrated`);
    const text = await page.textContent(body);
    for (const k of keys) assert.ok(text.includes(words[k]), `the ${lang} summary says ${k}`);
    await page.screenshot({ path: `${shots}/rules-${game}-${lang}.png` });
  }
}
