//! The outgoing connections MIGRATE makes (`migrateGetSocket` and its cache of sockets): a driver with a network provides them; without one (the browser, the simulator) no connection can be made, as for an address that does not resolve.

/// Blocking connections to other servers, cached per `host:port` as
/// Redis caches MIGRATE's sockets. The engine opens no sockets itself: a
/// driver installs its own through `Engine::set_migrate_links`.
pub trait MigrateLinks: Send + Sync {
    /// The cached connection to `host:port`, or a new one made within
    /// `timeout_ms`: the database last selected on it (-1 for a new one),
    /// `None` if it cannot be made.
    fn open(&self, host: &str, port: &str, timeout_ms: u64) -> Option<i64>;
    /// Writes all of `data` within `timeout_ms`; `Err(timed_out)` otherwise.
    fn write(&self, host: &str, port: &str, data: &[u8], timeout_ms: u64) -> Result<(), bool>;
    /// Reads one reply line (without its CRLF) within `timeout_ms`;
    /// `Err(timed_out)` otherwise.
    fn read_line(&self, host: &str, port: &str, timeout_ms: u64) -> Result<Vec<u8>, bool>;
    /// Remembers the database now selected on the connection.
    fn set_last_db(&self, host: &str, port: &str, db: i64);
    /// Drops the cached connection (`migrateCloseSocket`).
    fn close(&self, host: &str, port: &str);
}

/// No network: every connection fails.
pub struct NoLinks;

impl MigrateLinks for NoLinks {
    fn open(&self, _: &str, _: &str, _: u64) -> Option<i64> {
        None
    }
    fn write(&self, _: &str, _: &str, _: &[u8], _: u64) -> Result<(), bool> {
        Err(false)
    }
    fn read_line(&self, _: &str, _: &str, _: u64) -> Result<Vec<u8>, bool> {
        Err(false)
    }
    fn set_last_db(&self, _: &str, _: &str, _: i64) {}
    fn close(&self, _: &str, _: &str) {}
}
