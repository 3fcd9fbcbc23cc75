// The table's chat (issue 46): the players talk among themselves, the spectators among
// themselves; the spectators read the players' once the round is over. Lines come in the
// state like everything else; a message goes out as `chat` and comes back in the next version.
// Quick phrases travel as codes and are worded here. Muting someone hides their lines in this
// browser only.
import { el } from './dom.js';
import { onLanguage, t, tn } from './i18n.js';

const $ = (sel) => document.querySelector(sel);

// The phrases the server relays, by code; each reader reads them in their own language.
// i18n-keys: chat.phrase.*
export const PHRASE_CODES = ['hello', 'good_game', 'thinking', 'rematch', 'thanks', 'good_move', 'oops'];
export const phraseText = (code) => (PHRASE_CODES.includes(code) ? t(`chat.phrase.${code}`) : code);
// PHRASES[code] is the phrase in the page's language at the time it is read.
export const PHRASES = Object.defineProperties({}, Object.fromEntries(PHRASE_CODES.map((c) =>
  [c, { get: () => phraseText(c), enumerable: true }])));
const QUICK = ['hello', 'good_game', 'thinking', 'rematch', 'thanks'];

// The words of `key` with nodes in the places of {name}s: a name and a message are elements,
// where they go in the sentence is the language's business.
function sentence(key, nodes) {
  return t(key).split(/(\{\w+\})/).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    return m && m[1] in nodes ? nodes[m[1]] : part;
  });
}

// What a line says: its text, its phrase in this reader's language, or that it was deleted.
export function chatWords(m) {
  return m.deleted ? el('em', { class: 'muted' }, t('chat.deleted'))
    : m.phrase ? el('span', { class: 'phrase', 'data-phrase': m.phrase }, phraseText(m.phrase)) : el('span', {}, m.text);
}

const chat = { room: null, send: null, shown: 0, muted: loadMuted() };

function loadMuted() {
  try { return new Set(JSON.parse(localStorage.getItem('plateau.muted') || '[]')); } catch { return new Set(); }
}
function saveMuted() {
  try { localStorage.setItem('plateau.muted', JSON.stringify([...chat.muted])); } catch { /* private mode */ }
}

function say(what) {
  if (!chat.room || !chat.send) return;
  chat.send({ type: 'chat', room: chat.room, ...what });
}

function line(m, myName) {
  const mine = m.name === myName;
  const who = el('span', { class: 'chat-name seat-name' }, m.name);
  return el('li', { 'data-seq': m.seq, 'data-channel': m.channel, class: m.channel === 'spectators' ? 'from-spectator' : '' },
    ...sentence(m.channel === 'spectators' ? 'chat.line_spectator' : 'chat.line', {
      name: who, watching: el('span', { class: 'muted' }, t('chat.watching')), words: chatWords(m),
    }),
    mine ? '' : el('button', { type: 'button', class: 'chat-mute', title: t('chat.mute_title', { name: m.name }), onclick: () => { chat.muted.add(m.name); saveMuted(); render(chat.last); } }, t('chat.mute')));
}

function render(args) {
  if (!args) return;
  chat.last = args;
  const { state, myName } = args;
  const box = $('#chat');
  const lines = (state.chat || []).filter((m) => !chat.muted.has(m.name));
  box.hidden = false;
  $('#chat-title').textContent = state.you === null ? t('chat.title.spectators') : t('chat.title.players');
  const list = $('#chat-lines');
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  const top = list.scrollTop;
  list.replaceChildren(...lines.map((m) => line(m, myName)));
  if (atBottom || lines.length !== chat.shown) list.scrollTop = list.scrollHeight;
  else list.scrollTop = top;
  chat.shown = lines.length;
  $('#chat-unmute').hidden = chat.muted.size === 0;
  $('#chat-unmute').textContent = tn('chat.unmute', chat.muted.size);
}

// Draws the chat of the state on screen.
export function renderChat(room, state, myName) {
  chat.room = room;
  render({ state, myName });
}

export function hideChat() {
  chat.room = null;
  chat.last = null;
  $('#chat').hidden = true;
}

function renderPhrases() {
  $('#chat-phrases').replaceChildren(...QUICK.map((p) => el('button', { type: 'button', class: 'small', 'data-phrase': p, onclick: () => say({ phrase: p }) }, phraseText(p))));
}

export function initChat(send) {
  chat.send = send;
  renderPhrases();
  // A new language: the buttons and the lines again, in place (the list keeps its scroll).
  onLanguage(() => { renderPhrases(); if (chat.room) render(chat.last); });
  $('#chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('#chat-input');
    const text = input.value.trim();
    if (!text) return;
    say({ text });
    input.value = '';
  });
  $('#chat-unmute').addEventListener('click', () => { chat.muted.clear(); saveMuted(); render(chat.last); });
}
