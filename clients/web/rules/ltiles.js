// The Rules panel's summary of L-Tiles: goal, material, a turn (spread or stack), the end and
// its scoring, and the table's options, with tiles and small tables drawn as the table draws
// them (games/ltiles.js).
import { tileIcon, planSketch } from '../games/ltiles.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// The start domino and a red tile spread under it (RULES.md's example), then a red tile stacked
// across both: the red zone keeps its 4 squares but reaches level 2.
const DOMINO = { cells: [[0, 0, 'R'], [1, 0, 'G']], level: 1 };
const SPREAD = { cells: [[0, 1, 'R'], [1, 1, 'R'], [0, 2, 'R']], level: 1 };
const GREEN = { cells: [[2, 0, 'G'], [3, 0, 'N'], [2, 1, 'G']], level: 1 };
const STACKED = { cells: [[0, 1, 'R'], [0, 0, 'R'], [1, 1, 'R']], level: 2 };
const ZONE = [[0, 0], [0, 1], [1, 1], [0, 2]];

export default {
  render(box, { el, section, t, figure, firstText, options }) {
    const kinds = el('div', { role: 'img', 'aria-label': t('rules.ltiles.fig_kinds') },
      ['RRR', 'RRN', 'RNN', 'RRG', 'GGG', 'GGR'].flatMap((k) => [tileIcon(k, 0, 40), ' ']));
    const spread = planSketch([DOMINO, SPREAD, GREEN], { width: 180, label: t('rules.ltiles.fig_spread') });
    const stacked = planSketch([DOMINO, SPREAD, GREEN, STACKED], { zone: ZONE, width: 180, label: t('rules.ltiles.fig_stack') });

    // One option: its value at this table, or in the lobby each value it may take.
    const opt = (name, texts) => (typeof texts === 'string' || texts.length === 1
      ? el('li', {}, el('b', {}, capital(t(name))), ' — ', [texts].flat()[0])
      : el('li', {}, el('b', {}, capital(t(name))), el('ul', {}, texts.map((text) => el('li', {}, text)))));
    const seatColour = (seat) => t(`game.ltiles.colour.${'rg'[seat]}`);  // seat 1 plays red, seat 2 green
    const variants = ['standard', 'ordered', 'open', 'hand'];
    const variantText = (v) => t(`rules.ltiles.variant.${variants.includes(v) ? v : 'standard'}`);
    // i18n-keys: rules.ltiles.variant.*
    const variant = options ? [variantText(options.variant)] : variants.map(variantText);

    box.append(
      ...section(t('rules.ltiles.goal_title'), t('rules.ltiles.goal')),
      ...section(t('rules.ltiles.material_title'),
        t('rules.ltiles.material'),
        figure(kinds, t('rules.ltiles.fig_kinds'))),
      ...section(t('rules.ltiles.turn_title'),
        t('rules.ltiles.turn'),
        el('ul', {},
          el('li', {}, t('rules.ltiles.turn_spread')),
          el('li', {}, t('rules.ltiles.turn_stack'))),
        figure(spread, t('rules.ltiles.fig_spread'))),
      ...section(t('rules.ltiles.end_title'),
        t('rules.ltiles.end'),
        figure(stacked, t('rules.ltiles.fig_stack')),
        t('rules.ltiles.winner')),
      el('div', { class: 'rules-options' },
        ...section(t('rules.ltiles.options_title'),
          el('ul', {},
            el('li', {}, firstText(options, seatColour)),
            opt('option.ltiles.variant', variant)))));
  },
};
