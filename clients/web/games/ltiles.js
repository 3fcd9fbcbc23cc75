// The L-Tiles table. The unbounded table is drawn from above (each square shaded by its level and
// numbered), or as an isometric picture of the stacks (toggle). The camera fits the table by
// default; "+" / "−", the mouse wheel, a pinch or a drag zoom and pan it, "Fit" goes back.
// On your turn: choose a tile (open / hand variants), turn it (⟲ ⟳, or pick one of the four
// orientations: rotations only, never mirrored), then click one of the dots: each dot marks the
// corner square of a ghost footprint (hover shows the tile in place), and every ghost is one
// move from st.legal_moves. A blue dot spreads the tile on the table; a ringed amber dot stacks it,
// the ring's number is the level it lands on. In variant 1 each player first orders their pile,
// one kind at a time. Beside the table: both players' piles (size, top, hand, tiles left), the
// live zone scores (each player's best zone is outlined in gold on the table) and a legend.
// Nothing here checks a rule: every candidate is parsed from the legal move strings.
import { svg as s, addStyle } from '../dom.js';
import { t, tn } from '../i18n.js';

// Every text is read through t() at each render (the language may change).
// i18n-keys: game.ltiles.colour.*
// i18n-keys: game.ltiles.seat.*
// The lobby's "New table" form (app.js) words this game's options with these keys:
// i18n-keys: option.ltiles.*


// Cells of a tile with its corner at the origin, for each rotation: corner, arm A, arm B.
const ROT = [
  [[0, 0], [1, 0], [0, 1]],
  [[0, 0], [0, 1], [-1, 0]],
  [[0, 0], [-1, 0], [0, -1]],
  [[0, 0], [0, -1], [1, 0]],
];
const cellsOf = (x, y, r) => ROT[r].map(([dx, dy]) => [x + dx, y + dy]);
const key = (x, y) => `${x},${y}`;
const colourName = (c) => t(`game.ltiles.colour.${c.toLowerCase()}`);    // a square's colour: R, G or N
const seatName = (seat) => t(`game.ltiles.seat.${seat}`);    // seat 0 plays red, seat 1 green
const SEAT_INK = ['#c92a2a', '#2b8a3e'];
const ARROW = ['→', '↓', '←', '↑'];

// ---------- local UI state, kept across re-renders ----------
let selKind = null;   // the kind chosen (open / hand variants; else the pile's top)
let rot = 0;          // 0..3 clockwise quarter turns
let show = 'all';     // which ghosts to show: 'all', 'spread', 'stack'
let iso = false;      // isometric picture instead of the plan
let cam = null;       // null: fit to content; else { cx, cy, w } in the current view's units
let armed = null;     // on a touch screen, the ghost tapped once (a second tap places it)
let gameKey = null;   // resets the choices when a new game starts
let sentFor = null;   // the state a move was sent from (against double clicks)
let sentAt = 0;
let lastArgs = null;  // to re-render on a local choice
let view = null;      // the viewBox on screen: { x, y, w, h }
let fitBox = null;    // the content's box in the current view's units
let observer = null;
let hoverText = '';   // the ghost under the pointer, described
let shownState = null;

// ---------- colours: hue by square colour, darker with each level ----------
const HUE = { R: [2, 66, 60, 9, 24], G: [138, 42, 56, 8.5, 22], N: [40, 24, 86, 9, 40] };
function lightness(c, level) {
  const [, , l0, step, min] = HUE[c];
  return Math.max(min, l0 - (level - 1) * step);
}
const shade = (c, level) => `hsl(${HUE[c][0]} ${HUE[c][1]}% ${lightness(c, level)}%)`;
const side = (c, level, k) => `hsl(${HUE[c][0]} ${HUE[c][1]}% ${Math.max(8, lightness(c, level) - k)}%)`;
const ink = (c, level) => (lightness(c, level) < 52 ? '#fff' : '#2b2622');

function parsePlacement(m) {
  const r = /^([RGN]{3})@(-?\d+),(-?\d+),([0-3])$/.exec(m);
  return r ? { move: m, kind: r[1], x: Number(r[2]), y: Number(r[3]), rot: Number(r[4]) } : null;
}
const kindText = (kind) => t('game.ltiles.kind', { kind, corner: colourName(kind[0]), a: colourName(kind[1]), b: colourName(kind[2]) });

// The worded reason of a finished game (outcome.code, outcome.args), or null for a code that is
// not L-Tiles'. `ctx.name(seat)` names a seat; its colour (red, green) goes with it.
function reason(outcome, ctx = {}) {
  if (!outcome || typeof outcome.code !== 'string') return null;
  const a = outcome.args || {};
  const who = (seat) => (ctx.name ? t('game.ltiles.who', { name: ctx.name(seat), colour: colourName('RG'[seat]) }) : seatName(seat));
  switch (outcome.code) {
    case 'ltiles.draw': return t('reason.ltiles.draw', { best: a.best });
    case 'ltiles.best_zone': return t('reason.ltiles.best_zone', { name: who(a.seat), score: a.score, area: a.area, height: a.height, other: a.other });
    case 'ltiles.tie_break': return t('reason.ltiles.tie_break', { name: who(a.seat), best: a.best, rank: a.rank, score: a.score, other: a.other });
    default: return null;
  }
}

// A small picture of a tile kind turned r quarter turns; a dot marks its corner.
export function tileIcon(kind, r = 0, size = 34, extra = {}) {
  const cells = ROT[r];
  const mx = Math.min(...cells.map((c) => c[0])), my = Math.min(...cells.map((c) => c[1]));
  const svg = s('svg', { viewBox: '-0.08 -0.08 2.16 2.16', width: size, height: size, class: 'lt-icon', ...extra },
    s('title', {}, kindText(kind)));
  cells.forEach(([dx, dy], i) => {
    const x = dx - mx, y = dy - my;
    svg.append(s('rect', { x, y, width: 1, height: 1, fill: shade(kind[i], 1), stroke: '#3b342e', 'stroke-width': 0.07 }));
    if (i === 0) svg.append(s('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.13, fill: ink(kind[0], 1), opacity: 0.7 }));
  });
  return svg;
}

const STYLE = `
  .lt-wrap { width: 100%; max-width: 1068px; display: grid; gap: .6rem .8rem; align-items: start;
    grid-template-columns: minmax(0, 1fr) 318px; grid-template-rows: auto auto auto 1fr;
    grid-template-areas: "board players" "board panel" "board legend" "board ."; }
  .lt-players { grid-area: players; display: grid; gap: .5rem; }
  .lt-panel { grid-area: panel; } .lt-boardcard { grid-area: board; } .lt-legend { grid-area: legend; }
  .lt-card { background: #fffdf8; border: 1px solid #e2d8c8; border-radius: 10px; padding: .5rem .65rem; }
  .lt-player { display: grid; gap: .3rem; border: 2px solid #e2d8c8; border-left: 8px solid var(--seat); }
  .lt-player.to-move { border-color: var(--seat); box-shadow: 0 0 0 3px color-mix(in srgb, var(--seat) 20%, transparent); }
  .lt-phead { display: flex; align-items: flex-start; gap: .45rem; }
  .lt-who { flex: 1; min-width: 0; display: grid; gap: .15rem; }
  .lt-tags { display: flex; gap: .25rem; flex-wrap: wrap; min-height: 1rem; }
  .lt-tag.turn { background: var(--seat); }
  .lt-phead h3 { margin: 0; font-size: .98rem; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .lt-phead .lt-col { font-weight: 700; color: var(--seat); }
  .lt-tag { font-size: .7rem; border-radius: 99px; padding: 0 .4rem; background: #2b2622; color: #fff; white-space: nowrap; }
  .lt-tag.lead { background: #e0a526; color: #2b2622; }
  .lt-score { text-align: right; line-height: 1; font-size: .68rem; color: #7a7067; }
  .lt-score b { display: block; font-size: 1.55rem; color: #2b2622; font-variant-numeric: tabular-nums; }
  .lt-prow { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; font-size: .84rem; color: #5d544c; }
  .lt-prow .lt-icon { display: block; }
  .lt-top { display: inline-flex; align-items: center; gap: .3rem; }
  .lt-hand { display: inline-flex; gap: .25rem; align-items: center; }
  .lt-slot { width: 26px; height: 26px; border: 1px dashed #cbbfac; border-radius: 4px; }
  .lt-zones { font-size: .78rem; color: #7a7067; font-variant-numeric: tabular-nums; }
  .lt-left { display: flex; flex-wrap: wrap; gap: .1rem .45rem; font-size: .74rem; color: #7a7067; }
  .lt-left span { display: inline-flex; align-items: center; gap: 1px; }
  .lt-left span.gone { opacity: .3; }
  .lt-next { display: flex; gap: 2px; align-items: center; font-size: .76rem; color: #7a7067; flex-wrap: wrap; }
  .lt-panel { display: grid; gap: .45rem; }
  .lt-panel h4, .lt-legend h4 { margin: 0; font-size: .88rem; color: #5d544c; font-weight: 600; }
  .lt-tilectl { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
  .lt-big { background: #f4efe6; border-radius: 8px; padding: .25rem; display: grid; place-items: center; }
  .lt-rotbtn { font-size: 1.25rem; line-height: 1; padding: .35rem .6rem; }
  .lt-orients { display: flex; gap: .25rem; }
  .lt-orient { padding: .15rem; border-radius: 6px; display: grid; place-items: center; font-size: .66rem; color: #7a7067; gap: 1px; min-width: 40px; }
  .lt-orient.on { border-color: #1971c2; box-shadow: inset 0 0 0 1px #1971c2; background: #e7f1fb; color: #1c4f85; }
  .lt-orient .lt-st { color: #b7791f; font-weight: 700; }
  .lt-kinds { display: flex; flex-wrap: wrap; gap: .3rem; }
  .lt-kind { padding: .2rem .3rem; display: inline-flex; align-items: center; gap: .2rem; font-size: .78rem; border-radius: 7px; }
  .lt-kind.on { border-color: #1971c2; box-shadow: inset 0 0 0 1px #1971c2; background: #e7f1fb; }
  .lt-seg { display: inline-flex; border: 1px solid #d6cab6; border-radius: 8px; overflow: hidden; }
  .lt-seg button { border: 0; border-radius: 0; padding: .25rem .55rem; font-size: .8rem; background: #fffdf8; }
  .lt-seg button + button { border-left: 1px solid #d6cab6; }
  .lt-seg button.on { background: #1971c2; color: #fff; }
  .lt-hint { font-size: .82rem; color: #5d544c; margin: 0; }
  .lt-hover { position: absolute; left: .9rem; bottom: .9rem; max-width: calc(100% - 1.8rem); margin: 0; pointer-events: none;
    font-size: .8rem; color: #1c4f85; background: rgba(255, 253, 248, .92); border: 1px solid #c9dcf0; border-radius: 6px; padding: .15rem .45rem; }
  .lt-hover:empty { display: none; }
  .lt-order { display: grid; grid-template-columns: repeat(10, minmax(0, 1fr)); gap: 4px; max-width: 460px; }
  .lt-order figure { margin: 0; display: grid; justify-items: center; font-size: .66rem; color: #7a7067; gap: 1px; }
  .lt-order .lt-slot { width: 30px; height: 30px; }
  .lt-order figure.empty { opacity: .6; }
  .lt-pick { display: flex; flex-wrap: wrap; gap: .45rem; }
  .lt-pick button { display: grid; justify-items: center; gap: 3px; padding: .4rem .5rem; font-size: .8rem; min-width: 72px; }
  .lt-pick button:hover { background: #e7f1fb; border-color: #1971c2; }
  .lt-setup h3 { margin: 0; font-size: 1.05rem; }
  .lt-setup { align-content: start; gap: .65rem; padding: .8rem 1rem; }
  .lt-progress { display: grid; grid-template-columns: minmax(0, 1fr) 140px; align-items: center; gap: .6rem; font-size: .86rem; }
  .lt-progress meter { width: 100%; }
  .lt-wrap.setup { grid-template-areas: "setup players" "setup legend" "setup ."; }
  .lt-wrap.setup .lt-setup { grid-area: setup; }
  .lt-boardcard { display: grid; gap: .35rem; padding: .45rem; min-width: 0; position: relative; }
  .lt-tools { display: flex; align-items: center; gap: .35rem; flex-wrap: wrap; font-size: .8rem; color: #7a7067; }
  .lt-tools button { padding: .2rem .6rem; min-width: 2.2rem; }
  .lt-tools .lt-count { margin-left: auto; }
  .lt-svg { width: 100%; height: clamp(300px, calc(100vh - 250px), 660px); display: block; touch-action: none;
    background: #efe7d8; border-radius: 8px; cursor: grab; user-select: none; -webkit-user-select: none; }
  .lt-svg.dragging { cursor: grabbing; }
  .lt-svg text { font-family: system-ui, sans-serif; pointer-events: none; }
  .lt-num { text-anchor: middle; dominant-baseline: central; font-weight: 700; }
  .lt-ghost { outline: none; }
  .lt-ghost .lt-gbody { pointer-events: none; }
  .lt-ghost .lt-hit { fill: transparent; stroke: none; stroke-width: 0; pointer-events: fill; cursor: pointer; }
  .lt-ghost .lt-tint { fill: rgba(25, 113, 194, .07); }
  .lt-ghost.stack .lt-tint { fill: rgba(224, 165, 38, .10); }
  .lt-ghost .lt-foot { fill: none; stroke: none; }
  .lt-ghost.stack .lt-foot { stroke: #b7791f; stroke-width: .05; stroke-dasharray: .14 .1; opacity: .7; }
  .lt-ghost .lt-prev { opacity: 0; }
  .lt-ghost .lt-dot { fill: #1971c2; stroke: #fff; stroke-width: .04; }
  .lt-ghost.stack .lt-ring { fill: rgba(255, 244, 214, .75); stroke: #b7791f; stroke-width: .07; }
  .lt-ghost.stack .lt-ringnum { fill: #7a4a00; font-size: .34px; }
  .lt-ghost:hover .lt-prev, .lt-ghost:focus-visible .lt-prev, .lt-ghost.armed .lt-prev { opacity: .93; }
  .lt-ghost:hover .lt-foot, .lt-ghost:focus-visible .lt-foot, .lt-ghost.armed .lt-foot { stroke: #1971c2; stroke-width: .09; stroke-dasharray: none; opacity: 1; }
  .lt-ghost:hover .lt-dot, .lt-ghost.armed .lt-dot { fill: #0b3d75; }
  .lt-ghost:hover .lt-tint, .lt-ghost.armed .lt-tint { fill: none; }
  .lt-legend { display: grid; gap: .3rem; font-size: .76rem; color: #6d645b; }
  .lt-legend .lt-lrow { display: flex; flex-wrap: wrap; gap: .2rem .7rem; align-items: center; }
  .lt-legend i { display: inline-block; width: .9rem; height: .9rem; border-radius: 2px; vertical-align: -3px; margin-right: .2rem; border: 1px solid rgba(0,0,0,.25); font-style: normal; text-align: center; font-size: .6rem; line-height: .9rem; }
  .lt-legend i.gold { border: 2px solid #f1b90c; background: transparent; }
  .lt-legend i.last { border: 2px dashed #1971c2; background: transparent; }
  .lt-legend i.dot { border-radius: 50%; background: #1971c2; width: .6rem; height: .6rem; vertical-align: -1px; }
  .lt-legend i.ring { border-radius: 50%; border: 2px solid #b7791f; background: #fff4d6; }
  .lt-wait { font-size: .9rem; color: #5d544c; margin: 0; display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
  @media (max-width: 760px) {
    .lt-wrap { grid-template-columns: minmax(0, 1fr); grid-template-rows: none;
      grid-template-areas: "players" "panel" "board" "legend"; gap: .45rem; }
    .lt-wrap.setup { grid-template-areas: "players" "setup" "legend"; }
    .lt-setup { padding: .55rem .6rem; }
    .lt-order { gap: 2px; }
    .lt-order .lt-icon, .lt-order .lt-slot { width: 26px; height: 26px; }
    .lt-pick button { min-width: 62px; padding: .3rem .35rem; }
    .lt-progress { grid-template-columns: minmax(0, 1fr) 90px; font-size: .8rem; }
    .lt-players { grid-template-columns: 1fr 1fr; gap: .35rem; }
    .lt-card { padding: .4rem .45rem; }
    .lt-player { border-left-width: 6px; gap: .2rem; }
    .lt-phead h3 { font-size: .86rem; }
    .lt-score b { font-size: 1.25rem; }
    .lt-left { display: none; }
    .lt-left.open { display: flex; }
    .lt-svg { height: min(62vh, 480px); }
    .lt-orient { min-width: 34px; }
    .lt-zones { font-size: .72rem; }
  }
  `;

// ---------- the camera ----------
function applyView(svg) {
  if (!svg || !svg.isConnected || !fitBox) return;
  const r = svg.getBoundingClientRect();
  const aspect = r.width > 0 && r.height > 0 ? r.height / r.width : 0.75;
  let cx, cy, w;
  if (cam) ({ cx, cy, w } = cam);
  else {
    const bw = fitBox.x1 - fitBox.x0, bh = fitBox.y1 - fitBox.y0;
    w = Math.max(bw, bh / aspect);
    cx = (fitBox.x0 + fitBox.x1) / 2;
    cy = (fitBox.y0 + fitBox.y1) / 2;
  }
  const h = w * aspect;
  view = { x: cx - w / 2, y: cy - h / 2, w, h };
  svg.setAttribute('viewBox', `${view.x.toFixed(3)} ${view.y.toFixed(3)} ${w.toFixed(3)} ${h.toFixed(3)}`);
}
// The board is as tall as the CSS allows, but no taller than the fitted table needs (a wide
// isometric picture on a phone would otherwise float in a tall empty box).
let boardHeight = null;
function sizeBoard(svg) {
  if (cam && boardHeight) { svg.style.height = `${boardHeight}px`; return; }
  svg.style.height = '';
  const r = svg.getBoundingClientRect();
  if (!r.width || !r.height || !fitBox) return;
  const want = r.width * (fitBox.y1 - fitBox.y0) / (fitBox.x1 - fitBox.x0);
  boardHeight = Math.round(Math.max(Math.min(r.height, 240), Math.min(r.height, want)));
  svg.style.height = `${boardHeight}px`;
}
function currentCam() {
  return view ? { cx: view.x + view.w / 2, cy: view.y + view.h / 2, w: view.w } : { cx: 0, cy: 0, w: 10 };
}
function zoomBy(svg, factor, px = 0.5, py = 0.5) {
  const c = currentCam();
  const fitW = fitBox ? Math.max(fitBox.x1 - fitBox.x0, 4) : 20;
  const w = Math.min(Math.max(c.w * factor, 2.5 * (iso ? 2 : 1)), fitW * 4);
  const k = w / c.w;
  // keep the point under the pointer (fractions px, py of the view) in place
  const wx = view.x + px * view.w, wy = view.y + py * view.h;
  cam = { cx: wx + (c.cx - wx) * k, cy: wy + (c.cy - wy) * k, w };
  applyView(svg);
}

// Drag to pan, wheel and pinch to zoom. A drag never plays the ghost it started on.
function wireCamera(svg) {
  const pointers = new Map();
  let start = null, dragged = false, pinch = null;
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    dragged = false;
    start = { x: e.clientX, y: e.clientY, cam: currentCam(), id: e.pointerId };
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), cam: currentCam() };
    }
  });
  svg.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const r = svg.getBoundingClientRect();
    if (pointers.size >= 2 && pinch) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (d > 0 && pinch.d > 0) {
        dragged = true;
        cam = { ...pinch.cam };
        applyView(svg);
        const mx = ((a.x + b.x) / 2 - r.left) / r.width, my = ((a.y + b.y) / 2 - r.top) / r.height;
        zoomBy(svg, pinch.d / d, mx, my);
      }
      return;
    }
    if (!start || e.pointerId !== start.id) return;
    const dx = e.clientX - start.x, dy = e.clientY - start.y;
    if (!dragged && Math.hypot(dx, dy) < 5) return;
    if (!dragged) { dragged = true; svg.classList.add('dragging'); try { svg.setPointerCapture(e.pointerId); } catch { /* gone */ } }
    const k = start.cam.w / r.width;
    cam = { cx: start.cam.cx - dx * k, cy: start.cam.cy - dy * k, w: start.cam.w };
    applyView(svg);
  });
  const end = (e) => {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (start && e.pointerId === start.id) start = null;
    svg.classList.remove('dragging');
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', end);
  svg.addEventListener('click', (e) => {
    if (dragged) { e.stopPropagation(); e.preventDefault(); dragged = false; }
  }, true);
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomBy(svg, Math.pow(1.0018, e.deltaY), (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
  }, { passive: false });
}

// Segments [x1, y1, x2, y2] around a list of cells [x, y]: the sides where the neighbouring
// cell is not in the set (`inSet(x, y)` says whether it is).
function boundary(cells, inSet) {
  const segs = [];
  for (const [x, y] of cells) {
    if (!inSet(x, y - 1)) segs.push([x, y, x + 1, y]);
    if (!inSet(x + 1, y)) segs.push([x + 1, y, x + 1, y + 1]);
    if (!inSet(x, y + 1)) segs.push([x, y + 1, x + 1, y + 1]);
    if (!inSet(x - 1, y)) segs.push([x, y, x, y + 1]);
  }
  return segs;
}

// For the Rules panel: a small plan of the table. `tiles` lists tiles as { cells: [[x, y,
// colour]...], level }, drawn in order (later ones on top); `zone` lists squares [x, y] outlined in
// gold (a best zone).
export function planSketch(tiles, { zone = [], width = 180, label = '' } = {}) {
  const top = new Map();
  tiles.forEach((tl, i) => { for (const [x, y, c] of tl.cells) top.set(key(x, y), { x, y, c, level: tl.level, tile: i }); });
  const xs = [...top.values()].map((v) => v.x), ys = [...top.values()].map((v) => v.y);
  const x0 = Math.min(...xs) - 0.3, y0 = Math.min(...ys) - 0.3, w = Math.max(...xs) + 1.3 - x0, h = Math.max(...ys) + 1.3 - y0;
  const svg = s('svg', { viewBox: `${x0} ${y0} ${w} ${h}`, width, height: Math.round(width * h / w), role: 'img', 'aria-label': label });
  svg.append(s('title', {}, label));
  for (const v of top.values()) {
    svg.append(s('rect', { x: v.x, y: v.y, width: 1, height: 1, fill: shade(v.c, v.level), stroke: 'rgba(0,0,0,.18)', 'stroke-width': 0.025 }),
      s('text', { x: v.x + 0.5, y: v.y + 0.52, 'font-size': v.level > 1 ? 0.46 : 0.34, 'font-weight': 700, 'text-anchor': 'middle', 'dominant-baseline': 'central', fill: ink(v.c, v.level), opacity: v.level > 1 ? 1 : 0.5, 'font-family': 'system-ui, sans-serif' }, v.level));
  }
  const segs = [];
  for (const v of top.values()) {
    for (const sg of boundary([[v.x, v.y]], (nx, ny) => { const n = top.get(key(nx, ny)); return !!n && n.tile === v.tile; })) segs.push(sg);
  }
  const pathOf = (list) => list.map(([a, b, c, d]) => `M${a} ${b}L${c} ${d}`).join('');
  svg.append(s('path', { d: pathOf(segs), stroke: '#2b2622', 'stroke-width': 0.06, fill: 'none', 'stroke-linecap': 'round' }));
  if (zone.length) {
    const set = new Set(zone.map(([x, y]) => key(x, y)));
    const d = pathOf(boundary(zone, (x, y) => set.has(key(x, y))));
    svg.append(s('path', { d, stroke: '#3b2f00', 'stroke-width': 0.16, fill: 'none', 'stroke-linecap': 'round', opacity: 0.5 }),
      s('path', { d, stroke: '#f1b90c', 'stroke-width': 0.09, fill: 'none', 'stroke-linecap': 'round' }));
  }
  return svg;
}

export default {
  // Seat 0 plays red, seat 1 green: app.js rings the seats in those colours.
  seatColour: (st, i) => SEAT_INK[i] || null,
  reason,
  render(table, st, ctx) {
    addStyle('ltiles-style', STYLE);
    lastArgs = [table, st, ctx];
    const { el } = ctx;
    const rerender = () => this.render(...lastArgs);
    const b = st.board;
    if (!b || !b.squares) { table.replaceChildren(el('p', { class: 'muted' }, t('game.ltiles.waiting'))); return; }
    const me = st.you;
    const legal = st.legal_moves || [];
    const myTurn = me !== null && st.status === 'playing' && legal.length > 0;
    const setup = b.phase === 'setup';

    const gk = `${st.round}`;
    if (gk !== gameKey) { gameKey = gk; selKind = null; rot = 0; cam = null; armed = null; show = 'all'; }

    // ----- candidates, all parsed from the legal moves -----
    const placements = legal.map(parsePlacement).filter(Boolean);
    const pileMoves = legal.filter((m) => m.startsWith('pile '));
    const kinds = [...new Set(placements.map((p) => p.kind))];
    if (!kinds.includes(selKind)) {
      const hand = me !== null && b.piles[me].hand;
      selKind = (hand && hand.find((k) => k && kinds.includes(k))) || kinds[0] || null;
    }
    const byRot = [[], [], [], []];
    const sq = b.squares;
    // The cells in reading order (row by row, left to right): the same document, and the same
    // order for a screen reader, whether this copy of the state was sent whole or patched.
    const squares = Object.entries(sq).map(([k, v]) => [k, v, ...k.split(',').map(Number)])
      .sort((p, q) => p[3] - q[3] || p[2] - q[2]);
    const levelOf = (p) => {
      const cs = cellsOf(p.x, p.y, p.rot);
      return cs.every(([x, y]) => sq[key(x, y)]) ? sq[key(...cs[0])].level + 1 : 1;
    };
    for (const p of placements) if (p.kind === selKind) { p.level = levelOf(p); byRot[p.rot].push(p); }
    if (selKind && !byRot[rot].length) rot = [0, 1, 2, 3].find((r) => byRot[r].length) ?? 0;
    const here = byRot[rot];
    const nStack = here.filter((p) => p.level > 1).length;
    const nSpread = here.length - nStack;
    if (show === 'stack' && !nStack) show = 'all';
    if (show === 'spread' && !nSpread) show = 'all';
    const ghosts = here.filter((p) => show === 'all' || (show === 'stack') === (p.level > 1));
    if (!myTurn || !ghosts.some((g) => g.move === armed)) armed = null;
    if (sentFor && sentFor !== st) sentFor = null;
    if (st !== shownState) { shownState = st; hoverText = ''; }

    const play = (move) => {
      if (sentFor === st && Date.now() - sentAt < 3000) return;  // already sent from this state
      sentFor = st;
      sentAt = Date.now();
      armed = null;
      ctx.play(move);
    };
    const seatLabel = (i) => t('game.ltiles.seat_label', { colour: seatName(i), name: ctx.seatName(i) });

    // ----- player cards -----
    const card = (seat) => {
      const pile = b.piles[seat];
      const score = b.scores[seat];
      const toMove = st.status === 'playing' && st.to_move === seat;
      const zones = score.zones.slice(0, 3).map(([sc, area, h]) => `${sc} (${area}×${h})`).join(' · ');
      const rows = [];
      if (setup) {
        rows.push(el('div', { class: 'lt-prow' }, t('game.ltiles.pile_ordered', { n: pile.size, total: b.total / 2 })));
      } else {
        rows.push(el('div', { class: 'lt-prow' },
          el('span', { 'data-pile': seat, 'data-size': pile.size }, b.variant === 'open' ? tn('game.ltiles.tiles_left', pile.size) : t('game.ltiles.pile', { n: pile.size })),
          b.variant !== 'open' ? el('span', { class: 'lt-top' }, t('game.ltiles.top'), pile.top ? tileIcon(pile.top, 0, 24, { 'data-top': pile.top }) : ' —') : '',
          pile.hand ? el('span', { class: 'lt-hand', 'data-hand': pile.hand.map((k) => k || '-').join(' ') }, t('game.ltiles.hand'),
            pile.hand.map((k) => (k ? tileIcon(k, 0, 24) : el('span', { class: 'lt-slot' })))) : ''));
      }
      if (pile.order && pile.order.length && !setup) {
        rows.push(el('div', { class: 'lt-next' }, t('game.ltiles.next_tiles'), pile.order.slice(0, 8).map((k) => tileIcon(k, 0, 18)),
          pile.order.length > 8 ? `+${pile.order.length - 8}` : ''));
      }
      const left = Object.entries(pile.left);
      if (left.some(([, n]) => n > 0)) rows.push(el('div', { class: `lt-left${b.variant === 'open' ? ' open' : ''}`, title: t('game.ltiles.left_title') },
        el('span', {}, t('game.ltiles.left')), left.map(([k, n]) => el('span', { class: n ? '' : 'gone' }, tileIcon(k, 0, 15), `×${n}`))));
      rows.push(el('div', { class: 'lt-zones', 'data-zones': seat }, zones ? t('game.ltiles.zones', { zones }) : t('game.ltiles.no_zone')));
      return el('div', {
        class: `lt-card lt-player${toMove ? ' to-move' : ''}`, style: `--seat:${SEAT_INK[seat]}`, 'data-player': seat,
      },
      el('div', { class: 'lt-phead' },
        el('div', { class: 'lt-who' },
          el('h3', { title: t('game.ltiles.seat_title', { colour: seatName(seat), name: ctx.seatName(seat) }) }, el('span', { class: 'lt-col' }, seatName(seat)), ' ', ctx.seatName(seat)),
          el('div', { class: 'lt-tags' },
            me === seat ? el('span', { class: 'lt-tag' }, t('game.ltiles.tag.you')) : '',
            toMove ? el('span', { class: 'lt-tag turn' }, setup ? t('game.ltiles.tag.ordering') : t('game.ltiles.tag.to_play')) : '',
            b.leader === seat && b.placed > 0 ? el('span', { class: 'lt-tag lead', title: t('game.ltiles.tag.lead_title') }, st.status === 'over' ? t('game.ltiles.tag.wins') : t('game.ltiles.tag.leads')) : '')),
        el('div', { class: 'lt-score', title: t('game.ltiles.best_title') }, el('b', { 'data-score': seat }, score.best), t('game.ltiles.best'))),
      rows);
    };

    // ----- the panel: ordering, or the tile to place -----
    let panel;
    if (setup) {
      const myPile = me !== null ? b.piles[me] : null;
      const order = (myPile && myPile.order) || [];
      const slots = [];
      for (let i = 0; i < b.total / 2; i++) {
        slots.push(el('figure', { class: i < order.length ? 'done' : 'empty' },
          i < order.length ? tileIcon(order[i], 0, 30) : el('span', { class: 'lt-slot' }), String(i + 1)));
      }
      const orderRow = order.length || (myTurn && pileMoves.length) ? el('div', { class: 'lt-order', 'aria-label': t('game.ltiles.order_label') }, slots) : '';
      if (myTurn && pileMoves.length) {
        const counts = {};
        for (const [k, n] of Object.entries(myPile.left)) counts[k] = n;
        for (const k of order) counts[k]--;
        panel = el('div', { class: 'lt-card lt-panel lt-setup' },
          el('h3', {}, t('game.ltiles.order_title', { k: order.length + 1, n: b.total / 2 })),
          el('p', { class: 'lt-hint' }, t('game.ltiles.order_hint')),
          el('div', { class: 'lt-pick' }, pileMoves.map((m) => {
            const k = m.slice(5);
            return el('button', { 'data-move': m, 'aria-label': t('game.ltiles.order_put', { kind: kindText(k) }), title: kindText(k), onclick: () => play(m) },
              tileIcon(k, 0, 46), el('span', {}, el('b', {}, `×${counts[k] ?? '?'}`), ' ', tn('game.ltiles.order_left', Number(counts[k]) || 0)));
          })),
          el('h4', {}, t('game.ltiles.your_pile')), orderRow);
      } else {
        const who = st.to_move;
        const progress = (seat) => el('div', { class: 'lt-progress' },
          el('span', {}, t('game.ltiles.progress', { who: seatLabel(seat), n: b.piles[seat].size, total: b.total / 2 })),
          el('meter', { min: 0, max: b.total / 2, value: b.piles[seat].size, 'aria-label': t('game.ltiles.progress_label', { colour: seatName(seat) }) }));
        panel = el('div', { class: 'lt-card lt-panel lt-setup' },
          el('h3', {}, t('game.ltiles.setup_title')),
          el('p', { class: 'lt-wait' }, me === who ? t('game.ltiles.setup_filling')
            : who === null || who === undefined ? t('game.ltiles.setup_waiting')
              : t('game.ltiles.setup_other', { who: seatLabel(who) })),
          progress(0), progress(1),
          order.length ? el('h4', {}, t('game.ltiles.your_pile')) : '', orderRow);
      }
    } else if (myTurn && selKind) {
      const choosable = b.variant === 'open' || b.variant === 'hand';
      const pick = (k) => () => { selKind = k; armed = null; rerender(); };
      let kindRow = '';
      if (choosable) {
        const list = b.variant === 'hand' ? b.piles[me].hand.map((k, i) => ({ k, i })).filter((o) => o.k)
          : Object.entries(b.piles[me].left).filter(([, n]) => n > 0).map(([k]) => ({ k }));
        kindRow = el('div', { class: 'lt-kinds' }, list.map(({ k }) => el('button', {
          class: `lt-kind${k === selKind ? ' on' : ''}`, 'data-choice': `kind:${k}`, 'aria-pressed': k === selKind ? 'true' : 'false',
          'aria-label': t('game.ltiles.choose_kind', { kind: kindText(k) }), disabled: !kinds.includes(k), onclick: pick(k),
        }, tileIcon(k, rot, 28), b.variant === 'open' ? `×${b.piles[me].left[k]}` : '')));
      }
      const turn = (d) => () => { rot = (rot + d + 4) % 4; armed = null; rerender(); };
      panel = el('div', { class: 'lt-card lt-panel lt-play' },
        el('h4', {}, choosable ? (b.variant === 'hand' ? t('game.ltiles.choose_hand') : t('game.ltiles.choose_any')) : t('game.ltiles.your_tile')),
        kindRow,
        el('div', { class: 'lt-tilectl' },
          el('div', { class: 'lt-big', 'data-kind': selKind, 'data-rot': rot }, tileIcon(selKind, rot, 54)),
          el('button', { class: 'lt-rotbtn', 'data-choice': 'rot-ccw', 'aria-label': t('game.ltiles.ccw_label'), title: t('game.ltiles.ccw_title'), onclick: turn(-1) }, '⟲'),
          el('button', { class: 'lt-rotbtn', 'data-choice': 'rot-cw', 'aria-label': t('game.ltiles.cw_label'), title: t('game.ltiles.cw_title'), onclick: turn(1) }, '⟳'),
          el('div', { class: 'lt-orients', role: 'group', 'aria-label': t('game.ltiles.orientation') }, [0, 1, 2, 3].map((r) => {
            const stacks = byRot[r].filter((p) => p.level > 1).length;
            return el('button', {
              class: `lt-orient${r === rot ? ' on' : ''}`, 'data-choice': `rot:${r}`, 'aria-pressed': r === rot ? 'true' : 'false',
              'aria-label': t('game.ltiles.orientation_label', { r, spots: tn('game.ltiles.spots', byRot[r].length), stacks }), disabled: !byRot[r].length,
              onclick: () => { rot = r; armed = null; rerender(); },
            }, tileIcon(selKind, r, 22), stacks ? el('span', { class: 'lt-st' }, `▲${stacks}`) : el('span', {}, `${byRot[r].length}`));
          }))),
        el('div', { class: 'lt-tilectl' },
          el('div', { class: 'lt-seg', role: 'group', 'aria-label': t('game.ltiles.spots_shown') },
            [['all', t('game.ltiles.show.all', { n: here.length })], ['spread', t('game.ltiles.show.spread', { n: nSpread })], ['stack', t('game.ltiles.show.stack', { n: nStack })]].map(([v, label]) => el('button', {
              class: show === v ? 'on' : '', 'data-choice': `show:${v}`, 'aria-pressed': show === v ? 'true' : 'false',
              disabled: (v === 'stack' && !nStack) || (v === 'spread' && !nSpread),
              onclick: () => { show = v; armed = null; rerender(); },
            }, label)))),
        el('p', { class: 'lt-hint' }, t('game.ltiles.play_hint')));
    } else if (st.status === 'playing') {
      const who = st.to_move;
      const pile = b.piles[who];
      const what = b.variant === 'open' ? 'game.ltiles.wait.open'
        : b.variant === 'hand' ? 'game.ltiles.wait.hand' : 'game.ltiles.wait.pile';
      panel = el('div', { class: 'lt-card lt-panel lt-play' },
        el('p', { class: 'lt-wait' }, t(what, { who: seatLabel(who) }),
          (b.variant === 'standard' || b.variant === 'ordered') && pile.top ? tileIcon(pile.top, 0, 26) : ''),
        el('p', { class: 'lt-hint' }, t('game.ltiles.placed_of', { n: b.placed, total: b.total })));
    } else {
      const o = st.outcome;
      panel = el('div', { class: 'lt-card lt-panel' },
        el('p', { class: 'lt-wait' }, o ? (o.winners.length ? t('game.ltiles.over.wins', { who: seatLabel(o.winners[0]) }) : t('game.ltiles.over.draw')) : t('game.ltiles.over.over')),
        o && reason(o, { name: ctx.seatName }) ? el('p', { class: 'lt-reason', 'data-reason': o.code }, t('game.ltiles.sentence', { text: reason(o, { name: ctx.seatName }) })) : '',
        el('p', { class: 'lt-hint' }, t('game.ltiles.over.hint')));
    }

    // ----- the board -----
    const svg = s('svg', { class: 'lt-svg', role: 'group', 'aria-label': iso ? t('game.ltiles.board_iso') : t('game.ltiles.board_plan'), 'data-view': iso ? 'iso' : 'plan' });
    const ghostLayer = s('g', { class: 'lt-ghosts' });
    const bestSets = b.scores.map((sc) => new Set(sc.best_cells.map(([x, y]) => key(x, y))));
    const lastCells = b.last ? b.tiles[b.last.tile].cells : [];
    const lastSet = new Set(lastCells.map(([x, y]) => key(x, y)));
    const [ex0, ey0, ex1, ey1] = b.extent;
    let maxLevel = 1;
    for (const v of Object.values(sq)) maxLevel = Math.max(maxLevel, v.level);

    const ghostTitle = (g) => t(g.level > 1 ? 'game.ltiles.ghost.stack' : 'game.ltiles.ghost.spread', { kind: g.kind, x: g.x, y: g.y, arrow: ARROW[g.rot], level: g.level });
    const wireGhost = (gEl, g) => {
      gEl.addEventListener('click', (e) => {
        if (e.pointerType === 'touch' && armed !== g.move) {
          armed = g.move;
          for (const o of ghostLayer.querySelectorAll('.armed')) o.classList.remove('armed');
          gEl.classList.add('armed');
          if (ghostLayer.lastChild !== gEl) ghostLayer.append(gEl);
          const hov = table.querySelector('.lt-hover');
          hoverText = t('game.ltiles.ghost.tap_again', { ghost: ghostTitle(g) });
          if (hov) hov.textContent = hoverText;
          return;
        }
        play(g.move);
      });
      gEl.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); play(g.move); } });
      gEl.addEventListener('pointerenter', () => {
        if (ghostLayer.lastChild !== gEl) ghostLayer.append(gEl);
        const hov = table.querySelector('.lt-hover');
        hoverText = ghostTitle(g);
        if (hov) hov.textContent = hoverText;
      });
      gEl.addEventListener('pointerleave', () => {
        if (armed) return;
        const hov = table.querySelector('.lt-hover');
        hoverText = '';
        if (hov) hov.textContent = '';
      });
    };

    if (!iso) {
      // the plan: one unit per cell
      const defs = s('defs', {}, s('pattern', { id: 'lt-grid', width: 1, height: 1, patternUnits: 'userSpaceOnUse' },
        s('path', { d: 'M1 0H0V1', fill: 'none', stroke: '#d9cdb8', 'stroke-width': 0.03 })));
      svg.append(defs, s('rect', { x: -500, y: -500, width: 1000, height: 1000, fill: 'url(#lt-grid)' }));
      const cellsG = s('g', { class: 'lt-cells' });
      for (const [k, v, x, y] of squares) {
        const tile = b.tiles[v.tile];
        const owner = tile.seat === null ? t('game.ltiles.cell.domino') : t('game.ltiles.cell.tile_of', { colour: seatName(tile.seat), kind: tile.kind });
        cellsG.append(s('g', {
          class: 'lt-cell', 'data-cell': k, 'data-level': v.level, 'data-colour': v.colour, 'data-tile': v.tile,
          'aria-label': t('game.ltiles.cell.label_owner', { cell: k, colour: colourName(v.colour), level: v.level, owner }), role: 'img',
        },
        s('rect', { x, y, width: 1, height: 1, fill: shade(v.colour, v.level), stroke: 'rgba(0,0,0,.18)', 'stroke-width': 0.025 }),
        s('text', { class: 'lt-num', x: x + 0.5, y: y + 0.52, 'font-size': v.level > 1 ? 0.46 : 0.34, fill: ink(v.colour, v.level), opacity: v.level > 1 ? 1 : 0.45 }, v.level)));
      }
      svg.append(cellsG);
      // tile outlines (visible tops): thick where the neighbour is another tile or empty
      const tileSegs = [];
      for (const [, v, x, y] of squares) {
        const same = (nx, ny) => { const n = sq[key(nx, ny)]; return !!n && n.tile === v.tile; };
        for (const sgm of boundary([[x, y]], same)) {
          const [x1, y1, x2, y2] = sgm;
          // each inner edge once: from the cell on its left / above
          const other = x1 === x2 ? (x1 === x ? [x - 1, y] : null) : (y1 === y ? [x, y - 1] : null);
          if (other && sq[key(...other)]) continue;
          tileSegs.push(sgm);
        }
      }
      const pathOf = (segs) => segs.map(([a, c, d, e]) => `M${a} ${c}L${d} ${e}`).join('');
      svg.append(s('path', { d: pathOf(tileSegs), stroke: '#2b2622', 'stroke-width': 0.075, 'stroke-linecap': 'round', fill: 'none', 'pointer-events': 'none' }));
      // start domino marker
      svg.append(s('path', { d: 'M1 0.12V0.88', stroke: '#2b2622', 'stroke-width': 0.03, 'stroke-dasharray': '0.06 0.06', 'pointer-events': 'none', opacity: 0.4 }));
      // best zones, gold with a dark casing
      bestSets.forEach((set, seat) => {
        if (!set.size) return;
        const cells = [...set].map((k) => k.split(',').map(Number));
        const d = pathOf(boundary(cells, (x, y) => set.has(key(x, y))));
        svg.append(s('g', { class: 'lt-best', 'data-best': seat, 'pointer-events': 'none' },
          s('path', { d, stroke: '#3b2f00', 'stroke-width': 0.16, fill: 'none', 'stroke-linecap': 'round', opacity: 0.5 }),
          s('path', { d, stroke: '#f1b90c', 'stroke-width': 0.09, fill: 'none', 'stroke-linecap': 'round' })));
      });
      // the last tile
      if (lastCells.length) {
        const d = pathOf(boundary(lastCells, (x, y) => lastSet.has(key(x, y))));
        svg.append(s('path', { class: 'lt-lastmark', d, stroke: '#1971c2', 'stroke-width': 0.1, 'stroke-dasharray': '0.22 0.12', fill: 'none', 'pointer-events': 'none', 'data-last': b.last.move }));
      }
      // ghosts
      for (const g of (myTurn ? ghosts : [])) {
        const cs = cellsOf(g.x, g.y, g.rot);
        const set = new Set(cs.map(([x, y]) => key(x, y)));
        const stack = g.level > 1;
        const gEl = s('g', {
          class: `lt-ghost${stack ? ' stack' : ''}${armed === g.move ? ' armed' : ''}`, 'data-move': g.move, 'data-level': g.level,
          role: 'button', tabindex: 0, 'aria-label': t('game.ltiles.ghost.place', { ghost: ghostTitle(g) }),
        },
        s('g', { class: 'lt-gbody' },
          cs.map(([x, y]) => s('rect', { class: 'lt-tint', x, y, width: 1, height: 1 })),
          s('g', { class: 'lt-prev' }, cs.map(([x, y], i) => s('g', {},
            s('rect', { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, rx: 0.06, fill: shade(g.kind[i], g.level) }),
            s('text', { class: 'lt-num', x: x + 0.5, y: y + 0.52, 'font-size': 0.42, fill: ink(g.kind[i], g.level) }, g.level)))),
          s('path', { class: 'lt-foot', d: pathOf(boundary(cs, (x, y) => set.has(key(x, y)))), 'stroke-linecap': 'round' })),
        s('rect', { class: 'lt-hit', x: g.x, y: g.y, width: 1, height: 1 }),
        stack ? [s('circle', { class: 'lt-ring', cx: g.x + 0.5, cy: g.y + 0.5, r: 0.3, 'pointer-events': 'none' }),
          s('text', { class: 'lt-num lt-ringnum', x: g.x + 0.5, y: g.y + 0.52, 'pointer-events': 'none' }, g.level)]
          : s('circle', { class: 'lt-dot', cx: g.x + 0.5, cy: g.y + 0.5, r: 0.15, 'pointer-events': 'none' }));
        wireGhost(gEl, g);
        ghostLayer.append(gEl);
      }
      svg.append(ghostLayer);
      fitBox = { x0: ex0 - 2.25, y0: ey0 - 2.25, x1: ex1 + 3.25, y1: ey1 + 3.25 };
      const grow = (lo, hi, min) => { const d = Math.max(0, min - (hi - lo)) / 2; return [lo - d, hi + d]; };
      [fitBox.x0, fitBox.x1] = grow(fitBox.x0, fitBox.x1, 9);
      [fitBox.y0, fitBox.y1] = grow(fitBox.y0, fitBox.y1, 7);
    } else {
      // isometric: x to the lower right, y to the lower left, levels up
      const A = 1, B = 0.5, C = 0.42;
      const P = (x, y, z) => [(x - y) * A, (x + y) * B - z * C];
      const pts = (list) => list.map(([x, y, z]) => P(x, y, z).map((n) => n.toFixed(3)).join(',')).join(' ');
      const boxes = [];
      b.tiles.forEach((t, ti) => {
        const set = new Set(t.cells.map(([x, y]) => key(x, y)));
        for (const [x, y, c] of t.cells) boxes.push({ x, y, z: t.level - 1, c, ti, set });
      });
      boxes.sort((p, q) => (p.x + p.y) - (q.x + q.y) || p.z - q.z);
      const world = s('g', { class: 'lt-iso' });
      for (const bx of boxes) {
        const { x, y, z, c } = bx;
        const lv = z + 1, z1 = z + 1;
        const top = sq[key(x, y)];
        const visible = top && top.level === lv && top.tile === bx.ti;
        const g = s('g', visible ? { class: 'lt-cell', 'data-cell': key(x, y), 'data-level': lv, 'data-colour': c, 'data-tile': bx.ti, role: 'img', 'aria-label': t('game.ltiles.cell.label', { cell: key(x, y), colour: colourName(c), level: lv }) } : {},
          s('polygon', { points: pts([[x + 1, y, z], [x + 1, y + 1, z], [x + 1, y + 1, z1], [x + 1, y, z1]]), fill: side(c, lv, 14), stroke: 'rgba(0,0,0,.35)', 'stroke-width': 0.02 }),
          s('polygon', { points: pts([[x, y + 1, z], [x + 1, y + 1, z], [x + 1, y + 1, z1], [x, y + 1, z1]]), fill: side(c, lv, 24), stroke: 'rgba(0,0,0,.35)', 'stroke-width': 0.02 }),
          s('polygon', { points: pts([[x, y, z1], [x + 1, y, z1], [x + 1, y + 1, z1], [x, y + 1, z1]]), fill: shade(c, lv), stroke: 'rgba(0,0,0,.2)', 'stroke-width': 0.02 }));
        // this tile's outline on its top face
        const segs = boundary([[x, y]], (nx, ny) => bx.set.has(key(nx, ny)));
        const edge = (list, attrs) => g.append(s('path', { d: list.map(([a, bb, cc, dd]) => `M${P(a, bb, z1).join(' ')}L${P(cc, dd, z1).join(' ')}`).join(''), fill: 'none', 'stroke-linecap': 'round', ...attrs }));
        if (segs.length) edge(segs, { stroke: '#2b2622', 'stroke-width': 0.05 });
        if (visible) {
          for (const [seat, set] of bestSets.entries()) {
            if (!set.has(key(x, y))) continue;
            const zs = boundary([[x, y]], (nx, ny) => set.has(key(nx, ny)));
            if (zs.length) edge(zs, { stroke: '#f1b90c', 'stroke-width': 0.1, 'data-best': seat });
          }
          if (lastSet.has(key(x, y)) && b.last.tile === bx.ti) {
            const ls = boundary([[x, y]], (nx, ny) => lastSet.has(key(nx, ny)));
            if (ls.length) edge(ls, { stroke: '#1971c2', 'stroke-width': 0.09, 'stroke-dasharray': '0.2 0.1' });
          }
          const [tx, ty] = P(x + 0.5, y + 0.5, z1);
          g.append(s('text', { class: 'lt-num', x: tx, y: ty + 0.01, 'font-size': lv > 1 ? 0.4 : 0.3, fill: ink(c, lv), opacity: lv > 1 ? 1 : 0.45 }, lv));
        }
        world.append(g);
      }
      // a faint floor grid under everything
      const floor = s('g', { class: 'lt-floor' });
      const fx0 = ex0 - 3, fx1 = ex1 + 4, fy0 = ey0 - 3, fy1 = ey1 + 4;
      let d = '';
      for (let x = fx0; x <= fx1; x++) d += `M${P(x, fy0, 0).join(' ')}L${P(x, fy1, 0).join(' ')}`;
      for (let y = fy0; y <= fy1; y++) d += `M${P(fx0, y, 0).join(' ')}L${P(fx1, y, 0).join(' ')}`;
      floor.append(s('path', { d, stroke: '#d9cdb8', 'stroke-width': 0.025, fill: 'none' }));
      svg.append(floor, world);
      for (const g of (myTurn ? ghosts : [])) {
        const cs = cellsOf(g.x, g.y, g.rot);
        const z1 = g.level;
        const stack = g.level > 1;
        const face = (x, y) => pts([[x, y, z1], [x + 1, y, z1], [x + 1, y + 1, z1], [x, y + 1, z1]]);
        const [cx, cy] = P(g.x + 0.5, g.y + 0.5, z1);
        const gEl = s('g', {
          class: `lt-ghost${stack ? ' stack' : ''}${armed === g.move ? ' armed' : ''}`, 'data-move': g.move, 'data-level': g.level,
          role: 'button', tabindex: 0, 'aria-label': t('game.ltiles.ghost.place', { ghost: ghostTitle(g) }),
        },
        s('g', { class: 'lt-gbody' },
          cs.map(([x, y]) => s('polygon', { class: 'lt-tint', points: face(x, y) })),
          s('g', { class: 'lt-prev' }, cs.map(([x, y], i) => s('polygon', { points: face(x, y), fill: shade(g.kind[i], g.level), stroke: '#1971c2', 'stroke-width': 0.05 })))),
        s('polygon', { class: 'lt-hit', points: face(g.x, g.y) }),
        stack ? [s('ellipse', { class: 'lt-ring', cx, cy, rx: 0.34, ry: 0.2, 'pointer-events': 'none' }),
          s('text', { class: 'lt-num lt-ringnum', x: cx, y: cy + 0.01, 'pointer-events': 'none' }, g.level)]
          : s('ellipse', { class: 'lt-dot', cx, cy, rx: 0.17, ry: 0.1, 'pointer-events': 'none' }));
        wireGhost(gEl, g);
        ghostLayer.append(gEl);
      }
      svg.append(ghostLayer);
      // fit the tiles and every cell a spot may reach (two beyond the table), tops included
      const corners = [];
      for (const x of [ex0 - 2, ex1 + 3]) for (const y of [ey0 - 2, ey1 + 3]) corners.push(P(x, y, 0));
      for (const bx of boxes) corners.push(P(bx.x, bx.y, bx.z + 1.6));
      const m = 0.3;
      fitBox = { x0: Math.min(...corners.map((c) => c[0])) - m, y0: Math.min(...corners.map((c) => c[1])) - m,
        x1: Math.max(...corners.map((c) => c[0])) + m, y1: Math.max(...corners.map((c) => c[1])) + m };
      const pad = Math.max(0, 14 - (fitBox.x1 - fitBox.x0)) / 2;
      fitBox.x0 -= pad; fitBox.x1 += pad;
    }
    wireCamera(svg);

    const tools = el('div', { class: 'lt-tools' },
      el('button', { 'data-choice': 'zoom-out', 'aria-label': t('game.ltiles.zoom_out'), title: t('game.ltiles.zoom_out'), onclick: () => zoomBy(svg, 1.35) }, '−'),
      el('button', { 'data-choice': 'zoom-in', 'aria-label': t('game.ltiles.zoom_in'), title: t('game.ltiles.zoom_in'), onclick: () => zoomBy(svg, 1 / 1.35) }, '+'),
      el('button', { 'data-choice': 'fit', 'aria-label': t('game.ltiles.fit_title'), title: t('game.ltiles.fit_title'), onclick: () => { cam = null; sizeBoard(svg); applyView(svg); } }, t('game.ltiles.fit')),
      el('button', { 'data-choice': 'view', 'aria-pressed': iso ? 'true' : 'false', onclick: () => { iso = !iso; cam = null; rerender(); } }, iso ? t('game.ltiles.view_plan') : t('game.ltiles.view_iso')),
      el('span', { class: 'lt-count' }, t('game.ltiles.count', { n: b.placed, total: b.total })));

    const sw = (c, lv) => el('i', { style: `background:${shade(c, lv)};color:${ink(c, lv)}` }, lv);
    const legend = el('div', { class: 'lt-card lt-legend' },
      el('div', { class: 'lt-lrow' }, el('span', {}, sw('R', 1), colourName('R')), el('span', {}, sw('G', 1), colourName('G')), el('span', {}, sw('N', 1), colourName('N')),
        el('span', {}, t('game.ltiles.legend.levels'), ' ', sw('R', 1), sw('R', 2), sw('R', 3), sw('R', 4), sw('R', 5))),
      el('div', { class: 'lt-lrow' }, el('span', {}, el('i', { class: 'gold' }), t('game.ltiles.legend.best')), el('span', {}, el('i', { class: 'last' }), t('game.ltiles.legend.last')),
        el('span', {}, el('i', { class: 'dot' }), t('game.ltiles.legend.spread')), el('span', {}, el('i', { class: 'ring' }), t('game.ltiles.legend.stack'))),
      el('div', {}, t('game.ltiles.legend.rule')),
      b.last ? el('div', { 'data-lastmove': b.last.move }, t('game.ltiles.legend.last_move', { colour: seatName(b.last.seat), move: b.last.move })) : '');

    table.replaceChildren(el('div', { class: `lt-wrap lt-v-${b.variant}${setup ? ' setup' : ''}`, 'data-phase': b.phase },
      el('div', { class: 'lt-players' }, card(0), card(1)),
      panel,
      // during the ordering of variant 1 the table holds only the domino: the ordering screen takes its place
      setup ? '' : el('div', { class: 'lt-card lt-boardcard' }, tools, svg, el('p', { class: 'lt-hover', 'aria-live': 'polite' }, hoverText)),
      setup ? '' : legend));
    if (observer) observer.disconnect();
    if (setup) return;
    sizeBoard(svg);
    applyView(svg);
    if (typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver(() => applyView(svg));
      observer.observe(svg);
    }
  },
};
