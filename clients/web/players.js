// Players who are known (issue 46): an account's profile page (its ratings per game, a chart of
// each rating drawn as SVG, its finished games opening their replays) and a leaderboard per game
// in the lobby. Both read the server's public pages, /api/profile and /api/leaderboard.
import { el, svg } from './dom.js';
import { language, onLanguage, t, tn } from './i18n.js';
import { errorText } from './account.js';

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

// Numbers and dates in the page's language. A rating is a whole number without grouping
// ("1512", never "1 512"); a change has its sign.
const whole = (x) => new Intl.NumberFormat(language(), { maximumFractionDigits: 0, useGrouping: false }).format(Math.round(x));
const signed = (x) => new Intl.NumberFormat(language(), { maximumFractionDigits: 0, useGrouping: false, signDisplay: 'exceptZero' }).format(Math.round(x));
const day = (ms) => new Intl.DateTimeFormat(language(), { dateStyle: 'medium' }).format(new Date(ms));

// The chart of one game's rating after each rated game, with the deviation as a band.
function chart(points) {
  const W = 560, H = 180, P = 32;
  if (points.length === 0) return el('p', { class: 'muted' }, t('profile.chart.empty'));
  const ys = points.flatMap((p) => [p.rating - p.deviation, p.rating + p.deviation]);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (i) => P + (points.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (points.length - 1));
  const y = (r) => H - P + 8 - ((r - lo) * (H - 2 * P)) / (hi - lo);
  const band = points.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`)
    .concat(points.map((p, i) => `${x(i)},${y(p.rating - p.deviation)}`).reverse()).join(' ');
  const line = points.map((p, i) => `${x(i)},${y(p.rating)}`).join(' ');
  // A dot's tooltip: the rating, its change and the day of the game; the first dot is the start.
  const tip = (p) => (p.at === undefined ? t('profile.chart.start', { rating: whole(p.rating) })
    : t('profile.chart.point', { rating: whole(p.rating), change: signed(p.change), date: day(p.at) }));
  return svg('svg', { class: 'rating-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t('profile.chart.label') },
    svg('polygon', { points: band, class: 'band' }),
    svg('polyline', { points: line, class: 'line' }),
    ...points.map((p, i) => svg('circle', { cx: x(i), cy: y(p.rating), r: 3, class: 'dot' }, svg('title', {}, tip(p)))),
    svg('text', { x: 4, y: y(hi) + 4, class: 'axis' }, whole(hi)),
    svg('text', { x: 4, y: y(lo), class: 'axis' }, whole(lo)),
    svg('text', { x: W / 2, y: H - 4, class: 'axis', 'text-anchor': 'middle' }, t('profile.chart.x_axis')));
}

// The profile on screen: its answer, kept so that a new language redraws it without asking again.
const profile = { asked: 0, name: null, data: null, error: null, game: null };

export async function showProfile(name) {
  for (const id of ['#lobby', '#room', '#replay']) $(id).hidden = true;
  const page = $('#profile');
  page.hidden = false;
  $('#profile-name').textContent = name;
  document.title = `${name} — Plateau`;
  const asked = ++profile.asked;
  if (profile.name !== name) profile.game = null;
  Object.assign(profile, { name, data: null, error: null });
  const body = $('#profile-body');
  body.replaceChildren(el('p', { class: 'muted' }, t('profile.loading')));
  const res = await getJson(`/api/profile?name=${encodeURIComponent(name)}`);
  if (asked !== profile.asked) return;  // another profile was asked for since
  if (!res.ok) {
    profile.error = res.body || {};
    return drawProfile();
  }
  profile.data = res.body;
  $('#profile-name').textContent = res.body.name;
  drawProfile();
}

function drawProfile() {
  const body = $('#profile-body');
  if (profile.error) {
    const code = profile.error.code || '';
    body.replaceChildren(el('p', { class: 'error', 'data-code': code },
      code ? errorText(profile.error) : t('profile.unavailable')));
    return;
  }
  const p = profile.data;
  if (!p) return;
  const cards = p.ratings.map((r) => el('div', { class: 'rating-card', 'data-game': r.game },
    el('div', { class: 'rating-game' }, helpers.gameName(r.game)),
    el('div', { class: 'rating-value', title: t('profile.rating_title') }, whole(r.rating),
      el('span', { class: 'muted', title: t('profile.deviation_title') }, ` ±${whole(2 * r.deviation)}`)),
    el('div', { class: 'muted' }, [tn('profile.count.rated', r.games), tn('profile.count.won', r.wins),
      tn('profile.count.drawn', r.draws), tn('profile.count.lost', r.losses)].join(' · '))));
  const rated = p.ratings.map((r) => r.game);
  const pick = el('select', { id: 'profile-game', 'aria-label': t('profile.chart.of') },
    ...rated.map((g) => el('option', { value: g }, helpers.gameName(g))));
  if (profile.game && rated.includes(profile.game)) pick.value = profile.game;
  const chartBox = el('div', { class: 'chart-box' });
  // The rating before the first rated game starts the line.
  const drawChart = () => {
    profile.game = pick.value;
    const h = p.history.filter((x) => x.game === pick.value);
    const start = h.length ? [{ rating: h[0].rating - h[0].change, deviation: h[0].deviation, change: 0 }] : [];
    chartBox.replaceChildren(chart(start.concat(h)));
  };
  pick.addEventListener('change', drawChart);
  const games = p.games.map((g) => el('tr', { 'data-history': g.room },
    el('td', {}, helpers.gameName(g.game), g.rated ? el('span', { class: 'tag rated-tag' }, t('games.rated')) : ''),
    el('td', {}, g.players.join(', ')),
    el('td', {}, helpers.resultText(g.result, g.players)),
    el('td', { class: 'actions' }, el('a', { class: 'small-button', href: `/?replay=${encodeURIComponent(g.room)}&round=${g.round}` }, t('games.replay')))));
  body.replaceChildren(
    el('p', { class: 'muted' }, t('profile.member_since', { date: day(p.created) })),
    cards.length ? el('div', { class: 'rating-cards' }, ...cards) : el('p', { class: 'muted' }, t('profile.no_ratings')),
    rated.length ? el('div', { class: 'panel' }, el('h3', {}, t('profile.history'), ' ', pick), chartBox) : '',
    el('div', { class: 'panel' }, el('h3', {}, t('games.title')),
      games.length ? el('table', { class: 'rooms' }, el('thead', {}, el('tr', {}, el('th', {}, t('games.game')), el('th', {}, t('games.players')), el('th', {}, t('games.result')), el('th', {}))),
        el('tbody', { id: 'profile-games' }, ...games)) : el('p', { class: 'muted' }, t('games.none'))));
  if (rated.length) drawChart();
}

// The leaderboard on screen, kept for a redraw in another language.
const board = { asked: 0, data: null };

export async function renderLeaderboard() {
  const select = $('#board-game');
  if (!select.value) return;
  const asked = ++board.asked;
  const res = await getJson(`/api/leaderboard?game=${encodeURIComponent(select.value)}`);
  if (asked !== board.asked) return;
  board.data = res.ok ? res.body : { players: [] };
  drawLeaderboard();
}

function drawLeaderboard() {
  const b = board.data;
  if (!b) return;
  const rows = b.players || [];
  $('#board').replaceChildren(...rows.map((r) => el('tr', { 'data-board': r.name },
    el('td', {}, whole(r.rank)),
    el('td', {}, profileLink(r.name)),
    el('td', {}, whole(r.rating)),
    el('td', {}, whole(r.games)))));
  $('#no-board').hidden = rows.length > 0;
  if (b.min_games !== undefined) {
    $('#no-board').textContent = t('leaderboard.empty', {
      games: tn('leaderboard.min_games', b.min_games), days: tn('leaderboard.days', b.active_days),
    });
  }
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
  // A new language: the profile and the leaderboard drawn again from what they last had.
  onLanguage(() => {
    if (!$('#profile').hidden) drawProfile();
    drawLeaderboard();
  });
}
