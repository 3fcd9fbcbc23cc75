// The Rules panel's summary of Kwinty: goal, material, a turn, the building rules, the end, and
// the table's options, with small walls drawn as the table draws them (games/kwinty.js).
import { blockIcon, miniWall } from '../games/kwinty.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export default {
  render(box, { el, section, t, figure, firstText, options }) {
    const five = miniWall([
      { o: 'L', x: 0, y: 0, seat: 0 }, { o: 'S', x: 2, y: 0, seat: 0 }, { o: 'L', x: 3, y: 0, seat: 0 },
      { o: 'L', x: 0, y: 1, seat: 1 }, { o: 'L', x: 3, y: 1, seat: 1 },
    ], { cols: 6, rows: 3, line: [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], scale: 0.9 });
    const forbidden = miniWall([
      { o: 'L', x: 0, y: 0, seat: 0 }, { o: 'S', x: 2, y: 0, seat: 1 }, { o: 'S', x: 2, y: 2, seat: 1, bad: true },
      { o: 'L', x: 3, y: 0, seat: 0 }, { o: 'L', x: 5, y: 0, seat: 0, bad: true },
      { o: 'L', x: 0, y: 1, seat: 1 },
    ], { cols: 7, rows: 4, scale: 0.75 });
    const icons = el('div', {}, blockIcon('L', 0, 40), ' ', blockIcon('S', 0, 40), ' ', blockIcon('L', 1, 40), ' ', blockIcon('S', 1, 40));
    icons.setAttribute('role', 'img');

    const strictOn = t('rules.kwinty.strict_on');
    const strictOff = t('rules.kwinty.strict_off');
    const strict = !options ? [el('li', {}, strictOff), el('li', {}, strictOn)]
      : [el('li', {}, options.strict ? strictOn : strictOff)];

    box.append(
      ...section(t('rules.kwinty.goal_title'),
        t('rules.kwinty.goal'),
        figure(five, t('rules.kwinty.fig_five'))),
      ...section(t('rules.kwinty.material_title'),
        t('rules.kwinty.material'),
        figure(icons, t('rules.kwinty.fig_blocks'))),
      ...section(t('rules.kwinty.turn_title'),
        t('rules.kwinty.turn'),
        el('ul', {},
          el('li', {}, t('rules.kwinty.rule_size')),
          el('li', {}, t('rules.kwinty.rule_a')),
          el('li', {}, t('rules.kwinty.rule_b')),
          el('li', {}, t('rules.kwinty.rule_c'))),
        figure(forbidden, t('rules.kwinty.fig_forbidden'))),
      ...section(t('rules.kwinty.end_title'),
        el('ul', {},
          el('li', {}, t('rules.kwinty.end_five')),
          el('li', {}, t('rules.kwinty.end_pass')),
          el('li', {}, t('rules.kwinty.end_fours')),
          el('li', {}, t('rules.kwinty.end_next')))),
      el('div', { class: 'rules-options' },
        ...section(t('rules.kwinty.options_title'),
          el('ul', {}, el('li', {}, firstText(options))),
          el('p', {}, el('b', {}, capital(t('option.kwinty.strict')))),
          el('ul', {}, strict))));
  },
};
