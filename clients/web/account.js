// Accounts in the browser (issue 46): register, sign in, the devices signed in, a new password,
// signing out. A guest plays as before; an account's session token simply takes the place of
// the guest token in localStorage, so the WebSocket's hello signs the account in.
import { el } from './dom.js';

const $ = (sel) => document.querySelector(sel);

const account = {
  name: null,           // the account's name while signed in, else null
  registration: 'open', // the server's --registration
  onSignedIn: null,     // (name) => void: say hello again with the new token
};
window.plateauAccount = account;  // for tests

// What a device is called in the list of sessions: the browser and the system, nothing more.
function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'A browser';
  const system = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return system ? `${browser} on ${system}` : browser;
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
    return { ok: false, body: { code: 'network', error: 'the server cannot be reached' } };
  }
  let json = {};
  try { json = await r.json(); } catch { /* an empty or odd answer */ }
  return { ok: r.ok, status: r.status, body: json, retry: r.headers.get('Retry-After') };
}

function explain(res) {
  const b = res.body || {};
  let text = b.error || 'something went wrong';
  if (res.retry) text += ` (try again in ${res.retry} s)`;
  return text;
}

// ---------- the dialog ----------
function open(view) {
  const d = $('#account-dialog');
  for (const v of d.querySelectorAll('[data-view]')) v.hidden = v.dataset.view !== view;
  $('#account-error').hidden = true;
  if (!d.open) d.showModal();
  if (view === 'devices') loadDevices();
  const first = d.querySelector(`[data-view="${view}"] input:not([type=hidden])`);
  if (first) first.focus();
}

function fail(res) {
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
  if (f.password.value !== f.confirm.value) return fail({ body: { error: 'the two passwords differ' } });
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
  if (!res.ok) return fail(res);
  f.reset();
  const note = $('#password-done');
  note.textContent = res.body.signed_out ? `Password changed; ${res.body.signed_out} other device(s) signed out.` : 'Password changed.';
  note.hidden = false;
}

async function loadDevices() {
  const list = $('#devices');
  list.replaceChildren();
  const res = await call('/api/accounts/me', undefined, { auth: true, method: 'GET' });
  if (!res.ok) return fail(res);
  for (const s of res.body.sessions) {
    const when = new Date(s.created).toLocaleString();
    list.append(el('li', { 'data-session': s.id },
      el('span', { class: 'device' }, s.device), ' ', el('span', { class: 'muted' }, `since ${when}`),
      s.current ? el('span', { class: 'tag' }, 'this device')
        : el('button', { type: 'button', class: 'small', onclick: () => endSession(s.id) }, 'Sign out')));
  }
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
