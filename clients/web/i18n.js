// The interface's words, in French and English. Each language is one file, lang/<code>.json,
// a flat map from a key ("lobby.new_table") to its text, with {name} where a value goes in.
// The server sends codes and data; the page words them here. tests/e2e/browser/i18n_keys.test.mjs
// fails when a key is missing in either language or used nowhere.
//
// The language follows the browser the first time, and the person's choice after that
// (remembered in this browser). Switching redraws the page in place: no reload, no lost state.

export const LANGUAGES = { en: 'English', fr: 'Français' };
const STORE_KEY = 'plateau.lang';

let current = 'en';
let words = {};     // the current language's texts
let fallback = {};  // English, for a key the current language lacks (never in a release: the test)
let english = null;  // the promise of English's words, fetched once
let plurals = new Intl.PluralRules('en');
const listeners = new Set();

export function language() { return current; }

// The language to use: the one chosen in this browser, else the first the browser prefers that
// we have, else English.
export function preferredLanguage() {
  try {
    const chosen = localStorage.getItem(STORE_KEY);
    if (chosen && LANGUAGES[chosen]) return chosen;
  } catch { /* private mode */ }
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const code = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES[code]) return code;
  }
  return 'en';
}

async function fetchWords(code) {
  const res = await fetch(`/lang/${code}.json`, { cache: 'no-cache' });
  if (!res.ok) throw new Error(`lang/${code}.json: ${res.status}`);
  return res.json();
}

// Loads `code` (and English beside it), words the static page, and tells every listener.
export async function setLanguage(code, { remember = true } = {}) {
  if (!LANGUAGES[code]) code = 'en';
  if (!english) english = fetchWords('en');
  const [loaded, en] = await Promise.all([code === 'en' ? english : fetchWords(code), english]);
  words = loaded;
  fallback = en;
  current = code;
  plurals = new Intl.PluralRules(code);
  document.documentElement.lang = code;
  if (remember) {
    try { localStorage.setItem(STORE_KEY, code); } catch { /* private mode */ }
  }
  translate(document);
  for (const f of listeners) f(code);
}

// Runs `f(code)` after each change of language (to redraw what was drawn with words).
export function onLanguage(f) { listeners.add(f); return () => listeners.delete(f); }

// The text of `key`, with {name} replaced by vars.name. A missing key shows as itself, so that a
// mistake is visible rather than blank.
export function t(key, vars) {
  const text = words[key] ?? fallback[key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

// Whether `key` has a text (in this language or in English): for a text the server may name
// that the client may not know (an error's code, a game's option).
export function hasKey(key) { return key in words || key in fallback; }

// A text that depends on a count: `key.one` or `key.other` by the language's own rule (French
// says "0 point", "1 point", "2 points"; English "0 points", "1 point"). {n} is the count.
export function tn(key, n, vars = {}) {
  const form = plurals.select(n) === 'one' ? 'one' : 'other';
  return t(`${key}.${form}`, { n, ...vars });
}

// Words the static parts of the page: an element with data-i18n="key" gets that text;
// data-i18n-attr="placeholder:key; title:key" sets attributes.
export function translate(root) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of node.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':').map((x) => x.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
}

// A <select> that switches the language; put it on every page's header.
export function languagePicker() {
  const select = document.createElement('select');
  select.className = 'lang-picker';
  select.setAttribute('data-i18n-attr', 'aria-label:lang.choose; title:lang.choose');
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const o = document.createElement('option');
    o.value = code;
    o.textContent = name;
    o.lang = code;
    select.append(o);
  }
  select.value = current;
  onLanguage((code) => { select.value = code; });
  select.addEventListener('change', () => setLanguage(select.value));
  return select;
}
