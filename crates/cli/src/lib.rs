//! The native `redsim` server: RESP over TCP for real Redis clients, with the engine's clock following the wall clock.

/// Options parsed from `redsim server` arguments.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub config: redsim_engine::config::Config,
    pub seed: u64,
}

impl ServerOptions {
    /// Parses `--port N --bind ADDR --<config-name> <value> ...`.
    pub fn from_args(_args: &[String]) -> Result<ServerOptions, String> {
        Err("not yet".into())
    }
}

/// A server running on a background thread; stops when dropped.
pub struct RunningServer;

/// Starts the server on a background thread.
pub fn spawn(_opts: ServerOptions) -> std::io::Result<RunningServer> {
    Err(std::io::Error::other("not yet"))
}
