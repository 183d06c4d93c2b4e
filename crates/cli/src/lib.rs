//! The native `redsim` server: RESP over TCP for real Redis clients, with the engine's clock following the wall clock; the headless scenario runner (module `run`); the course (`redsim lessons`, module `lessons`); `redsim replay` against a real server (module `replay`) and `redsim run --against` (module `run`), both through the blocking client in `remote`.
//!
//! [`ServerOptions::from_args`] reads a redis-server style command line,
//! [`run`] serves in the foreground (the binary) and [`spawn`] on a
//! background thread (tests). The engine itself does no I/O and reads no
//! clock: this crate is where wall time enters, once per request and on
//! every cron tick.

pub mod conffile;
pub mod framing;
pub mod lessons;
mod migrate_links;
mod net;
pub mod options;
mod oserror;
pub mod remote;
pub mod replay;
pub mod run;
mod serverlog;

pub use net::{
    guarded, run, run_cluster, run_sentinel, spawn, spawn_cluster, spawn_sentinel, RunningServer,
    SentinelSetup,
};
pub use options::{server_usage, usage, ClockMode, ClusterOptions, ServerOptions};
