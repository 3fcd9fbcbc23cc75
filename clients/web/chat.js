// The table's chat (issue 46): the players talk among themselves, the spectators among
// themselves; the spectators read the players' once the round is over. Lines come in the
// state like everything else; a message goes out as `chat` and comes back in the next version.
// Quick phrases travel as codes and are worded here. Muting someone hides their lines in this
// browser only.
import { el } from './dom.js';

const $ = (sel) => document.querySelector(sel);

export const PHRASES = {
  hello: 'Hello!', good_game: 'Good game', thinking: 'Thinking…', rematch: 'Rematch?',
  thanks: 'Thanks!', good_move: 'Nice move', oops: 'Oops',
};
const QUICK = ['hello', 'good_game', 'thinking', 'rematch', 'thanks'];

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
  const words = m.deleted ? el('em', { class: 'muted' }, 'message deleted')
    : m.phrase ? el('span', { class: 'phrase' }, PHRASES[m.phrase] || m.phrase) : el('span', {}, m.text);
  const mine = m.name === myName;
  return el('li', { 'data-seq': m.seq, 'data-channel': m.channel, class: m.channel === 'spectators' ? 'from-spectator' : '' },
    el('span', { class: 'chat-name seat-name' }, m.name), m.channel === 'spectators' ? el('span', { class: 'muted' }, ' (watching)') : '', ': ', words,
    mine ? '' : el('button', { type: 'button', class: 'chat-mute', title: `Hide ${m.name}'s messages in this browser`, onclick: () => { chat.muted.add(m.name); saveMuted(); render(chat.last); } }, 'mute'));
}

function render(args) {
  if (!args) return;
  chat.last = args;
  const { state, myName } = args;
  const box = $('#chat');
  const lines = (state.chat || []).filter((m) => !chat.muted.has(m.name));
  box.hidden = false;
  $('#chat-title').textContent = state.you === null ? 'Spectators’ chat' : 'Players’ chat';
  const list = $('#chat-lines');
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  list.replaceChildren(...lines.map((m) => line(m, myName)));
  if (atBottom || lines.length !== chat.shown) list.scrollTop = list.scrollHeight;
  chat.shown = lines.length;
  $('#chat-unmute').hidden = chat.muted.size === 0;
  $('#chat-unmute').textContent = `Show ${chat.muted.size} muted`;
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

export function initChat(send) {
  chat.send = send;
  $('#chat-phrases').replaceChildren(...QUICK.map((p) => el('button', { type: 'button', class: 'small', 'data-phrase': p, onclick: () => say({ phrase: p }) }, PHRASES[p])));
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
