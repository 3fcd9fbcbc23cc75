// The Kwinty table: the wall as a person sees it, standing on the table and growing upwards.
// The fixed 17 × 9 frame of the notation is never shown whole: the camera follows the wall,
// the columns the wall may still reach (the view's x_range, a 9-wide window that floats
// sideways as the wall grows) are shaded, and columns beyond that limit are hatched.
// Choose "lying" or "standing", then click one of the dashed ghost blocks: every ghost is a
// legal move of that orientation, taken from st.legal_moves. "pass" gets its own button.
import { svg as s, addStyle } from '../dom.js';
import { t, tn } from '../i18n.js';

const LETTERS = 'abcdefghijklmnopq';
const U = 40;              // one square, in SVG units
const PAD_L = 30, PAD_R = 12, TOP = 24, BELOW = 88;
const MIN_COLS = 11;       // the camera shows at least this many columns
const MARK = '#e0a526';    // the last block's ring
const WIN = '#2f8f46';     // a winning line of five

let orient = null;         // 'L' or 'S': the orientation picked, kept across re-renders
let lastArgs = null;       // the last render's arguments, to re-render on a local choice
let playedAt = 0;          // when a move was sent from the state on screen (against double clicks)

const cell = (x, y) => `${LETTERS[x]}${y + 1}`;

// "L@i1" -> { move, o: 'L', x: 8, y: 0 }; null for "pass" or anything else.
function parseMove(move) {
  const m = /^([LS])@([a-q])([1-9])$/.exec(move);
  return m ? { move, o: m[1], x: LETTERS.indexOf(m[2]), y: Number(m[3]) - 1 } : null;
}

function squaresOf(o, x, y) {
  return o === 'L' ? [[x, y], [x + 1, y]] : [[x, y], [x, y + 1]];
}

function where(o, x, y) {
  const [a, b] = squaresOf(o, x, y);
  return `${cell(...a)}–${cell(...b)}`;
}

// A seat's colour, as an adjective of a block ("white" / "blanc"): seat 0 white, seat 1 black.
function colourWord(seat) { return t(seat === 0 ? 'game.kwinty.white' : 'game.kwinty.black'); }

// "lying on i1–j1" / "standing on k2–k3", in the page's language.
function placedText(o, x, y) {
  return t(o === 'L' ? 'game.kwinty.lying_on' : 'game.kwinty.standing_on', { cells: where(o, x, y) });
}

// A small picture of a block (for the orientation buttons and the panels).
export function blockIcon(o, seat, size = 26) {
  addStyle('kwinty-style', STYLE);
  const w = o === 'L' ? 2 : 1, h = o === 'L' ? 1 : 2;
  const k = size / 44;  // a standing icon is `size` high, a lying one `size` wide
  const svg = s('svg', { viewBox: `-2 -2 ${w * 20 + 4} ${h * 20 + 4}`, width: (w * 20 + 4) * k, height: (h * 20 + 4) * k, class: `kw-icon kw-s${seat}`, 'aria-hidden': 'true' },
    s('rect', { class: 'kw-body', x: 0, y: 0, width: w * 20, height: h * 20, rx: 3 }),
    squaresOf(o, 0, 0).map(([x, y]) => s('rect', { class: 'kw-face', x: x * 20 + 3.5, y: (h - 1 - y) * 20 + 3.5, width: 13, height: 13, rx: 1.5 })));
  return svg;
}

const STYLE = `
  .kw-wrap { width: 100%; display: grid; grid-template-columns: minmax(180px, 1fr) auto minmax(180px, 1fr);
    grid-template-areas: "ctl ctl ctl" "p0 board p1"; gap: .8rem; align-items: start; }
  .kw-controls { grid-area: ctl; display: flex; flex-wrap: wrap; gap: .5rem .8rem; align-items: center; justify-content: center; min-height: 2.7rem; }
  .kw-orient { display: inline-flex; border: 1px solid var(--line, #e2d8c8); border-radius: 10px; overflow: hidden; background: #fffdf8; }
  .kw-choice { display: inline-flex; align-items: center; gap: .45rem; border: 0; border-radius: 0; padding: .35rem .8rem; background: transparent; min-height: 2.5rem; }
  .kw-choice + .kw-choice { border-left: 1px solid var(--line, #e2d8c8); }
  .kw-choice.chosen { background: #f7e3d7; box-shadow: inset 0 -3px 0 #c8553d; font-weight: 600; }
  .kw-hint { font-size: .88rem; color: #7a7067; }
  .kw-pass { font-weight: 600; }
  .kw-boardbox { grid-area: board; display: flex; justify-content: center; min-width: 0; }
  .kw-board { display: block; height: auto; touch-action: manipulation;
    width: min(calc(min(100vw, 1100px) - 440px), calc(max(300px, 100vh - 275px) * var(--kw-ratio))); }
  .kw-board text { font-family: inherit; }
  .kw-bg { fill: #f8f5ef; }
  .kw-zone { fill: #e4ebf1; }
  .kw-grid { stroke: #cbd6df; stroke-width: 1; }
  .kw-limit { stroke: #9a8f82; stroke-width: 2; stroke-dasharray: 6 5; fill: none; }
  .kw-hatch-line { stroke: #e6ded1; stroke-width: 2.5; }
  .kw-label { fill: #8a8075; font-size: 15px; text-anchor: middle; dominant-baseline: middle; }
  .kw-note { fill: #6d645b; font-size: 16px; text-anchor: middle; }
  .kw-note-limit { fill: #9a8f82; font-size: 12px; }
  .kw-bracket { stroke: #6d645b; stroke-width: 2; fill: none; }
  .kw-table-top { fill: #c39a6b; } .kw-table-front { fill: #9b744b; } .kw-table-edge { fill: #d8b488; }
  .kw-body { stroke-width: 1.5; }
  .kw-s0 .kw-body { fill: #e8e0d0; stroke: #74695b; }
  .kw-s0 .kw-face { fill: #fbf8f2; }
  .kw-s1 .kw-body { fill: #2a2521; stroke: #000; }
  .kw-s1 .kw-face { fill: #3d3630; }
  .kw-block .kw-lastmark { fill: none; stroke: ${MARK}; stroke-width: 4; }
  .kw-line { fill: none; stroke-linecap: round; stroke-linejoin: round; pointer-events: none; }
  .kw-line .kw-casing { stroke: #fff; opacity: .85; }
  .kw-line.live .kw-stroke { stroke-dasharray: 2 9; }
  .kw-dot { stroke: #fff; stroke-width: 2; }
  .kw-ghost { cursor: pointer; outline: none; }
  .kw-ghost .kw-gshape { fill: rgba(200, 85, 61, .2); stroke: #c8553d; stroke-width: 2.2; stroke-dasharray: 5 4; pointer-events: none; }
  .kw-ghost .kw-hit { fill: transparent; }
  .kw-preview { pointer-events: none; opacity: .92; }
  .kw-preview .kw-ring { fill: none; stroke: #c8553d; stroke-width: 3; }
  .kw-ghost:hover .kw-gshape, .kw-ghost:focus-visible .kw-gshape { fill: rgba(200, 85, 61, .32); stroke-dasharray: none; }
  .kw-panel { background: #fffdf8; border: 2px solid var(--line, #e2d8c8); border-left: 8px solid var(--seat); border-radius: 10px;
    padding: .55rem .7rem; display: grid; gap: .35rem; font-size: .9rem; }
  .kw-panel.to-move { border-color: var(--seat); box-shadow: 0 0 0 3px color-mix(in srgb, var(--seat) 22%, transparent); }
  .kw-panel.kw-p0 { grid-area: p0; justify-self: end; width: 180px; } .kw-panel.kw-p1 { grid-area: p1; justify-self: start; width: 180px; }
  .kw-panel h3 { margin: 0; font-size: 1rem; display: flex; align-items: center; gap: .4rem; overflow-wrap: anywhere; }
  .kw-panel .kw-sub { color: #7a7067; font-size: .82rem; }
  .kw-tray { display: grid; grid-template-columns: repeat(10, 1fr); gap: 3px; max-width: 150px; }
  .kw-mini { height: 7px; border-radius: 2px; border: 1px solid; }
  .kw-mini.s0 { background: #f4efe4; border-color: #74695b; } .kw-mini.s1 { background: #2a2521; border-color: #000; }
  .kw-mini.used { opacity: .18; }
  .kw-fours { display: flex; align-items: center; gap: .4rem; }
  .kw-fours i { display: inline-block; width: 18px; height: 5px; border-radius: 3px; background: var(--seat); }
  .kw-badge { justify-self: start; font-size: .78rem; font-weight: 700; color: #fff; background: ${WIN}; border-radius: 99px; padding: .05rem .55rem; }
  .kw-last { font-size: .8rem; color: #7a7067; }
  .kw-last b { color: ${MARK}; }
  @media (max-width: 760px) {
    .kw-wrap { grid-template-columns: 1fr 1fr; grid-template-areas: "ctl ctl" "board board" "p0 p1"; gap: .5rem; }
    .kw-board { width: min(calc(100vw - 20px), calc(max(300px, 100vh - 240px) * var(--kw-ratio))); }
    .kw-panel.kw-p0, .kw-panel.kw-p1 { width: auto; justify-self: stretch; }
    .kw-choice { padding: .3rem .6rem; }
    .kw-panel { font-size: .85rem; padding: .45rem .55rem; }
  }
  `;

// A small wall for the Rules panel, drawn as the table draws it: `blocks` are
// {o: 'L' | 'S', x, y, seat, bad} on a `cols` × `rows` patch (y = 0 on the table); a `bad` block
// is one the rules forbid (faded, crossed in red); `line` lists [x, y] squares of a winning line.
export function miniWall(blocks, { cols = 7, rows = 4, line = null, scale = 0.6 } = {}) {
  addStyle('kwinty-style', STYLE);
  const W = cols * U, TABLE = rows * U, H = TABLE + 12;
  const sy = (y) => (rows - 1 - y) * U;
  const out = s('svg', { viewBox: `-4 -4 ${W + 8} ${H + 8}`, width: (W + 8) * scale, height: (H + 8) * scale, role: 'img' },
    s('rect', { class: 'kw-bg', x: -4, y: -4, width: W + 8, height: H + 8, rx: 8 }),
    s('rect', { class: 'kw-table-top', x: -4, y: TABLE, width: W + 8, height: 12 }));
  for (const b of blocks) {
    const w = b.o === 'L' ? 2 : 1, h = b.o === 'L' ? 1 : 2;
    const x = b.x * U, y = sy(b.y + h - 1);
    const g = s('g', { class: `kw-block kw-s${b.seat}`, opacity: b.bad ? 0.55 : null },
      s('rect', { class: 'kw-body', x: x + 1.5, y: y + 1.5, width: w * U - 3, height: h * U - 3, rx: 4 }),
      squaresOf(b.o, b.x, b.y).map(([cx, cy]) => s('rect', { class: 'kw-face', x: cx * U + 6, y: sy(cy) + 6, width: U - 12, height: U - 12, rx: 2 })));
    out.append(g);
    if (b.bad) {
      const mx = x + (w * U) / 2, my = y + (h * U) / 2;
      out.append(s('path', { d: `M${mx - 12},${my - 12}L${mx + 12},${my + 12}M${mx + 12},${my - 12}L${mx - 12},${my + 12}`,
        stroke: '#c8553d', 'stroke-width': 5, 'stroke-linecap': 'round' }));
    }
  }
  if (line) {
    const pts = line.map(([x, y]) => [x * U + U / 2, sy(y) + U / 2]);
    const d = `M${pts.map((p) => p.join(' ')).join(' L')}`;
    out.append(s('g', { class: 'kw-line' },
      s('path', { class: 'kw-casing', d, 'stroke-width': 13 }),
      s('path', { class: 'kw-stroke', d, stroke: WIN, 'stroke-width': 8 }),
      pts.map(([cx, cy]) => s('circle', { class: 'kw-dot', cx, cy, r: 6.5, fill: WIN }))));
  }
  return out;
}

function render(table, st, ctx) {
  if (!lastArgs || lastArgs[1] !== st) playedAt = 0;
  lastArgs = [table, st, ctx];
  addStyle('kwinty-style', STYLE);
  const { el } = ctx;
  const play = (move) => {
    if (Date.now() - playedAt < 2000) return;  // one move per state; a reply re-renders
    playedAt = Date.now();
    ctx.play(move);
  };
  const b = st.board;
  const rows = b.rows;
  const playing = st.status === 'playing';
  const me = st.you;
  const legal = st.legal_moves || [];
  const myTurn = playing && me !== null && legal.length > 0;
  const placements = legal.map(parseMove).filter(Boolean);
  const can = { L: placements.some((p) => p.o === 'L'), S: placements.some((p) => p.o === 'S') };
  const onlyPass = myTurn && legal.length === 1 && legal[0] === 'pass';
  if (myTurn && (!orient || !can[orient])) orient = can.L ? 'L' : can.S ? 'S' : null;

  // ---- the camera: the columns around the wall, never fewer than MIN_COLS ----
  const [r0, r1] = b.x_range;
  const ext = b.extent;
  let lo = r0 - 1, hi = r1 + 1;
  if (ext) { lo = Math.max(lo, ext[0] - 3); hi = Math.min(hi, ext[1] + 3); }
  if (hi - lo + 1 < MIN_COLS) {
    const centre = (lo + hi + 1) / 2;
    lo = Math.floor(centre - MIN_COLS / 2);
    hi = lo + MIN_COLS - 1;
  }
  const sx = (x) => PAD_L + (x - lo) * U;
  const sy = (y) => TOP + (rows - 1 - y) * U;  // top edge of row y
  const TABLE = TOP + rows * U;
  const W = PAD_L + (hi - lo + 1) * U + PAD_R;
  const H = TABLE + BELOW;
  const centre = ([x, y]) => [sx(x) + U / 2, sy(y) + U / 2];

  const layers = [];
  layers.push(s('defs', {},
    s('pattern', { id: 'kw-hatch', width: 12, height: 12, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      s('line', { class: 'kw-hatch-line', x1: 0, y1: 0, x2: 0, y2: 12 }))));
  layers.push(s('rect', { class: 'kw-bg', x: 0, y: 0, width: W, height: H, rx: 12 }));

  // The columns the wall may still reach, and the ones beyond the 9-column limit.
  const zl = Math.max(r0, lo), zr = Math.min(r1, hi);
  layers.push(s('rect', { class: 'kw-zone', x: sx(zl), y: TOP, width: (zr - zl + 1) * U, height: rows * U }));
  for (let x = lo; x <= hi; x++) {
    if (x >= r0 && x <= r1) continue;
    layers.push(s('rect', { x: sx(x), y: TOP, width: U, height: rows * U, fill: 'url(#kw-hatch)', 'data-out': x }));
  }
  const grid = [];
  for (let x = zl + 1; x <= zr; x++) grid.push(s('line', { class: 'kw-grid', x1: sx(x), y1: TOP, x2: sx(x), y2: TABLE }));
  for (let y = 1; y < rows; y++) grid.push(s('line', { class: 'kw-grid', x1: sx(zl), y1: sy(y) + U, x2: sx(zr + 1), y2: sy(y) + U }));
  layers.push(s('g', {}, grid));
  // The limits: 9 rows high, and the edges of the reachable columns when they are in sight.
  layers.push(s('line', { class: 'kw-limit', x1: sx(lo), y1: TOP, x2: sx(hi + 1), y2: TOP }));
  layers.push(s('text', { class: 'kw-note-limit', x: sx(hi + 1) - 2, y: TOP - 7, 'text-anchor': 'end' }, t('game.kwinty.height_limit', { n: rows })));
  if (r0 > lo) layers.push(s('line', { class: 'kw-limit', x1: sx(r0), y1: TOP, x2: sx(r0), y2: TABLE }));
  if (r1 < hi) layers.push(s('line', { class: 'kw-limit', x1: sx(r1 + 1), y1: TOP, x2: sx(r1 + 1), y2: TABLE }));
  for (let y = 0; y < rows; y++) layers.push(s('text', { class: 'kw-label', x: PAD_L / 2 + 1, y: sy(y) + U / 2 }, y + 1));

  // The table the wall stands on.
  layers.push(s('rect', { class: 'kw-table-top', x: 0, y: TABLE, width: W, height: 12 }));
  layers.push(s('rect', { class: 'kw-table-edge', x: 0, y: TABLE, width: W, height: 2 }));
  layers.push(s('rect', { class: 'kw-table-front', x: 0, y: TABLE + 12, width: W, height: 9 }));
  for (let x = Math.max(lo, 0); x <= Math.min(hi, b.columns - 1); x++) {
    layers.push(s('text', { class: 'kw-label', x: sx(x) + U / 2, y: TABLE + 34 }, LETTERS[x]));
  }
  // The wall's width, under it.
  const noteY = TABLE + 76;
  if (ext) {
    const [e0, e1] = ext, by = TABLE + 50, x1 = sx(e0) + 3, x2 = sx(e1 + 1) - 3;
    const width = e1 - e0 + 1;
    layers.push(s('path', { class: 'kw-bracket', d: `M${x1} ${by - 6} V${by} H${x2} V${by - 6}` }));
    const room = b.max_extent - width;
    const text = `${tn('game.kwinty.wall_wide', width)} · ${room ? tn('game.kwinty.may_grow', room) : t('game.kwinty.full_width', { n: b.max_extent })}`;
    layers.push(s('text', { class: 'kw-note', x: Math.min(Math.max((x1 + x2) / 2, 120), W - 120), y: noteY, 'data-extent': `${e0}-${e1}` }, text));
  } else {
    layers.push(s('text', { class: 'kw-note', x: sx(8) + U, y: noteY }, t('game.kwinty.first_on', { cell: 'i1' })));
  }

  // A block's body and its two squares.
  const blockShapes = (o, bx, by, ring = false) => {
    const w = o === 'L' ? 2 : 1, h = o === 'L' ? 1 : 2;
    const x = sx(bx), y = sy(by + h - 1);
    return [
      s('rect', { class: 'kw-body', x: x + 1.5, y: y + 1.5, width: w * U - 3, height: h * U - 3, rx: 4 }),
      ...squaresOf(o, bx, by).map(([cx, cy]) => s('rect', { class: 'kw-face', x: sx(cx) + 6, y: sy(cy) + 6, width: U - 12, height: U - 12, rx: 2 })),
      ring ? s('rect', { class: 'kw-ring', x: x + 1.5, y: y + 1.5, width: w * U - 3, height: h * U - 3, rx: 4 }) : null,
    ].filter(Boolean);
  };

  // The blocks, in the order placed.
  const last = b.last;
  const blocks = b.blocks.map((blk, i) => {
    const o = blk.w === 2 ? 'L' : 'S';
    const isLast = last && last.move === blk.move && i === b.blocks.length - 1;
    const x = sx(blk.x), y = sy(blk.y + blk.h - 1), w = blk.w * U, h = blk.h * U;
    return s('g', {
      class: `kw-block kw-s${blk.seat}`, 'data-block': blk.move, 'data-seat': blk.seat, role: 'img',
      'aria-label': t(isLast ? 'game.kwinty.block_last' : 'game.kwinty.block', { colour: colourWord(blk.seat), placed: placedText(o, blk.x, blk.y) }),
    },
    blockShapes(o, blk.x, blk.y),
    isLast ? s('rect', { class: 'kw-lastmark', x: x - 0.5, y: y - 0.5, width: w + 1, height: h + 1, rx: 6 }) : null);
  });
  layers.push(s('g', { class: 'kw-blocks' }, blocks));

  // Lines: a win by five, else the lines of four (live while playing, bold once counted).
  const over = st.status === 'over';
  const lineEl = (line, stroke, kind, bold) => {
    const pts = line.map(centre);
    const d = `M${pts.map((p) => p.join(' ')).join(' L')}`;
    return s('g', { class: `kw-line${bold ? '' : ' live'}`, 'data-line': kind, 'data-cells': line.map((c) => cell(...c)).join(' ') },
      s('path', { class: 'kw-casing', d, 'stroke-width': bold ? 13 : 8 }),
      s('path', { class: 'kw-stroke', d, stroke, 'stroke-width': bold ? 8 : 4.5 }),
      bold ? pts.map(([cx, cy]) => s('circle', { class: 'kw-dot', cx, cy, r: 6.5, fill: stroke })) : null);
  };
  const lines = [];
  const won = b.win_lines.length > 0;
  if (!won) {
    b.fours.forEach((list, seat) => list.forEach((line) => lines.push(lineEl(line, ctx.seatColour(seat), `four-${seat}`, over))));
  }
  for (const line of b.win_lines) lines.push(lineEl(line, WIN, 'five', true));
  layers.push(s('g', { class: 'kw-lines' }, lines));

  // Ghosts: every legal placement of the chosen orientation.
  if (myTurn && orient) {
    const mine = placements.filter((p) => p.o === orient);
    const has = new Set(mine.map((p) => `${p.x},${p.y}`));
    const at = (x, y) => has.has(`${x},${y}`);
    const ghosts = mine.map((p) => {
      const w = orient === 'L' ? 2 : 1, h = orient === 'L' ? 1 : 2;
      const fx = sx(p.x), fy = sy(p.y + h - 1);
      let shape, hit;
      if (orient === 'L' && (at(p.x - 1, p.y) || at(p.x + 1, p.y))) {
        // Lying ghosts that overlap their neighbours are drawn in two staggered lanes like
        // brickwork, and each is clicked near its own centre.
        let start = p.x;
        while (at(start - 1, p.y)) start--;
        const upper = (p.x - start) % 2 === 0;
        shape = { x: fx + 4, y: upper ? fy + 4 : fy + U / 2 + 2, width: w * U - 8, height: U / 2 - 6 };
        const left = at(p.x - 1, p.y) ? fx + U / 2 : fx;
        const right = at(p.x + 1, p.y) ? fx + U * 1.5 : fx + 2 * U;
        hit = { x: left, y: fy, width: right - left, height: U };
      } else {
        shape = { x: fx + 4, y: fy + 4, width: w * U - 8, height: h * U - 8 };
        hit = { x: fx, y: fy, width: w * U, height: h * U };
      }
      const label = t(orient === 'L' ? 'game.kwinty.place_lying' : 'game.kwinty.place_standing', { cells: where(orient, p.x, p.y) });
      // Hovering or focusing a ghost shows the block itself, above all the ghosts.
      const show = () => preview.replaceChildren(...blockShapes(orient, p.x, p.y, true));
      const hide = () => preview.replaceChildren();
      return s('g', {
        class: 'kw-ghost', 'data-move': p.move, role: 'button', tabindex: 0, 'aria-label': label,
        onclick: () => play(p.move),
        onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); play(p.move); } },
        onmouseenter: show, onfocus: show, onmouseleave: hide, onblur: hide,
      },
      s('title', {}, label),
      s('rect', { class: 'kw-gshape', rx: 4, ...shape }),
      s('rect', { class: 'kw-hit', ...hit }));
    });
    const preview = s('g', { class: `kw-preview kw-s${me}`, 'aria-hidden': 'true' });
    layers.push(s('g', { class: 'kw-ghosts' }, ghosts), preview);
  }

  const board = s('svg', {
    class: 'kw-board', viewBox: `0 0 ${W} ${H}`, role: 'group', 'data-cols': `${lo}-${hi}`, style: `--kw-ratio:${(W / H).toFixed(4)}`,
    'aria-label': tn('game.kwinty.wall_label', b.blocks.length),
  }, layers);

  // ---- controls: orientation or pass for the player to move ----
  let controls = '';
  if (myTurn && onlyPass) {
    controls = el('div', { class: 'kw-controls' },
      el('span', { class: 'kw-hint' }, b.blocks_left[me] === 0 ? t('game.kwinty.none_left') : t('game.kwinty.none_fits')),
      el('button', { class: 'primary kw-pass', 'data-move': 'pass', onclick: () => play('pass') }, t('game.kwinty.pass')));
  } else if (myTurn) {
    const n = placements.filter((p) => p.o === orient).length;
    controls = el('div', { class: 'kw-controls' },
      el('div', { class: 'kw-orient', role: 'group', 'aria-label': t('game.kwinty.orientation') },
        ['L', 'S'].map((o) => el('button', {
          class: `kw-choice${orient === o ? ' chosen' : ''}`, 'data-choice': o, 'aria-pressed': orient === o ? 'true' : 'false',
          disabled: !can[o], title: can[o] ? '' : t(o === 'L' ? 'game.kwinty.no_lying' : 'game.kwinty.no_standing'),
          onclick: () => { orient = o; if (lastArgs) render(...lastArgs); },
        }, blockIcon(o, me), t(o === 'L' ? 'game.kwinty.lying' : 'game.kwinty.standing')))),
      el('span', { class: 'kw-hint' }, tn('game.kwinty.click_hint', n, { colour: colourWord(me) })));
  } else if (playing) {
    controls = el('div', { class: 'kw-controls' },
      el('span', { class: 'kw-hint' }, t('game.kwinty.placing', { name: ctx.seatName(st.to_move), colour: colourWord(st.to_move) })));
  } else if (over && st.outcome) {
    const text = won
      ? t(b.win_lines.length > 1 ? 'game.kwinty.win_lines' : 'game.kwinty.win_line')
      : t('game.kwinty.counted', { name0: ctx.seatName(0), n0: b.fours_count[0], name1: ctx.seatName(1), n1: b.fours_count[1] });
    controls = el('div', { class: 'kw-controls' }, el('span', { class: 'kw-hint', 'data-result': won ? 'five' : 'fours' }, text));
  }

  // ---- a panel per seat: colour, blocks left, lines of four ----
  const panel = (seat) => {
    const left = b.blocks_left[seat];
    const n4 = b.fours_count[seat];
    const winner = over && st.outcome && st.outcome.winners.includes(seat);
    const lastHere = last && last.seat === seat;
    const lastText = lastHere ? (last.move === 'pass' ? t('game.kwinty.passed') : (() => {
      const p = parseMove(last.move);
      return p ? placedText(p.o, p.x, p.y) : last.move;
    })()) : null;
    return el('section', {
      class: `kw-panel kw-p${seat}${playing && st.to_move === seat ? ' to-move' : ''}`, 'data-panel': seat,
      style: `--seat:${ctx.seatColour(seat)}`, 'aria-label': t('game.kwinty.panel_label', { name: ctx.seatName(seat), colour: colourWord(seat) }),
    },
    el('h3', {}, blockIcon('L', seat, 22), ctx.seatName(seat), me === seat ? el('span', { class: 'kw-sub' }, t('game.kwinty.you')) : ''),
    el('div', { class: 'kw-sub' }, t(seat === 0 ? 'game.kwinty.plays_white' : 'game.kwinty.plays_black')),
    el('div', { 'data-left': left }, tn('game.kwinty.left', left)),
    el('div', { class: 'kw-tray', 'aria-hidden': 'true' },
      Array.from({ length: 20 }, (_, i) => el('span', { class: `kw-mini s${seat}${i >= left ? ' used' : ''}` }))),
    el('div', { class: 'kw-fours', 'data-fours': n4, title: t('game.kwinty.fours_title') },
      el('i', {}), t(over && !won ? 'game.kwinty.fours_counted' : 'game.kwinty.fours', { n: n4 })),
    lastText ? el('div', { class: 'kw-last' }, el('b', {}, '■ '), t('game.kwinty.last', { move: lastText })) : '',
    winner ? el('span', { class: 'kw-badge' }, t(won ? 'game.kwinty.badge_five' : 'game.kwinty.badge_winner')) : '');
  };

  table.replaceChildren(el('div', { class: 'kw-wrap' },
    controls || el('div', { class: 'kw-controls' }),
    panel(0),
    el('div', { class: 'kw-boardbox' }, board),
    panel(1)));
}

// The outcome's reason in the page's language, from its code and args; null for another code.
function reason(outcome, ctx) {
  const a = outcome.args || {};
  if (outcome.code === 'kwinty.five') {
    const key = {
      horizontal: 'reason.kwinty.five.horizontal', vertical: 'reason.kwinty.five.vertical',
      rising: 'reason.kwinty.five.rising', falling: 'reason.kwinty.five.falling',
    }[a.direction];
    if (!key || a.seat === undefined) return null;
    return t(key, { name: ctx.name(a.seat), length: a.length });
  }
  if (outcome.code === 'kwinty.fours') {
    const draw = (outcome.winners || []).length === 0;
    const key = {
      full: draw ? 'reason.kwinty.fours.full_draw' : 'reason.kwinty.fours.full',
      stuck: draw ? 'reason.kwinty.fours.stuck_draw' : 'reason.kwinty.fours.stuck',
    }[a.ended];
    return key ? t(key, { white: a.white, black: a.black }) : null;
  }
  return null;
}

export default { render, reason };
