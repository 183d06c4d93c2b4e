// Redsim loader: starts the wasm playground (which mounts into every [data-redsim], #redsim,
// [data-redsim-scenario] and [data-redsim-topology] element) and, after a crash, re-creates it. Files are found relative to this script, so the
// site can live under any sub-path.
const here = new URL('.', import.meta.url);
const HOSTS = '[data-redsim], #redsim, [data-redsim-scenario], [data-redsim-topology]';
let generation = 0;

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

start().catch((err) => {
  console.error('Redsim: could not start', err);
  showLoadError(err);
});
