// Redsim loader: starts the wasm playground (which mounts into every [data-redsim], #redsim,
// [data-redsim-scenario] and [data-redsim-topology] element) and, after a crash, re-creates it; sets the light or dark theme
// before it starts. Files are found relative to this script, so the site can live under any sub-path.
const here = new URL('.', import.meta.url);
const HOSTS = '[data-redsim], #redsim, [data-redsim-scenario], [data-redsim-topology]';
let generation = 0;

// The theme: the reader's choice (the page's theme button, stored in localStorage under
// THEME_KEY) or, without one, the system's prefers-color-scheme, followed live. It is set as
// data-theme="light|dark" on <html> before the wasm starts, so the page never flashes the other
// one; the button (web/src/page.rs) changes it and listens for the `redsim-theme` event.
const THEME_KEY = 'redsim-theme';
const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
function storedTheme() {
  try {
    const t = localStorage.getItem(THEME_KEY);
    return t === 'dark' || t === 'light' ? t : null;
  } catch (_) {
    return null;
  }
}
function applyTheme() {
  const theme = storedTheme() || (darkQuery && darkQuery.matches ? 'dark' : 'light');
  document.documentElement.setAttribute('data-theme', theme);
  for (const b of document.querySelectorAll('[data-redsim-theme-toggle]')) {
    b.setAttribute('aria-pressed', String(theme === 'dark'));
  }
  window.dispatchEvent(new CustomEvent('redsim-theme', { detail: theme }));
}
applyTheme();
if (darkQuery) darkQuery.addEventListener('change', applyTheme);
document.addEventListener('DOMContentLoaded', applyTheme);
// A page embedding widgets can offer the same switch with any element carrying
// data-redsim-theme-toggle (a <button>, say): a click flips the theme and stores the choice.
document.addEventListener('click', (e) => {
  if (!(e.target instanceof Element) || !e.target.closest('[data-redsim-theme-toggle]')) return;
  const dark = document.documentElement.getAttribute('data-theme') === 'dark';
  try {
    localStorage.setItem(THEME_KEY, dark ? 'light' : 'dark');
    applyTheme();
  } catch (_) {
    // No storage (a sandboxed frame): switch for this page only.
    document.documentElement.setAttribute('data-theme', dark ? 'light' : 'dark');
    window.dispatchEvent(new CustomEvent('redsim-theme', { detail: dark ? 'light' : 'dark' }));
  }
});

// Imports the wasm-bindgen module and runs the app. A crashed wasm instance cannot be reused, so
// a restart imports the module again under a new URL, which gives a fresh module and instance.
async function start() {
  const js = new URL('redsim-web.js', here);
  if (generation > 0) js.searchParams.set('instance', String(generation));
  const bindings = await import(js.href);
  await bindings.default({ module_or_path: new URL('redsim-web_bg.wasm', here) });
}

function showLoadError(err) {
  for (const host of document.querySelectorAll(HOSTS)) {
    const box = document.createElement('p');
    box.className = 'rs-loading rs-load-error';
    box.textContent = 'The playground could not start: ' + err;
    host.replaceChildren(box);
  }
}

// Called by the crash overlay's Reset button. Hosts are replaced by attribute-only clones, which
// drops the dead instance's DOM and event listeners; the new instance mounts into the clones.
window.redsimReset = async () => {
  generation += 1;
  for (const host of document.querySelectorAll(HOSTS)) {
    host.replaceWith(host.cloneNode(false));
  }
  try {
    await start();
  } catch (err) {
    console.error('Redsim: restart failed, reloading', err);
    location.reload();
  }
};

// The crash overlay's Reset button (drawn by the wasm panic hook, or below) is handled here
// rather than by an inline onclick, which a strict Content-Security-Policy would block.
document.addEventListener('click', (e) => {
  if (e.target instanceof Element && e.target.closest('.rs-crash-reset')) window.redsimReset();
});

// A trap that is not a Rust panic (an allocation the wasm memory cannot grow to, a stack
// overflow) ends the instance without running the panic hook: draw the same overlay here.
function showTrap(err) {
  if (!(err instanceof WebAssembly.RuntimeError)) return;
  for (const host of document.querySelectorAll(HOSTS)) {
    if (host.querySelector('.rs-crash')) continue;
    const overlay = document.createElement('div');
    overlay.className = 'rs-crash';
    overlay.setAttribute('role', 'alertdialog');
    const box = document.createElement('div');
    box.className = 'rs-crash-box';
    const title = document.createElement('h3');
    title.textContent = 'The playground crashed';
    const text = document.createElement('p');
    text.textContent = 'The WebAssembly instance stopped (' + err.message + '). Reset starts it again from this page\'s link.';
    const msg = document.createElement('pre');
    msg.className = 'rs-crash-msg';
    msg.textContent = String(err.stack || err);
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'rs-btn rs-primary rs-crash-reset';
    reset.textContent = 'Reset';
    box.append(title, text, msg, reset);
    overlay.append(box);
    host.append(overlay);
  }
}
window.addEventListener('error', (e) => showTrap(e.error));
window.addEventListener('unhandledrejection', (e) => showTrap(e.reason));

start().catch((err) => {
  console.error('Redsim: could not start', err);
  showLoadError(err);
});
