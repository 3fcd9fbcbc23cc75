// The Quantik table: a round board of four 2×2 regions, each player's tray of remaining
// pieces, legal placements highlighted for the chosen shape. Click a shape, then a cell.
import { svg as s, addStyle } from '../dom.js';
import { t } from '../i18n.js';

export const SHAPES = ['sphere', 'cylinder', 'cube', 'cone'];

let chosen = null;  // the shape picked in our tray, kept across re-renders

// A shape's name in the page's language (read at each call: the language may change).
export function shapeName(shape) {
  return {
    sphere: t('game.quantik.shape.sphere'),
    cylinder: t('game.quantik.shape.cylinder'),
    cube: t('game.quantik.shape.cube'),
    cone: t('game.quantik.shape.cone'),
  }[shape] ?? shape;
}

// A piece: `shape` in seat `seat`'s colour (0 dark, 1 light), `size` pixels wide.
export function shapeSvg(shape, seat, size = 44) {
  addStyle('quantik-style', STYLE);
  const body = {
    sphere: () => [s('circle', { cx: 20, cy: 20, r: 15 })],
    cylinder: () => [s('rect', { x: 7, y: 9, width: 26, height: 22, rx: 2 }),
      s('ellipse', { cx: 20, cy: 9, rx: 13, ry: 5, class: 'q-top' })],
    cube: () => [s('rect', { x: 6, y: 6, width: 28, height: 28, rx: 3 })],
    cone: () => [s('polygon', { points: '20,4 36,35 4,35' })],
  }[shape]?.() ?? [];
  return s('svg', { viewBox: '0 0 40 40', width: size, height: size, class: `q-piece q-seat${seat}` },
    body, s('title', {}, shapeName(shape)));
}

// The outcome's reason in the page's language, from its code and args; null for another code.
function reason(outcome, ctx) {
  const args = outcome.args || {};
  const winner = (outcome.winners || [])[0];
  if (outcome.code === 'quantik.line') {
    const key = { row: 'reason.quantik.line.row', column: 'reason.quantik.line.column', region: 'reason.quantik.line.region' }[args.line];
    return key ? t(key) : null;
  }
  if (outcome.code === 'quantik.no_move') {
    // The player to move had no legal move and lost: the other seat won.
    if (winner === undefined) return null;
    return t('reason.quantik.no_move', { name: ctx.name(1 - winner) });
  }
  return null;
}

const STYLE = `
  .q-wrap { display: flex; flex-wrap: wrap; gap: 1.2rem; align-items: center; justify-content: center; }
  .q-board { display: grid; grid-template-columns: repeat(4, minmax(52px, 84px)); gap: 6px; padding: 14px;
    background: #d9c7a7; border-radius: 50%; aspect-ratio: 1; align-content: center; justify-content: center;
    width: min(92vw, 420px); box-shadow: inset 0 0 0 6px #c6b08b; }
  .q-cell { aspect-ratio: 1; border-radius: 50%; border: 2px solid transparent; display: grid; place-items: center;
    background: #efe4cf; padding: 0; }
  .q-cell.r1, .q-cell.r2 { background: #e3d2b3; }
  .q-cell.col1 { margin-right: 7px; } .q-cell.col2 { margin-left: 7px; }
  .q-cell.row1 { margin-bottom: 7px; } .q-cell.row2 { margin-top: 7px; }
  .q-cell.legal { border-color: #c8553d; background: #f7e3d7; cursor: pointer; }
  .q-cell.legal:hover { background: #f2c9b6; }
  .q-cell.win { box-shadow: 0 0 0 4px #3f8f4e; }
  .q-cell.last { outline: 3px dashed #7a7067; outline-offset: -6px; }
  .q-piece.q-seat0 { fill: #2b2622; stroke: #000; }
  .q-piece.q-seat1 { fill: #fffaf0; stroke: #7a7067; }
  .q-piece .q-top { fill: rgba(255,255,255,.25); }
  .q-piece { stroke-width: 1.5; }
  .q-tray { display: grid; gap: .4rem; background: #fffdf8; border: 1px solid #e2d8c8; border-radius: 10px; padding: .6rem .8rem; min-width: 150px; }
  .q-tray h3 { margin: 0; font-size: .95rem; }
  .q-tray .q-shapes { display: flex; gap: .4rem; flex-wrap: wrap; }
  .q-shape { display: grid; place-items: center; gap: 2px; padding: .3rem; border-radius: 8px; border: 2px solid transparent; background: #f4efe6; font-size: .75rem; }
  .q-shape.chosen { border-color: #c8553d; }
  .q-shape.none { opacity: .35; }
  .q-hint { font-size: .85rem; color: #7a7067; }
  `;

export default {
  reason,
  render(table, st, ctx) {
    addStyle('quantik-style', STYLE);
    const { el } = ctx;
    const board = st.board;
    const legal = new Set(st.legal_moves);
    const myTurn = legal.size > 0;
    const playable = (shape) => [...legal].some((m) => m.startsWith(shape + '@'));
    if (!myTurn || (chosen && !playable(chosen))) chosen = null;
    if (myTurn && !chosen) chosen = SHAPES.find(playable) || null;
    const win = new Set(board.win_line || []);

    const cells = [];
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const name = 'abcd'[c] + (r + 1);
        const piece = board.cells[r][c];
        const region = (r >> 1) * 2 + (c >> 1);
        const move = chosen ? `${chosen}@${name}` : null;
        const isLegal = !piece && move && legal.has(move);
        const cell = el('button', {
          class: `q-cell r${region} col${c} row${r}${isLegal ? ' legal' : ''}${win.has(name) ? ' win' : ''}${board.last && board.last.endsWith('@' + name) ? ' last' : ''}`,
          'data-cell': name,
          'data-move': isLegal ? move : null,
          'aria-label': piece ? t('game.quantik.cell_piece', { cell: name, shape: shapeName(piece.shape), name: ctx.seatName(piece.seat) })
            : t('game.quantik.cell_empty', { cell: name }),
          disabled: !isLegal,
          onclick: () => { if (isLegal) ctx.play(move); },
        });
        if (piece) cell.append(shapeSvg(piece.shape, piece.seat));
        cells.push(cell);
      }
    }

    const tray = (seat) => {
      const left = board.pieces[seat];
      const mine = st.you === seat && myTurn;
      return el('div', { class: 'q-tray', 'data-tray': seat },
        el('h3', {}, t(seat === 0 ? 'game.quantik.tray_dark' : 'game.quantik.tray_light', { name: ctx.seatName(seat) })),
        el('div', { class: 'q-shapes' }, SHAPES.map((shape) => {
          const n = left[shape];
          const b = el('button', {
            class: `q-shape${chosen === shape && mine ? ' chosen' : ''}${n === 0 ? ' none' : ''}`,
            'data-shape': shape,
            disabled: !mine || !playable(shape),
            title: t('game.quantik.left', { shape: shapeName(shape), n }),
            onclick: () => { chosen = shape; this.render(table, st, ctx); },
          }, shapeSvg(shape, seat, 30), `×${n}`);
          return b;
        })),
        mine ? el('div', { class: 'q-hint' }, chosen ? t('game.quantik.hint_place', { shape: shapeName(chosen) }) : t('game.quantik.hint_none')) : '');
    };

    table.replaceChildren(el('div', { class: 'q-wrap' },
      tray(0),
      el('div', { class: 'q-board', role: 'grid', 'aria-label': t('game.quantik.board') }, cells),
      tray(1)));
  },
};
