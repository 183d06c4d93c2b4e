// Redsim loader: starts the console module (which mounts into every [data-redsim] and #redsim
// element) and, when the page asks for it, the lab module (scenarios, cluster, topology and
// lessons views: [data-redsim-scenario], [data-redsim-topology], [data-redsim-lesson] and the
// playground's lab tabs); after a crash it re-creates both. It sets the light or dark theme
// before either starts. Files are found relative to this script, so the site can live under any
// sub-path.
const here = new URL('.', import.meta.url);
// The console module's bindings (its wasm-bindgen JavaScript). `cargo xtask dist` writes them in
// place of the next line, as a function's body run here, so a page fetches one script before its
// first reply instead of two: the browser's network work for a request is what most of a cold
// load waits on, on a busy 2-core machine some 3 to 5 ms of the first reply. A copy of this file
// without them (a build that copies it as it is) imports `redsim-web.js` instead.
const inlinedConsole = null; // redsim:console-bindings
const HOSTS = '[data-redsim], #redsim, [data-redsim-scenario], [data-redsim-topology], [data-redsim-lesson]';
let generation = 0;
let lab = null;

// Share links pack a console session as raw deflate (web/src/links.rs). The browser's own
// compressor does it, so the wasm carries none. Inflating stops past `limit` bytes (a link
// crafted to expand into gigabytes yields null); bad data rejects.
window.redsimDeflate = async (bytes, inflate, limit) => {
  const codec = inflate ? new DecompressionStream('deflate-raw') : new CompressionStream('deflate-raw');
  const reader = new Blob([bytes]).stream().pipeThrough(codec).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

// The theme: the reader's choice (the page's theme button, stored in localStorage under
// THEME_KEY) or, without one, the system's prefers-color-scheme, followed live. It is set as
// data-theme="light|dark" on <html> before the wasm starts; the button (web/src/page.rs)
// changes it and listens for the `redsim-theme` event. Until this script runs (the browser may
// draw the page once before it does), the stylesheet shows the system's theme by itself, so a
// dark system never flashes light. A light page on a light system is left without the
// attribute: writing it, even as "light", restyles the whole page just before the console
// starts (5 to 10 ms of a 2-core machine's time to first reply).
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
  const systemDark = !!(darkQuery && darkQuery.matches);
  const theme = storedTheme() || (systemDark ? 'dark' : 'light');
  const root = document.documentElement;
  // Light on a light system goes without the attribute (the stylesheet alone draws the
  // system's theme); every other case writes it, which the dark rules also read.
  const want = theme === 'light' && !systemDark ? null : theme;
  if (root.getAttribute('data-theme') !== want) {
    if (want) root.setAttribute('data-theme', want);
    else root.removeAttribute('data-theme');
  }
  for (const b of document.querySelectorAll('[data-redsim-theme-toggle]')) {
    b.setAttribute('aria-pressed', String(theme === 'dark'));
  }
  window.dispatchEvent(new CustomEvent('redsim-theme', { detail: theme }));
}
if (darkQuery) darkQuery.addEventListener('change', applyTheme);
// Toggles parsed after this script ran, where it runs before the document is parsed.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', applyTheme);
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

// Holding the first paint. A page whose loader tag is render-blocking (index.html:
// `<script type="module" src="redsim.js" blocking="render">`) has not been drawn when this
// script runs. Drawing it now, with "Loading the playground…" where the console will be, costs
// the main thread a full style, layout and paint (some 15 ms on a 2-core machine, most of it
// looking up fonts), all while the console module's bytes wait for that thread, and shows a
// placeholder that a fast load replaces a moment later. So such a page stays blank
// (`.rs-hold`: `content-visibility: hidden` on the body, which skips its style and layout) until
// its first console or app has drawn, an error shows, or HOLD_MS after navigation, whichever
// comes first: a slow network still sees the page and its loading note at that moment. Browsers
// without render-blocking scripts may have drawn the page already, so they are never held.
// The page's first paint is not saved, only moved: the frame that shows the console pays it, so
// the console's reply reaches the screen at about the same time either way (152 ms held, 148 not,
// medians of 20 cold loads each on a 2-core machine), and what a hold buys is a page drawn once,
// with no loading note flashing and no text jumping down when the console replaces it.
const HOLD_MS = 300;
const loaderTag = [...document.scripts].find((s) => s.src === import.meta.url);
let holding = !!(loaderTag && loaderTag.blocking && loaderTag.blocking.contains('render'));
const drawn = new MutationObserver(() => {
  if (document.querySelector('.rs-widget, .rs-pagebar, .rs-load-error, .rs-crash')) release();
});
function release() {
  if (!holding) return;
  holding = false;
  drawn.disconnect();
  document.documentElement.classList.remove('rs-hold');
}
if (holding) {
  document.documentElement.classList.add('rs-hold');
  // The whole document: iframe mode (`?minimal=1`) replaces the body.
  drawn.observe(document.documentElement, { subtree: true, childList: true });
  setTimeout(release, Math.max(0, HOLD_MS - performance.now()));
  // A frame is kept asked for while the page is held (each one is near free: nothing shows).
  // The console's start is one long task, and the page only asks for a frame at its end, when
  // the hold is released; the browser then waits for the next display refresh, up to 16 ms
  // doing nothing. With a frame already due, it draws the console as soon as the task ends.
  const keepFrameDue = () => {
    if (holding) requestAnimationFrame(keepFrameDue);
  };
  requestAnimationFrame(keepFrameDue);
}

// The console module's code is fetched and compiled from the moment this script runs, while the
// page is still being parsed and styled, rather than after its JavaScript bindings are imported:
// compiling is most of the wait for a console's first reply. A compiled module can be
// instantiated any number of times, so a restart reuses it. Should streaming compilation be
// refused (a server sending wasm without application/wasm), the bindings fetch the file
// themselves as before.
const CONSOLE = 'redsim-web';
const compiled = {};
// The module `name` compiled (null where streaming compilation failed), started on first ask.
function compiledModule(name) {
  if (!compiled[name]) {
    compiled[name] = WebAssembly.compileStreaming
      ? WebAssembly.compileStreaming(fetch(new URL(name + '_bg.wasm', here))).catch(() => null)
      : Promise.resolve(null);
  }
  return compiled[name];
}
compiledModule(CONSOLE);

// Imports one wasm-bindgen module (`name`.js and `name`_bg.wasm) and runs its start. A crashed
// wasm instance cannot be reused, so a restart imports the bindings again under a new URL, which
// gives a fresh instance.
async function instantiate(name) {
  const js = new URL(name + '.js', here);
  if (generation > 0) js.searchParams.set('instance', String(generation));
  // The first console start uses the bindings this file carries; a restart needs a fresh copy.
  const carried = generation === 0 && name === CONSOLE ? inlinedConsole : null;
  const [bindings, module] = await Promise.all([carried || import(js.href), compiledModule(name)]);
  await bindings.default({ module_or_path: module || new URL(name + '_bg.wasm', here) });
  // The start has run and drawn: the rest of a split module can come once the page is idle.
  // A module built whole has no rest to wait for, and reaches the rest's time then.
  idle().then(() => (unlinked.length ? linkRest() : restCame()));
}

// What a console draws once the module's rest has come (the timeline's chart, a Yew component):
// it waits, so that none of its code runs, and so is compiled, before the first reply. A module
// built whole has no rest, and its parts come once the page is idle after the start, when the
// rest would be fetched. The functions that run before then are the split's profile, which
// `split_profile.py` records with `redsimHoldRest` set: those parts never come in that run.
const afterRest = [];
let restTime = false;
// What the console module does once the next frame is drawn (`dom::after_next_paint`): the
// frame's callback only sets a zero timeout, so no wasm runs before that frame is drawn.
globalThis.redsimAfterPaint = (fn) => requestAnimationFrame(() => setTimeout(fn, 0));
globalThis.redsimAfterRest = (fn) => {
  afterRest.push(fn);
  if (restTime) restCame();
};
function restCame() {
  restTime = true;
  if (window.redsimHoldRest) return;
  // In a task of its own: a rest linked synchronously is linked inside a call into the wasm.
  setTimeout(() => {
    for (const fn of afterRest.splice(0)) fn();
  }, 0);
}

// The console module's rest. `cargo xtask dist` splits the console module by a profile of what
// its pages run at startup (crates/xtask/src/split.rs): `redsim-web_bg.wasm` holds those
// functions and `redsim-web_rest.wasm` the others, each of which the first part imports as a
// placeholder. Once the page is idle after its start, the rest is fetched, compiled and
// instantiated against the first part's exports (its memory, tables, globals and functions),
// which puts the rest's functions in the shared function table, where the first part's calls
// find them. Until then each of the table's slots holds a stub of the first part; one called
// before that (a reader or a test typing at once) has the rest linked on the spot,
// synchronously (`link` below), and then calls the function it stands for. The bindings of a split
// module ask for their placeholders here (`redsimPlaceholders`), once per instance; a module
// built whole has none and never fetches the rest.
const REST = 'redsim-web_rest.wasm';
// Instances of the first part still without their rest: { exportsOf, url, pair, linked }.
const unlinked = [];
// Per rest URL: { compile (promise), compiled (the module, once it has come) }.
const rests = new Map();
// How many instances had to link their rest synchronously, before it was fetched (tests read it).
window.redsimRestEarly = 0;
// The two parts are fetched apart, and a cache or a half-done deploy can give a page one file
// of another build. `dist` names each pair (the bindings pass its id; the rest carries it in its
// `redsim-pair` custom section): the rest is fetched under the id, and linked only to the first
// part of its own pair, since a rest of another build may link and then call wrong functions.
class PairMismatch extends Error {}
const isMismatch = (err) => err instanceof PairMismatch || err instanceof WebAssembly.LinkError;
function restOf(url) {
  let rest = rests.get(url);
  if (!rest) {
    rest = { compile: null, compiled: null };
    rests.set(url, rest);
  }
  return rest;
}
function restModule(url) {
  const rest = restOf(url);
  if (!rest.compile) {
    const whole = () => fetch(url).then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + REST);
      return r.arrayBuffer();
    }).then((b) => WebAssembly.compile(b));
    rest.compile = (WebAssembly.compileStreaming ? WebAssembly.compileStreaming(fetch(url)).catch(whole) : whole())
      .then((m) => (rest.compiled = m))
      .catch((err) => {
        rest.compile = null;
        throw err;
      });
  }
  return rest.compile;
}
// The compiled rest, now: as compiled ahead, or fetched and compiled synchronously.
function restModuleNow(url) {
  const rest = restOf(url);
  if (rest.compiled) return rest.compiled;
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url, false);
  // Synchronous requests cannot ask for an ArrayBuffer: the bytes come as a binary string.
  xhr.overrideMimeType('text/plain; charset=x-user-defined');
  xhr.send();
  if (xhr.status !== 200) throw new Error('HTTP ' + xhr.status + ' for ' + REST);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  rest.compiled = new WebAssembly.Module(bytes);
  return rest.compiled;
}
function link(instance, module) {
  if (instance.linked) return;
  try {
    const [section] = WebAssembly.Module.customSections(module, 'redsim-pair');
    const pair = section ? new TextDecoder().decode(section) : 'none';
    if (pair !== instance.pair) {
      throw new PairMismatch(REST + ' is of build ' + pair + ', the page\'s first part of build ' + instance.pair);
    }
    new WebAssembly.Instance(module, { primary: instance.exportsOf() });
  } catch (err) {
    if (isMismatch(err)) mismatched(err);
    throw err;
  }
  instance.linked = true;
  const at = unlinked.indexOf(instance);
  if (at >= 0) unlinked.splice(at, 1);
  if (!unlinked.length) restCame();
}
// A rest that does not fit: no retry mends that, so every console says so, once.
function mismatched(err) {
  console.error('Redsim: the console module\'s two parts come from different builds', err);
  const hosts = [...document.querySelectorAll('[data-redsim], #redsim')];
  for (const host of hosts.length ? hosts : [document.body]) {
    if (host.querySelector(':scope > .rs-rest-error')) continue;
    const note = document.createElement('p');
    note.className = 'rs-loading rs-load-error rs-rest-error';
    note.setAttribute('role', 'alert');
    note.textContent = 'Part of the console could not load: its two wasm files come from different '
      + 'builds (' + err.message + '). Reload the page; if this stays, the site serves an old copy of '
      + 'one of them: deploy the files of one build together.';
    host.prepend(note);
  }
}
function linkRest() {
  for (const instance of [...unlinked]) {
    restModule(instance.url).then((m) => link(instance, m)).catch((err) => {
      if (isMismatch(err)) return;
      console.error('Redsim: the console module\'s rest could not load (it is tried again when needed)', err);
    });
  }
}
globalThis.redsimPlaceholders = (exportsOf, pair) => {
  const url = new URL(REST, here);
  url.searchParams.set('v', pair);
  const instance = { exportsOf, url: url.href, pair, linked: false };
  unlinked.push(instance);
  const linkNow = () => {
    if (!instance.linked) {
      window.redsimRestEarly += 1;
      link(instance, restModuleNow(instance.url));
    }
  };
  // The first part's own stubs stand in for the moved functions and call `link` first; `dist`
  // leaves no other placeholder import (crates/xtask/src/split.rs), and a first part of another
  // build could not use a rest fetched under this page's pair anyway.
  return { link: linkNow };
};

// After an upgrade the lab module runs the consoles too (see below), and restarts start it.
let full = false;
function start() {
  lab = full ? Promise.resolve() : null;
  return instantiate(full ? LAB : CONSOLE);
}

// The console module leaves out Redis' heavy commands (scripting, streams, geo, ACL, cluster,
// replication, persistence, DEBUG, and a few rarely used ones such as SORT and BITFIELD). The
// first time a console needs one, the page moves to the lab module, whose engine is whole: it is
// downloaded and compiled while the consoles stay on screen, then each console writes its session
// as a link (commands and the virtual time between them, as its Share button does), the console
// module's apps are unmounted, and the lab module starts as the full console, rebuilding each
// session from its link (web/src/handover.rs).
const LAB = 'redsim-lab';
let upgrading = null;
window.redsimPrefetchFull = () => {
  compiledModule(LAB);
};
window.redsimUpgrade = () => {
  if (upgrading || full) return upgrading;
  let retired = false;
  upgrading = (async () => {
    if (!(await compiledModule(LAB))) {
      // Not compiled ahead (a server without application/wasm, or a failed download): make
      // sure the file can be had before the consoles are given up.
      const response = await fetch(new URL(LAB + '_bg.wasm', here));
      if (!response.ok) throw new Error('HTTP ' + response.status + ' for ' + LAB + '_bg.wasm');
    }
    window.redsimHandoverLinks = [];
    if (window.redsimAskHandover) window.redsimAskHandover();
    // The consoles answer in a microtask of the console module's scheduler.
    await new Promise((done) => setTimeout(done, 0));
    retired = true;
    retireAll();
    full = true;
    window.redsimFull = true;
    generation += 1;
    freshHosts();
    try {
      await start();
    } finally {
      delete window.redsimHandoverLinks;
    }
  })().catch((err) => {
    console.error('Redsim: the full engine could not load', err);
    if (retired) {
      showLoadError(err);
      return;
    }
    // The consoles are still there: say why their command waits, and let a later one retry.
    upgrading = null;
    compiled[LAB] = null;
    for (const host of document.querySelectorAll(HOSTS)) {
      const note = document.createElement('p');
      note.className = 'rs-loading rs-load-error';
      note.textContent = 'The full engine could not load (' + err + '): reload the page to run the waiting command.';
      host.prepend(note);
    }
  });
  return upgrading;
};

// Called by the console module when the page needs the lab module: fetches and starts it once
// per generation; the lab mounts every place left for it. With `later`, for lab widgets that sit
// beside consoles on a documentation page, it waits until the consoles have drawn and the page
// is idle, so the lab's download never delays a console's first reply.
window.redsimLoadLab = (later) => {
  if (lab || full) return lab;
  const wait = later ? idle() : Promise.resolve();
  lab = wait.then(() => instantiate('redsim-lab')).catch((err) => {
    console.error('Redsim: the lab could not load', err);
    for (const note of document.querySelectorAll('.rs-lab-loading')) {
      note.textContent = 'The lab could not load: ' + err;
    }
    lab = null;
  });
  return lab;
};

// The command docs (syntax lines and summaries) the console module leaves out: fetched once,
// as text, for HELP, COMMAND DOCS and the typing hints (web/src/docs.rs). With `later` it waits,
// like the lab, until the page has drawn and is idle, unless a call without `later` (a command
// waiting for them) comes first; a failed fetch may be retried.
let docs = null;
let docsNow = null;
window.redsimFetchDocs = (later) => {
  if (!later && docsNow) docsNow();
  if (docs) return docs;
  const wait = later
    ? new Promise((go) => {
        docsNow = go;
        idle().then(go);
      })
    : Promise.resolve();
  docs = wait
    .then(() => {
      docsNow = null;
      return fetch(new URL('redsim-docs.txt', here));
    })
    .then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.text();
    })
    .catch((err) => {
      docs = null;
      throw err;
    });
  return docs;
};

// Once the page is idle after its start: what waits for that (the console module's rest, the
// command docs, a lab asked for ahead) is fetched and compiled then, not on the cores that are
// still drawing the start. The frame that shows a console's first reply is not drawn when its
// main-thread part has run: its raster, compositing and presentation take another 30 to 50 ms
// on a 2-core machine, and a fetch begun then (the rest is 190 KB of brotli to decode, store and
// compile) holds the reply back. A held page (above) is first drawn in that very frame, so its
// first contentful paint, reported once presented, says the reply is on screen; where the page
// was drawn before its console started, the entry is there already and only two frames and an
// idle callback are waited for, as before.
let presented = null;
function firstPaintPresented() {
  if (!presented) {
    presented = new Promise((done) => {
      const Observer = window.PerformanceObserver;
      if (!Observer || !(Observer.supportedEntryTypes || []).includes('paint')) return done();
      const seen = new Observer((list) => {
        if (list.getEntriesByName('first-contentful-paint').length) {
          seen.disconnect();
          done();
        }
      });
      seen.observe({ type: 'paint', buffered: true });
      // A page that never paints anything contentful still gets what waits.
      setTimeout(done, 1000);
    });
  }
  return presented;
}

function idle() {
  return firstPaintPresented().then(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
    if (window.requestIdleCallback) window.requestIdleCallback(done, { timeout: 1000 });
    else setTimeout(done, 50);
  }))));
}

function showLoadError(err) {
  release();
  for (const host of document.querySelectorAll(HOSTS)) {
    const box = document.createElement('p');
    box.className = 'rs-loading rs-load-error';
    box.textContent = 'The playground could not start: ' + err;
    host.replaceChildren(box);
  }
}

// Replaces every host by a clone with its attributes only, which drops the old instance's DOM and
// event listeners; the mark the lab leaves on what it mounted goes too, so the new instance
// mounts there again.
function freshHosts() {
  for (const host of document.querySelectorAll(HOSTS)) {
    const clone = host.cloneNode(false);
    clone.removeAttribute('data-redsim-mounted');
    host.replaceWith(clone);
  }
}

// Unmounts the apps of the instances running (the console module's, or the lab's beside it), so
// none keeps its timers on a page that replaced it. A crashed instance cannot answer: skipped.
function retireAll() {
  // A retired instance needs no rest, and its parts waiting for it never come.
  unlinked.length = 0;
  afterRest.length = 0;
  restTime = false;
  for (const name of ['redsimRetire', 'redsimRetireLab']) {
    try {
      if (window[name]) window[name]();
    } catch (_) {
      // That instance is the one that crashed.
    }
    delete window[name];
  }
}

// Called by the crash overlay's Reset button: the new instance mounts into fresh hosts.
window.redsimReset = async () => {
  retireAll();
  generation += 1;
  freshHosts();
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
  release();
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
// The theme is set once the console module is on its way: reading the stored choice is a
// synchronous round trip to the browser's storage (a few milliseconds on a cold profile) that
// the module's download and compilation need not wait for. It still comes before anything is
// drawn from the module, which runs in later tasks.
applyTheme();
