// The Rules panel's summary of Quantik: goal, material, a turn, the end, and the table's options,
// with small boards drawn with the game's own pieces (games/quantik.js).
import { SHAPES, shapeName, shapeSvg } from '../games/quantik.js';

// A small board: `pieces` maps a cell ("b2") to [shape, seat]; `marks` maps a cell to 'win'
// (a ring), 'no' (a red cross: forbidden) or 'ok' (a dashed ring: allowed).
function board(svg, pieces, marks = {}) {
  const at = (i) => 30 + i * 44 + (i >= 2 ? 8 : 0);
  const out = svg('svg', { viewBox: '-16 -16 218 218', width: 196, height: 196, role: 'img' },
    svg('circle', { cx: 100, cy: 100, r: 98, fill: '#d9c7a7', stroke: '#c6b08b', 'stroke-width': 5 }));
  // The cells' names: columns a–d along the top, rows 1–4 down the left.
  for (let i = 0; i < 4; i++) {
    out.append(svg('text', { x: at(i), y: -6, 'text-anchor': 'middle', 'font-size': 12, fill: '#7a7067' }, 'abcd'[i]),
      svg('text', { x: -9, y: at(i) + 4, 'text-anchor': 'middle', 'font-size': 12, fill: '#7a7067' }, i + 1));
  }
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      const name = 'abcd'[c] + (r + 1);
      const region = (r >> 1) * 2 + (c >> 1);
      const x = at(c), y = at(r);
      out.append(svg('circle', { cx: x, cy: y, r: 19, fill: region === 1 || region === 2 ? '#e3d2b3' : '#efe4cf' }));
      const mark = marks[name];
      if (mark === 'win') out.append(svg('circle', { cx: x, cy: y, r: 20, fill: 'none', stroke: '#3f8f4e', 'stroke-width': 4 }));
      if (mark === 'ok') out.append(svg('circle', { cx: x, cy: y, r: 17, fill: 'none', stroke: '#3f8f4e', 'stroke-width': 2.5, 'stroke-dasharray': '4 3' }));
      if (pieces[name]) {
        const piece = shapeSvg(pieces[name][0], pieces[name][1], 30);
        piece.setAttribute('x', x - 15);
        piece.setAttribute('y', y - 15);
        out.append(piece);
      }
      if (mark === 'no') {
        out.append(svg('path', { d: `M${x - 9},${y - 9}L${x + 9},${y + 9}M${x + 9},${y - 9}L${x - 9},${y + 9}`,
          stroke: '#c8553d', 'stroke-width': 4, 'stroke-linecap': 'round' }));
      }
    }
  }
  return out;
}

export default {
  render(box, { el, section, svg, t, figure, firstText, options }) {
    // The four shapes of each colour.
    const shapes = el('div', { class: 'rules-shapes' },
      SHAPES.map((shape) => el('span', { style: 'display:inline-grid;justify-items:center;margin-right:.4rem;font-size:.8rem' },
        shapeSvg(shape, 0, 34), shapeName(shape))),
      el('br'), SHAPES.map((shape) => shapeSvg(shape, 1, 34)));
    const win = board(svg,
      { a3: ['sphere', 0], b3: ['cube', 1], c3: ['cone', 0], d3: ['cylinder', 1], b1: ['cone', 1], c2: ['sphere', 1] },
      { a3: 'win', b3: 'win', c3: 'win', d3: 'win' });
    win.setAttribute('aria-label', t('rules.quantik.fig_win'));
    // Dark has a sphere in b2: Light may not put a sphere in row 2, column b or the top-left region.
    const no = { a1: 'no', b1: 'no', a2: 'no', c2: 'no', d2: 'no', b3: 'no', b4: 'no', c4: 'ok', d3: 'ok' };
    const rule = board(svg, { b2: ['sphere', 0], d4: ['cube', 1] }, no);
    rule.setAttribute('aria-label', t('rules.quantik.fig_rule'));

    box.append(
      ...section(t('rules.quantik.goal_title'),
        t('rules.quantik.goal'),
        figure(win, t('rules.quantik.fig_win'))),
      ...section(t('rules.quantik.material_title'),
        t('rules.quantik.material'),
        figure(shapes, t('rules.quantik.fig_shapes'))),
      ...section(t('rules.quantik.turn_title'),
        t('rules.quantik.turn'),
        t('rules.quantik.forbidden'),
        figure(rule, t('rules.quantik.fig_rule'))),
      ...section(t('rules.quantik.end_title'),
        el('ul', {},
          el('li', {}, t('rules.quantik.end_line')),
          el('li', {}, t('rules.quantik.end_stuck')),
          el('li', {}, t('rules.quantik.end_no_draw')))),
      el('div', { class: 'rules-options' },
        ...section(t('rules.quantik.options_title'),
          firstText(options))));
  },
};
