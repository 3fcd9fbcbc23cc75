// The Rules panel's summary of On Top: goal, material, a turn, the circles and their towers,
// the end, and the table's options, with a tile and circles drawn as the table draws them
// (games/on_top.js).
import { tileSketch, circleSketch } from '../games/on_top.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export default {
  render(box, { el, section, t, figure, firstText, options }) {
    // A tile: tips blue and yellow, wide corners red and white (sixths in the table's order).
    const tile = tileSketch(['blue', 'red', 'red', 'yellow', 'white', 'white'], 120);
    tile.setAttribute('aria-label', t('rules.on_top.fig_tile'));
    // The rule sheet's example: three red sixths, two yellow, one black triangle.
    const circle = circleSketch(['red', 'yellow', 'red', null, 'yellow', 'red'], ['yellow', 'red'], { label: t('rules.on_top.fig_circle') });
    const tie = circleSketch(['blue', 'white', 'blue', 'white', null, 'yellow'], [], { label: t('rules.on_top.fig_tie') });
    const golden = circleSketch([undefined, undefined, 'blue', 'yellow', 'blue', undefined], ['yellow', 'blue'], { golden: true, width: 150, label: t('rules.on_top.fig_golden') });

    // One option: its value at this table, or in the lobby each value it may take.
    const opt = (name, texts) => (typeof texts === 'string' || texts.length === 1
      ? el('li', {}, el('b', {}, capital(t(name))), ' — ', [texts].flat()[0])
      : el('li', {}, el('b', {}, capital(t(name))), el('ul', {}, texts.map((text) => el('li', {}, text)))));
    const players = options ? [t('rules.on_top.opt_players_n', { n: Number(options.players) || 2 })] : [t('rules.on_top.opt_players_any')];
    const teams = options ? [options.teams ? t('rules.on_top.opt_teams_on') : t('rules.on_top.opt_teams_off')]
      : [t('rules.on_top.opt_teams_off'), t('rules.on_top.opt_teams_on')];
    const startText = (v) => t(v === 'alternative' ? 'rules.on_top.opt_start_alternative' : v === 'random' ? 'rules.on_top.opt_start_random' : 'rules.on_top.opt_start_red');
    const start = options ? [startText(options.start)] : ['red', 'alternative', 'random'].map(startText);
    const count = options ? t('rules.on_top.opt_count_n', { n: Number(options.start_triangles) || 2 }) : t('rules.on_top.opt_count_any');

    box.append(
      ...section(t('rules.on_top.goal_title'), t('rules.on_top.goal')),
      ...section(t('rules.on_top.material_title'),
        t('rules.on_top.material'),
        figure(tile, t('rules.on_top.fig_tile'))),
      ...section(t('rules.on_top.turn_title'),
        el('ul', {},
          el('li', {}, t('rules.on_top.turn_draw')),
          el('li', {}, t('rules.on_top.turn_place')),
          el('li', {}, t('rules.on_top.turn_holes')))),
      ...section(t('rules.on_top.circle_title'),
        t('rules.on_top.circle'),
        figure(circle, t('rules.on_top.fig_circle')),
        figure(tie, t('rules.on_top.fig_tie')),
        t('rules.on_top.score'),
        figure(golden, t('rules.on_top.fig_golden'))),
      ...section(t('rules.on_top.end_title'),
        el('ul', {},
          el('li', {}, t('rules.on_top.end_last_pawn')),
          el('li', {}, t('rules.on_top.end_neutral')),
          el('li', {}, t('rules.on_top.end_no_tile')))),
      el('div', { class: 'rules-options' },
        ...section(t('rules.on_top.options_title'),
          el('ul', {},
            opt('rules.on_top.opt_players', players),
            el('li', {}, firstText(options)),
            opt('rules.on_top.opt_teams', teams),
            opt('option.on_top.start', start),
            opt('rules.on_top.opt_count', count)))));
  },
};
