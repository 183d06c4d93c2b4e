//! The browser playground: mounts a Redsim widget (console with client tabs, clock, keyspace, key inspector, timeline) into every `[data-redsim]` element and the `#redsim` element of the playground page, each with its own engine.
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

mod bench;
mod cluster;
mod console;
mod dom;
mod fmt;
mod keys;
mod lessons;
mod minimal;
mod mount;
mod page;
mod panels;
mod panic;
mod scenarios;
mod topology;
mod url;

fn main() {
    panic::install();
    bench::install();
    mount::mount_all();
}
