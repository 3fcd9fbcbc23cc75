// Players who are known (issue 46): an account's profile page (its ratings per game, a chart of
// each rating drawn as SVG, its finished games opening their replays) and a leaderboard per game
// in the lobby. Both read the server's public pages, /api/profile and /api/leaderboard.
import { el, svg } from './dom.js';

const $ = (sel) => document.querySelector(sel);
const helpers = { gameName: (id) => id, resultText: () => '', games: () => [] };

export const profileHref = (name) => `/?profile=${encodeURIComponent(name)}`;
export const profileLink = (name) => el('a', { class: 'seat-name player-link', href: profileHref(name), 'data-profile': name }, name);

async function getJson(url) {
  try {
    const r = await fetch(url);
    return { ok: r.ok, body: await r.json() };
  } catch {
    return { ok: false, body: {} };
  }
}

// The chart of one game's rating after each rated game, with the deviation as a band.
function chart(points) {
  const W = 560, H = 180, P = 32;
  if (points.length === 0) return el('p', { class: 'muted' }, 'No rated games of this game yet.');
  const ys = points.flatMap((p) => [p.rating - p.deviation, p.rating + p.deviation]);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (i) => P + (points.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (points.length - 1));
  const y = (r) => H - P + 8 - ((r - lo) * (H - 2 * P)) / (hi - lo);
  const band = points.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`)
    .concat(points.map((p, i) => `${x(i)},${y(p.rating - p.deviation)}`).reverse()).join(' ');
  const line = points.map((p, i) => `${x(i)},${y(p.rating)}`).join(' ');
  return svg('svg', { class: 'rating-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'rating after each rated game' },
    svg('polygon', { points: band, class: 'band' }),
    svg('polyline', { points: line, class: 'line' }),
    ...points.map((p, i) => svg('circle', { cx: x(i), cy: y(p.rating), r: 3, class: 'dot' },
      svg('title', {}, `${Math.round(p.rating)} (${p.change >= 0 ? '+' : ''}${Math.round(p.change)})`))),
    svg('text', { x: 4, y: y(hi) + 4, class: 'axis' }, String(Math.round(hi))),
    svg('text', { x: 4, y: y(lo), class: 'axis' }, String(Math.round(lo))));
}

export async function showProfile(name) {
  for (const id of ['#lobby', '#room', '#replay']) $(id).hidden = true;
  const page = $('#profile');
  page.hidden = false;
  $('#profile-name').textContent = name;
  document.title = `${name} — Plateau`;
  const body = $('#profile-body');
  body.replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
  const res = await getJson(`/api/profile?name=${encodeURIComponent(name)}`);
  if (!res.ok) {
    body.replaceChildren(el('p', { class: 'error', 'data-code': res.body.code || '' }, res.body.error || 'No such player.'));
    return;
  }
  const p = res.body;
  $('#profile-name').textContent = p.name;
  const since = new Date(p.created).toLocaleDateString();
  const cards = p.ratings.map((r) => el('div', { class: 'rating-card', 'data-game': r.game },
    el('div', { class: 'rating-game' }, helpers.gameName(r.game)),
    el('div', { class: 'rating-value' }, String(Math.round(r.rating)), el('span', { class: 'muted' }, ` ±${Math.round(2 * r.deviation)}`)),
    el('div', { class: 'muted' }, `${r.games} rated · ${r.wins} won · ${r.draws} drawn · ${r.losses} lost`)));
  const rated = p.ratings.map((r) => r.game);
  const pick = el('select', { id: 'profile-game', 'aria-label': 'the rating of' },
    ...rated.map((g) => el('option', { value: g }, helpers.gameName(g))));
  const chartBox = el('div', { class: 'chart-box' });
  // The rating before the first rated game starts the line.
  const drawChart = () => {
    const h = p.history.filter((x) => x.game === pick.value);
    const start = h.length ? [{ rating: h[0].rating - h[0].change, deviation: h[0].deviation, change: 0 }] : [];
    chartBox.replaceChildren(chart(start.concat(h)));
  };
  pick.addEventListener('change', drawChart);
  const games = p.games.map((g) => el('tr', { 'data-history': g.room },
    el('td', {}, helpers.gameName(g.game), g.rated ? el('span', { class: 'tag rated-tag' }, 'rated') : ''),
    el('td', {}, g.players.join(', ')),
    el('td', {}, helpers.resultText(g.result, g.players)),
    el('td', { class: 'actions' }, el('a', { class: 'small-button', href: `/?replay=${encodeURIComponent(g.room)}&round=${g.round}` }, 'Replay'))));
  body.replaceChildren(
    el('p', { class: 'muted' }, `Member since ${since}`),
    cards.length ? el('div', { class: 'rating-cards' }, ...cards) : el('p', { class: 'muted' }, 'No rated games yet.'),
    rated.length ? el('div', { class: 'panel' }, el('h3', {}, 'Rating history ', pick), chartBox) : '',
    el('div', { class: 'panel' }, el('h3', {}, 'Finished games'),
      games.length ? el('table', { class: 'rooms' }, el('thead', {}, el('tr', {}, el('th', {}, 'Game'), el('th', {}, 'Players'), el('th', {}, 'Result'), el('th', {}))),
        el('tbody', { id: 'profile-games' }, ...games)) : el('p', { class: 'muted' }, 'No finished games yet.')));
  if (rated.length) drawChart();
}

export async function renderLeaderboard() {
  const select = $('#board-game');
  if (!select.value) return;
  const res = await getJson(`/api/leaderboard?game=${encodeURIComponent(select.value)}`);
  const rows = res.ok ? res.body.players : [];
  $('#board').replaceChildren(...rows.map((r) => el('tr', { 'data-board': r.name },
    el('td', {}, String(r.rank)),
    el('td', {}, profileLink(r.name)),
    el('td', {}, String(Math.round(r.rating))),
    el('td', {}, String(r.games)))));
  $('#no-board').hidden = rows.length > 0;
  if (res.ok) $('#no-board').textContent = `Nobody yet: a place here takes ${res.body.min_games} rated games, the last within ${res.body.active_days} days.`;
}

export function fillBoardGames(games) {
  const select = $('#board-game');
  if (select.options.length === games.length) return;
  const was = select.value;
  select.replaceChildren(...games.map((g) => el('option', { value: g.id }, g.name)));
  if (was) select.value = was;
}

export function initPlayers(h) {
  Object.assign(helpers, h);
  $('#board-game').addEventListener('change', renderLeaderboard);
  $('#profile-back').addEventListener('click', () => { history.pushState({}, '', '/'); h.showLobby(); });
}
