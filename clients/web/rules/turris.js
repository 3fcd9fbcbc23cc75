// The Rules panel's summary of Turris: goal, material, building rules, the bonus, the end and the
// scoring, and the table's options, drawn with the game's own blocks and views (games/turris.js).
import { PAL, P, pts, blockIcon, cube, faceSvg } from '../games/turris.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// A small tower seen as the table shows it (faces A and B in front). `blocks` are
// {seat, cells: [[x, y, z], …], last}: x column a–c, y row 1–3, z level from 0.
function tower(svg, blocks) {
  const solid = new Map();
  blocks.forEach((b, id) => b.cells.forEach(([x, y, z]) => solid.set(`${x},${y},${z}`, id)));
  const top = Math.max(...blocks.flatMap((b) => b.cells.map((c) => c[2] + 1)));
  const y0 = -45 - 30 * top - 8;
  const out = svg('svg', { viewBox: `-26 ${y0} 206 ${62 - y0}`, width: 230, class: 'tu-iso', style: 'width:230px;margin:0' });
  const m0 = -0.35, m1 = 3.35;
  out.append(
    svg('polygon', { points: pts([[m0, m0, 0], [m1, m0, 0], [m1, m0, -0.25], [m0, m0, -0.25]]), fill: '#2f5a40' }),
    svg('polygon', { points: pts([[m1, m0, 0], [m1, m1, 0], [m1, m1, -0.25], [m1, m0, -0.25]]), fill: '#24482f' }),
    svg('polygon', { points: pts([[m0, m0, 0], [m1, m0, 0], [m1, m1, 0], [m0, m1, 0]]), fill: '#3f7352', stroke: '#2f5a40' }));
  for (let u = 0; u < 3; u++) for (let v = 0; v < 3; v++) {
    out.append(svg('polygon', { points: pts([[u + 0.04, v + 0.04, 0], [u + 0.96, v + 0.04, 0], [u + 0.96, v + 0.96, 0], [u + 0.04, v + 0.96, 0]]), fill: '#4a8560' }));
  }
  const tag = (u, v, f) => {
    const [px, py] = P(u, v, 0);
    return svg('g', {}, svg('circle', { cx: px, cy: py, r: 9, fill: '#1c7ed6' }),
      svg('text', { x: px, y: py + 4, 'text-anchor': 'middle', 'font-size': 11, 'font-weight': 700, fill: '#fff' }, f));
  };
  out.append(tag(1.5, -1.35, 'A'), tag(4.35, 1.5, 'B'));
  const items = [...solid].map(([k, id]) => { const [u, v, z] = k.split(',').map(Number); return { u, v, z, id }; });
  items.sort((p, q) => p.z - q.z || (p.u - p.v) - (q.u - q.v));
  for (const { u, v, z, id } of items) {
    const g = cube(u, v, z, PAL[blocks[id].seat],
      (du, dv, dz) => solid.get(`${u + du},${v + dv},${z + dz}`) === id,
      (du, dv, dz) => solid.has(`${u + du},${v + dv},${z + dz}`));
    if (blocks[id].last) g.classList.add('tu-lastb');
    out.append(g);
  }
  return out;
}

export default {
  render(box, { el, section, svg, t, figure, firstText, options }) {
    const v = (seat, x, y, z, last = false) => ({ seat, cells: [[x, y, z], [x, y, z + 1]], last });
    // White's vertical block in the middle (b2) touches Black's a2 and White's b3: a bonus.
    const bonusTower = tower(svg, [
      v(0, 0, 2, 0), v(1, 0, 1, 0), v(0, 1, 2, 0),
      { seat: 1, cells: [[0, 2, 2], [1, 2, 2]] },
      v(0, 1, 1, 0, true),
    ]);
    // A face as the scoring reads it: White's largest area is 6 squares, Black's 3.
    const W = (best = true, depth = 0) => ({ seat: 0, depth, best });
    const B = (best = true, depth = 0) => ({ seat: 1, depth, best });
    const face = faceSvg('A', { from: 'row 1', score: [6, 3], grid: [
      [W(), W(), B()], [W(), W(), B()], [B(false, 1), W(), B()], [null, W(), null]] });
    face.setAttribute('width', 110);
    const icons = el('div', {}, blockIcon(0, 36), ' ', blockIcon(1, 36));

    const chainOn = t('rules.turris.chain_on'), chainOff = t('rules.turris.chain_off');
    const chain = !options ? [el('li', {}, chainOn), el('li', {}, chainOff)]
      : [el('li', {}, options.chain_bonus === false ? chainOff : chainOn)];

    box.append(
      ...section(t('rules.turris.goal_title'), t('rules.turris.goal')),
      ...section(t('rules.turris.material_title'),
        t('rules.turris.material'),
        figure(icons, t('rules.turris.fig_blocks'))),
      ...section(t('rules.turris.turn_title'),
        t('rules.turris.turn'),
        el('ul', {},
          el('li', {}, t('rules.turris.rule_a')),
          el('li', {}, t('rules.turris.rule_b')),
          el('li', {}, t('rules.turris.rule_c')),
          el('li', {}, t('rules.turris.rule_d')),
          el('li', {}, t('rules.turris.rule_e')),
          el('li', {}, t('rules.turris.rule_f')))),
      ...section(t('rules.turris.bonus_title'),
        t('rules.turris.bonus'),
        t('rules.turris.bonus_remove'),
        figure(bonusTower, t('rules.turris.fig_bonus'))),
      ...section(t('rules.turris.end_title'),
        t('rules.turris.end'),
        t('rules.turris.scoring'),
        figure(face, t('rules.turris.fig_face'))),
      el('div', { class: 'rules-options' },
        ...section(t('rules.turris.options_title'),
          el('ul', {}, el('li', {}, firstText(options))),
          el('p', {}, el('b', {}, capital(t('option.turris.chain_bonus')))),
          el('ul', {}, chain))));
  },
};
