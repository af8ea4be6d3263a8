// The admin app's stylesheet and script, served from /admin/assets/ under content-hashed names
// (the CSP allows only same-origin files: no inline code). Plain CSS and a little script: the
// pages work without it; it adds copy buttons, reveal, secret generation and a live test result.
// And the pages' icon.
import { createHash } from 'node:crypto';

const CSS = `
:root { --bg: #f6f7f9; --card: #fff; --ink: #1d2430; --muted: #5b6576; --line: #dde1e8; --accent: #2f5bd3;
  --accent-ink: #fff; --ok: #0f7a3d; --ok-bg: #e7f6ed; --err: #b42318; --err-bg: #fdecea; --warn-bg: #fff6e0;
  --radius: 10px; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; line-height: 1.5; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #8fb0ff; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 10; }
header.top { background: #141a24; color: #fff; }
header.top .bar { max-width: 1040px; margin: 0 auto; padding: .8rem 1.2rem; display: flex; align-items: center; gap: 1rem; }
header.top a.brand { color: #fff; text-decoration: none; font-weight: 700; letter-spacing: .02em; }
header.top form { margin-left: auto; }
header.top button { background: transparent; color: #cfd6e4; border: 1px solid #3a4456; }
main { max-width: 1040px; margin: 0 auto; padding: 1.5rem 1.2rem 4rem; }
h1 { font-size: 1.6rem; margin: .2rem 0 1rem; } h2 { font-size: 1.15rem; margin: 0 0 .8rem; }
.crumbs { color: var(--muted); font-size: .9rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.2rem 1.3rem; margin: 0 0 1.2rem; }
.muted { color: var(--muted); } .small { font-size: .88rem; }
nav.tabs { display: flex; gap: .3rem; border-bottom: 1px solid var(--line); margin: 0 0 1.2rem; overflow-x: auto; }
nav.tabs a { padding: .6rem .9rem; text-decoration: none; color: var(--muted); border-bottom: 3px solid transparent; white-space: nowrap; }
nav.tabs a[aria-current="page"] { color: var(--ink); border-color: var(--accent); font-weight: 600; }
table { width: 100%; border-collapse: collapse; font-size: .93rem; }
th, td { text-align: left; padding: .55rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: .82rem; text-transform: uppercase; letter-spacing: .04em; }
.table-wrap { overflow-x: auto; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; background: #eef1f6; color: var(--muted); }
.badge.ok { background: var(--ok-bg); color: var(--ok); } .badge.err { background: var(--err-bg); color: var(--err); } .badge.warn { background: var(--warn-bg); color: #8a5a00; }
label { display: block; font-weight: 600; margin: .8rem 0 .3rem; }
.hint { color: var(--muted); font-size: .86rem; margin: .25rem 0 0; }
input[type=text], input[type=url], input[type=password] { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid #c5ccd8; border-radius: 8px; background: #fff; }
input[aria-invalid=true] { border-color: var(--err); }
.field-error { color: var(--err); font-size: .9rem; margin: .3rem 0 0; }
button, .button { font: inherit; padding: .5rem .95rem; border-radius: 8px; border: 1px solid #c5ccd8; background: #fff; color: var(--ink); cursor: pointer; text-decoration: none; display: inline-block; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
button.danger { color: var(--err); border-color: #f0b8b2; }
.row { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.row > input { flex: 1 1 16rem; }
.actions { display: flex; gap: .6rem; flex-wrap: wrap; margin-top: 1rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; overflow-wrap: anywhere; }
pre { background: #141a24; color: #e6ebf5; padding: .9rem 1rem; border-radius: 8px; overflow-x: auto; font-size: .85rem; }
.keybox { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; background: #f2f4f8; border-radius: 8px; padding: .5rem .7rem; }
.keybox code { flex: 1 1 auto; word-break: break-all; }
.notice { border-radius: 8px; padding: .8rem 1rem; margin: 0 0 1rem; border: 1px solid; }
.notice.ok { background: var(--ok-bg); border-color: #b5e0c4; color: #0b4f29; }
.notice.error { background: var(--err-bg); border-color: #f3c1bb; color: #7a1a11; }
.notice.warn { background: var(--warn-bg); border-color: #f1d58e; }
fieldset.methods { border: 0; padding: 0; margin: 0 0 .5rem; display: grid; gap: .6rem; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); }
fieldset.methods label { margin: 0; font-weight: 400; border: 1px solid var(--line); border-radius: 8px; padding: .7rem .8rem; display: flex; gap: .6rem; cursor: pointer; }
fieldset.methods label strong { display: block; }
.method-panel { display: none; }
form.method:has(#method-webhook:checked) .method-panel.webhook, form.method:has(#method-none:checked) .method-panel.none { display: block; }
.sites { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); }
.sites .card h2 a { color: inherit; } .sites .card:hover { border-color: var(--accent); } .sites .hint { display: block; }
a.badge.err { text-decoration: underline; }
details summary { cursor: pointer; }
label.check { font-weight: 400; display: flex; gap: .5rem; align-items: baseline; } label.check > span { flex: 1 1 auto; min-width: 0; }
.narrow { max-width: 460px; margin: 3rem auto; }
.mt { margin-top: 1rem; }
ul.problems { margin: .4rem 0 0; padding-left: 1.1rem; } ul.problems li { margin: .2rem 0; } code.place { word-break: break-all; }
ul.plain { list-style: none; padding: 0; margin: 0; } ul.plain > li { padding: .6rem 0; border-bottom: 1px solid var(--line); } ul.plain > li:last-child { border-bottom: 0; }
ul.plain form { margin-top: .4rem; }
[hidden] { display: none !important; }
@media (max-width: 600px) { main { padding: 1rem .8rem 3rem; } .card { padding: 1rem; } th.opt, td.opt { display: none; } }
/* Phones: a table.stack shows each row as a block of labelled lines, so no column is out of sight. */
@media (max-width: 600px) {
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack tr { border-bottom: 1px solid var(--line); padding: .5rem 0; }
  table.stack td { border: 0; padding: .15rem 0; overflow-wrap: anywhere; }
  table.stack td[data-label]::before { content: attr(data-label); display: block; color: var(--muted); font-size: .72rem; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
}
`;

const JS = `
'use strict';
document.addEventListener('click', async (event) => {
  const copy = event.target.closest('[data-copy]');
  if (copy) {
    const source = document.getElementById(copy.dataset.copy);
    const text = source ? (source.value !== undefined && source.tagName === 'INPUT' ? source.value : source.dataset.value || source.textContent) : '';
    try { await navigator.clipboard.writeText(text.trim()); copy.textContent = 'Copied'; }
    catch { copy.textContent = 'Copy failed: select and copy'; }
    setTimeout(() => { copy.textContent = copy.dataset.label || 'Copy'; }, 1800);
  }
  const reveal = event.target.closest('[data-reveal]');
  if (reveal) {
    const target = document.getElementById(reveal.dataset.reveal);
    const shown = target.dataset.shown === '1';
    target.textContent = shown ? target.dataset.masked : target.dataset.value;
    target.dataset.shown = shown ? '0' : '1';
    reveal.textContent = shown ? (reveal.dataset.label || 'Reveal') : 'Hide';
    reveal.setAttribute('aria-pressed', String(!shown));
    document.querySelectorAll('[data-secret-snippet]').forEach((el) => { el.hidden = shown; });
  }
  const generate = event.target.closest('[data-generate-secret]');
  if (generate) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const secret = 'whsec_' + btoa(String.fromCharCode(...bytes));
    const input = document.getElementById(generate.dataset.generateSecret);
    input.value = secret; input.type = 'text'; input.focus(); input.select();
    const note = document.getElementById('secret-generated');
    if (note) note.hidden = false;
  }
});
const live = document.querySelector('form[data-live-test]');
if (live) {
  live.addEventListener('submit', async (event) => {
    event.preventDefault();
    const out = document.getElementById('test-result');
    const button = live.querySelector('button');
    button.disabled = true; out.className = 'notice mt'; out.hidden = false; out.textContent = 'Sending a test delivery…';
    try {
      const response = await fetch(live.action, { method: 'POST', body: new URLSearchParams(new FormData(live)), headers: { accept: 'application/json' } });
      const result = await response.json();
      out.className = 'notice mt ' + (result.ok ? 'ok' : 'error');
      out.textContent = result.message;
    } catch (e) { out.className = 'notice mt error'; out.textContent = 'The test could not be run: ' + e.message; }
    finally { button.disabled = false; out.focus(); }
  });
}
// A printed sign-in link carries the token in the fragment. Pasting one into a tab that is
// already on this page changes only the fragment (no load), so listen for that too.
const signInFromFragment = () => {
  const tokenInput = document.getElementById('admin-token');
  if (!tokenInput || !location.hash.startsWith('#token=')) return;
  tokenInput.value = decodeURIComponent(location.hash.slice(7));
  history.replaceState(null, '', location.pathname);
  tokenInput.form.submit();
};
signInFromFragment();
window.addEventListener('hashchange', signInFromFragment);
`;

// The tab's icon (a Q in the header's colours). Named by every page, so the browser never asks
// for /favicon.ico, which is no admin route (the Content API answers it 404).
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#141a24"/><circle cx="15" cy="15" r="7.5" fill="none" stroke="#fff" stroke-width="3"/><path d="M18.5 18.5l6 6" stroke="#8fb0ff" stroke-width="3.2" stroke-linecap="round"/></svg>`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const ADMIN_ASSETS = {
  css: { path: `/admin/assets/admin.${version(CSS)}.css`, body: CSS, type: 'text/css; charset=utf-8' },
  js: { path: `/admin/assets/admin.${version(JS)}.js`, body: JS, type: 'text/javascript; charset=utf-8' },
  icon: { path: `/admin/assets/icon.${version(ICON)}.svg`, body: ICON, type: 'image/svg+xml' },
};
