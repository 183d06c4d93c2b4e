//! The browser playground, built as two wasm modules from this one library: the console module (`redsim-web`, `main.rs`) mounts a Redsim widget (console with client tabs, clock, keyspace, key inspector, timeline) into every `[data-redsim]` element and the `#redsim` element of the playground page, each with its own engine; the lab module (`redsim-lab`, `bin/lab.rs`) is fetched only when a page needs its views.
//!
//! Widgets are configured by attributes on their element: `data-seed`,
//! `data-commands` (one command per line, run on load) and `data-clock="paused"`.
//! The playground element (`#redsim`, or any element with `data-url`) also
//! reads `?cmd=…&seed=…&clock=paused` from the page URL and offers a Share
//! link; its URL settings win over its attributes. The playground element
//! also has a Scenarios tab (opened by `?scenario=<id>`), and every
//! `[data-redsim-scenario="<id>"]` element gets that one scenario. Its
//! Topology tab (`?tab=topology&seed=…&do=…&t=…`) is also embeddable as
//! `[data-redsim-topology]` (with `data-seed` and `data-params`). Its
//! Lessons tab (`?tab=lessons&lesson=<chapter>&step=<n>`) is embeddable as
//! `[data-redsim-lesson="<chapter>"]` (with an optional `data-redsim-step`).
//!
//! Why two modules: a page that embeds one console should download the
//! engine and the console only. The lab (scenarios, cluster, topology,
//! lessons, their drawings and the simulated world) is most of the rest,
//! so it is a second module, loaded by `assets/redsim.js` the first time a
//! page shows one of its views ([`dom::load_lab`]). Each module has its own
//! engine instance; nothing is shared between them but the page.
//!
//! The console module is built `light` (the `light` feature): its engine
//! leaves out the heavy command families (scripting, streams, geo, ACL,
//! cluster, replication, persistence, DUMP/RESTORE, MIGRATE, DEBUG, LATENCY,
//! SLOWLOG, LOLWUT) and a few rarely used commands (SORT, LCS, BITFIELD,
//! PFDEBUG, PFSELFTEST, MEMORY STATS, DOCTOR, MALLOC-STATS), over a third
//! of the module. The first time a console needs one, the page moves
//! to the lab module, which then runs the consoles too ([`handover`]).

mod bench;
mod bench_scen;
mod cluster;
mod console;
mod docs;
mod dom;
mod fmt;
mod handover;
mod keys;
mod lab;
mod lessons;
mod links;
mod live_svg;
mod minimal;
mod mount;
mod page;
mod panels;
mod panic;
mod scenarios;
mod topology;
mod ui;
mod url;

/// Both modules allocate with talc, not the target's default dlmalloc: the
/// scenarios allocate on every event, and dlmalloc's malloc and free took some
/// 15% of the browser's scenario time in profiles; with talc the catalogue ran
/// 6% faster (stampede 11%), and the module is smaller.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The console module's start: widgets, the page shell, and the lab
/// requested when the page has views of it.
pub fn start_console() {
    panic::install();
    handover::install_console();
    mount::mount_all(|| {});
}

/// The lab module's start: mounts every lab view the page holds (embedded
/// scenario, lesson and topology elements, the shell's lab tabs, an iframe's
/// lab widget) and exposes the browser benchmarks. Started as the full
/// console (a light console handed over, see [`handover`]), it mounts the
/// consoles and the page shell first, from the sessions handed over.
pub fn start_lab() {
    panic::install();
    bench::install();
    bench_scen::install();
    if handover::is_full_start() {
        // The lab's views go where the console's shell leaves them places.
        mount::mount_all(lab::mount_all);
    } else {
        handover::install_retire("redsimRetireLab");
        lab::mount_all();
    }
}
