// Time controls as people choose and read them: the "Time control" choices of a create form
// (index.html's #time-control, whose values read "live:3:2" or "correspondence:3"), and a
// control's short text ("3+2", "3 days") and tooltip. Shared by the tables' form and the
// tournaments' form.
import { el } from './dom.js';
import { t, tn } from './i18n.js';

const MINUTE = 60000;

// The `clock` to send for a choice's value; null for none ('').
export function controlOf(choice) {
  if (!choice) return null;
  const [kind, a, b] = choice.split(':');
  return kind === 'live'
    ? { kind: 'live', base_ms: Number(a) * MINUTE, increment_ms: Number(b) * 1000 }
    : { kind: 'correspondence', days: Number(a) };
}

// "3+2" (minutes + seconds a move), "3 days"; '' for none.
export function controlText(c) {
  if (!c) return '';
  if (c.kind === 'correspondence') return tn('clock.days', c.days);
  const num = (x) => String(Math.round(x * 10) / 10);
  const quarter = { 15000: '¼', 30000: '½', 45000: '¾' }[c.base_ms];
  return `${quarter || num(c.base_ms / MINUTE)}+${num(c.increment_ms / 1000)}`;
}

export function controlTitle(c) {
  if (c.kind === 'correspondence') return t('clock.correspondence_title', { control: controlText(c) });
  return t('clock.live_title', { control: controlText(c) });
}

// A time control as lists show it; nothing for none.
export function controlBadge(c) {
  return c ? el('span', { class: 'time-control', 'data-control': c.kind, title: controlTitle(c) }, controlText(c)) : '';
}
