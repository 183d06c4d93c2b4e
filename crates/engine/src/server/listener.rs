//! The TCP listeners behind `bind` and `port` (`changeListener`): CONFIG SET moves them, through the driver that owns the sockets; without one (the browser, the simulator) there is nothing to move and the values are only kept.

/// A driver's listening sockets. The engine opens no sockets itself: a
/// driver with a network installs its own through `Engine::set_listener`.
pub trait Listener: Send + Sync {
    /// Listens on `bind` (`bind`'s value: addresses, `*` and `::*` for any,
    /// a leading `-` for one that may be missing) at `port` instead of
    /// where it listens now; no address, or port 0, listens nowhere
    /// (connections already open stay). `Err`: the system's reason, and the
    /// old sockets keep listening, as Redis' rollback leaves them.
    fn listen(&self, bind: &str, port: u16) -> Result<(), String>;
}

/// No sockets: any address and port are accepted and nothing moves.
pub struct NoListener;

impl Listener for NoListener {
    fn listen(&self, _: &str, _: u16) -> Result<(), String> {
        Ok(())
    }
}
