// The Rules panel's summary of Quirky: goal, material, a turn, the Quirks, scoring, the end, and
// the table's options, with small boards drawn as the table draws them (games/quirky.js).
import { boardSketch, pieceIcon } from '../games/quirky.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export default {
  render(box, { el, section, t, figure, firstText, options }) {
    const pieces = (list) => {
      const row = el('div', { role: 'img', 'aria-label': t('rules.quirky.fig_pieces') });
      for (const p of list) row.append(pieceIcon(p, 30), ' ');
      return row;
    };
    const aligned = boardSketch({
      side: 4,
      stacks: { a1: ['green'], a3: ['green'], c3: ['red', 'green'], b3: ['yellow'], b4: ['green', 'yellow'] },
      triangles: [{ points: ['a1', 'a3', 'c3'], colour: 'green' }],
      mark: ['c3'],
      label: t('rules.quirky.fig_triangle'),
    });
    const tilted = boardSketch({
      side: 4,
      stacks: { a2: ['yellow'], c3: ['yellow'], b4: ['red', 'yellow'], b3: ['green'] },
      triangles: [{ points: ['a2', 'c3', 'b4'], colour: 'yellow' }],
      label: t('rules.quirky.fig_tilted'),
    });

    // The options: the table's values, or every value in the lobby.
    // One option: its value at this table, or in the lobby each value it may take.
    const opt = (name, texts) => (typeof texts === 'string' || texts.length === 1
      ? el('li', {}, el('b', {}, capital(t(name))), ' — ', [texts].flat()[0])
      : el('li', {}, el('b', {}, capital(t(name))), el('ul', {}, texts.map((text) => el('li', {}, text)))));
    const players = options ? [Number(options.players) === 3 ? t('rules.quirky.opt_players_3') : t('rules.quirky.opt_players_2')]
      : [t('rules.quirky.opt_players_2'), t('rules.quirky.opt_players_3')];
    const triangles = options ? [options.triangles === 'aligned' ? t('rules.quirky.opt_triangles_aligned') : t('rules.quirky.opt_triangles_any')]
      : [t('rules.quirky.opt_triangles_any'), t('rules.quirky.opt_triangles_aligned')];
    const purple = options ? [options.purple_quirks === false ? t('rules.quirky.opt_purple_off') : t('rules.quirky.opt_purple_on')]
      : [t('rules.quirky.opt_purple_on'), t('rules.quirky.opt_purple_off')];

    box.append(
      ...section(t('rules.quirky.goal_title'), t('rules.quirky.goal')),
      ...section(t('rules.quirky.material_title'),
        t('rules.quirky.material'),
        figure(pieces(['green', 'yellow', 'red', 'blue', 'black', 'purple']), t('rules.quirky.fig_pieces'))),
      ...section(t('rules.quirky.turn_title'),
        t('rules.quirky.turn'),
        el('ul', {},
          el('li', {}, t('rules.quirky.turn_marker')),
          el('li', {}, t('rules.quirky.turn_blue')),
          el('li', {}, t('rules.quirky.turn_black')),
          el('li', {}, t('rules.quirky.turn_purple'))),
        t('rules.quirky.turn_auto')),
      ...section(t('rules.quirky.score_title'),
        t('rules.quirky.score'),
        figure(aligned, t('rules.quirky.fig_triangle')),
        figure(tilted, t('rules.quirky.fig_tilted'))),
      ...section(t('rules.quirky.end_title'), t('rules.quirky.end')),
      el('div', { class: 'rules-options' },
        ...section(t('rules.quirky.options_title'),
          el('ul', {},
            opt('rules.quirky.opt_players', players),
            el('li', {}, firstText(options)),
            opt('option.quirky.triangles', triangles),
            opt('rules.quirky.opt_purple', purple)))));
  },
};
