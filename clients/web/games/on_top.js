// The On Top table: the board of triangles drawn from the view's geometry, with its golden border;
// every placed tile painted as coloured sixths at its corners, so each circle around an
// intersection reads as on the real board; black triangles (start, holes, and empty "void" holes
// that count as black); towers of pawns stacked at the intersections with their height; the score
// track; the drawn tile shown big; each colour's pawns left (neutral colours marked); and, after
// each placement, the circles it completed with who placed which pawn and who scored what.
// Moves come only from st.legal_moves ("<A cell>-<B cell>"):
//   1. click a highlighted place (the edge between two empty cells: a selection, data-choice);
//   2. turn the tile there (each legal orientation on those two cells in turn, data-choice);
//   3. confirm (the button carries data-move, the exact move string).
import { svg as s, addStyle } from '../dom.js';
import { t, tn } from '../i18n.js';

// Every text is read through t() at each render (the language may change).
// i18n-keys: game.on_top.colour.*
// i18n-keys: reason.on_top.*
// The lobby's "New table" form (app.js) words this game's options with these keys:
// i18n-keys: option.on_top.*

const E = 60;                         // a triangle's edge, in SVG units
const HX = E / 2;                     // one x unit of the view (half an edge)
const HY = E * Math.sqrt(3) / 2;      // one y unit of the view (a row)
const MARGIN = 6;                     // around the board and its coordinates
const SIXTH_R = E * 0.43;             // radius of a circle around an intersection
const PAWN_R = E * 0.15;
const LIFT = E * 0.075;
const NARROW = '(max-width: 560px)';  // on a phone the board is turned a quarter, to be bigger

const COLOURS = ['blue', 'yellow', 'red', 'white'];
const FILL = { blue: '#2f6fd6', yellow: '#f2c230', red: '#d8473a', white: '#f8f5ee' };
const DARK = { blue: '#173f86', yellow: '#8a6a00', red: '#8e2219', white: '#6d645b' };
const SEAT_INK = { blue: '#2f6fd6', yellow: '#e0ac16', red: '#d8473a', white: '#cbc2b2' };
const TILE_BASE = '#7d6f5e';
const BLACK = '#1f1c19';
const BOARD = '#eadfc6';

let sel = { key: null, place: null, turn: 0 };  // chosen place and orientation, across re-renders
let lastArgs = null;                             // the last render's arguments, for local choices
let turned = false;                              // the board drawn a quarter turn anticlockwise
let watching = false;                            // listening for the viewport to change width

// A view point (x in half edges, y in rows) on screen; turned a quarter anticlockwise on a phone,
// so rows a–f read left to right and columns 1–15 bottom to top (a turn, never a mirror image:
// the tiles' sixths keep their clockwise order).
const px = ([x, y]) => (turned ? [y * HY, -x * HX] : [x * HX, y * HY]);
const same = (p, q) => p[0] === q[0] && p[1] === q[1];
const pts = (list) => list.map((p) => px(p).map((v) => v.toFixed(2)).join(',')).join(' ');
const centroid = (points) => [(points[0][0] + points[1][0] + points[2][0]) / 3, (points[0][1] + points[1][1] + points[2][1]) / 3];
const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
const colourName = (c) => t(`game.on_top.colour.${c}`);
// "a, b and c" in the page's language.
const listOf = (items) => (items.length <= 1 ? items.join('')
  : t('game.on_top.and', { list: items.slice(0, -1).join(', '), last: items[items.length - 1] }));
// A text whose {values} may be elements: the text around them stays text nodes.
function withNodes(key, vars) {
  return t(key).split(/\{(\w+)\}/).map((part, i) => (i % 2 ? (part in vars ? vars[part] : `{${part}}`) : part));
}

// The worded reason of a finished game (outcome.code, outcome.args), or null for a code that is
// not On Top's. Seats are worded by `ctx.name(seat)` with their colour; neutral colours by colour.
function reason(outcome, ctx = {}) {
  if (!outcome || typeof outcome.code !== 'string' || !outcome.code.startsWith('on_top.')) return null;
  const a = outcome.args || {};
  const who = (seat) => (ctx.name ? t('game.on_top.who', { name: ctx.name(seat), colour: colourName(COLOURS[seat]) }) : cap(colourName(COLOURS[seat])));
  if (outcome.code === 'on_top.last_pawn') {
    const seats = a.seats || [];
    const names = listOf(seats.map(who));
    const how = ['alone', 'team', 'shared', 'both_teams'].includes(a.how) ? a.how : 'alone';
    if (how === 'team' && seats.length === 1) return t('reason.on_top.last_pawn.team_one', { names });
    return t(`reason.on_top.last_pawn.${how}`, { names });
  }
  if (outcome.code === 'on_top.points') {
    const ended = a.ended === 'neutrals_out'
      ? t('reason.on_top.ended.neutrals_out', { colours: listOf((a.neutrals || []).map((c) => colourName(COLOURS[c]))) })
      : a.ended === 'no_room' ? t('reason.on_top.ended.no_room') : t('reason.on_top.ended.tiles_out');
    const text = t(a.penalty ? 'reason.on_top.points_penalty' : 'reason.on_top.points', { ended });
    if (a.tie === 'fewest_pawns' || a.tie === 'shared') return t('reason.on_top.with_tie', { reason: text, tie: t(`reason.on_top.tie.${a.tie}`) });
    return text;
  }
  return null;
}

// The sector of the circle around `points[i]` that lies inside the triangle `points`.
function sectorPath(points, i, r = SIXTH_R) {
  const [cx, cy] = px(points[i]);
  const [ax, ay] = px(points[(i + 1) % 3]);
  const [bx, by] = px(points[(i + 2) % 3]);
  const la = Math.hypot(ax - cx, ay - cy), lb = Math.hypot(bx - cx, by - cy);
  const p1 = [cx + (ax - cx) / la * r, cy + (ay - cy) / la * r];
  const p2 = [cx + (bx - cx) / lb * r, cy + (by - cy) / lb * r];
  const cross = (p1[0] - cx) * (p2[1] - cy) - (p1[1] - cy) * (p2[0] - cx);
  const f = (v) => v.toFixed(2);
  return `M${f(cx)},${f(cy)} L${f(p1[0])},${f(p1[1])} A${f(r)},${f(r)} 0 0 ${cross > 0 ? 1 : 0} ${f(p2[0])},${f(p2[1])} Z`;
}

// Where a tile's six sixths land for a move "X-Y" (RULES.md, "Where each sixth lands"): the
// colour at each of X's points and each of Y's points, in the cells' own point order.
function orient(xPoints, yPoints, sixths) {
  const far = xPoints.findIndex((p) => !yPoints.some((q) => same(p, q)));
  const w1 = (far + 1) % 3, w2 = (far + 2) % 3;
  const xc = [], yc = [];
  xc[far] = sixths[0]; xc[w1] = sixths[1]; xc[w2] = sixths[5];
  yPoints.forEach((q, j) => {
    if (same(q, xPoints[w1])) yc[j] = sixths[2];
    else if (same(q, xPoints[w2])) yc[j] = sixths[4];
    else yc[j] = sixths[3];
  });
  return [xc, yc];
}

// The outline of a tile on cells with points `a` and `b`: a's far point, a shared point, b's far
// point, the other shared point.
function rhombus(a, b) {
  const far = a.findIndex((p) => !b.some((q) => same(p, q)));
  const bf = b.find((q) => !a.some((p) => same(p, q)));
  return [a[far], a[(far + 1) % 3], bf, a[(far + 2) % 3]];
}

// The legal moves grouped by place (an unordered pair of cells), each with its orientations.
function parsePlaces(legal, index) {
  const places = new Map();
  for (const m of legal) {
    const dash = m.indexOf('-');
    if (dash < 0) continue;
    const a = index.get(m.slice(0, dash)), b = index.get(m.slice(dash + 1));
    if (a === undefined || b === undefined) continue;
    const key = `${Math.min(a, b)}|${Math.max(a, b)}`;
    if (!places.has(key)) places.set(key, { key, cells: [Math.min(a, b), Math.max(a, b)], moves: [] });
    places.get(key).moves.push({ move: m, a, b });
  }
  return places;
}

const STYLE = `
  .ot-wrap { width: 100%; max-width: 1068px; display: grid; gap: .7rem 1rem; align-items: start;
    grid-template-columns: minmax(0, 1fr) minmax(250px, 300px);
    grid-template-rows: auto auto 1fr auto;
    grid-template-areas: "board drawn" "board players" "board last" "track last"; }
  .ot-boardbox { grid-area: board; min-width: 0; display: flex; justify-content: center; }
  .ot-board { display: block; width: 100%; height: auto; max-height: calc(100vh - 250px); min-height: 220px; touch-action: manipulation; }
  .ot-board text, .ot-track text, .ot-big text { font-family: inherit; }
  .ot-panel { background: #fffdf8; border: 1px solid #e2d8c8; border-radius: 10px; padding: .55rem .75rem; }
  .ot-panel h3 { margin: 0 0 .4rem; font-size: .78rem; text-transform: uppercase; letter-spacing: .06em; color: #7a7067; font-weight: 600; }
  .ot-drawn { grid-area: drawn; display: grid; grid-template-columns: 132px 1fr; gap: .25rem .7rem; align-items: center; }
  .ot-drawn.mine { border: 2px solid #2b2622; box-shadow: 0 0 0 3px rgba(43,38,34,.12); }
  .ot-drawn h3 { grid-column: 1 / -1; }
  .ot-big { width: 132px; height: 96px; display: block; }
  .ot-drawn .ot-what { font-size: .92rem; display: grid; gap: .25rem; }
  .ot-result { font-weight: 700; font-size: 1.05rem; }
  .ot-drawn .ot-move { font-weight: 800; font-size: 1.15rem; font-variant-numeric: tabular-nums; }
  .ot-drawn .ot-small { font-size: .8rem; color: #7a7067; }
  .ot-tools { grid-column: 1 / -1; display: flex; gap: .4rem; flex-wrap: wrap; }
  .ot-tools button { flex: 1 1 auto; }
  .ot-players { grid-area: players; display: grid; gap: .2rem; }
  .ot-colour { display: grid; grid-template-columns: 22px 1fr auto; gap: .1rem .5rem; align-items: center; padding: .25rem .35rem; border-radius: 8px; }
  .ot-colour.to-move { background: #f4efe6; box-shadow: inset 3px 0 0 #2b2622; }
  .ot-colour.neutral { opacity: .8; }
  .ot-colour .ot-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 600; }
  .ot-colour .ot-sub { grid-column: 2; font-size: .78rem; color: #7a7067; }
  .ot-colour .ot-pts { grid-row: span 2; font-size: 1.35rem; font-weight: 800; font-variant-numeric: tabular-nums; text-align: right; }
  .ot-colour .ot-pts small { display: block; font-size: .68rem; font-weight: 500; color: #7a7067; }
  .ot-colour .ot-sw { grid-row: span 2; }
  .ot-bar { grid-column: 2 / -1; height: 5px; background: #eee6d7; border-radius: 3px; overflow: hidden; }
  .ot-bar span { display: block; height: 100%; }
  .ot-tag { font-size: .68rem; background: #2b2622; color: #fff; border-radius: 99px; padding: 0 .4rem; margin-left: .3rem; vertical-align: middle; font-weight: 500; }
  .ot-tag.neutral { background: #9a8f82; }
  .ot-trackbox { grid-area: track; }
  .ot-track { display: block; width: 100%; height: auto; }
  .ot-last { grid-area: last; font-size: .86rem; }
  .ot-last .ot-head { margin-bottom: .3rem; }
  .ot-last ol { list-style: none; margin: 0; padding: 0; display: grid; gap: .25rem; }
  .ot-last li { display: grid; grid-template-columns: 1.3rem 1fr; gap: .4rem; align-items: start; background: #f6f1e7; border-radius: 6px; padding: .2rem .35rem; }
  .ot-last li.scoring { background: #fff3c4; border-left: 4px solid #c58b19; }
  .ot-last .ot-badge { display: inline-grid; place-items: center; width: 1.25rem; height: 1.25rem; border-radius: 50%; background: #2b2622; color: #fff; font-size: .72rem; font-weight: 700; }
  .ot-last .ot-gain { font-weight: 800; color: #8a5a00; }
  .ot-dot { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; vertical-align: -1px; border: 1.5px solid; margin-right: .15rem; }
  .ot-cellname { font-size: 10px; fill: #a2927a; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
  .ot-coord { font-size: 11px; fill: #8a7f70; text-anchor: middle; dominant-baseline: central; }
  .ot-place { cursor: pointer; outline: none; }
  .ot-place .ot-kite { fill: rgba(200,85,61,.16); stroke: #c8553d; stroke-width: 1; stroke-dasharray: 3 3; }
  .ot-place .ot-edge { fill: #c8553d; }
  .ot-place:hover .ot-kite, .ot-place:focus-visible .ot-kite { fill: rgba(200,85,61,.42); }
  .ot-place.chosen .ot-kite { fill: rgba(200,85,61,.05); stroke-width: 0; }
  .ot-place.chosen .ot-edge { fill: #2b2622; }
  .ot-ghost { pointer-events: none; }
  .ot-ghost .ot-outline { animation: ot-blink 1.4s ease-in-out infinite; }
  @keyframes ot-blink { 50% { stroke-opacity: .35; } }
  .ot-scored .ot-ring { animation: ot-pulse 1.6s ease-out 2; }
  @keyframes ot-pulse { 0% { stroke-width: 9; } 100% { stroke-width: 3.5; } }
  .ot-tower text { font-size: 11.5px; font-weight: 800; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
  .ot-nopawn { stroke: #7a7067; stroke-width: 1.6; }
  @media (max-width: 760px) {
    .ot-wrap { grid-template-columns: minmax(0, 1fr); grid-template-rows: none; grid-template-areas: "board" "drawn" "players" "track" "last"; }
    .ot-drawn { grid-template-columns: 96px 1fr; padding: .45rem .6rem; }
    .ot-drawn h3 { margin-bottom: .1rem; }
    .ot-big { width: 96px; height: 80px; }
    .ot-drawn.mine { position: sticky; bottom: 0; z-index: 2; }
    .ot-tools button { padding: .4rem .6rem; }
    .ot-board { max-height: none; min-height: 0; }
  }
  `;

function swatch(colour, size = 18) {
  return s('svg', { viewBox: '-10 -10 20 20', width: size, height: size, class: 'ot-sw', 'aria-hidden': 'true' },
    s('circle', { r: 8, fill: FILL[colour], stroke: DARK[colour], 'stroke-width': 2 }));
}

// Who won, by colour: "Blue wins", "Blue and Yellow share the win" (several players placed their
// last pawn together, or equal points and pawns), "Blue and Red win as a team".
function resultLine(b) {
  const winners = b.result.winners;
  if (winners.length === 0) return t('game.on_top.result.nobody');
  const list = listOf(winners.map((seat) => cap(colourName(b.seats[seat].colour))));
  const teams = new Set(winners.map((seat) => b.seats[seat].team));
  if (winners.length === 2 && b.seats[winners[0]].team !== null && teams.size === 1) return t('game.on_top.result.team', { list });
  return winners.length === 1 ? t('game.on_top.result.wins', { list }) : t('game.on_top.result.shared', { list });
}

function render(table, st, ctx) {
  addStyle('on-top-style', STYLE);
  lastArgs = [table, st, ctx];
  const mq = window.matchMedia(NARROW);
  turned = mq.matches;
  if (!watching) {
    watching = true;
    mq.addEventListener('change', () => { if (lastArgs && lastArgs[0].querySelector(':scope > .ot-wrap')) render(...lastArgs); });
  }
  const { el } = ctx;
  const b = st.board;
  if (!b || !b.geometry) { table.replaceChildren(el('p', { class: 'muted' }, t('game.on_top.waiting'))); return; }
  const geo = b.geometry;
  const index = new Map(geo.cells.map((c, i) => [c.name, i]));
  const places = parsePlaces(st.legal_moves || [], index);
  const mine = st.you !== null && places.size > 0 && !!b.drawn;

  // Forget a selection that belongs to another turn or is no longer open.
  const key = `${st.round}:${b.turn}:${st.you}`;
  if (sel.key !== key || !mine || (sel.place && !places.has(sel.place))) sel = { key, place: null, turn: 0 };
  const chosen = sel.place ? places.get(sel.place) : null;
  const option = chosen ? chosen.moves[sel.turn % chosen.moves.length] : null;
  const rerender = () => render(...lastArgs);
  const choosePlace = (k) => {
    if (sel.place === k) sel.turn = (sel.turn + 1) % places.get(k).moves.length;  // again: turn it
    else sel = { key, place: k, turn: 0 };
    rerender();
  };

  const colourOwner = (colour) => {
    const c = b.colours.find((x) => x.colour === colour);
    return c && c.seat !== null ? c.seat : null;
  };
  const who = (colour) => {
    const seat = colourOwner(colour);
    return seat === null ? t('game.on_top.neutral_colour', { colour: colourName(colour) }) : t('game.on_top.who', { name: ctx.seatName(seat), colour: colourName(colour) });
  };

  // ---------- the board ----------
  let maxY = 0;
  for (const c of geo.cells) for (const p of c.points) maxY = Math.max(maxY, p[1]);

  const defs = s('defs', {},
    s('pattern', { id: 'ot-void-hatch', width: 7, height: 7, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      s('rect', { width: 7, height: 7, fill: BLACK }),
      s('line', { x1: 0, y1: 0, x2: 0, y2: 7, stroke: '#5a524a', 'stroke-width': 2.4 })));

  const lastCells = new Set(b.last ? b.last.cells : []);
  const filledNow = new Set(b.last ? b.last.filled.map((f) => f.cell) : []);
  const startCells = new Set(b.start_cells || []);
  const cellLayer = s('g', { class: 'ot-cells' });
  const outlineLayer = s('g', { class: 'ot-outlines' });
  geo.cells.forEach((cell, i) => {
    const c = b.cells[i];
    const kind = c ? c.kind : 'empty';
    const label = !c ? t('game.on_top.cell.empty', { cell: cell.name })
      : kind === 'tile' ? t('game.on_top.cell.tile', { cell: cell.name, tile: c.tile, corners: c.corners.map(colourName).join(' ') })
        : kind === 'start' ? t('game.on_top.cell.start', { cell: cell.name })
          : kind === 'black' ? t('game.on_top.cell.black', { cell: cell.name })
            : t('game.on_top.cell.void', { cell: cell.name });
    const g = s('g', { class: `ot-cell ot-${kind}`, 'data-cell': cell.name, 'data-kind': kind, 'data-corners': c && c.corners ? c.corners.join(',') : null, role: 'img', 'aria-label': label });
    const fill = kind === 'empty' ? BOARD : kind === 'tile' ? TILE_BASE : kind === 'void' ? 'url(#ot-void-hatch)' : BLACK;
    g.append(s('polygon', { points: pts(cell.points), fill, stroke: kind === 'empty' ? '#cdbb98' : '#2b2622', 'stroke-width': kind === 'empty' ? 1 : 0.8, 'stroke-linejoin': 'round' }));
    if (kind === 'tile') {
      cell.points.forEach((_, k) => g.append(s('path', { d: sectorPath(cell.points, k), fill: FILL[c.corners[k]], stroke: c.corners[k] === 'white' ? '#b9b0a0' : 'none', 'stroke-width': 0.8 })));
    } else if (kind === 'empty') {
      const [cx, cy] = px(centroid(cell.points));
      g.append(s('text', { class: 'ot-cellname', x: cx, y: cy }, cell.name));
    } else if (kind === 'start' || startCells.has(i)) {
      const cpt = centroid(cell.points);
      const inner = cell.points.map((p) => [cpt[0] + (p[0] - cpt[0]) * 0.45, cpt[1] + (p[1] - cpt[1]) * 0.45]);
      g.append(s('polygon', { points: pts(inner), fill: 'none', stroke: '#d4a017', 'stroke-width': 1.6 }));
    }
    if (filledNow.has(i)) {
      const [cx, cy] = px(centroid(cell.points));
      g.append(s('circle', { cx, cy, r: E * 0.12, fill: 'none', stroke: '#f1e4c4', 'stroke-width': 1.6, 'stroke-dasharray': '3 2' }));
    }
    g.append(s('title', {}, label));
    cellLayer.append(g);
    if (c && kind === 'tile' && c.pair > i) {
      outlineLayer.append(s('polygon', { points: pts(rhombus(cell.points, geo.cells[c.pair].points)), fill: 'none', stroke: '#2b2622', 'stroke-width': 1.8, 'stroke-linejoin': 'round' }));
    }
  });

  // The golden border, and the board's outline.
  const golden = s('g', { class: 'ot-golden' }, geo.golden_edges.map(([p, q]) => {
    const [x1, y1] = px(p), [x2, y2] = px(q);
    return s('line', { x1, y1, x2, y2, stroke: '#d4a017', 'stroke-width': 6, 'stroke-linecap': 'round' });
  }));

  // The last placement, outlined in the placer's colour.
  const lastLayer = s('g', { class: 'ot-lastmove' });
  if (b.last) {
    const [a, c2] = b.last.cells;
    const outline = pts(rhombus(geo.cells[a].points, geo.cells[c2].points));
    lastLayer.append(s('polygon', { points: outline, fill: 'none', stroke: '#2b2622', 'stroke-width': 6, 'stroke-linejoin': 'round' }),
      s('polygon', { points: outline, fill: 'none', stroke: SEAT_INK[b.last.colour], 'stroke-width': 3, 'stroke-linejoin': 'round', 'data-last': b.last.move }));
  }

  // Circles completed by the last placement: a ring in the top pawn's colour, and a number.
  const scored = b.last ? b.last.scored : [];
  const scoredLayer = s('g', { class: 'ot-scoredlayer' });
  const badges = s('g', { class: 'ot-badges' });
  scored.forEach((r, n) => {
    const v = geo.intersections[r.intersection];
    const [x, y] = px([v.x, v.y]);
    const ink = r.top ? SEAT_INK[r.top] : '#7a7067';
    scoredLayer.append(s('g', { class: 'ot-scored', 'data-scored': r.intersection },
      s('circle', { cx: x, cy: y, r: SIXTH_R + 2, fill: 'none', stroke: '#2b2622', 'stroke-width': 7, opacity: 0.9 }),
      s('circle', { class: 'ot-ring', cx: x, cy: y, r: SIXTH_R + 2, fill: 'none', stroke: ink, 'stroke-width': 3.5, 'stroke-dasharray': r.top ? null : '5 4' })));
    const bx = x - SIXTH_R * 0.72, by = y - SIXTH_R * 0.72;
    badges.append(s('g', { 'aria-hidden': 'true' },
      s('circle', { cx: bx, cy: by, r: 8.5, fill: '#2b2622', stroke: '#fffdf8', 'stroke-width': 1.5 }),
      s('text', { x: bx, y: by + 0.5, fill: '#fff', 'font-size': 10.5, 'font-weight': 700, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, n + 1)));
  });

  // The towers at the intersections.
  const towerLayer = s('g', { class: 'ot-towers' });
  geo.intersections.forEach((v, i) => {
    const tower = b.towers[i];
    const [x, y] = px([v.x, v.y]);
    const point = t(v.golden ? 'game.on_top.point.golden' : 'game.on_top.point.name', { n: i + 1 });
    const label = tower === null ? t('game.on_top.point.open', { point })
      : tower.length === 0 ? t('game.on_top.point.no_pawn', { point })
        : t('game.on_top.point.tower', { point, tower: tower.map(colourName).join(', '), top: colourName(tower[tower.length - 1]) });
    const g = s('g', { class: 'ot-point ot-tower', 'data-point': i, 'data-tower': tower === null ? 'open' : tower.join(','), 'aria-label': label, role: 'img' });
    if (tower && tower.length === 0) {
      const d = E * 0.07;
      g.append(s('path', { class: 'ot-nopawn', d: `M${x - d},${y - d} L${x + d},${y + d} M${x + d},${y - d} L${x - d},${y + d}` }));
    } else if (tower) {
      tower.forEach((colour, k) => {
        const cy = y - k * LIFT;
        g.append(s('ellipse', { cx: x, cy: cy + PAWN_R * 0.35, rx: PAWN_R, ry: PAWN_R * 0.55, fill: DARK[colour] }),
          s('circle', { cx: x, cy, r: PAWN_R, fill: FILL[colour], stroke: DARK[colour], 'stroke-width': 1.6 }));
      });
      if (tower.length > 1) {
        const top = tower[tower.length - 1];
        g.append(s('text', { x, y: y - (tower.length - 1) * LIFT + 0.5, fill: top === 'white' || top === 'yellow' ? '#2b2622' : '#fff' }, tower.length));
      }
    }
    if (tower) g.append(s('title', {}, label));
    towerLayer.append(g);
  });

  // Candidate places: the kite around the edge the two cells share (two cell centres and the
  // edge's ends), so the places tile the board without overlapping.
  const placeLayer = s('g', { class: 'ot-places' });
  if (mine) {
    for (const p of places.values()) {
      const [a, c2] = p.cells.map((i) => geo.cells[i]);
      const shared = a.points.filter((q) => c2.points.some((r) => same(q, r)));
      if (shared.length !== 2) continue;
      const kite = [centroid(a.points), shared[0], centroid(c2.points), shared[1]];
      const [mx, my] = px([(shared[0][0] + shared[1][0]) / 2, (shared[0][1] + shared[1][1]) / 2]);
      const isChosen = sel.place === p.key;
      placeLayer.append(s('g', {
        class: `ot-place${isChosen ? ' chosen' : ''}`, 'data-place': `${a.name}|${c2.name}`, 'data-choice': `place:${a.name}|${c2.name}`,
        role: 'button', tabindex: 0, 'aria-pressed': isChosen ? 'true' : 'false',
        'aria-label': t(isChosen ? 'game.on_top.place.turn' : 'game.on_top.place.choose', { a: a.name, b: c2.name }),
        onclick: () => choosePlace(p.key),
        onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choosePlace(p.key); } },
      },
      s('polygon', { class: 'ot-kite', points: pts(kite) }),
      s('circle', { class: 'ot-edge', cx: mx, cy: my, r: E * 0.075 })));
    }
  }

  // The chosen placement, ghosted onto its two cells.
  const ghost = s('g', { class: 'ot-ghost' });
  if (option) {
    const A = geo.cells[option.a], B = geo.cells[option.b];
    const [ac, bc] = orient(A.points, B.points, b.drawn.sixths);
    [[A, ac, 'A'], [B, bc, 'B']].forEach(([cell, cols, half]) => {
      const g = s('g', { 'data-ghost': half, 'data-cell': cell.name, 'data-corners': cols.join(',') },
        s('polygon', { points: pts(cell.points), fill: TILE_BASE }),
        cell.points.map((_, k) => s('path', { d: sectorPath(cell.points, k), fill: FILL[cols[k]], stroke: cols[k] === 'white' ? '#b9b0a0' : 'none', 'stroke-width': 0.8 })));
      const [cx, cy] = px(centroid(cell.points));
      g.append(s('circle', { cx, cy, r: 8, fill: '#2b2622', opacity: 0.75 }),
        s('text', { x: cx, y: cy + 0.5, fill: '#fff', 'font-size': 10, 'font-weight': 700, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, half));
      ghost.append(g);
    });
    ghost.append(s('polygon', { class: 'ot-outline', points: pts(rhombus(A.points, B.points)), fill: 'none', stroke: '#2b2622', 'stroke-width': 3.5, 'stroke-linejoin': 'round' }));
  }

  // Row letters at both ends of each row, column numbers along the top and the bottom.
  const coords = s('g', { class: 'ot-coords', 'aria-hidden': 'true' });
  const rows = new Map(), cols = new Set();
  for (const c of geo.cells) {
    const row = c.name.charAt(0);
    cols.add(Number(c.name.slice(1)));
    const y = Math.min(...c.points.map((p) => p[1])) + 0.5;
    if (!rows.has(row)) rows.set(row, { y, min: Infinity, max: -Infinity });
    const r = rows.get(row);
    r.min = Math.min(r.min, ...c.points.map((p) => p[0]));
    r.max = Math.max(r.max, ...c.points.map((p) => p[0]));
  }
  const labelAt = (p, text) => { const [x, y] = px(p); coords.append(s('text', { class: 'ot-coord', x, y }, text)); return [x, y]; };
  const extent = [];
  const left = Math.min(...[...rows.values()].map((r) => r.min)), right = Math.max(...[...rows.values()].map((r) => r.max));
  for (const [row, r] of rows) extent.push(labelAt([left - 0.75, r.y], row), labelAt([right + 0.75, r.y], row));
  for (const col of cols) extent.push(labelAt([col, -0.32], col), labelAt([col, maxY + 0.32], col));
  for (const v of geo.intersections) {  // room for a highlighted circle round every point
    const [x, y] = px([v.x, v.y]);
    extent.push([x - SIXTH_R - 4, y - SIXTH_R - 4], [x + SIXTH_R + 4, y + SIXTH_R + 4]);
  }
  const ex = extent.map((p) => p[0]), ey = extent.map((p) => p[1]);
  const vb = [Math.min(...ex) - MARGIN - 6, Math.min(...ey) - MARGIN - 6, Math.max(...ex) - Math.min(...ex) + 2 * MARGIN + 12, Math.max(...ey) - Math.min(...ey) + 2 * MARGIN + 12];

  const boardSvg = s('svg', { class: 'ot-board', viewBox: vb.map((v) => v.toFixed(1)).join(' '), role: 'group', 'aria-label': t('game.on_top.board_label'), preserveAspectRatio: 'xMidYMid meet' },
    defs, coords, cellLayer, outlineLayer, golden, lastLayer, scoredLayer, towerLayer, badges, placeLayer, ghost);

  // ---------- the drawn tile ----------
  const drawnPanel = el('div', { class: `ot-panel ot-drawn${mine ? ' mine' : ''}`, 'data-drawn': b.drawn ? b.drawn.sixths.join(',') : '' });
  if (b.drawn) {
    drawnPanel.append(el('h3', {}, mine ? t('game.on_top.drawn.yours') : t('game.on_top.drawn.title')));
    drawnPanel.append(bigTile(b.drawn.sixths, option ? [geo.cells[option.a], geo.cells[option.b]] : null));
    const what = el('div', { class: 'ot-what' });
    if (st.status === 'waiting') {
      what.append(el('div', {}, t('game.on_top.drawn.waiting')));
    } else if (!mine) {
      const seat = b.to_move;
      what.append(el('div', {}, seat === null ? '' : t('game.on_top.drawn.placing', { who: t('game.on_top.who', { name: ctx.seatName(seat), colour: colourName(b.seats[seat].colour) }) })));
    } else if (!option) {
      what.append(el('div', {}, tn('game.on_top.drawn.choose', places.size)));
    } else {
      what.append(el('div', { class: 'ot-move' }, option.move),
        el('div', { class: 'ot-small' }, t('game.on_top.drawn.halves', { a: geo.cells[option.a].name, b: geo.cells[option.b].name, k: (sel.turn % chosen.moves.length) + 1, n: chosen.moves.length })));
    }
    what.append(el('div', { class: 'ot-small' }, `${tn('game.on_top.tiles_down', b.tiles_left)} · ${tn('game.on_top.blacks_left', b.black_left)}`));
    drawnPanel.append(what);
    if (mine && option) {
      drawnPanel.append(el('div', { class: 'ot-tools' },
        el('button', {
          class: 'ot-turn', 'data-choice': 'turn', disabled: chosen.moves.length < 2, title: t('game.on_top.turn_title'),
          'aria-label': t('game.on_top.turn_label', { move: option.move }),
          onclick: () => { sel.turn = (sel.turn + 1) % chosen.moves.length; rerender(); },
        }, t('game.on_top.turn')),
        el('button', { class: 'ot-cancel', 'data-choice': 'cancel', onclick: () => { sel = { key, place: null, turn: 0 }; rerender(); } }, t('game.on_top.cancel')),
        el('button', { class: 'primary ot-confirm', 'data-move': option.move, 'aria-label': t('game.on_top.confirm_label', { move: option.move }), onclick: () => ctx.play(option.move) }, t('game.on_top.confirm', { move: option.move }))));
    }
  } else {
    const worded = b.result ? reason(b.result.code ? b.result : st.outcome, { name: ctx.seatName }) : null;
    drawnPanel.append(el('h3', {}, t('game.on_top.over')),
      el('div', { class: 'ot-what', style: 'grid-column: 1 / -1' },
        b.result ? el('div', { class: 'ot-result', 'data-result': b.result.winners.join(',') }, resultLine(b)) : '',
        el('div', { 'data-reason': b.result ? (b.result.code || (st.outcome && st.outcome.code) || '') : null },
          b.result ? t('game.on_top.sentence', { text: cap(worded || b.result.reason) }) : t('game.on_top.no_tile_left')),
        el('div', { class: 'ot-small' }, `${tn('game.on_top.tiles_down_left', b.tiles_left)} · ${tn('game.on_top.blacks_left', b.black_left)}`)));
  }

  // ---------- players, scores and pawns left ----------
  const winners = new Set(b.result ? b.result.winners : []);
  const players = el('div', { class: 'ot-panel ot-players' }, el('h3', {}, t('game.on_top.colours_title')),
    b.colours.map((c) => {
      const seat = c.seat;
      const full = seat === null ? 21 : 20;
      const sd = seat === null ? null : b.seats[seat];
      const toMove = seat !== null && b.to_move === seat;
      return el('div', {
        class: `ot-colour${seat === null ? ' neutral' : ''}${toMove ? ' to-move' : ''}`, 'data-colour': c.colour,
        'data-seat': seat === null ? 'neutral' : seat, 'data-pawns': c.pawns_left, 'data-score': sd ? sd.score : null,
        'aria-label': seat === null ? t('game.on_top.colour_neutral_label', { colour: colourName(c.colour), pawns: tn('game.on_top.pawns_left', c.pawns_left) })
          : t('game.on_top.colour_label', { colour: colourName(c.colour), name: ctx.seatName(seat), points: tn('game.on_top.points', sd.score), pawns: tn('game.on_top.pawns_left', c.pawns_left) }),
      },
      swatch(c.colour, 22),
      el('div', { class: 'ot-name' }, seat === null ? cap(colourName(c.colour)) : ctx.seatName(seat),
        seat === null ? el('span', { class: 'ot-tag neutral' }, t('game.on_top.tag.neutral')) : '',
        seat !== null && seat === st.you ? el('span', { class: 'ot-tag' }, t('game.on_top.tag.you')) : '',
        winners.has(seat) ? el('span', { class: 'ot-tag', style: 'background:#c58b19' }, t('game.on_top.tag.wins')) : ''),
      el('div', { class: 'ot-pts' }, sd ? String(sd.score) : '—', el('small', {}, sd ? t('game.on_top.points_unit') : t('game.on_top.no_marker'))),
      el('div', { class: 'ot-sub' }, [seat === null ? t('game.on_top.tag.neutral') : colourName(c.colour),
        sd && sd.team !== null ? t('game.on_top.team', { n: sd.team + 1 }) : null,
        tn('game.on_top.pawns_left', c.pawns_left),
        sd && sd.penalty ? t('game.on_top.penalty', { n: sd.penalty }) : null].filter(Boolean).join(' · ')),
      el('div', { class: 'ot-bar', title: tn('game.on_top.pawns_bar', c.pawns_left, { full }) }, el('span', { style: `width:${(100 * c.pawns_left / full).toFixed(1)}%; background:${SEAT_INK[c.colour]}` })));
    }));

  // ---------- the score track ----------
  const trackBox = el('div', { class: 'ot-panel ot-trackbox' }, el('h3', {}, t('game.on_top.track_title')), scoreTrack(b, geo.track_spaces || 50, ctx));

  // ---------- what the last placement did ----------
  const lastPanel = el('div', { class: 'ot-panel ot-last' }, el('h3', {}, t('game.on_top.last_title')));
  if (!b.last) {
    lastPanel.append(el('div', { class: 'muted' }, t('game.on_top.last_none')));
  } else {
    const L = b.last;
    const holes = L.filled.map((f) => (f.kind === 'void' ? t('game.on_top.hole_void', { cell: geo.cells[f.cell].name }) : geo.cells[f.cell].name));
    lastPanel.append(el('div', { class: 'ot-head', 'data-last-move': L.move },
      el('span', { class: 'ot-dot', style: `background:${FILL[L.colour]}; border-color:${DARK[L.colour]}` }),
      withNodes('game.on_top.last_placed', { name: el('b', {}, ctx.seatName(L.seat)), move: el('b', {}, L.move) }),
      holes.length ? ` ${tn('game.on_top.holes_filled', holes.length, { cells: holes.join(', ') })}` : ''));
    if (!L.scored.length) lastPanel.append(el('div', { class: 'muted' }, t('game.on_top.no_circle')));
    else {
      lastPanel.append(el('ol', {}, L.scored.map((r, n) => {
        const counts = COLOURS.map((c, k) => [c, r.counts[k]]).filter(([, k]) => k > 0).sort((x, y) => y[1] - x[1]);
        const countText = counts.length ? counts.map(([c, k]) => t('game.on_top.count', { colour: colourName(c), n: k })).join(' · ') : t('game.on_top.only_black');
        const seconds = r.top ? r.placed.slice(0, -1) : r.placed;
        let text;
        if (!counts.length) text = t('game.on_top.circle.no_colour');
        else if (r.tie) text = t('game.on_top.circle.tie');
        else {
          const parts = [];
          if (seconds.length) parts.push(t('game.on_top.circle.second', { who: seconds.map((p) => who(p.colour)).join(', ') }));
          if (r.top) parts.push(t('game.on_top.circle.top', { who: who(r.top) }));
          else parts.push(t('game.on_top.circle.stopped'));
          text = t('game.on_top.sentence', { text: parts.join(t('game.on_top.circle.sep')) });
        }
        const gain = r.top && r.scorer !== null ? el('span', { class: 'ot-gain' }, ` ${t(r.golden ? 'game.on_top.gain_golden' : 'game.on_top.gain', { name: ctx.seatName(r.scorer), points: r.points })}`)
          : r.top ? el('span', { class: 'muted' }, ` ${t('game.on_top.gain_neutral')}`) : '';
        return el('li', { class: r.top ? 'scoring' : '', 'data-scored-caption': r.intersection },
          el('span', { class: 'ot-badge' }, n + 1),
          el('span', {}, el('span', { class: 'muted' }, `${r.golden ? t('game.on_top.count_golden', { counts: countText }) : countText} — `), text, gain));
      })));
    }
  }

  table.replaceChildren(el('div', { class: 'ot-wrap' },
    el('div', { class: 'ot-boardbox' }, boardSvg), drawnPanel, players, trackBox, lastPanel));
}

// The drawn tile, big: as it will lie on the chosen cells, or in a standard position.
function bigTile(sixths, cells) {
  let A, B, names = null;
  if (cells) { A = cells[0].points; B = cells[1].points; names = [cells[0].name, cells[1].name]; } else {
    A = [[1, 0], [2, 1], [0, 1]];
    B = [[1, 0], [3, 0], [2, 1]];
  }
  const [ac, bc] = orient(A, B, sixths);
  const all = [...A, ...B].map(px);
  const x0 = Math.min(...all.map((p) => p[0])), x1 = Math.max(...all.map((p) => p[0]));
  const y0 = Math.min(...all.map((p) => p[1])), y1 = Math.max(...all.map((p) => p[1]));
  const m = 6;
  const svg = s('svg', { class: 'ot-big', viewBox: `${x0 - m} ${y0 - m} ${x1 - x0 + 2 * m} ${y1 - y0 + 2 * m}`, role: 'img',
    'aria-label': names ? t('game.on_top.big_tile_on', { sixths: sixths.map(colourName).join(', '), a: names[0], b: names[1] })
      : t('game.on_top.big_tile', { sixths: sixths.map(colourName).join(', ') }) });
  [[A, ac, 'A'], [B, bc, 'B']].forEach(([points, cols, half], h) => {
    svg.append(s('polygon', { points: pts(points), fill: TILE_BASE }));
    points.forEach((_, k) => svg.append(s('path', { d: sectorPath(points, k), fill: FILL[cols[k]], stroke: cols[k] === 'white' ? '#b9b0a0' : 'none', 'stroke-width': 0.8 })));
    const [cx, cy] = px(centroid(points));
    svg.append(s('text', { x: cx, y: cy, fill: '#fff', 'font-size': 11, 'font-weight': 700, 'text-anchor': 'middle', 'dominant-baseline': 'central', stroke: '#2b2622', 'stroke-width': 2.5, 'paint-order': 'stroke' }, names ? `${half} ${names[h]}` : half));
  });
  svg.append(s('polygon', { points: pts(rhombus(A, B)), fill: 'none', stroke: '#2b2622', 'stroke-width': 2.2, 'stroke-linejoin': 'round' }));
  return svg;
}

// The score track: `spaces` spaces snaking in two rows, each player's marker on its space (its
// score modulo the track length, a lap shown as +n×length).
function scoreTrack(b, spaces, ctx) {
  const per = Math.ceil(spaces / 2), w = 22, h = 24, gap = 10;
  const width = per * w, height = 2 * h + gap;
  const svg = s('svg', { class: 'ot-track', viewBox: `-4 -4 ${width + 8} ${height + 8}`, role: 'img', 'aria-label': t('game.on_top.track_label') });
  const spot = (n) => {
    const row = n < per ? 0 : 1;
    const col = row === 0 ? n : spaces - 1 - n;
    return [col * w + w / 2, row * (h + gap) + h / 2];
  };
  for (let n = 0; n < spaces; n++) {
    const [x, y] = spot(n);
    svg.append(s('rect', { x: x - w / 2 + 1, y: y - h / 2, width: w - 2, height: h, rx: 3, fill: n % 10 === 0 ? '#e2d3b2' : '#f1e9d8', stroke: '#d6c8aa', 'stroke-width': 1 }));
    if (n % 5 === 0) svg.append(s('text', { x, y: y + h / 2 - 4, 'font-size': 7.5, fill: '#8a7f70', 'text-anchor': 'middle' }, n));
  }
  const at = new Map();
  b.seats.forEach((sd, seat) => {
    const pos = ((sd.score % spaces) + spaces) % spaces;
    const shown = sd.score < 0 ? 0 : pos;
    if (!at.has(shown)) at.set(shown, []);
    at.get(shown).push(seat);
  });
  for (const [n, seats] of at) {
    const [x, y] = spot(n);
    seats.forEach((seat, k) => {
      const sd = b.seats[seat];
      const off = (k - (seats.length - 1) / 2) * 5;
      const laps = Math.floor(sd.score / spaces);
      const label = t('game.on_top.marker_label', { who: t('game.on_top.who', { name: ctx.seatName(seat), colour: colourName(sd.colour) }), points: tn('game.on_top.points', sd.score) });
      svg.append(s('g', { 'data-marker': sd.colour, 'data-score': sd.score, 'aria-label': label },
        s('circle', { cx: x + off, cy: y - 2 - k * 2, r: 7.5, fill: FILL[sd.colour], stroke: DARK[sd.colour], 'stroke-width': 1.6 }),
        laps > 0 ? s('text', { x: x + off, y: y - 1.5 - k * 2, 'font-size': 7, 'font-weight': 700, fill: sd.colour === 'white' || sd.colour === 'yellow' ? '#2b2622' : '#fff', 'text-anchor': 'middle', 'dominant-baseline': 'central' }, `+${laps * spaces}`) : '',
        s('title', {}, label)));
    });
  }
  return svg;
}

// For the Rules panel: the tile with these six sixths (colour names), in its standard position.
export function tileSketch(sixths, width = 132) {
  const was = turned;
  turned = false;
  const svg = bigTile(sixths, null);
  turned = was;
  svg.setAttribute('width', width);
  svg.setAttribute('height', Math.round(width * 96 / 132));
  return svg;
}

// For the Rules panel: the triangles around one intersection, `sixths[k]` giving the colour of
// the k-th one's sixth at the centre (null: a black triangle; undefined: no cell there, off the
// board), clockwise from the top-left one, and the tower of pawns placed there (bottom to top).
// `golden` draws the golden border through the intersection, along the top of the drawn cells.
export function circleSketch(sixths, tower = [], { golden = false, width = 170, label = '' } = {}) {
  const was = turned;
  turned = false;
  const c = [2, 1];
  const ring = [[1, 0], [3, 0], [4, 1], [3, 2], [1, 2], [0, 1]];
  const cells = ring.map((p, k) => [c, p, ring[(k + 1) % 6]]).filter((_, k) => sixths[k] !== undefined);
  const all = cells.flat().map(px);
  const x0 = Math.min(...all.map((p) => p[0])) - 8, y0 = Math.min(...all.map((p) => p[1])) - 14;
  const w = Math.max(...all.map((p) => p[0])) + 8 - x0, h = Math.max(...all.map((p) => p[1])) + 8 - y0;
  const svg = s('svg', { viewBox: `${x0} ${y0} ${w} ${h}`, width, height: Math.round(width * h / w), role: 'img', 'aria-label': label });
  svg.append(s('title', {}, label));
  ring.forEach((p, k) => {
    const colour = sixths[k];
    if (colour === undefined) return;
    const cell = [c, p, ring[(k + 1) % 6]];
    svg.append(s('polygon', { points: pts(cell), fill: colour ? TILE_BASE : BLACK, stroke: '#2b2622', 'stroke-width': 0.8, 'stroke-linejoin': 'round' }));
    if (colour) svg.append(s('path', { d: sectorPath(cell, 0), fill: FILL[colour], stroke: colour === 'white' ? '#b9b0a0' : 'none', 'stroke-width': 0.8 }));
  });
  if (golden) {
    const [a, b] = [px(ring[5]), px(ring[2])];
    svg.append(s('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: '#d4a017', 'stroke-width': 6, 'stroke-linecap': 'round' }));
  }
  const [x, y] = px(c);
  tower.forEach((colour, k) => {
    const cy = y - k * LIFT;
    svg.append(s('ellipse', { cx: x, cy: cy + PAWN_R * 0.35, rx: PAWN_R, ry: PAWN_R * 0.55, fill: DARK[colour] }),
      s('circle', { cx: x, cy, r: PAWN_R, fill: FILL[colour], stroke: DARK[colour], 'stroke-width': 1.6 }));
  });
  turned = was;
  return svg;
}

const onTopTable = { render, reason };
// The seats' pills in app.js take the game's own colours: blue, yellow, red, white in seat order.
onTopTable.seatColour = (st, i) => {
  const sd = st.board && st.board.seats && st.board.seats[i];
  return sd ? SEAT_INK[sd.colour] : SEAT_INK[COLOURS[i]];
};
export default onTopTable;
