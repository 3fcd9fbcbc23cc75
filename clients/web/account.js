// Accounts in the browser (issue 46): register, sign in, the devices signed in, a new password,
// signing out. A guest plays as before; an account's session token simply takes the place of
// the guest token in localStorage, so the WebSocket's hello signs the account in.
import { el } from './dom.js';
import { language, onLanguage, t, tn } from './i18n.js';

const $ = (sel) => document.querySelector(sel);

const account = {
  name: null,           // the account's name while signed in, else null
  registration: 'open', // the server's --registration
  onSignedIn: null,     // (name) => void: say hello again with the new token
  error: null,          // the answer the dialog's error box words (again, on a change of language)
  passwordDone: null,   // how many other devices the last change of password signed out
  sessions: null,       // the devices list as last fetched
};
window.plateauAccount = account;  // for tests

// What a device is called in the list of sessions: the browser and the system, nothing more.
// The server keeps it as it is sent, in the language of the page that signed in.
function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : t('account.device.unknown');
  const system = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return system ? t('account.device.on', { browser, system }) : browser;
}

const token = () => localStorage.getItem('plateau.token') || '';

async function call(path, body, { auth = false, method = 'POST' } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (auth) headers.Authorization = `Bearer ${token()}`;
  let r;
  try {
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { ok: false, body: { code: 'network' } };
  }
  let json = {};
  try { json = await r.json(); } catch { /* an empty or odd answer */ }
  return { ok: r.ok, status: r.status, body: json, retry: r.headers.get('Retry-After') };
}

// The words for a refusal of the accounts' API, {code, error}: the code worded in the page's
// language when it is known (account/wrong_password is account.error.account_wrong_password),
// else the server's own message, else a plain "something went wrong".
// i18n-keys: account.error.*
export function errorText(body) {
  const b = body || {};
  if (typeof b.code === 'string' && b.code) {
    const key = `account.error.${b.code.replace(/\//g, '_')}`;
    const text = t(key);
    if (text !== key) return text;
  }
  return b.error || t('account.error.unknown');
}

function explain(res) {
  const text = res.context && res.body && res.body.code === 'account/wrong_password'
    ? t('account.error.old_password_wrong') : errorText(res.body);
  if (!res.retry) return text;
  return t('account.retry', { text, seconds: new Intl.NumberFormat(language()).format(Number(res.retry) || 0) });
}

// ---------- the dialog ----------
function open(view) {
  const d = $('#account-dialog');
  for (const v of d.querySelectorAll('[data-view]')) v.hidden = v.dataset.view !== view;
  $('#account-error').hidden = true;
  account.error = null;
  if (!d.open) d.showModal();
  if (view === 'devices') loadDevices();
  const first = d.querySelector(`[data-view="${view}"] input:not([type=hidden])`);
  if (first) first.focus();
}

function fail(res) {
  account.error = res;
  const e = $('#account-error');
  e.textContent = explain(res);
  e.dataset.code = (res.body && res.body.code) || '';
  e.hidden = false;
}

function signedIn(body) {
  localStorage.setItem('plateau.token', body.token);
  localStorage.setItem('plateau.name', body.name);
  $('#account-dialog').close();
  if (account.onSignedIn) account.onSignedIn(body.name);
}

async function register(e) {
  e.preventDefault();
  const f = e.target;
  if (f.password.value !== f.confirm.value) return fail({ body: { code: 'account/passwords_differ' } });
  const body = { name: f.name.value.trim(), password: f.password.value, device: deviceName() };
  // The guest this browser plays as becomes the account: its tables and games come along.
  if (token() && !account.name) body.guest_token = token();
  if (f.invite.value) body.invite = f.invite.value;
  const res = await call('/api/accounts/register', body);
  if (!res.ok) return fail(res);
  f.reset();
  history.replaceState(history.state, '', location.pathname + location.search.replace(/[?&]invite=[^&]*/, '').replace(/^&/, '?'));
  signedIn(res.body);
}

async function login(e) {
  e.preventDefault();
  const f = e.target;
  const res = await call('/api/accounts/login', { name: f.name.value.trim(), password: f.password.value, device: deviceName() });
  if (!res.ok) return fail(res);
  f.reset();
  signedIn(res.body);
}

async function changePassword(e) {
  e.preventDefault();
  const f = e.target;
  const res = await call('/api/accounts/password', { old: f.old.value, new: f.new.value }, { auth: true });
  // Here a wrong password is the old one.
  if (!res.ok) return fail({ ...res, context: 'password' });
  f.reset();
  account.passwordDone = Number(res.body.signed_out) || 0;
  renderPasswordDone();
  $('#password-done').hidden = false;
}

function renderPasswordDone() {
  if (account.passwordDone === null) return;
  const n = account.passwordDone;
  $('#password-done').textContent = n ? tn('account.password_changed_others', n) : t('account.password_changed');
}

async function loadDevices() {
  const list = $('#devices');
  list.replaceChildren();
  account.sessions = null;
  const res = await call('/api/accounts/me', undefined, { auth: true, method: 'GET' });
  if (!res.ok) return fail(res);
  account.sessions = res.body.sessions;
  renderDevices();
}

// A moment in the page's language: "5 déc. 2026, 14:30", "Dec 5, 2026, 2:30 PM".
const dateTime = (ms) => new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));

function renderDevices() {
  if (!account.sessions) return;
  $('#devices').replaceChildren(...account.sessions.map((s) => el('li', { 'data-session': s.id },
    el('span', { class: 'device' }, s.device || t('account.device.unknown')), ' ',
    el('span', { class: 'muted' }, t('account.device.since', { date: dateTime(s.created) })), ' ',
    s.current ? el('span', { class: 'tag' }, t('account.device.this'))
      : el('button', { type: 'button', class: 'small', title: t('account.device.end_title', { device: s.device || t('account.device.unknown') }), onclick: () => endSession(s.id) },
        t('account.device.end')))));
}

async function endSession(id) {
  const res = await call('/api/accounts/sessions/end', { id }, { auth: true });
  if (!res.ok) return fail(res);
  loadDevices();
}

async function logout(everywhere) {
  await call('/api/accounts/logout', { everywhere }, { auth: true });
  forget();
}

// Back to being a new guest: the session's token is no use any more.
function forget() {
  localStorage.removeItem('plateau.token');
  account.name = null;
  const d = $('#account-dialog');
  if (d.open) d.close();
  if (account.onSignedIn) account.onSignedIn(null);
}

// ---------- the header ----------
function renderHeader() {
  const signed = account.name !== null;
  $('#name-form').hidden = signed;
  $('#account-name').hidden = !signed;
  $('#account-name').textContent = signed ? account.name : '';
  $('#account-name').href = signed ? `/?profile=${encodeURIComponent(account.name)}` : '';
  $('#account-name').dataset.profile = signed ? account.name : '';
  if (signed) $('#account-name').title = t('account.signed_in_as', { name: account.name });
  else $('#account-name').removeAttribute('title');
  $('#rated-label').hidden = !signed;
  if (!signed) $('#rated').checked = false;
  $('#account-menu').hidden = !signed;
  $('#sign-in').hidden = signed;
  $('#register').hidden = signed || account.registration === 'closed';
}

// The welcome says whether this hello signed an account in.
export function onWelcome(msg) {
  account.name = typeof msg.account === 'string' ? msg.account : null;
  renderHeader();
}

// The session this tab signed in with has ended (signed out elsewhere, or the account deleted).
export function onSignedOut() {
  forget();
}

export async function initAccount(onSignedIn) {
  account.onSignedIn = onSignedIn;
  $('#sign-in').addEventListener('click', () => open('login'));
  $('#register').addEventListener('click', () => open('register'));
  $('#account-menu').addEventListener('click', () => open('devices'));
  $('#account-close').addEventListener('click', () => $('#account-dialog').close());
  $('#register-form').addEventListener('submit', register);
  $('#login-form').addEventListener('submit', login);
  $('#password-form').addEventListener('submit', changePassword);
  $('#to-register').addEventListener('click', () => open('register'));
  $('#to-login').addEventListener('click', () => open('login'));
  $('#to-password').addEventListener('click', () => { $('#password-done').hidden = true; open('password'); });
  $('#logout').addEventListener('click', () => logout(false));
  $('#logout-everywhere').addEventListener('click', () => logout(true));
  renderHeader();
  // A new language words again what this module drew: the header's title, the devices, the
  // dialog's error and its note, in place.
  onLanguage(() => {
    renderHeader();
    renderDevices();
    renderPasswordDone();
    if (account.error && !$('#account-error').hidden) $('#account-error').textContent = explain(account.error);
  });
  const res = await call('/api/accounts/registration', undefined, { method: 'GET' });
  if (res.ok) account.registration = res.body.registration;
  $('#invite-label').hidden = account.registration !== 'invite';
  renderHeader();
  // An invitation link: /?invite=CODE opens the form with it.
  const invite = new URLSearchParams(location.search).get('invite');
  if (invite && account.registration !== 'closed') {
    $('#register-form').invite.value = invite;
    $('#invite-label').hidden = false;
    open('register');
  }
}
