// The Quirky table: the triangular board (points of a triangular lattice placed from the view's
// x, y), each point's stack drawn as stacked discs with its height, the drawn piece shown big with
// its legal points highlighted, each player's colour and score, the triangles the last move scored
// flashed on the board with their points, the bag's counts, set-aside markers and a short log.
// The server draws the pieces; this page only shows them. Moves are taken from st.legal_moves:
//   a marker:      click a highlighted point                          -> "c3"
//   a black Quirk: click a highlighted top to send it back to the bag -> "xc3"
//   a blue Quirk:  click a highlighted top (a selection, data-choice), then one of its
//                  highlighted empty neighbours                        -> "c3-d4"
import { svg as s, addStyle } from '../dom.js';
import { t, tn } from '../i18n.js';

const S = 64;                      // distance between neighbouring points, in SVG units
const ROW = S * Math.sqrt(3) / 2;  // distance between rows
const PAD = 36;
const R = 20;                      // radius of a marker disc
const LIFT = 6;                    // how much each disc of a stack is raised over the one below
const FLASH_MS = 6000;             // how long the scored triangles stay on the board

const PIECES = ['green', 'yellow', 'red', 'blue', 'black', 'purple'];
const COLOURS = ['green', 'yellow', 'red'];
const FILL = { green: '#3d9a4f', yellow: '#f1c232', red: '#d8473a', blue: '#2f6fd6', black: '#26221f', purple: '#8d46c2' };
const DARK = { green: '#1f5e2c', yellow: '#9a7607', red: '#8e2219', blue: '#173f86', black: '#000', purple: '#55217c' };
const GLYPH = { blue: '↔', black: '×', purple: '⟳' };
// Every text of the panel is read through t() at each render (the language may change).
// i18n-keys: game.quirky.colour.*
// i18n-keys: game.quirky.hint.quirk.*
// i18n-keys: game.quirky.log.*
// The lobby's "New table" form (app.js) words this game's options with these keys:
// i18n-keys: option.quirky.*

let sel = { key: null, from: null };   // the blue Quirk's chosen source, kept across re-renders
let flash = { key: null, at: 0 };      // when the current scoring was first shown
let lastArgs = null;                   // the last render's arguments, to re-render on a local choice

const isQuirk = (p) => p === 'blue' || p === 'black' || p === 'purple';
const colourName = (c) => t(`game.quirky.colour.${c}`);
const pieceName = (p) => t(isQuirk(p) ? 'game.quirky.piece.quirk' : 'game.quirky.piece.marker', { colour: colourName(p) });

// One piece as a small picture: a marker disc, or a Quirk disc with its glyph.
export function pieceIcon(piece, size = 22, extra = {}) {
  const quirk = isQuirk(piece);
  return s('svg', { viewBox: '-24 -24 48 48', width: size, height: size, class: `qk-icon qk-${piece}`, 'aria-hidden': 'true', ...extra },
    quirk ? s('rect', { x: -20, y: -20, width: 40, height: 40, rx: 11, fill: FILL[piece], stroke: DARK[piece], 'stroke-width': 2.5 })
      : s('circle', { r: 20, fill: FILL[piece], stroke: DARK[piece], 'stroke-width': 2.5 }),
    quirk ? s('text', { class: 'qk-glyph', y: 1, fill: '#fff' }, GLYPH[piece])
      : s('circle', { r: 13, fill: 'none', stroke: 'rgba(255,255,255,.35)', 'stroke-width': 2 }));
}

// The parsed legal moves: where a marker goes, which tops a black Quirk may take, and for a blue
// Quirk each source with its targets.
function parseMoves(legal) {
  const place = new Map(), take = new Map(), slide = new Map();
  for (const m of legal) {
    const dash = m.indexOf('-');
    if (dash > 0) {
      const from = m.slice(0, dash), to = m.slice(dash + 1);
      if (!slide.has(from)) slide.set(from, new Map());
      slide.get(from).set(to, m);
    } else if (/^x[a-z][0-9]+$/.test(m)) take.set(m.slice(1), m);
    else place.set(m, m);
  }
  return { place, take, slide };
}

const STYLE = `
  .qk-wrap { width: 100%; max-width: 1060px; display: grid; gap: .8rem 1rem; align-items: start;
    grid-template-columns: minmax(0, 1fr) minmax(260px, 320px);
    grid-template-areas: "board drawn" "board players" "board bag" "board log" "board ."; }
  .qk-boardbox { grid-area: board; display: flex; justify-content: center; min-width: 0; }
  .qk-board { display: block; width: 100%; height: auto; max-height: calc(100vh - 215px); touch-action: manipulation; }
  .qk-board text { font-family: inherit; }
  .qk-panel { background: #fffdf8; border: 1px solid #e2d8c8; border-radius: 10px; padding: .55rem .75rem; }
  .qk-panel h3 { margin: 0 0 .4rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .06em; color: #7a7067; font-weight: 600; }
  .qk-drawn { grid-area: drawn; display: grid; grid-template-columns: auto 1fr; gap: .3rem .8rem; align-items: center; }
  .qk-drawn.mine { border: 2px solid #2b2622; box-shadow: 0 0 0 3px rgba(43,38,34,.12); }
  .qk-drawn .qk-big { grid-row: span 3; }
  .qk-drawn .qk-who { font-size: .85rem; color: #7a7067; }
  .qk-drawn .qk-what { font-size: 1.15rem; font-weight: 700; }
  .qk-drawn .qk-hint { font-size: .88rem; }
  .qk-drawn .qk-tools { grid-column: 1 / -1; display: flex; gap: .4rem; flex-wrap: wrap; }
  .qk-news { grid-column: 1 / -1; font-size: .86rem; border-top: 1px dashed #e2d8c8; padding-top: .35rem; display: grid; gap: .2rem; }
  .qk-news .qk-pass { background: #efe3f7; border-left: 4px solid #8d46c2; padding: .2rem .45rem; border-radius: 4px; font-weight: 600; }
  .qk-news .qk-score { background: #fff3c4; border-left: 4px solid #c58b19; padding: .2rem .45rem; border-radius: 4px; display: flex; justify-content: space-between; gap: .4rem; align-items: center; }
  .qk-news button { padding: .05rem .45rem; font-size: .8rem; }
  .qk-players { grid-area: players; }
  .qk-seat { display: grid; grid-template-columns: auto 1fr auto; gap: .5rem; align-items: center; padding: .3rem .4rem; border-radius: 8px; }
  .qk-seat + .qk-seat { margin-top: .15rem; }
  .qk-seat.to-move { background: #f4efe6; box-shadow: inset 3px 0 0 #2b2622; }
  .qk-seat .qk-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .qk-seat .qk-col { font-size: .8rem; color: #7a7067; }
  .qk-seat .qk-pts { font-size: 1.35rem; font-weight: 800; font-variant-numeric: tabular-nums; }
  .qk-seat.changed .qk-icon { animation: qk-pop 1.2s ease-out 2; }
  .qk-seat.neutral { opacity: .75; }
  .qk-tag.qk-win { background: #c58b19; }
  .qk-tag { font-size: .7rem; background: #2b2622; color: #fff; border-radius: 99px; padding: 0 .4rem; margin-left: .3rem; vertical-align: middle; }
  .qk-bag { grid-area: bag; }
  .qk-kinds { display: grid; grid-template-columns: repeat(6, 1fr); gap: .2rem; text-align: center; font-size: .85rem; font-variant-numeric: tabular-nums; }
  .qk-kind { display: grid; justify-items: center; gap: 1px; }
  .qk-kind.none { opacity: .3; }
  .qk-bagline { font-size: .82rem; color: #7a7067; margin-top: .3rem; display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: center; }
  .qk-log { grid-area: log; }
  .qk-log ol { list-style: none; margin: 0; padding: 0; max-height: 11.5rem; overflow-y: auto; font-size: .84rem; display: grid; gap: .15rem; }
  .qk-log li { display: grid; grid-template-columns: 2.1rem auto 1fr; gap: .35rem; align-items: center; }
  .qk-log li .qk-n { color: #a2978a; font-variant-numeric: tabular-nums; text-align: right; }
  .qk-log li.auto { color: #6d645b; font-style: italic; }
  .qk-log li .qk-gain { font-weight: 700; color: #8a5a00; font-style: normal; }
  .qk-icon { flex: none; vertical-align: middle; }
  .qk-glyph { font-size: 26px; font-weight: 800; text-anchor: middle; dominant-baseline: central; }
  .qk-bg { fill: #e9dcc3; stroke: #e9dcc3; stroke-linejoin: round; }
  .qk-line { stroke: #cdb995; stroke-width: 2; }
  .qk-dot { fill: #b49c74; }
  .qk-pid { fill: #a38d68; font-size: 11px; text-anchor: middle; pointer-events: none; }
  .qk-point { outline: none; }
  .qk-hit { fill: transparent; }
  .qk-disc { stroke-width: 2; }
  .qk-letter { font-size: 13px; font-weight: 700; text-anchor: middle; dominant-baseline: central; fill: rgba(0,0,0,.42); pointer-events: none; }
  .qk-badge circle { fill: #fff; stroke: #2b2622; stroke-width: 1.5; }
  .qk-badge text { font-size: 12px; font-weight: 800; text-anchor: middle; dominant-baseline: central; fill: #2b2622; }
  .qk-open { fill: rgba(255,255,255,.55); stroke: #2b2622; stroke-width: 2.2; stroke-dasharray: 6 4; animation: qk-march 1.2s linear infinite; }
  .qk-point.can:hover .qk-open, .qk-point.can:focus-visible .qk-open { fill: rgba(255,255,255,.95); stroke-width: 3.5; }
  .qk-point.can { cursor: pointer; }
  .qk-point.take .qk-open { stroke: #26221f; fill: rgba(38,34,31,.12); }
  .qk-point.source .qk-open { stroke: #2f6fd6; fill: rgba(47,111,214,.12); }
  .qk-point.picked .qk-open { stroke: #2f6fd6; stroke-dasharray: none; stroke-width: 4; fill: rgba(47,111,214,.22); animation: none; }
  .qk-point.target .qk-open { stroke: #2f6fd6; fill: rgba(255,255,255,.8); }
  .qk-cross { stroke: #fff; stroke-width: 3; stroke-linecap: round; pointer-events: none; opacity: 0; }
  .qk-point.take:hover .qk-cross, .qk-point.take:focus-visible .qk-cross { opacity: .95; }
  .qk-option { fill: rgba(255,255,255,.25); stroke: #a8957a; stroke-width: 1.5; stroke-dasharray: 2 4; }
  .qk-last { fill: none; stroke: #c8553d; stroke-width: 3; }
  .qk-lastx { stroke: #c8553d; stroke-width: 3.5; stroke-linecap: round; }
  .qk-arrow { stroke: #c8553d; stroke-width: 3.5; fill: none; marker-end: url(#qk-head); pointer-events: none; }
  .qk-aim { stroke: #2f6fd6; stroke-width: 2.5; stroke-dasharray: 5 4; pointer-events: none; marker-end: url(#qk-aimhead); }
  .qk-flash { pointer-events: none; animation: qk-fade ${FLASH_MS}ms ease-in forwards; }
  .qk-flash polygon { stroke-width: 4.5; stroke-linejoin: round; }
  .qk-flash .qk-gainlabel rect { fill: #fff; stroke: #2b2622; stroke-width: 1.5; }
  .qk-flash .qk-gainlabel text { font-size: 13px; font-weight: 800; text-anchor: middle; dominant-baseline: central; fill: #2b2622; }
  @keyframes qk-fade { 0%, 65% { opacity: 1; } 100% { opacity: 0; } }
  @keyframes qk-march { to { stroke-dashoffset: -20; } }
  @keyframes qk-pop { 0% { transform: scale(1); } 40% { transform: scale(1.35); } 100% { transform: scale(1); } }
  @media (max-width: 760px) {
    .qk-wrap { grid-template-columns: minmax(0, 1fr); grid-template-areas: "drawn" "board" "players" "bag" "log"; gap: .55rem; }
    .qk-board { max-height: none; }
    .qk-drawn .qk-what { font-size: 1.02rem; }
  }
  @media (prefers-reduced-motion: reduce) { .qk-open { animation: none; } }
  `;

// The hull of the board's points (monotone chain), for the board's background.
function hull(pts) {
  const p = [...pts].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower.at(-2), lower.at(-1), q) <= 0) lower.pop(); lower.push(q); }
  for (const q of [...p].reverse()) { while (upper.length >= 2 && cross(upper.at(-2), upper.at(-1), q) <= 0) upper.pop(); upper.push(q); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function describeStack(stack) {
  if (!stack.length) return t('game.quirky.stack.empty');
  const list = stack.map(colourName).reverse().reduce((top, below) => t('game.quirky.stack.on', { top, below }));
  return t('game.quirky.stack.height', { list, n: stack.length });
}

// The text of one log entry, worded from its data (event, piece, move, returned).
function logText(e, name) {
  const vars = { name: name(e.seat), piece: pieceName(e.piece), point: e.move || '' };
  switch (e.event) {
    case 'placed': return t('game.quirky.log.placed', vars);
    case 'moved': { const [from, to] = (e.move || '-').split('-'); return t('game.quirky.log.moved', { ...vars, from, to }); }
    case 'returned': return t('game.quirky.log.returned', { ...vars, piece: pieceName(e.returned), point: (e.move || '').slice(1) });
    case 'set_aside': case 'no_effect': case 'colours_passed': return t(`game.quirky.log.${e.event}`, vars);
    default: return t('game.quirky.log.other', { ...vars, event: e.event });
  }
}

const gainOf = (g, who) => t('game.quirky.gain', { gain: g, name: who });
function gainText(gain, name) {
  return (gain || []).map((g, i) => (g > 0 ? gainOf(g, name(i)) : null)).filter(Boolean).join(', ');
}

// The worded reason of a finished game (outcome.code and outcome.args), or null for a code that
// is not Quirky's (the app then shows outcome.reason).
function reason(outcome) {
  if (!outcome || outcome.code !== 'quirky.bag_empty') return null;
  const a = outcome.args || {};
  if (a.sharing > 1) return tn('reason.quirky.bag_empty_shared', a.points, { sharing: a.sharing });
  return tn('reason.quirky.bag_empty', a.points);
}

const quirkyTable = {
  render(table, st, ctx) {
    addStyle('quirky-style', STYLE);
    lastArgs = [table, st, ctx];
    const { el } = ctx;
    const b = st.board;
    const name = (i) => ctx.seatName(i);
    const holderOf = (colour) => b.seats.findIndex((x) => x.colour === colour);
    const whose = (colour) => {
      if (b.neutral === colour) return t('game.quirky.owner.neutral');
      const h = holderOf(colour);
      return h < 0 ? '' : h === st.you ? t('game.quirky.owner.you') : t('game.quirky.owner.other', { name: ctx.seatName(h) });
    };
    const { place, take, slide } = parseMoves(st.legal_moves);
    const myTurn = st.legal_moves.length > 0;
    const drawn = b.drawn;

    // The blue Quirk's source: reset when the turn changes or it is no longer a source.
    const key = `${st.round}:${b.log.length}:${st.you}`;
    if (sel.key !== key || !slide.has(sel.from)) sel = { key, from: null };
    if (!sel.from && slide.size === 1) sel.from = [...slide.keys()][0];
    const targets = sel.from ? slide.get(sel.from) : new Map();
    const choose = (from) => { sel = { key, from }; rerender(); };

    // The last move played by a player: where it is in the log, and its scoring flash.
    let lastIdx = -1;
    for (let i = b.log.length - 1; i >= 0; i--) if (b.log[i].move !== null) { lastIdx = i; break; }
    const scored = b.last ? b.last.scored : [];
    const flashKey = `${st.round}:${lastIdx}`;
    if (flash.key !== flashKey) flash = { key: flashKey, at: Date.now() };
    const flashAge = Date.now() - flash.at;

    // ---------- the board ----------
    const xs = b.points.map((p) => p.x), ys = b.points.map((p) => p.y);
    const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
    const pos = new Map(b.points.map((p) => [p.id, [PAD + (p.x - minX) * S / 2, PAD + 8 + (p.y - minY) * ROW]]));
    const W = (maxX - minX) * S / 2 + 2 * PAD, H = (maxY - minY) * ROW + 2 * PAD + 8;
    const byXY = new Map(b.points.map((p) => [`${p.x},${p.y}`, p]));

    const defs = s('defs', {},
      s('marker', { id: 'qk-head', viewBox: '0 0 10 10', refX: 7, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#c8553d' })),
      s('marker', { id: 'qk-aimhead', viewBox: '0 0 10 10', refX: 7, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#2f6fd6' })));

    const h = hull([...pos.values()]);
    const bg = s('polygon', { class: 'qk-bg', points: h.map((p) => p.join(',')).join(' '), 'stroke-width': PAD * 1.5 });
    const lines = [];
    for (const p of b.points) {
      for (const [dx, dy] of [[2, 0], [1, 1], [-1, 1]]) {
        const q = byXY.get(`${p.x + dx},${p.y + dy}`);
        if (!q) continue;
        const [x1, y1] = pos.get(p.id), [x2, y2] = pos.get(q.id);
        lines.push(s('line', { class: 'qk-line', x1, y1, x2, y2 }));
      }
    }

    // The last move's mark, under the pieces.
    const under = [], over = [];
    if (b.last) {
      const m = b.last.move;
      const dash = m.indexOf('-');
      if (dash > 0) {
        const [x1, y1] = pos.get(m.slice(0, dash)), [x2, y2] = pos.get(m.slice(dash + 1));
        const len = Math.hypot(x2 - x1, y2 - y1), ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        under.push(s('circle', { class: 'qk-last', cx: x1, cy: y1, r: 9, 'stroke-dasharray': '4 3' }));
        over.push(s('line', { class: 'qk-arrow', x1: x1 + ux * 10, y1: y1 + uy * 10, x2: x2 - ux * (R + 6), y2: y2 - uy * (R + 6) }));
        under.push(s('circle', { class: 'qk-last', cx: x2, cy: y2, r: R + 6 }));
      } else if (m.startsWith('x') && pos.has(m.slice(1))) {
        const [x, y] = pos.get(m.slice(1));
        const stackNow = b.points.find((p) => p.id === m.slice(1)).stack;
        if (stackNow.length) under.push(s('circle', { class: 'qk-last', cx: x, cy: y, r: R + 6, 'stroke-dasharray': '5 4' }));
        else under.push(s('g', { 'aria-hidden': 'true' },
          s('line', { class: 'qk-lastx', x1: x - 9, y1: y - 9, x2: x + 9, y2: y + 9 }),
          s('line', { class: 'qk-lastx', x1: x + 9, y1: y - 9, x2: x - 9, y2: y + 9 })));
      } else if (pos.has(m)) {
        const [x, y] = pos.get(m);
        under.push(s('circle', { class: 'qk-last', cx: x, cy: y, r: R + 6 }));
      }
    }

    const options = new Set(drawn ? drawn.points : []);
    const points = b.points.map((p) => {
      const [x, y] = pos.get(p.id);
      const stack = p.stack;
      const hgt = stack.length;
      let move = null, choice = null, kind = '';
      if (myTurn) {
        if (place.has(p.id)) { move = place.get(p.id); kind = 'place'; }
        else if (take.has(p.id)) { move = take.get(p.id); kind = 'take'; }
        else if (targets.has(p.id)) { move = targets.get(p.id); kind = 'target'; }
        else if (slide.has(p.id)) { choice = p.id; kind = sel.from === p.id ? 'source picked' : 'source'; }
      }
      const act = move !== null || choice !== null;
      const top = stack.at(-1);
      const what = describeStack(stack);
      let label = t('game.quirky.point.label', { point: p.id, stack: what });
      const act_ = kind === 'place' ? t('game.quirky.point.place', { piece: pieceName(drawn.piece) })
        : kind === 'take' ? t('game.quirky.point.take', { piece: pieceName(top) })
          : kind === 'target' ? t('game.quirky.point.target', { from: sel.from })
            : kind === 'source' ? t('game.quirky.point.source', { piece: pieceName(top) })
              : kind === 'source picked' ? t('game.quirky.point.picked') : '';
      if (act_) label = `${label} — ${act_}`;
      const fire = () => { if (move !== null) ctx.play(move); else if (choice !== null) choose(sel.from === choice ? null : choice); };
      const g = s('g', {
        class: `qk-point${act ? ` can ${kind}` : ''}`,
        'data-point': p.id,
        'data-stack': stack.join(','),
        'data-move': move,
        'data-choice': choice,
        role: act ? 'button' : 'img',
        tabindex: act ? 0 : null,
        'aria-label': label,
        onclick: act ? fire : null,
        onkeydown: act ? (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); fire(); } } : null,
      });
      g.append(s('title', {}, label));
      const lift = hgt ? (hgt - 1) * LIFT / 2 : 0;
      if (act) g.append(s('circle', { class: 'qk-open', cx: x, cy: y, r: R + 6 }));
      else if (options.has(p.id)) g.append(s('circle', { class: 'qk-option', cx: x, cy: y, r: R + 5 }));
      if (!hgt) {
        g.append(s('circle', { class: 'qk-dot', cx: x, cy: y, r: 4.5 }));
        g.append(s('text', { class: 'qk-pid', x, y: y + 17 }, p.id));
      }
      stack.forEach((c, i) => {
        const cy = y + lift - i * LIFT;
        g.append(s('circle', { class: 'qk-disc', cx: x, cy, r: R, fill: FILL[c], stroke: DARK[c] }));
      });
      if (hgt) {
        const ty = y + lift - (hgt - 1) * LIFT;
        g.append(s('text', { class: 'qk-letter', x, y: ty }, top[0].toUpperCase()));
        if (hgt >= 2) {
          g.append(s('g', { class: 'qk-badge', 'aria-hidden': 'true' },
            s('circle', { cx: x + R * 0.82, cy: ty - R * 0.72, r: 8.5 }),
            s('text', { x: x + R * 0.82, y: ty - R * 0.72 }, hgt)));
        }
        if (kind === 'take') {
          g.append(s('line', { class: 'qk-cross', x1: x - 8, y1: ty - 8, x2: x + 8, y2: ty + 8 }),
            s('line', { class: 'qk-cross', x1: x + 8, y1: ty - 8, x2: x - 8, y2: ty + 8 }));
        }
      }
      g.append(s('circle', { class: 'qk-hit', cx: x, cy: y, r: S / 2 - 2 }));
      return g;
    });

    // The chosen blue source aims at its targets.
    if (sel.from && pos.has(sel.from)) {
      const [x1, y1] = pos.get(sel.from);
      for (const to of targets.keys()) {
        const [x2, y2] = pos.get(to);
        const len = Math.hypot(x2 - x1, y2 - y1), ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        over.push(s('line', { class: 'qk-aim', x1: x1 + ux * (R + 4), y1: y1 + uy * (R + 4), x2: x2 - ux * 12, y2: y2 - uy * 12 }));
      }
    }

    // The triangles the last move scored, for a moment, with the points each gave.
    if (scored.length && flashAge < FLASH_MS) {
      const tris = scored.map((t) => {
        const c = t.points.map((id) => pos.get(id));
        return { t, c, cx: (c[0][0] + c[1][0] + c[2][0]) / 3, cy: (c[0][1] + c[1][1] + c[2][1]) / 3 };
      });
      const labelled = new Map();  // one label per centre, adding up the triangles that share it
      for (const { t, cx, cy } of tris) {
        const k = `${Math.round(cx)},${Math.round(cy)}`;
        const prev = labelled.get(k) || { cx, cy, gain: 0, n: 0 };
        labelled.set(k, { cx, cy, gain: prev.gain + t.gain, n: prev.n + 1 });
      }
      const fade = `animation-delay:-${flashAge}ms`;
      under.push(s('g', { class: 'qk-flash', style: fade, 'aria-hidden': 'true', 'data-scored': scored.length },
        tris.map(({ t, c }) => s('polygon', {
          points: c.map((q) => q.join(',')).join(' '),
          fill: FILL[t.colour], 'fill-opacity': 0.25, stroke: DARK[t.colour],
        }))));
      over.push(s('g', { class: 'qk-flash', style: fade, 'aria-hidden': 'true' },
        [...labelled.values()].map(({ cx, cy, gain }) => {
          const text = gain > 0 ? `+${gain}` : '0';
          const w = 10 + text.length * 7.5;
          return s('g', { class: 'qk-gainlabel' },
            s('rect', { x: cx - w / 2, y: cy - 9, width: w, height: 18, rx: 9 }),
            s('text', { x: cx, y: cy }, text));
        })));
    }

    const svg = s('svg', {
      class: 'qk-board', viewBox: `0 0 ${W.toFixed(1)} ${H.toFixed(1)}`, role: 'group',
      'aria-label': t('game.quirky.board_label', { n: b.points.length }),
    }, defs, bg, lines, under, points, over);

    // ---------- the drawn piece ----------
    const drawnCard = el('div', { class: `qk-panel qk-drawn${myTurn ? ' mine' : ''}`, 'data-drawn': drawn ? drawn.piece : '' });
    if (drawn) {
      const mine = drawn.seat === st.you;
      const p = drawn.piece;
      const owner = isQuirk(p) ? '' : whose(p);
      drawnCard.append(
        el('div', { class: 'qk-big' }, pieceIcon(p, 64, { 'aria-label': pieceName(p), role: 'img' })),
        el('div', { class: 'qk-who' }, mine ? t('game.quirky.drawn.you') : t('game.quirky.drawn.other', { name: ctx.seatName(drawn.seat) })),
        el('div', { class: 'qk-what' }, owner ? t('game.quirky.drawn.what_owner', { piece: pieceName(p), owner }) : t('game.quirky.drawn.what', { piece: pieceName(p) })));
      let hint;
      if (!myTurn) hint = isQuirk(p) ? t(`game.quirky.hint.quirk.${p}`) : tn('game.quirky.hint.watch', drawn.points.length);
      else if (place.size) hint = tn('game.quirky.hint.place', place.size);
      else if (take.size) hint = t('game.quirky.hint.take');
      else if (sel.from) hint = t('game.quirky.hint.moving', { from: sel.from });
      else hint = t('game.quirky.hint.blue');
      drawnCard.append(el('div', { class: 'qk-hint' }, hint));
      if (myTurn && sel.from && slide.size > 1) {
        drawnCard.append(el('div', { class: 'qk-tools' },
          el('button', { class: 'small', 'data-choice': 'cancel', onclick: () => choose(null) }, t('game.quirky.choose_another'))));
      }
    } else {
      const w = st.outcome && st.outcome.winners.length ? b.seats[st.outcome.winners[0]].colour : null;
      drawnCard.append(el('div', { class: 'qk-big' }, w ? pieceIcon(w, 64) : pieceIcon('black', 64, { opacity: 0.15 })),
        el('div', { class: 'qk-who' }, st.status === 'over' ? t('game.quirky.over') : t('game.quirky.waiting')),
        el('div', { class: 'qk-what' }, !st.outcome ? t('game.quirky.nothing_drawn')
          : st.outcome.winners.length === 1 ? (st.outcome.winners[0] === st.you ? t('game.quirky.you_win') : t('game.quirky.wins', { name: name(st.outcome.winners[0]) }))
            : t('game.quirky.shared_win', { names: st.outcome.winners.map(name).join(', ') })));
    }
    // What just happened: the last move's scoring and what the server did on its own since.
    const news = [];
    if (b.last && scored.length) {
      const gains = new Map();
      for (const t of scored) if (t.seat !== null) gains.set(t.seat, (gains.get(t.seat) || 0) + t.gain);
      const neutralTris = scored.filter((t) => t.seat === null).length;
      const parts = [...gains].map(([seat, g]) => gainOf(g, name(seat)));
      if (neutralTris) parts.push(tn('game.quirky.news.neutral', neutralTris));
      news.push(el('div', { class: 'qk-score', 'data-news': 'scored' },
        el('span', {}, tn('game.quirky.news.scored', scored.length, { name: name(b.last.seat), move: b.last.move, gains: parts.join(', ') })),
        el('button', { class: 'small', 'data-choice': 'replay', title: t('game.quirky.news.replay_title'), onclick: () => { flash = { key: flashKey, at: Date.now() }; rerender(); } }, t('game.quirky.news.replay'))));
    }
    for (let i = lastIdx + 1; i < b.log.length; i++) {
      const e = b.log[i];
      news.push(el('div', { class: e.event === 'colours_passed' ? 'qk-pass' : 'qk-auto', 'data-news': e.event }, t('game.quirky.news.sentence', { text: logText(e, name) })));
    }
    if (b.log.slice(lastIdx + 1).some((e) => e.event === 'colours_passed')) {
      news.push(el('div', { class: 'qk-pass', 'data-news': 'colours' },
        t('game.quirky.news.colours', { list: b.seats.map((x, i) => t('game.quirky.news.colour_of', { name: name(i), colour: colourName(x.colour) })).join(', ') })));
    }
    if (news.length) drawnCard.append(el('div', { class: 'qk-news', 'aria-live': 'polite' }, news));

    // ---------- players ----------
    const passedNow = b.log.slice(lastIdx + 1).some((e) => e.event === 'colours_passed');
    const players = el('div', { class: 'qk-panel qk-players' }, el('h3', {}, t('game.quirky.players')),
      b.seats.map((x, i) => el('div', {
        class: `qk-seat${st.status === 'playing' && st.to_move === i ? ' to-move' : ''}${passedNow ? ' changed' : ''}`,
        'data-seat-score': i, 'data-colour': x.colour,
      },
      pieceIcon(x.colour, 26),
      el('div', {},
        el('div', { class: 'qk-name' }, ctx.seatName(i), st.you === i ? el('span', { class: 'qk-tag' }, t('game.quirky.tag.you')) : '',
          st.outcome && st.outcome.winners.includes(i) ? el('span', { class: 'qk-tag qk-win' }, t('game.quirky.tag.winner')) : ''),
        el('div', { class: 'qk-col' }, t('game.quirky.plays', { colour: colourName(x.colour) }))),
      el('div', { class: 'qk-pts', 'aria-label': tn('game.quirky.score_label', x.score, { name: ctx.seatName(i) }) }, x.score))),
      b.neutral ? el('div', { class: 'qk-seat neutral', 'data-colour': b.neutral },
        pieceIcon(b.neutral, 26), el('div', {}, el('div', { class: 'qk-name' }, t('game.quirky.neutral')), el('div', { class: 'qk-col' }, t('game.quirky.neutral_blocks', { colour: colourName(b.neutral) }))), el('div', {})) : '');

    // ---------- bag ----------
    const total = PIECES.reduce((n, k) => n + (b.bag[k] || 0), 0);
    const aside = COLOURS.filter((c) => b.set_aside[c] > 0);
    const bag = el('div', { class: 'qk-panel qk-bag' }, el('h3', {}, tn('game.quirky.bag', total)),
      el('div', { class: 'qk-kinds' }, PIECES.map((k) => el('div', {
        class: `qk-kind${b.bag[k] ? '' : ' none'}`, 'data-bag': k, title: tn('game.quirky.bag_kind', b.bag[k], { piece: pieceName(k) }),
      }, pieceIcon(k, 24), el('span', {}, b.bag[k])))),
      el('div', { class: 'qk-bagline' },
        el('span', {}, b.triangles === 'aligned' ? t('game.quirky.triangles.aligned') : t('game.quirky.triangles.any')),
        el('span', { 'data-set-aside': aside.map((c) => `${c}:${b.set_aside[c]}`).join(',') },
          t('game.quirky.set_aside'), ' ', aside.length ? aside.map((c) => el('span', {}, pieceIcon(c, 14), ` ${b.set_aside[c]} `)) : t('game.quirky.set_aside_none'))));

    // ---------- log ----------
    const recent = b.log.map((e, i) => [e, i]).slice(-30).reverse();
    const log = el('div', { class: 'qk-panel qk-log' }, el('h3', {}, t('game.quirky.log_title')),
      recent.length ? el('ol', { reversed: true }, recent.map(([e, i]) => {
        const g = gainText(e.gain, name);
        return el('li', { class: e.move === null ? 'auto' : '', 'data-log': i },
          el('span', { class: 'qk-n' }, `${i + 1}.`), pieceIcon(e.piece, 16),
          el('span', {}, logText(e, name), g ? el('span', { class: 'qk-gain' }, ` ${g}`) : ''));
      })) : el('div', { class: 'qk-col muted' }, t('game.quirky.log_empty')));

    table.replaceChildren(el('div', { class: 'qk-wrap' },
      el('div', { class: 'qk-boardbox' }, svg), drawnCard, players, bag, log));
  },
};

function rerender() {
  if (lastArgs) quirkyTable.render(...lastArgs);
}

// A small drawing of a triangular board of `side` points a side, named as the real one (a letter
// for the place in the row, a digit for the row from the apex), with stacks on some points
// ({ c3: ['red', 'green'] }, bottom to top) and one-coloured triangles shaded (lists of 3 ids and
// a colour). For the Rules panel's examples.
export function boardSketch({ side = 4, stacks = {}, triangles = [], mark = [], width = 200, label = '' } = {}) {
  const u = 34, h = u * Math.sqrt(3) / 2, pad = 22, r = 12, lift = 4;
  const pos = new Map();
  for (let row = 1; row <= side; row++) {
    for (let i = 0; i < row; i++) pos.set(`${String.fromCharCode(97 + i)}${row}`, [pad + (side - row + 2 * i) * u / 2, pad + (row - 1) * h]);
  }
  const W = (side - 1) * u + 2 * pad, H = (side - 1) * h + 2 * pad;
  const out = s('svg', { viewBox: `0 0 ${W.toFixed(1)} ${H.toFixed(1)}`, width, height: Math.round(width * H / W), role: 'img', 'aria-label': label });
  out.append(s('title', {}, label));
  const ids = [...pos.keys()];
  for (const a of ids) for (const b of ids) {
    const [x1, y1] = pos.get(a), [x2, y2] = pos.get(b);
    if (a < b && Math.abs(Math.hypot(x2 - x1, y2 - y1) - u) < 0.5) out.append(s('line', { x1, y1, x2, y2, stroke: '#cdb995', 'stroke-width': 2 }));
  }
  for (const { points, colour } of triangles) {
    out.append(s('polygon', { points: points.map((id) => pos.get(id).join(',')).join(' '), fill: FILL[colour], 'fill-opacity': 0.25, stroke: DARK[colour], 'stroke-width': 3, 'stroke-linejoin': 'round' }));
  }
  for (const [id, [x, y]] of pos) {
    const stack = stacks[id] || [];
    if (!stack.length) out.append(s('circle', { cx: x, cy: y, r: 3.5, fill: '#b49c74' }));
    const base = (stack.length - 1) * lift / 2;
    stack.forEach((c, k) => out.append(s('circle', { cx: x, cy: y + base - k * lift, r, fill: FILL[c], stroke: DARK[c], 'stroke-width': 2 })));
    if (stack.length >= 2) {
      const ty = y + base - (stack.length - 1) * lift;
      out.append(s('circle', { cx: x + r * 0.85, cy: ty - r * 0.75, r: 6.5, fill: '#fff', stroke: '#2b2622', 'stroke-width': 1.2 }),
        s('text', { x: x + r * 0.85, y: ty - r * 0.75, 'font-size': 9, 'font-weight': 800, 'text-anchor': 'middle', 'dominant-baseline': 'central', fill: '#2b2622' }, stack.length));
    }
    if (mark.includes(id)) out.append(s('circle', { cx: x, cy: y - (stack.length ? (stack.length - 1) * lift / 2 : 0), r: r + 5, fill: 'none', stroke: '#c8553d', 'stroke-width': 2.5 }));
  }
  return out;
}

quirkyTable.reason = reason;

// app.js rings each seat's name with this colour: the marker colour the seat holds now.
quirkyTable.seatColour = (st, i) => {
  const seat = st.board && st.board.seats && st.board.seats[i];
  return seat ? FILL[seat.colour] : null;
};

export default quirkyTable;
