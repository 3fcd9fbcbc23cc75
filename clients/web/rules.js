// The Rules panel: a short, illustrated summary of a game for players, in the page's language,
// with the options of the table explained. Each game's summary is its own module,
// rules/<game>.js, whose default export is { render(box, ctx) }: it fills `box` and may read
// ctx.options (the table's options, or null in the lobby, where every option is explained).
// The context also brings what every summary draws the same way: ctx.section(title, …parts),
// ctx.figure(picture, caption) and ctx.firstText(options, colour), the sentence saying who starts.
//
// The first time a person sits at a game in this browser the panel opens by itself, once;
// after that it is one click away (a "Rules" button in the lobby and at the table).
import { el, svg } from './dom.js';
import { language, onLanguage, t } from './i18n.js';

const SEEN_KEY = 'plateau.rulesSeen';
const modules = {};
let shown = null;  // {game, options} on screen, to redraw after a change of language

async function summaryOf(game) {
  if (!(game in modules)) {
    try { modules[game] = (await import(`/rules/${game}.js`)).default; }
    catch { modules[game] = null; }
  }
  return modules[game];
}

function dialog() {
  let d = document.getElementById('rules-dialog');
  if (d) return d;
  d = el('dialog', { id: 'rules-dialog', class: 'rules-dialog', 'aria-labelledby': 'rules-title' });
  const close = el('button', { type: 'button', class: 'close', 'data-i18n-attr': 'aria-label:rules.close' }, '×');
  close.setAttribute('aria-label', t('rules.close'));
  close.addEventListener('click', () => d.close());
  d.addEventListener('close', () => { shown = null; });
  // A click on the backdrop (outside the panel's box) closes it too.
  d.addEventListener('click', (e) => { if (e.target === d) d.close(); });
  d.append(close, el('h2', { id: 'rules-title' }), el('div', { class: 'rules-body' }));
  document.body.append(d);
  return d;
}

// A section of a summary: its title, then its parts, each text a paragraph and each node as it
// is. An array, to spread where the section goes.
function section(title, ...parts) {
  return [el('h3', {}, title), ...parts.map((part) => (typeof part === 'string' ? el('p', {}, part) : part))];
}

// A picture with its caption, the caption also naming the picture for screen readers.
function figure(picture, caption) {
  if (!picture.hasAttribute('role')) picture.setAttribute('role', 'img');
  picture.setAttribute('aria-label', caption);
  return el('figure', {}, picture, el('figcaption', {}, caption));
}

// Who starts, every game's `first` option: at a table, the sentence for its value ('random', or
// a seat from '0'); in the lobby (options null), the sentence for every value. `colour(seat)`,
// where the game gives each seat a colour, names the seat's colour too.
function firstText(options, colour = null) {
  if (!options) return t('rules.first.any');
  const first = String(options.first);
  if (!/^\d+$/.test(first)) return t('rules.first.random');
  const seat = Number(first);
  return colour ? t('rules.first.seat_colour', { n: seat + 1, colour: colour(seat) }) : t('rules.first.seat', { n: seat + 1 });
}

async function draw(game, options) {
  const d = dialog();
  const mod = await summaryOf(game);
  d.querySelector('#rules-title').textContent = t('rules.title', { game: gameTitle(game) });
  const body = d.querySelector('.rules-body');
  body.replaceChildren();
  body.lang = language();
  if (mod) mod.render(body, { el, svg, t, section, figure, firstText, options: options || null, language: language() });
  else body.append(el('p', {}, t('rules.missing')));
}

let titles = {};
// The games' names as the server lists them (they are names, the same in every language).
export function setGameTitles(games) { titles = Object.fromEntries(games.map((g) => [g.id, g.name])); }
const gameTitle = (game) => titles[game] || game;

// Opens the panel for `game`; `options` are the table's, or null to explain every option.
export async function openRules(game, options = null) {
  shown = { game, options };
  await draw(game, options);
  const d = dialog();
  if (!d.open) d.showModal();
}

// Opens the panel the first time this browser sits at `game`; does nothing after that.
export function openRulesOnce(game, options = null) {
  let seen = [];
  try { seen = JSON.parse(localStorage.getItem(SEEN_KEY) || '[]'); } catch { seen = []; }
  if (!Array.isArray(seen)) seen = [];
  if (seen.includes(game)) return false;
  seen.push(game);
  try { localStorage.setItem(SEEN_KEY, JSON.stringify(seen)); } catch { /* private mode */ }
  openRules(game, options);
  return true;
}

// A "Rules" button that opens `game()`'s panel (a function, since a form's game changes).
export function rulesButton(game, options = () => null) {
  const b = el('button', { type: 'button', class: 'small rules-button', 'data-i18n': 'rules.button' }, t('rules.button'));
  b.addEventListener('click', () => openRules(game(), options()));
  return b;
}

onLanguage(() => { if (shown) draw(shown.game, shown.options); });
