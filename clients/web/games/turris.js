// The Turris table. The 3×3 tower is drawn twice: an isometric view that turns by quarter turns
// (⟲ ⟳, as players turn the felt base) and a top-down plan that turns with it. Placing a block is
// "pick vertical or horizontal, then click a green candidate" (a ghost block on the tower, or a
// cell / domino on the plan). A bonus adds "remove a block" (red outlines) and a "No bonus"
// button. Beside them: each player's blocks left and score, and the five views the scoring reads
// (faces A–D and the roof), each player's largest area ringed in gold, with the per-face score.
// Every candidate comes from st.legal_moves; nothing here checks a rule.
import { svg as s, addStyle } from '../dom.js';
import { t, tn } from '../i18n.js';

const FACES = ['A', 'B', 'C', 'D'];
const COLS = 'abc';

// Local UI state, kept across re-renders.
let mode = 'v';       // 'v' vertical, 'h' horizontal, 'r' remove (bonus only)
let rot = 0;          // quarter turns of the tower, clockwise seen from above
let bonusKey = null;  // identifies the bonus phase we last saw, to pick 'remove' when it opens

// Block colours: seat 0 white, seat 1 black (the game's own colours).
export const PAL = [
  { top: '#fbf8f1', left: '#e7dfcf', right: '#cdc1aa', edge: '#7d705f' },
  { top: '#57514b', left: '#3a3531', right: '#282420', edge: '#8f867c' },
];
// A seat's colour as a word in the page's language ("white" / "Blanc"), read at each call.
const colourName = (seat) => t(seat === 0 ? 'game.turris.white' : 'game.turris.black');

// Where a face is seen from ("row 1", "column c" from the server), in the page's language.
function fromText(from) {
  let m = /^row (\w+)$/.exec(from);
  if (m) return t('game.turris.from_row', { row: m[1] });
  m = /^column (\w+)$/.exec(from);
  if (m) return t('game.turris.from_column', { column: m[1] });
  if (from === 'above') return t('game.turris.from_above');
  return from;
}
export const GHOST = { top: 'rgba(47,158,68,.55)', left: 'rgba(47,158,68,.42)', right: 'rgba(47,158,68,.32)', edge: '#2b8a3e' };

// ---------- notation ----------
const cellName = (x, y) => COLS[x] + (y + 1);
function parseShape(name) {
  let m = /^v@([abc])([123])\/(\d+)$/.exec(name);
  if (m) {
    const x = COLS.indexOf(m[1]), y = Number(m[2]) - 1, z = Number(m[3]) - 1;
    return { vertical: true, cells: [[x, y, z], [x, y, z + 1]] };
  }
  m = /^h@([abc])([123])-([abc])([123])\/(\d+)$/.exec(name);
  if (m) {
    const z = Number(m[5]) - 1;
    return { vertical: false, cells: [[COLS.indexOf(m[1]), Number(m[2]) - 1, z], [COLS.indexOf(m[3]), Number(m[4]) - 1, z]] };
  }
  return null;
}
function parseCell(c) {  // "b2/3" -> [x, y, z]
  const m = /^([abc])([123])\/(\d+)$/.exec(c);
  return m ? [COLS.indexOf(m[1]), Number(m[2]) - 1, Number(m[3]) - 1] : null;
}

// ---------- camera: world (x column, y row) <-> camera (u, v) after `rot` clockwise turns ----------
function toCam(x, y) {
  for (let i = 0; i < rot; i++) [x, y] = [y, 2 - x];
  return [x, y];
}
function toWorld(u, v) {
  for (let i = 0; i < rot; i++) [u, v] = [2 - v, u];
  return [u, v];
}

// Isometric projection of camera point (u, v, z): the front corner (u=3, v=0) is lowest on screen.
const IW = 26, IH = 15, IZ = 30;
export const P = (u, v, z) => [(u + v) * IW, (u - v) * IH - z * IZ];
export const pts = (list) => list.map(([u, v, z]) => P(u, v, z).map((n) => n.toFixed(1)).join(',')).join(' ');

const STYLE = `
  .tu-wrap { display: grid; gap: .7rem; width: 100%; max-width: 1068px; align-items: start;
    grid-template-columns: minmax(300px, 430px) 196px minmax(0, 1fr);
    grid-template-rows: auto auto auto 1fr;
    grid-template-areas: "iso players players" "iso ctl ctl" "iso plan faces" "iso info info"; }
  .tu-players { grid-area: players; } .tu-isocard { grid-area: iso; } .tu-ctl { grid-area: ctl; }
  .tu-plancard { grid-area: plan; } .tu-facescard { grid-area: faces; } .tu-info { grid-area: info; }
  .tu-players { display: grid; grid-template-columns: 1fr 1fr; gap: .6rem; }
  .tu-player { display: grid; grid-template-columns: auto 1fr auto; align-items: center; gap: .2rem .7rem;
    background: #fffdf8; border: 2px solid #e2d8c8; border-left: 8px solid var(--seat); border-radius: 10px; padding: .45rem .7rem; }
  .tu-player.to-move { border-color: var(--seat); box-shadow: 0 0 0 3px color-mix(in srgb, var(--seat) 22%, transparent); }
  .tu-player .tu-icon { grid-row: span 2; }
  .tu-player h3 { margin: 0; font-size: 1rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .tu-player .tu-sub { font-size: .82rem; color: #7a7067; }
  .tu-player .tu-score { grid-row: span 2; text-align: center; font-size: .72rem; color: #7a7067; line-height: 1.1; }
  .tu-player .tu-score b { display: block; font-size: 1.7rem; color: #2b2622; }
  .tu-pips { display: flex; flex-wrap: wrap; gap: 2px; margin-top: 2px; }
  .tu-pip { width: 7px; height: 11px; border-radius: 1.5px; border: 1px solid #7d705f; }
  .tu-pip.off { opacity: .18; }
  .tu-card { background: #fffdf8; border: 1px solid #e2d8c8; border-radius: 10px; padding: .5rem .6rem; }
  .tu-card h4 { margin: 0 0 .3rem; font-size: .85rem; font-weight: 600; color: #5d544c; display: flex; justify-content: space-between; align-items: center; gap: .4rem; }
  .tu-isocard h4 { width: 100%; }
  .tu-iso { width: 100%; max-height: min(66vh, 560px); display: block; margin: 0 auto; }
  .tu-turn { display: flex; gap: .3rem; align-items: center; }
  .tu-turn button { padding: .15rem .55rem; font-size: 1.1rem; line-height: 1.2; }
  .tu-controls { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
  .tu-controls .tu-seg { display: inline-flex; border: 1px solid #d6cab6; border-radius: 8px; overflow: hidden; }
  .tu-controls .tu-seg button { border: 0; border-radius: 0; padding: .35rem .7rem; background: #fffdf8; }
  .tu-controls .tu-seg button + button { border-left: 1px solid #d6cab6; }
  .tu-controls .tu-seg button.on { background: #2f9e44; color: #fff; }
  .tu-controls .tu-seg button.on.rm { background: #c92a2a; }
  .tu-controls .tu-nobonus { border-color: #c58b19; background: #fff3c4; font-weight: 600; }
  .tu-hint { font-size: .88rem; color: #5d544c; margin: .1rem 0 0; }
  .tu-hint.mine { color: #2b2622; }
  .tu-plan { width: 100%; display: block; }
  .tu-info { display: grid; gap: .4rem; padding: 0 .2rem; }
  .tu-last { font-size: .82rem; color: #5d544c; display: grid; gap: .25rem; }
  .tu-last code { background: #f1ebe0; border-radius: 4px; padding: 0 .25rem; }
  .tu-legend { display: flex; flex-wrap: wrap; gap: .2rem .7rem; font-size: .75rem; color: #7a7067; }
  .tu-legend i { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: -2px; margin-right: .2rem; }
  .tu-faces { display: flex; gap: .45rem; align-items: flex-end; justify-content: space-between; flex-wrap: nowrap; }
  .tu-face { display: grid; justify-items: center; gap: 2px; flex: 1 1 0; min-width: 0; }
  .tu-face svg { width: 100%; max-width: 66px; display: block; }
  .tu-face .tu-fname { font-size: .78rem; font-weight: 700; color: #2b2622; white-space: nowrap; }
  .tu-face .tu-ffrom { font-size: .68rem; color: #7a7067; white-space: nowrap; }
  .tu-face.inview .tu-fname { color: #1c7ed6; }
  .tu-fscore { display: flex; gap: .3rem; font-size: .8rem; font-variant-numeric: tabular-nums; }
  .tu-fscore span { display: inline-flex; align-items: center; gap: 2px; }
  .tu-sw { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; border: 1px solid #7d705f; }
  .tu-sw.s0 { background: ${PAL[0].top}; } .tu-sw.s1 { background: ${PAL[1].left}; }
  .tu-iso [data-move], .tu-plan [data-move] { cursor: pointer; }
  .tu-iso .tu-ghost:hover polygon, .tu-iso .tu-ghost.hot polygon { fill: rgba(47,158,68,.8); }
  .tu-iso .tu-hbar .tu-gbody { visibility: hidden; pointer-events: none; }
  .tu-iso .tu-hbar:hover .tu-gbody, .tu-iso .tu-hbar.hot .tu-gbody { visibility: visible; }
  .tu-iso .tu-hbar:hover .tu-barpoly, .tu-iso .tu-hbar.hot .tu-barpoly, .tu-plan .tu-pbar:hover rect, .tu-plan .tu-pbar.hot rect { fill: #2b8a3e; }
  .tu-iso .tu-rm polygon { stroke: #c92a2a; stroke-width: 1; }
  .tu-iso .tu-rm path.tu-edges { stroke: #e03131; stroke-width: 3; }
  .tu-iso .tu-rm:hover polygon, .tu-iso .tu-rm.hot polygon { filter: brightness(1.15) sepia(.6) saturate(3) hue-rotate(-30deg); }
  .tu-iso .tu-lastb path.tu-edges { stroke: #1c7ed6; stroke-width: 2.6; }
  .tu-plan .tu-pv:hover rect.tu-cand, .tu-plan .tu-pv.hot rect.tu-cand { fill: rgba(47,158,68,.75); }
  .tu-plan .tu-prm:hover rect.tu-rmr, .tu-plan .tu-prm.hot rect.tu-rmr { fill: rgba(224,49,49,.35); }
  .tu-iso [data-move]:focus-visible, .tu-plan [data-move]:focus-visible { outline: none; }
  .tu-iso [data-move]:focus-visible polygon, .tu-plan [data-move]:focus-visible rect { stroke: #1c7ed6; stroke-width: 3; }
  @media (max-width: 760px) {
    .tu-wrap { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .5rem;
      grid-template-areas: "players players" "ctl ctl" "iso iso" "plan info" "faces faces"; }
    .tu-players { gap: .4rem; }
    .tu-player { padding: .35rem .45rem; gap: .1rem .4rem; grid-template-columns: auto 1fr auto; }
    .tu-player h3 { font-size: .92rem; }
    .tu-player .tu-score b { font-size: 1.35rem; }
    .tu-pips { display: none; }
    .tu-iso { max-height: 58vh; }
  }
  `;

// A unit cube at camera (u,v,z) of the isometric view, in palette `pal` (PAL[seat] or GHOST);
// `same(du,dv,dz)` says whether that neighbour is part of the same block (no edge drawn between
// them); `hides(du,dv,dz)` whether it hides the face.
export function cube(u, v, z, pal, same, hides) {
  const g = s('g');
  const faces = [];
  if (!hides(0, 0, 1)) faces.push(['top', [[u, v, z + 1], [u + 1, v, z + 1], [u + 1, v + 1, z + 1], [u, v + 1, z + 1]], [[0, -1, 0], [1, 0, 0], [0, 1, 0], [-1, 0, 0]]]);
  if (!hides(0, -1, 0)) faces.push(['left', [[u, v, z], [u + 1, v, z], [u + 1, v, z + 1], [u, v, z + 1]], [[0, 0, -1], [1, 0, 0], [0, 0, 1], [-1, 0, 0]]]);
  if (!hides(1, 0, 0)) faces.push(['right', [[u + 1, v, z], [u + 1, v + 1, z], [u + 1, v + 1, z + 1], [u + 1, v, z + 1]], [[0, 0, -1], [0, 1, 0], [0, 0, 1], [0, -1, 0]]]);
  for (const [side, corners, nbrs] of faces) {
    g.append(s('polygon', { points: pts(corners), fill: pal[side] }));
    let d = '';
    for (let i = 0; i < 4; i++) {
      if (same(...nbrs[i])) continue;
      const a = P(...corners[i]), c = P(...corners[(i + 1) % 4]);
      d += `M${a[0].toFixed(1)},${a[1].toFixed(1)}L${c[0].toFixed(1)},${c[1].toFixed(1)}`;
    }
    if (d) g.append(s('path', { d, class: 'tu-edges', stroke: pal.edge, 'stroke-width': 1.1, fill: 'none', 'stroke-linecap': 'round' }));
  }
  return g;
}

// One scored view drawn as the scoring reads it: `f` is a face of the view ({grid, score, from}),
// `key` 'A'–'D' or 'roof'. Each player's largest area is ringed in gold, the rest faded.
export function faceSvg(key, f) {
  addStyle('turris-style', STYLE);
  const rows = f.grid.length;
  const Q = 18, Gp = 2;
  const shownRows = Math.max(rows, 1);
  const w = 3 * Q + 2 * Gp, h = shownRows * Q + (shownRows - 1) * Gp;
  const svg = s('svg', { viewBox: `-3 -3 ${w + 6} ${h + 6}`, role: 'img', 'aria-label': t(key === 'roof' ? 'game.turris.roof_label' : 'game.turris.face_label', { face: key, from: fromText(f.from), white: f.score[0], black: f.score[1] }) });
  svg.append(s('rect', { x: -2, y: -2, width: w + 4, height: h + 4, rx: 3, fill: '#dde6e1' }));
  if (!rows) svg.append(s('text', { x: w / 2, y: h / 2 + 4, 'text-anchor': 'middle', 'font-size': 10, fill: '#8a9a8f' }, t('game.turris.empty')));
  const isBest = (r, c, seat) => { const q = f.grid[r] && f.grid[r][c]; return !!q && q.best && q.seat === seat; };
  let contour = '';
  f.grid.forEach((row, r) => row.forEach((sq, c) => {
    const x = c * (Q + Gp), y = (rows - 1 - r) * (Q + Gp);
    if (!sq) { svg.append(s('rect', { x: x + 1, y: y + 1, width: Q - 2, height: Q - 2, rx: 2, fill: 'none', stroke: '#c4d0c9', 'stroke-dasharray': '2 2', 'data-sq': `${key}:${r}:${c}:-` })); return; }
    // further back = drawn smaller; squares outside the player's largest area are faded
    const k = key === 'roof' ? 0 : sq.depth * 1.6;
    const p = PAL[sq.seat];
    const g = s('g', { 'data-sq': `${key}:${r}:${c}:${sq.seat}${sq.best ? '*' : ''}`, opacity: sq.best ? null : 0.5,
      'aria-label': [colourName(sq.seat), key === 'roof' ? t('game.turris.sq_level', { level: sq.level }) : sq.depth ? tn('game.turris.sq_back', sq.depth) : '',
        sq.best ? t('game.turris.sq_best') : ''].filter(Boolean).join(', ') });
    g.append(s('rect', { x: x + 0.5 + k, y: y + 0.5 + k, width: Q - 1 - 2 * k, height: Q - 1 - 2 * k, rx: 2, fill: sq.seat ? p.left : p.top, stroke: p.edge, 'stroke-width': 0.8 }));
    if (key === 'roof') g.append(s('text', { x: x + Q / 2, y: y + Q / 2 + 3.5, 'text-anchor': 'middle', 'font-size': 9, fill: sq.seat ? '#e9e2d8' : '#6d6257' }, sq.level));
    svg.append(g);
    if (!sq.best) return;
    // the outline of the player's largest area: the sides of its squares that face outwards
    const L = x - Gp / 2, R = x + Q + Gp / 2, T = y - Gp / 2, B = y + Q + Gp / 2;
    if (!isBest(r + 1, c, sq.seat)) contour += `M${L},${T}H${R}`;
    if (!isBest(r - 1, c, sq.seat)) contour += `M${L},${B}H${R}`;
    if (!isBest(r, c - 1, sq.seat)) contour += `M${L},${T}V${B}`;
    if (!isBest(r, c + 1, sq.seat)) contour += `M${R},${T}V${B}`;
  }));
  if (contour) svg.append(s('path', { d: contour, fill: 'none', stroke: '#f59f00', 'stroke-width': 2.2, 'stroke-linecap': 'square', class: 'tu-best' }));
  return svg;
}

// A small isometric block icon for a seat.
export function blockIcon(seat, size = 30) {
  addStyle('turris-style', STYLE);
  const p = PAL[seat];
  const svg = s('svg', { viewBox: '-2 -62 56 68', width: size, height: size * 68 / 56, class: 'tu-icon', 'aria-hidden': 'true' });
  // a vertical block: camera cell (0,0) levels 0-1, scaled to fit
  const g = s('g', { transform: 'translate(0,-4)' });
  const top = [[0, 0, 2], [1, 0, 2], [1, 1, 2], [0, 1, 2]];
  const left = [[0, 0, 0], [1, 0, 0], [1, 0, 2], [0, 0, 2]];
  const right = [[1, 0, 0], [1, 1, 0], [1, 1, 2], [1, 0, 2]];
  g.append(s('polygon', { points: pts(top), fill: p.top, stroke: p.edge }),
    s('polygon', { points: pts(left), fill: p.left, stroke: p.edge }),
    s('polygon', { points: pts(right), fill: p.right, stroke: p.edge }));
  svg.append(g);
  return svg;
}

// The outcome's reason in the page's language, from its code and args; null for another code.
function reason(outcome) {
  const a = outcome.args || {};
  if (outcome.code !== 'turris.faces') return null;
  const draw = (outcome.winners || []).length === 0;
  const key = {
    full: draw ? 'reason.turris.faces.full_draw' : 'reason.turris.faces.full',
    stuck: draw ? 'reason.turris.faces.stuck_draw' : 'reason.turris.faces.stuck',
  }[a.ended];
  return key ? t(key, { white: a.white, black: a.black }) : null;
}

export default {
  reason,
  render(table, st, ctx) {
    addStyle('turris-style', STYLE);
    const { el } = ctx;
    const b = st.board;
    const me = st.you;
    const legal = st.legal_moves || [];
    const myTurn = me !== null && st.status === 'playing' && legal.length > 0;
    const rerender = () => this.render(table, st, ctx);

    // ----- the tower as a grid of block ids -----
    const height = b.height;
    const at = (x, y, z) => (z >= 0 && z < height && x >= 0 && x < 3 && y >= 0 && y < 3 ? b.levels[z][y][x] : null);
    const colHeight = (x, y) => { let z = 0; while (at(x, y, z) !== null) z++; return z; };

    // ----- candidates from the legal moves -----
    const vMoves = [], hMoves = [], rMoves = [];
    let noBonus = null, pass = null;
    for (const m of legal) {
      if (m === 'bonus:none') noBonus = m;
      else if (m === 'pass') pass = m;
      else if (m.startsWith('remove:')) rMoves.push(m);
      else if (m.startsWith('v@')) vMoves.push(m);
      else if (m.startsWith('h@')) hMoves.push(m);
    }
    const bonus = b.phase === 'bonus' && myTurn;
    const key = bonus ? `${st.round}:${b.blocks.length}:${b.supply.join()}` : null;
    if (bonus && key !== bonusKey && rMoves.length) mode = 'r';
    bonusKey = key;
    const count = { v: vMoves.length, h: hMoves.length, r: rMoves.length };
    if (myTurn && !count[mode]) mode = ['v', 'h', 'r'].find((k) => count[k]) || 'v';
    if (!myTurn && mode === 'r') mode = 'v';
    const shown = myTurn ? { v: mode === 'v' ? vMoves : [], h: mode === 'h' ? hMoves : [], r: mode === 'r' ? rMoves : [] } : { v: [], h: [], r: [] };
    const removable = new Map();  // block id -> move
    for (const m of shown.r) {
      const name = m.slice('remove:'.length);
      const id = b.blocks.findIndex((bl) => bl && bl.name === name);
      if (id >= 0) removable.set(id, m);
    }
    const lastIds = new Set();
    if (b.last) for (const m of b.last.moves) {
      const id = b.blocks.findIndex((bl) => bl && bl.name === m);
      if (id >= 0) lastIds.add(id);
    }
    const barred = new Set(b.barred ? b.barred.cells.map((c) => { const p = parseCell(c); return `${p[0]},${p[1]}`; }) : []);
    const blockLabel = (id) => { const bl = b.blocks[id]; return t(bl.seat === 0 ? 'game.turris.block_white' : 'game.turris.block_black', { block: bl.name }); };

    // Interactive SVG group: a click plays the move; hovering lights the same move elsewhere.
    const act = (g, move, label) => {
      g.setAttribute('data-move', move);
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '0');
      g.setAttribute('aria-label', label);
      g.append(s('title', {}, label));
      g.addEventListener('click', () => ctx.play(move));
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); ctx.play(move); } });
      const hot = (on) => table.querySelectorAll(`[data-move="${move}"]`).forEach((n) => n.classList.toggle('hot', on));
      g.addEventListener('mouseenter', () => hot(true));
      g.addEventListener('mouseleave', () => hot(false));
      return g;
    };
    const moveLabel = (m) => {
      const sh = parseShape(m.replace(/^remove:/, ''));
      if (m.startsWith('remove:')) return t('game.turris.remove_block', { block: blockLabel(b.blocks.findIndex((bl) => bl && bl.name === m.slice(7))) });
      if (!sh) return m;
      const [c0, c1] = sh.cells;
      return sh.vertical ? t('game.turris.place_vertical', { cell: cellName(c0[0], c0[1]), from: c0[2] + 1, to: c1[2] + 1, move: m })
        : t('game.turris.place_horizontal', { cell: cellName(c0[0], c0[1]), cell2: cellName(c1[0], c1[1]), level: c0[2] + 1, move: m });
    };

    // ================= the isometric view =================
    const iso = () => {
      // camera-frame occupancy: solid blocks and vertical ghosts
      const solid = new Map();  // "u,v,z" -> id
      for (let z = 0; z < height; z++) for (let y = 0; y < 3; y++) for (let x = 0; x < 3; x++) {
        const id = at(x, y, z);
        if (id !== null) { const [u, v] = toCam(x, y); solid.set(`${u},${v},${z}`, id); }
      }
      const ghosts = new Map();  // "u,v,z" -> move
      let top = height;
      for (const m of shown.v) {
        const sh = parseShape(m);
        for (const [x, y, z] of sh.cells) { const [u, v] = toCam(x, y); ghosts.set(`${u},${v},${z}`, m); top = Math.max(top, z + 1); }
      }
      for (const m of shown.h) top = Math.max(top, parseShape(m).cells[0][2] + 1);
      const levelsShown = Math.max(top, 4);
      const items = [];
      for (const [k, id] of solid) {
        const [u, v, z] = k.split(',').map(Number);
        const bl = b.blocks[id];
        items.push({ z, d: u - v, o: 1, draw: () => {
          const g = cube(u, v, z, PAL[bl.seat],
            (du, dv, dz) => solid.get(`${u + du},${v + dv},${z + dz}`) === id,
            (du, dv, dz) => solid.has(`${u + du},${v + dv},${z + dz}`));
          const [x, y] = toWorld(u, v);
          g.setAttribute('data-cell', `${cellName(x, y)}/${z + 1}`);
          g.setAttribute('data-seat', bl.seat);
          g.setAttribute('data-block', bl.name);
          if (lastIds.has(id)) g.classList.add('tu-lastb');
          if (removable.has(id)) { g.classList.add('tu-rm'); act(g, removable.get(id), moveLabel(removable.get(id))); }
          return g;
        } });
      }
      for (const [k, m] of ghosts) {
        const [u, v, z] = k.split(',').map(Number);
        items.push({ z, d: u - v, o: 1, draw: () => {
          const g = cube(u, v, z, GHOST,
            (du, dv, dz) => ghosts.get(`${u + du},${v + dv},${z + dz}`) === m,
            (du, dv, dz) => solid.has(`${u + du},${v + dv},${z + dz}`) || ghosts.get(`${u + du},${v + dv},${z + dz}`) === m);
          g.classList.add('tu-ghost');
          return act(g, m, moveLabel(m));
        } });
      }
      for (const m of shown.h) {
        const sh = parseShape(m);
        const cam = sh.cells.map(([x, y]) => toCam(x, y));
        const z = sh.cells[0][2];
        const d = Math.max(...cam.map(([u, v]) => u - v));
        items.push({ z, d: d - 0.5, o: 0, draw: () => {
          const [[u1, v1], [u2, v2]] = cam;
          const u0 = Math.min(u1, u2), v0 = Math.min(v1, v2);
          const along = u1 !== u2;
          const bar = along ? [[u0 + 0.62, v0 + 0.3], [u0 + 1.38, v0 + 0.3], [u0 + 1.38, v0 + 0.7], [u0 + 0.62, v0 + 0.7]]
            : [[u0 + 0.3, v0 + 0.62], [u0 + 0.7, v0 + 0.62], [u0 + 0.7, v0 + 1.38], [u0 + 0.3, v0 + 1.38]];
          const g = s('g', { class: 'tu-hbar' });
          g.append(s('polygon', { class: 'tu-barpoly', points: pts(bar.map(([a, c]) => [a, c, z])), fill: '#40c057', stroke: '#1b6e2f', 'stroke-width': 1.2 }));
          const body = s('g', { class: 'tu-gbody' });
          const mine = new Set(cam.map(([a, c]) => `${a},${c}`));
          const order = [...cam].sort((p, q) => (p[0] - p[1]) - (q[0] - q[1]));
          for (const [a, c] of order) {
            body.append(cube(a, c, z, GHOST,
              (du, dv, dz) => dz === 0 && mine.has(`${a + du},${c + dv}`),
              (du, dv, dz) => (dz === 0 && mine.has(`${a + du},${c + dv}`)) || solid.has(`${a + du},${c + dv},${z + dz}`)));
          }
          g.append(body);
          return act(g, m, moveLabel(m));
        } });
      }
      // barred cells: a red cross on the floor where the freed block was
      for (const c of (b.barred ? b.barred.cells : [])) {
        const [x, y, z] = parseCell(c);
        const [u, v] = toCam(x, y);
        const q = (a, c2) => P(u + a, v + c2, z).map((n) => n.toFixed(1)).join(',');
        items.push({ z, d: u - v - 0.5, o: 0, draw: () => s('path', { d: `M${q(0.25, 0.25)}L${q(0.75, 0.75)}M${q(0.75, 0.25)}L${q(0.25, 0.75)}`,
          stroke: '#e03131', 'stroke-width': 3, 'stroke-linecap': 'round', class: 'tu-barx' }) });
      }
      items.sort((p, q) => p.z - q.z || p.d - q.d || p.o - q.o);

      const x0 = -0.8 * IW - 14, x1 = 6.8 * IW + 14;
      const yTop = -3.3 * IH - levelsShown * IZ - 10, yBot = 3.6 * IH + 30;
      const svg = s('svg', { class: 'tu-iso', viewBox: `${x0} ${yTop} ${x1 - x0} ${yBot - yTop}`, role: 'img',
        'aria-label': t('game.turris.iso_label', { a: FACES[rot], b: FACES[(rot + 1) % 4] }) });
      // the felt base
      const m0 = -0.35, m1 = 3.35;
      svg.append(
        s('polygon', { points: pts([[m0, m0, 0], [m1, m0, 0], [m1, m0, -0.25], [m0, m0, -0.25]]), fill: '#2f5a40' }),
        s('polygon', { points: pts([[m1, m0, 0], [m1, m1, 0], [m1, m1, -0.25], [m1, m0, -0.25]]), fill: '#24482f' }),
        s('polygon', { points: pts([[m0, m0, 0], [m1, m0, 0], [m1, m1, 0], [m0, m1, 0]]), fill: '#3f7352', stroke: '#2f5a40' }));
      for (let u = 0; u < 3; u++) for (let v = 0; v < 3; v++) {
        svg.append(s('polygon', { points: pts([[u + 0.04, v + 0.04, 0], [u + 0.96, v + 0.04, 0], [u + 0.96, v + 0.96, 0], [u + 0.04, v + 0.96, 0]]), fill: '#4a8560' }));
      }
      // coordinates along the two front edges, face letters on all four sides
      const label = (u, v, text, cls, size = 11) => { const [px, py] = P(u, v, 0); return s('text', { x: px, y: py + 4, 'text-anchor': 'middle', 'font-size': size, fill: cls, 'font-weight': 700 }, text); };
      for (let i = 0; i < 3; i++) {
        const [xa, ya] = toWorld(i, 0);
        const [xb, yb] = toWorld(2, i);
        const sa = toWorld(0, 0)[0] === toWorld(1, 0)[0] ? String(ya + 1) : COLS[xa];
        const sb = toWorld(2, 0)[0] === toWorld(2, 1)[0] ? String(yb + 1) : COLS[xb];
        svg.append(label(i + 0.5, -0.2, sa, '#e9f5ec', 9), label(3.2, i + 0.5, sb, '#e9f5ec', 9));
      }
      const faceTag = (u, v, f, front) => {
        const [px, py] = P(u, v, 0);
        return s('g', {}, s('circle', { cx: px, cy: py, r: 9, fill: front ? '#1c7ed6' : '#8a9a8f' }),
          s('text', { x: px, y: py + 4, 'text-anchor': 'middle', 'font-size': 11, 'font-weight': 700, fill: '#fff' }, f));
      };
      svg.append(faceTag(1.5, -1.35, FACES[rot], true), faceTag(4.35, 1.5, FACES[(rot + 1) % 4], true));
      const tower = s('g', { class: 'tu-tower' });
      for (const it of items) tower.append(it.draw());
      // barred crosses sit on top surfaces: keep them above the felt but under nothing else
      svg.append(tower);
      return svg;
    };

    // ================= the plan (top-down, turning with the camera) =================
    const plan = () => {
      const C = 60, G = 4, M = 20;
      const svg = s('svg', { class: 'tu-plan', viewBox: `0 0 ${3 * C + 2 * M} ${3 * C + 2 * M}`, role: 'group', 'aria-label': t('game.turris.plan_label') });
      const pos = (u, v) => [M + u * C, M + (2 - v) * C];  // camera v=0 (front-left face) at the bottom
      svg.append(s('defs', {}, s('pattern', { id: 'tu-hatch', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
        s('rect', { x: 0, y: 0, width: 3, height: 8, fill: 'rgba(224,49,49,.45)' }))));
      svg.append(s('rect', { x: M - 6, y: M - 6, width: 3 * C + 12, height: 3 * C + 12, rx: 6, fill: '#3f7352' }));
      // face letters on the four sides
      const tag = (x, y, f, front) => s('g', {}, s('circle', { cx: x, cy: y, r: 8, fill: front ? '#1c7ed6' : '#8a9a8f' }),
        s('text', { x, y: y + 3.5, 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 700, fill: '#fff' }, f));
      svg.append(tag(M + 1.5 * C, 3 * C + 2 * M - 8, FACES[rot], true), tag(3 * C + 2 * M - 8, M + 1.5 * C, FACES[(rot + 1) % 4], true),
        tag(M + 1.5 * C, 8, FACES[(rot + 2) % 4], false), tag(8, M + 1.5 * C, FACES[(rot + 3) % 4], false));
      const tops = [];
      for (let u = 0; u < 3; u++) for (let v = 0; v < 3; v++) {
        const [x, y] = toWorld(u, v);
        const h = colHeight(x, y);
        const id = h ? at(x, y, h - 1) : null;
        const [px, py] = pos(u, v);
        const bl = id !== null ? b.blocks[id] : null;
        const name = cellName(x, y);
        const g = s('g', { 'data-col': name, 'aria-label': bl ? tn('game.turris.column_label', h, { cell: name, block: blockLabel(id) }) : t('game.turris.column_empty', { cell: name }), role: 'img' });
        g.append(s('rect', { x: px + G / 2, y: py + G / 2, width: C - G, height: C - G, rx: 4,
          fill: bl ? PAL[bl.seat].top : '#4a8560', stroke: bl ? PAL[bl.seat].edge : 'none', 'stroke-width': 1.2 }));
        if (bl && lastIds.has(id)) g.append(s('rect', { x: px + G / 2 + 2, y: py + G / 2 + 2, width: C - G - 4, height: C - G - 4, rx: 3, fill: 'none', stroke: '#1c7ed6', 'stroke-width': 3 }));
        g.append(s('text', { x: px + 6, y: py + 15, 'font-size': 10, fill: bl ? (bl.seat ? '#d8d0c6' : '#7a7067') : '#cfe6d6' }, name));
        if (h) g.append(s('text', { x: px + C / 2, y: py + C / 2 + 7, 'text-anchor': 'middle', 'font-size': 20, 'font-weight': 700, fill: bl.seat ? '#f4efe6' : '#2b2622' }, h));
        if (barred.has(`${x},${y}`)) {
          g.append(s('rect', { x: px + G / 2, y: py + G / 2, width: C - G, height: C - G, rx: 4, fill: 'url(#tu-hatch)' }),
            s('text', { x: px + C - 7, y: py + 15, 'text-anchor': 'end', 'font-size': 12, 'font-weight': 700, fill: '#e03131' }, '⊘'));
          g.setAttribute('aria-label', t(b.barred.seat === 0 ? 'game.turris.barred_white' : 'game.turris.barred_black', { label: g.getAttribute('aria-label') }));
        }
        tops.push({ u, v, x, y, id });
        svg.append(g);
      }
      // join the two halves of a horizontal block lying on top
      for (const a of tops) for (const c of tops) {
        if (a.id === null || a.id !== c.id || !(c.u === a.u + 1 && c.v === a.v || c.v === a.v + 1 && c.u === a.u)) continue;
        const [ax, ay] = pos(a.u, a.v);
        const bl = b.blocks[a.id];
        const r = c.u === a.u + 1 ? { x: ax + C - G / 2 - 1, y: ay + 10, width: G + 2, height: C - 20 } : { x: ax + 10, y: ay - G / 2 - 1, width: C - 20, height: G + 2 };
        svg.append(s('rect', { ...r, fill: PAL[bl.seat].top }));
      }
      // candidates
      for (const m of shown.v) {
        const [x, y, z] = parseShape(m).cells[0];
        const [u, v] = toCam(x, y);
        const [px, py] = pos(u, v);
        const g = s('g', { class: 'tu-pv' },
          s('rect', { class: 'tu-cand', x: px + 5, y: py + 5, width: C - 10, height: C - 10, rx: 5, fill: 'rgba(64,192,87,.5)', stroke: '#2b8a3e', 'stroke-width': 2, 'stroke-dasharray': '5 3' }),
          s('text', { x: px + C / 2, y: py + C - 10, 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 700, fill: '#123d1c' }, `↑${z + 1}–${z + 2}`));
        svg.append(act(g, m, moveLabel(m)));
      }
      for (const m of shown.h) {
        const sh = parseShape(m);
        const cam = sh.cells.map(([x, y]) => toCam(x, y));
        const c1 = pos(...cam[0]).map((n) => n + C / 2), c2 = pos(...cam[1]).map((n) => n + C / 2);
        const cx = (c1[0] + c2[0]) / 2, cy = (c1[1] + c2[1]) / 2;
        const horiz = c1[1] === c2[1];
        const L = C * 0.62, W = 15;
        const g = s('g', { class: 'tu-pbar' },
          s('rect', { x: horiz ? cx - L / 2 : cx - W / 2, y: horiz ? cy - W / 2 : cy - L / 2, width: horiz ? L : W, height: horiz ? W : L, rx: 6, fill: '#40c057', stroke: '#1b6e2f', 'stroke-width': 1.5 }),
          s('text', { x: cx, y: cy + 4, 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 700, fill: '#fff', 'pointer-events': 'none' }, sh.cells[0][2] + 1));
        svg.append(act(g, m, moveLabel(m)));
      }
      for (const [id, m] of removable) {
        const bl = b.blocks[id];
        const cells = bl.cells.map(parseCell).map(([x, y]) => toCam(x, y));
        const us = cells.map((c) => c[0]), vs = cells.map((c) => c[1]);
        const [px] = pos(Math.min(...us), 0);
        const [, py] = pos(0, Math.max(...vs));
        const wdt = (Math.max(...us) - Math.min(...us) + 1) * C, hgt = (Math.max(...vs) - Math.min(...vs) + 1) * C;
        const g = s('g', { class: 'tu-prm' },
          s('rect', { class: 'tu-rmr', x: px + 3, y: py + 3, width: wdt - 6, height: hgt - 6, rx: 6, fill: 'rgba(224,49,49,.12)', stroke: '#e03131', 'stroke-width': 3, 'stroke-dasharray': '6 3' }),
          s('text', { x: px + wdt - 10, y: py + 16, 'text-anchor': 'end', 'font-size': 12, 'font-weight': 700, fill: '#e03131' }, '✕'));
        svg.append(act(g, m, moveLabel(m)));
      }
      return svg;
    };

    // ================= the five scored views =================
    const inView = new Set([FACES[rot], FACES[(rot + 1) % 4]]);
    const face = (key) => {
      const f = b.faces[key];
      const svg = faceSvg(key, f);
      return el('div', { class: `tu-face${inView.has(key) ? ' inview' : ''}`, 'data-face': key },
        el('span', { class: 'tu-fname' }, key === 'roof' ? t('game.turris.roof') : t('game.turris.face', { face: key })),
        el('span', { class: 'tu-ffrom' }, key === 'roof' ? t('game.turris.from_above') : fromText(f.from)),
        svg,
        el('div', { class: 'tu-fscore', 'data-face-score': `${f.score[0]}-${f.score[1]}` },
          el('span', { title: t('game.turris.score_white', { n: f.score[0] }) }, el('i', { class: 'tu-sw s0' }), f.score[0]),
          el('span', { title: t('game.turris.score_black', { n: f.score[1] }) }, el('i', { class: 'tu-sw s1' }), f.score[1])));
    };

    // ================= players =================
    const player = (seat) => {
      const left = b.supply[seat];
      const moving = st.status === 'playing' && st.to_move === seat;
      const pips = [];
      for (let i = 0; i < 20; i++) pips.push(el('i', { class: `tu-pip${i < left ? '' : ' off'}`, style: `background:${PAL[seat].left}` }));
      const card = el('div', { class: `tu-player${moving ? ' to-move' : ''}`, 'data-player': seat, style: `--seat:${ctx.seatColour(seat)}` },
        blockIcon(seat),
        el('h3', { title: ctx.seatName(seat) }, ctx.seatName(seat)),
        el('div', { class: 'tu-score', 'data-score': b.score[seat] }, t('game.turris.score'), el('b', {}, b.score[seat])),
        el('div', { class: 'tu-sub' },
          el('span', { 'data-supply': left }, `${me === seat ? t('game.turris.colour_you', { colour: colourName(seat) }) : colourName(seat)} · ${tn('game.turris.left', left)}`),
          moving ? ` · ${t(b.phase === 'bonus' ? 'game.turris.bonus_now' : 'game.turris.to_move')}` : '',
          el('div', { class: 'tu-pips', 'aria-hidden': 'true' }, pips)));
      return card;
    };

    // ================= controls =================
    const controls = [];
    const turnBtns = el('div', { class: 'tu-turn' },
      el('button', { class: 'small', 'data-choice': 'rot-left', 'aria-label': t('game.turris.turn_left_label'), title: t('game.turris.turn_left'), onclick: () => { rot = (rot + 3) % 4; rerender(); } }, '⟲'),
      el('button', { class: 'small', 'data-choice': 'rot-right', 'aria-label': t('game.turris.turn_right_label'), title: t('game.turris.turn_right'), onclick: () => { rot = (rot + 1) % 4; rerender(); } }, '⟳'));
    let hint = '';
    const opp = me === null ? 1 : 1 - me;
    if (myTurn) {
      const segs = [['v', t('game.turris.vertical'), '▮'], ['h', t('game.turris.horizontal'), '▬']];
      if (bonus) segs.push(['r', t('game.turris.remove'), '✕']);
      controls.push(el('div', { class: 'tu-seg', role: 'group', 'aria-label': t('game.turris.what_to_do') }, segs.map(([k, label, icon]) =>
        el('button', { class: `${mode === k ? 'on' : ''}${k === 'r' ? ' rm' : ''}`, 'data-choice': k, 'aria-pressed': mode === k ? 'true' : 'false',
          disabled: !count[k], title: tn('game.turris.options_count', count[k], { what: label }), onclick: () => { mode = k; rerender(); } }, `${icon} ${label}`))));
      if (noBonus) controls.push(el('button', { class: 'tu-nobonus', 'data-move': noBonus, onclick: () => ctx.play(noBonus) }, t('game.turris.no_bonus')));
      if (pass) controls.push(el('button', { class: 'primary', 'data-move': pass, onclick: () => ctx.play(pass) }, t('game.turris.pass')));
      if (pass) hint = t('game.turris.hint_pass');
      else if (bonus) hint = t('game.turris.hint_bonus', { name: ctx.seatName(opp) });
      else hint = mode === 'v' ? t('game.turris.hint_vertical') : t('game.turris.hint_horizontal');
      if (bonus && mode === 'r') hint = t('game.turris.hint_remove', { name: ctx.seatName(opp) });
    } else if (st.status === 'playing') {
      hint = me === null
        ? t(b.phase === 'bonus' ? 'game.turris.watch_bonus' : 'game.turris.watch_move', { name: ctx.seatName(st.to_move), colour: colourName(st.to_move) })
        : t(b.phase === 'bonus' ? 'game.turris.wait_bonus' : 'game.turris.wait_move', { name: ctx.seatName(st.to_move) });
    } else if (st.status === 'over') hint = t('game.turris.over');
    const lastBox = b.last ? el('div', { class: 'tu-last' },
      el('span', {}, t('game.turris.last_turn', { name: ctx.seatName(b.last.seat), colour: colourName(b.last.seat) }), ' ',
        b.last.moves.flatMap((m, i) => [i ? ', ' : '', el('code', {}, m)])),
      b.barred ? el('span', {}, t(b.barred.seat === 0 ? 'game.turris.barred_note_white' : 'game.turris.barred_note_black',
        { cells: b.barred.cells.join(', ') })) : '') : el('div', { class: 'tu-last' }, t('game.turris.no_block_yet'));
    const legend = el('div', { class: 'tu-legend' },
      el('span', {}, el('i', { style: 'background:#40c057' }), t('game.turris.legend_place')),
      el('span', {}, el('i', { style: 'border:2px solid #e03131' }), t('game.turris.legend_removable')),
      el('span', {}, el('i', { style: 'border:2px solid #1c7ed6' }), t('game.turris.legend_last')),
      el('span', {}, el('i', { style: 'border:2px solid #f59f00' }), t('game.turris.legend_best')),
      el('span', {}, t('game.turris.legend_depth')));

    table.replaceChildren(el('div', { class: 'tu-wrap', 'data-phase': b.phase, 'data-rot': rot },
      el('div', { class: 'tu-players' }, player(0), player(1)),
      el('div', { class: 'tu-card tu-isocard' },
        el('h4', {}, el('span', {}, t('game.turris.tower_title', { a: FACES[rot], b: FACES[(rot + 1) % 4] })), turnBtns),
        iso()),
      hint || controls.length ? el('div', { class: 'tu-card tu-ctl' },
        controls.length ? el('div', { class: 'tu-controls' }, controls) : '',
        el('p', { class: `tu-hint${myTurn ? ' mine' : ''}` }, hint)) : '',
      el('div', { class: 'tu-card tu-plancard' }, el('h4', {}, t('game.turris.plan_title')), plan()),
      el('div', { class: 'tu-card tu-facescard' },
        el('h4', {}, el('span', {}, t('game.turris.views_title')), el('span', { class: 'tu-fscore' }, t('game.turris.total'), ' ', el('i', { class: 'tu-sw s0' }), b.score[0], ' ', el('i', { class: 'tu-sw s1' }), b.score[1])),
        el('div', { class: 'tu-faces' }, ['A', 'B', 'C', 'D', 'roof'].map(face))),
      el('div', { class: 'tu-info' }, lastBox, legend)));
  },
};
